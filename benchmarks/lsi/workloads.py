"""LSI workloads and peers shared by bench.py and compare.py.

- a synthetic tf-idf matrix (Zipf-distributed terms) for the randomized SVD, with
  scikit-learn's ``randomized_svd`` as the peer;
- synthetic corpora for out-of-core training;
- AM scoring: fastamfm's ``adequacy`` against a scikit-learn CountVectorizer + numpy
  pipeline over the same model (U_k and vocabulary).
"""
from __future__ import annotations

import re
import resource
import time
from pathlib import Path

import numpy as np

K, OVERSAMPLING, POWER_ITERATIONS = 100, 10, 5


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def zipf_probabilities(n: int, offset: float = 10.0) -> np.ndarray:
    p = 1.0 / (np.arange(n) + offset)
    return p / p.sum()


# --- randomized SVD ---------------------------------------------------------------------
def make_matrix(path: Path, docs: int, terms: int, mean_length: float, seed: int = 0) -> None:
    import scipy.sparse
    from sklearn.feature_extraction.text import TfidfTransformer

    rng = np.random.default_rng(seed)
    lengths = rng.poisson(mean_length, docs)
    rows = np.repeat(np.arange(docs, dtype=np.int32), lengths)
    cols = rng.choice(terms, size=int(lengths.sum()), p=zipf_probabilities(terms)).astype(np.int32)
    counts = scipy.sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(docs, terms))
    counts.sum_duplicates()
    x = TfidfTransformer().fit_transform(counts).tocsr()
    np.savez(path, indptr=x.indptr.astype(np.int64), indices=x.indices.astype(np.int32), data=x.data,
             shape=np.array(x.shape))


def load_matrix(path: Path):
    import scipy.sparse

    f = np.load(path)
    return scipy.sparse.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"]))


def fastamfm_svd(x, k: int = K) -> np.ndarray:
    """Singular values from fastamfm's streamed randomized SVD."""
    from fastamfm.amfm.lsi import sparse_randomized_svd

    return sparse_randomized_svd(x, k, oversampling=OVERSAMPLING, power_iterations=POWER_ITERATIONS)[0]


def sklearn_svd(x, k: int = K) -> np.ndarray:
    """Singular values from scikit-learn's randomized_svd, same k, oversampling and power iterations."""
    from sklearn.utils.extmath import randomized_svd

    return randomized_svd(x, k, n_oversamples=OVERSAMPLING, n_iter=POWER_ITERATIONS, random_state=0)[1]


def svd_in_this_process(side: str, matrix_path: Path, out: Path) -> dict:
    """One side's SVD of the matrix file, measured inside its own process (time and
    CPU of the SVD alone; peak RSS, and the RSS once the matrix is loaded)."""
    x = load_matrix(matrix_path)
    loaded = peak_rss_mb()
    start, cpu = time.perf_counter(), cpu_seconds()
    s = fastamfm_svd(x) if side == "fastamfm" else sklearn_svd(x)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    np.save(out, s)
    return {"seconds": seconds, "cpu": cpu, "peak_mb": peak_rss_mb(), "loaded_mb": loaded, "nnz": int(x.nnz)}


# --- out-of-core training -----------------------------------------------------------------
def write_corpus(path: Path, sentences: int, vocabulary: int = 100_000, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocabulary)])
    p = zipf_probabilities(vocabulary)
    tmp = path.with_suffix(".part")
    with open(tmp, "w", encoding="utf-8") as f:
        for start in range(0, sentences, 500_000):
            n = min(500_000, sentences - start)
            lengths = rng.poisson(11, n) + 1
            tokens = words[rng.choice(vocabulary, size=int(lengths.sum()), p=p)].tolist()
            ends = np.cumsum(lengths).tolist()
            lines, begin = [], 0
            for end in ends:
                lines.append(" ".join(tokens[begin:end]))
                begin = end
            f.write("\n".join(lines) + "\n")
    tmp.rename(path)


def train_out_of_core(corpus: Path, max_memory: int, tmp_dir: Path) -> dict:
    import fastamfm

    start, cpu = time.perf_counter(), cpu_seconds()
    model = fastamfm.LsiModel.train(corpus, dims=K, oversampling=OVERSAMPLING, power_iterations=POWER_ITERATIONS,
                                    max_memory=max_memory, tmp_dir=tmp_dir, tokenize="whitespace")
    return {"seconds": time.perf_counter() - start, "cpu": cpu_seconds() - cpu, "peak_mb": peak_rss_mb(),
            "terms": len(model.vocabulary), "documents": model.settings["documents"],
            "s0": float(model.singular_values[0])}


# --- AM scoring -----------------------------------------------------------------------------
_KEPT = re.compile(r"(['\-%])")
_DROPPED = re.compile(r"[!\"#$&()*+,./:;<=>?@\[\\\]^_`{|}~]")


def regex_amfm_tokenize(text: str) -> list[str]:
    """The amfm preset for ASCII text with two regular expressions: the fastest plain-Python peer."""
    return _DROPPED.sub(" ", _KEPT.sub(r" \1 ", text.lower())).split()


def sklearn_train(turns, k: int):
    """The peer of LsiModel.train: CountVectorizer counts and randomized_svd (vocabulary, singular values)."""
    from sklearn.feature_extraction.text import CountVectorizer

    cv = CountVectorizer(tokenizer=regex_amfm_tokenize, lowercase=False, token_pattern=None, dtype=np.float64)
    x = cv.fit_transform(turns)
    return cv.get_feature_names_out(), sklearn_svd(x, k)


class SklearnAM:
    """The peer: CountVectorizer counts x U, normalised rows, cosines with numpy, clip, max."""

    def __init__(self, refs: list, model, dims: int):
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.preprocessing import normalize

        self.normalize = normalize
        self.u = np.asarray(model.components[:, :dims], dtype=np.float64)
        self.cv = CountVectorizer(vocabulary=model.vocabulary, tokenizer=regex_amfm_tokenize, lowercase=False,
                                  token_pattern=None, dtype=np.float64)
        per_segment = len(refs[0])
        flat = [r for group in refs for r in group]
        self.refs = normalize(np.asarray(self.cv.transform(flat) @ self.u)).reshape(len(refs), per_segment, dims)

    def score(self, hyps: list) -> np.ndarray:
        h = self.normalize(np.asarray(self.cv.transform(hyps) @ self.u))
        return np.maximum(np.einsum("nrd,nd->nr", self.refs, h), 0.0).max(axis=1)


class FastamfmAM:
    """fastamfm's AM with the references prepared once (``References``: their projection
    is kept on it)."""

    def __init__(self, refs: list, model, dims: int):
        import fastamfm

        self.adequacy, self.model, self.dims = fastamfm.adequacy, model, dims
        self.refs = fastamfm.References(refs, tokenize="amfm", max_order=1)
        self.score(["warm up"] * len(refs))  # projects the references once (cached with them)

    def score(self, hyps: list) -> np.ndarray:
        return self.adequacy(hyps, self.refs, self.model, dims=self.dims).sentences["AM"]
