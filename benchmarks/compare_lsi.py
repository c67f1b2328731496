"""LSI side by side with its peers, in one run, as ratios.

  svd  fastamfm's streamed randomized SVD vs scikit-learn's randomized_svd (same k,
       oversampling and power iterations) on a synthetic tf-idf matrix of 1M documents
       x 100k terms with ~14M non-zeros (Zipf-distributed terms). Each side runs in its
       own subprocess that loads the same matrix; time and peak RSS (ru_maxrss) are
       the subprocess's own. The singular values of the two are compared.
  ooc  out-of-core training (LsiModel.train with max_memory) of synthetic corpora of
       N sentences written to /tmp: time and peak RSS of the training subprocess.
  am   AM of the 20 DSTC-6 systems (2000 responses x 11 references each) with a model
       trained on the TWCS agent turns, vs a scikit-learn CountVectorizer + numpy
       pipeline; both encode the references once. Scores compared.

    python benchmarks/compare_lsi.py                 # all, full sizes
    python benchmarks/compare_lsi.py am --repeats 5
    python benchmarks/compare_lsi.py ooc --sentences 2000000,5000000
Generated data goes to $FASTAMFM_BENCH_DIR (default /tmp/fastamfm_bench).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(REPO / "python"), str(REPO / "tests")]
BENCH_DIR = Path(os.environ.get("FASTAMFM_BENCH_DIR", "/tmp/fastamfm_bench"))
SHARED = Path(os.environ.get("FASTAMFM_SHARED_DATA", REPO.parent / "shared" / "data"))
if not SHARED.exists():
    SHARED = Path("/work/shared/data")

K, OVERSAMPLING, POWER_ITERATIONS = 100, 10, 5


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def zipf_probabilities(n: int, offset: float = 10.0) -> np.ndarray:
    p = 1.0 / (np.arange(n) + offset)
    return p / p.sum()


# --- workers (run in subprocesses) ---------------------------------------------------
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


def worker_svd(side: str, matrix_path: Path, out: Path) -> dict:
    x = load_matrix(matrix_path)
    loaded = peak_rss_mb()
    start = time.perf_counter()
    if side == "fastamfm":
        from fastamfm.lsi import sparse_randomized_svd

        s, _ = sparse_randomized_svd(x, K, oversampling=OVERSAMPLING, power_iterations=POWER_ITERATIONS)
    else:
        from sklearn.utils.extmath import randomized_svd

        _, s, _ = randomized_svd(x, K, n_oversamples=OVERSAMPLING, n_iter=POWER_ITERATIONS, random_state=0)
    seconds = time.perf_counter() - start
    np.save(out, s)
    return {"seconds": seconds, "peak_mb": peak_rss_mb(), "loaded_mb": loaded, "nnz": int(x.nnz)}


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


def worker_ooc(corpus: Path, max_memory: int) -> dict:
    import fastamfm

    start = time.perf_counter()
    model = fastamfm.LsiModel.train(corpus, dims=K, oversampling=OVERSAMPLING, power_iterations=POWER_ITERATIONS,
                                    max_memory=max_memory, tmp_dir=BENCH_DIR, tokenize="whitespace")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_mb": peak_rss_mb(), "terms": len(model.vocabulary),
            "documents": model.settings["documents"], "s0": float(model.singular_values[0])}


def run_worker(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- the comparisons -------------------------------------------------------------------------
def compare_svd(repeats: int) -> None:
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    matrix = BENCH_DIR / "tfidf_1m_docs_100k_terms.npz"
    if not matrix.exists():
        print("generating the 1M x 100k tf-idf matrix ...", flush=True)
        run_worker("make-matrix", str(matrix))
    results = {}
    for side in ("fastamfm", "sklearn"):
        runs = [run_worker("svd", side, str(matrix), str(BENCH_DIR / f"s_{side}.npy")) for _ in range(repeats)]
        results[side] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    s_ours = np.load(BENCH_DIR / "s_fastamfm.npy")
    s_sk = np.load(BENCH_DIR / "s_sklearn.npy")
    ours, sk = results["fastamfm"], results["sklearn"]
    print(f"\nrandomized SVD, k={K}, oversampling={OVERSAMPLING}, power iterations={POWER_ITERATIONS}, "
          f"{ours['nnz']:,} non-zeros, median of {repeats}")
    print(f"{'':28}{'fastamfm':>12}{'sklearn':>12}{'ratio':>10}")
    print(f"{'seconds':28}{ours['seconds']:12.2f}{sk['seconds']:12.2f}{sk['seconds'] / ours['seconds']:9.2f}x")
    print(f"{'peak RSS (MB)':28}{ours['peak_mb']:12.0f}{sk['peak_mb']:12.0f}{ours['peak_mb'] / sk['peak_mb']:9.2f}x")
    extra_ours, extra_sk = ours["peak_mb"] - ours["loaded_mb"], sk["peak_mb"] - sk["loaded_mb"]
    print(f"{'peak over loaded matrix (MB)':28}{extra_ours:12.0f}{extra_sk:12.0f}{extra_ours / extra_sk:9.2f}x")
    rel = np.abs(s_ours - s_sk) / s_sk
    print(f"singular values: max relative difference {rel.max():.2e} (top 10: {rel[:10].max():.2e}); "
          f"sum fastamfm {s_ours.sum():.4f} vs sklearn {s_sk.sum():.4f}")


def compare_ooc(sizes: list[int], max_memory: int) -> None:
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    print(f"\nout-of-core training, dims={K}, max_memory={max_memory >> 20} MiB, whitespace tokens")
    print(f"{'sentences':>12}{'seconds':>10}{'peak RSS MB':>13}{'terms':>9}{'corpus MB':>11}")
    for n in sizes:
        corpus = BENCH_DIR / f"corpus_{n}.txt"
        if not corpus.exists():
            start = time.perf_counter()
            run_worker("write-corpus", str(corpus), str(n))
            print(f"  (wrote {corpus} in {time.perf_counter() - start:.0f} s)", flush=True)
        r = run_worker("ooc", str(corpus), str(max_memory))
        assert r["documents"] == n
        print(f"{n:12,}{r['seconds']:10.1f}{r['peak_mb']:13.0f}{r['terms']:9,}{corpus.stat().st_size / 2**20:11.0f}",
              flush=True)


_KEPT = re.compile(r"(['\-%])")
_DROPPED = re.compile(r"[!\"#$&()*+,./:;<=>?@\[\\\]^_`{|}~]")


def regex_amfm_tokenize(text: str) -> list[str]:
    """The amfm preset for ASCII text with two regular expressions: the fastest plain-Python peer."""
    return _DROPPED.sub(" ", _KEPT.sub(r" \1 ", text.lower())).split()


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
    def __init__(self, refs: list, model, dims: int):
        import fastamfm

        self.adequacy, self.model, self.dims = fastamfm.adequacy, model, dims
        self.refs = fastamfm.References(refs, tokenize="amfm", max_order=1)
        self.score(["warm up"] * len(refs))  # projects the references once (cached with them)

    def score(self, hyps: list) -> np.ndarray:
        return self.adequacy(hyps, self.refs, self.model, dims=self.dims).sentences


def compare_am(repeats: int, dims: int) -> None:
    import fastamfm
    from fastamfm.io import read_lines, read_parallel_files

    from oracles.lsi import twcs_agent_turns

    dstc6 = SHARED / "dstc6_t2_evaluation"
    refs = read_parallel_files([dstc6 / "references" / "original_refs.txt"] +
                               [dstc6 / "references" / f"refgen_result{i}.txt" for i in range(1, 11)])
    systems = {f"S_{i}": read_lines(dstc6 / "hypotheses" / f"S_{i}.txt") for i in range(1, 21)}
    turns = twcs_agent_turns(SHARED / "twcs_airlines")
    start = time.perf_counter()
    model = fastamfm.LsiModel.train(turns, dims=dims, seed=0)
    train_seconds = time.perf_counter() - start
    model.fingerprint  # computed once per model; not part of scoring

    def timed(side):
        prepare, score, scores = [], [], None
        for _ in range(repeats):
            start = time.perf_counter()
            scorer = side(refs, model, dims)
            middle = time.perf_counter()
            scores = {name: scorer.score(hyps) for name, hyps in systems.items()}
            prepare.append(middle - start)
            score.append(time.perf_counter() - middle)
        return statistics.median(prepare), statistics.median(score), scores

    p_ours, s_ours, ours = timed(FastamfmAM)
    p_sk, s_sk, sk = timed(SklearnAM)
    diff = max(float(np.max(np.abs(ours[s] - sk[s]))) for s in systems)
    n = sum(len(h) for h in systems.values())
    print(f"\nAM of the 20 DSTC-6 systems ({n} responses x 11 references), dims={dims}, model trained on "
          f"{len(turns)} TWCS agent turns in {train_seconds:.1f} s ({len(model.vocabulary)} terms); median of {repeats}")
    print(f"{'seconds':36}{'fastamfm':>10}{'sklearn':>10}{'ratio':>9}")
    print(f"{'encode + project the references':36}{p_ours:10.3f}{p_sk:10.3f}{p_sk / p_ours:8.1f}x")
    print(f"{'score the 20 systems':36}{s_ours:10.3f}{s_sk:10.3f}{s_sk / s_ours:8.1f}x")
    total_ours, total_sk = p_ours + s_ours, p_sk + s_sk
    print(f"{'total':36}{total_ours:10.3f}{total_sk:10.3f}{total_sk / total_ours:8.1f}x")
    print(f"{'responses per second (scoring)':36}{n / s_ours:10,.0f}{n / s_sk:10,.0f}")
    print(f"max |AM difference| over all responses: {diff:.2e}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        kind, args = sys.argv[2], sys.argv[3:]
        if kind == "make-matrix":
            make_matrix(Path(args[0]), docs=1_000_000, terms=100_000, mean_length=15.0)
            result = {}
        elif kind == "svd":
            result = worker_svd(args[0], Path(args[1]), Path(args[2]))
        elif kind == "write-corpus":
            write_corpus(Path(args[0]), int(args[1]))
            result = {}
        else:
            result = worker_ooc(Path(args[0]), int(args[1]))
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="*", default=["svd", "ooc", "am"], choices=["svd", "ooc", "am"])
    parser.add_argument("--repeats", type=int, default=None, help="default: 1 for svd and ooc, 5 for am")
    parser.add_argument("--sentences", default="10000000", help="comma-separated corpus sizes for ooc")
    parser.add_argument("--max-memory", type=int, default=1 << 30, help="bytes, for ooc")
    parser.add_argument("--dims", type=int, default=100, help="for am")
    args = parser.parse_args()
    if "am" in args.what:
        compare_am(args.repeats or 5, args.dims)
    if "svd" in args.what:
        compare_svd(args.repeats or 1)
    if "ooc" in args.what:
        compare_ooc([int(s) for s in args.sentences.split(",")], args.max_memory)


if __name__ == "__main__":
    main()
