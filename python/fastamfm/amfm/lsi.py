"""``LsiModel``: latent semantic indexing for the AM half of AM-FM.

Training reads the corpus once, streaming (a path to a text file with one sentence
per line, or any iterable of ``str``, generators included). The C++ core builds the
term-document matrix A (terms x sentences) in chunks, in memory or, with
``max_memory=``, on disk; then a randomized SVD (Halko, Martinsson & Tropp 2011)
finds the top ``dims`` left singular vectors:

    Y = A @ Omega                          Omega Gaussian, generated from the seed, never stored
    repeat power_iterations times:  Q = orth(Y);  Y = A @ (A.T @ Q)
    Q = orth(Y);  G = Q.T @ A @ A.T @ Q    (l x l, with l = dims + oversampling)
    G = V diag(s**2) V.T;   U = Q @ V

The sparse products run in C++ on all cores chunk by chunk; only term-sized blocks
(terms x l) and one chunk are ever in memory, never anything of size sentences x l.
orth (CholeskyQR2, Householder QR when Y is ill conditioned) and the small
eigendecomposition use numpy's LAPACK. The result is identical bit
for bit for the same seed on the same machine, whatever ``workers`` or ``max_memory``.

Tokenization defaults to the AM-FM toolkit's ``"amfm"`` preset (NFKC, lowercase,
punctuation removed except ``'``, ``-`` and ``%``, which become tokens). Text that is
already tokenized and lowercased, like DSTC-6's, is unchanged by it except for
punctuation tokens, which the toolkit drops too. The model remembers its tokenizer and
uses it for every sentence it projects.
"""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import os
import re
import tempfile
from typing import Any, Callable, Optional, cast

import numpy as np

from .. import _core
from ..progress import ProgressOption, stages
from ..tokenization import make_tokenizer, prepare_texts

__all__ = ["LsiModel", "WEIGHTINGS", "count_documents", "sparse_randomized_svd"]

log = logging.getLogger(__name__)

WEIGHTINGS = ("counts", "tfidf", "log-entropy")
_BATCH_LINES = 65536
_IN_MEMORY_CHUNK_BYTES = 256 << 20
_MIN_CHUNK_BYTES = 4096
# Singular values below this fraction of the largest are numerically zero: the
# eigenvalues of G are accurate to about 1e-16 * s[0]**2, i.e. s to ~1e-8 * s[0].
_RANK_TOLERANCE = 1e-7

# What the training steps report: (stage, done, total) (``fastamfm.progress.stages``).
Progress = Callable[[str, int, Optional[int]], None]
# The unit of each training stage's progress.
STAGE_UNITS = {"read": "sentence", "build": "step", "svd": "pass"}


def _check_int(name: str, value, minimum: int, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"LsiModel.train: {name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _corpus_batches(corpus, batch_lines: int):
    """(start index, list of texts) batches of a path or an iterable of str."""
    if isinstance(corpus, (str, os.PathLike)):
        path = os.fspath(corpus)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"LsiModel.train: corpus file {path} does not exist")
        reader = _core.LineReader(path)
        start = 0
        while True:
            batch = reader.read_chunk(batch_lines)
            if not batch:
                return
            yield start, batch
            start += len(batch)
    if isinstance(corpus, bytes):
        raise TypeError("LsiModel.train: corpus must be a path or an iterable of str, not bytes")
    try:
        iterator = iter(corpus)
    except TypeError:
        raise TypeError(f"LsiModel.train: corpus must be a path or an iterable of str, "
                        f"got {type(corpus).__name__}") from None
    start = 0
    while True:
        batch = list(itertools.islice(iterator, batch_lines))
        if not batch:
            return
        yield start, batch
        start += len(batch)


def _renumber(exc: Exception, start: int) -> Exception:
    """An error naming corpus[i] of a batch, renamed to the sentence's index in the corpus."""
    message = re.sub(r"corpus\[(\d+)\]", lambda m: f"corpus[{start + int(m.group(1))}]", str(exc))
    return type(exc)(message)


def _read_corpus(corpus, builder: _core.TermDocumentBuilder, tokenizer, workers: int,
                 progress: Optional[Progress]) -> None:
    """Streams the corpus into the builder, batch by batch, reporting "read" progress."""
    total = None
    if progress is not None and isinstance(corpus, (str, os.PathLike)) and os.path.isfile(corpus):
        total = _core.count_lines(os.fspath(corpus))
    for start, batch in _corpus_batches(corpus, _BATCH_LINES):
        try:
            builder.add(prepare_texts(batch, tokenizer, "corpus"), workers)
        except (TypeError, ValueError) as exc:
            raise _renumber(exc, start) from None
        if progress is not None:
            progress("read", builder.num_docs, total)
    log.info("LsiModel.train: read %d sentences, %d distinct words", builder.num_docs, builder.num_types)


def count_documents(texts, *, tokenize: str = "amfm", lowercase: bool = False, workers: int = -1,
                    first_index: int = 0) -> _core.CountedDocuments:
    """One part of a corpus (a list of str) tokenized and counted as ``LsiModel.train``
    counts it, for ``LsiModel.train_counted``; errors name ``corpus[first_index + i]``."""
    tokenizer = make_tokenizer(tokenize, lowercase)
    try:
        return _core.count_documents(prepare_texts(texts, tokenizer, "corpus"), tokenizer, workers)
    except (TypeError, ValueError) as exc:
        raise _renumber(exc, first_index) from None


def _stable_signs(u: np.ndarray) -> np.ndarray:
    """Flip columns so each one's largest-magnitude entry is positive (a reproducible sign)."""
    rows = np.argmax(np.abs(u), axis=0)
    signs = np.sign(u[rows, np.arange(u.shape[1])])
    signs[signs == 0] = 1.0
    return u * signs


def _orthonormal_basis(y: np.ndarray) -> np.ndarray:
    """Orthonormal columns spanning those of y (terms x l).

    CholeskyQR2 (Fukaya et al. 2014): Q = Y R^-1 with R^T R = Y^T Y, done twice; it is
    all matrix products, 5-10x faster than Householder QR on a tall thin matrix, and
    orthogonal to machine precision while cond(Y) < ~1e8, which the range finder's
    blocks satisfy unless the matrix is (nearly) rank deficient. Then, or if the
    result is not orthonormal, Householder QR (LAPACK) decides.
    """
    q = y
    try:
        for _ in range(2):
            r = np.linalg.cholesky(q.T @ q).T
            q = q @ np.linalg.inv(r)
        if np.all(np.isfinite(q)) and np.abs(q.T @ q - np.eye(q.shape[1])).max() < 1e-10:
            return q
    except np.linalg.LinAlgError:
        pass
    return np.linalg.qr(y)[0]


def _one_blas_thread():
    """The dense steps (QR, G, eigh) run on one BLAS thread: their bits then never depend
    on the BLAS thread count, and OpenBLAS's spinning threads cannot stall a busy
    machine (on 2 loaded cores a 20000 x 110 QR took 4 s threaded, 0.3 s on one)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # an optional dependency (scikit-learn brings it)
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _randomized_svd(matrix: _core.TermDocumentMatrix, dims: int, *, oversampling: int, power_iterations: int,
                    seed: int, workers: int, progress: Optional[Progress], what: str):
    """Top ``dims`` singular values and left singular vectors (float64) of the matrix."""
    rank_bound = min(matrix.num_terms, matrix.num_docs)
    if dims > rank_bound:
        raise ValueError(f"{what}: dims={dims} exceeds the rank of the {matrix.num_terms} x {matrix.num_docs} "
                         f"term-document matrix (at most {rank_bound}); use dims <= {rank_bound}")
    width = min(dims + oversampling, rank_bound)
    passes = power_iterations + 2
    chunks = matrix.num_chunks

    def pass_progress(index: int):
        if progress is None:
            return None
        return lambda done, total: progress("svd", index * chunks + done, passes * chunks)

    log.info("%s: randomized SVD of a %d x %d matrix (%d non-zeros, %d chunk(s)%s), l=%d, %d power iterations",
             what, matrix.num_terms, matrix.num_docs, matrix.nnz, chunks, " on disk" if matrix.on_disk else "",
             width, power_iterations)
    with _one_blas_thread():
        return _range_finder_svd(matrix, dims, width, power_iterations, seed, workers, pass_progress, what)


def _range_finder_svd(matrix, dims, width, power_iterations, seed, workers, pass_progress, what):
    passes = power_iterations + 2
    y = matrix.multiply_gaussian(seed, width, workers, pass_progress(0))
    for i in range(power_iterations):
        q = _orthonormal_basis(y)
        y = matrix.multiply_a_at(q, workers, pass_progress(1 + i))
        log.debug("%s: power iteration %d/%d done", what, i + 1, power_iterations)
    q = _orthonormal_basis(y)
    del y
    w = matrix.multiply_a_at(q, workers, pass_progress(passes - 1))
    gram = q.T @ w  # = (Q^T A)(Q^T A)^T, l x l
    del w
    eigenvalues, vectors = np.linalg.eigh((gram + gram.T) * 0.5)
    order = np.argsort(eigenvalues)[::-1][:dims]
    singular_values = np.sqrt(np.maximum(eigenvalues[order], 0.0))
    numerical_rank = int(np.sum(singular_values > singular_values[0] * _RANK_TOLERANCE))
    if numerical_rank < dims:
        raise ValueError(f"{what}: dims={dims} exceeds the numerical rank ({numerical_rank}) of the "
                         f"{matrix.num_terms} x {matrix.num_docs} term-document matrix; use dims <= {numerical_rank}")
    u = _stable_signs(q @ vectors[:, order])
    return singular_values, u


def sparse_randomized_svd(x, dims: int, *, oversampling: int = 10, power_iterations: int = 5, seed: int = 0,
                          workers: int = -1):
    """Randomized SVD of a scipy sparse matrix ``x`` (documents x terms, scikit-learn's orientation).

    Returns ``(singular_values, components)``: the top ``dims`` singular values and the
    matching right singular vectors of ``x`` as a terms x dims float64 array (what
    ``sklearn.utils.extmath.randomized_svd(x, dims)[2].T`` estimates, up to column signs).
    Runs the same streamed C++ products as ``LsiModel.train``.
    """
    import scipy.sparse

    if not scipy.sparse.issparse(x):
        raise TypeError(f"sparse_randomized_svd: x must be a scipy sparse matrix, got {type(x).__name__}")
    # cast: issparse narrows x to scipy-stubs' abstract SparseABC, which csr_matrix's overloads do not list
    x = scipy.sparse.csr_matrix(cast(Any, x))
    dims = _check_int("dims", dims, 1)
    matrix = _core.TermDocumentMatrix.from_csr(x.shape[0], x.shape[1], x.indptr.astype(np.int64, copy=False),
                                               x.indices.astype(np.int64, copy=False),
                                               x.data.astype(np.float64, copy=False))
    return _randomized_svd(matrix, dims, oversampling=_check_int("oversampling", oversampling, 0),
                           power_iterations=_check_int("power_iterations", power_iterations, 0),
                           seed=_check_int("seed", seed, 0), workers=workers, progress=None,
                           what="sparse_randomized_svd")


class LsiModel:
    """Vocabulary, U_k and singular values of an LSI space, and the settings that made it.

    ``vocabulary``: list of the V terms (sorted by their UTF-8 bytes);
    ``components``: V x k float32, row t = term t's coordinates (U_k, no Sigma scaling);
    ``singular_values``: k values, descending. Any ``dims <= k`` can be used when
    projecting or scoring, so one trained model serves a whole sweep of dimensions.

    Build it with ``LsiModel.train`` or ``LsiModel.load``; a trained model is immutable, so
    one instance can be shared by threads.

    Examples
    --------
    >>> from fastamfm import LsiModel
    >>> corpus = ["the cat sat on the mat", "a dog sat on the log", "the cat saw a dog", "a bird sang on the mat"]
    >>> lsi = LsiModel.train(corpus, dims=2)
    >>> lsi
    LsiModel(11 terms, 2 dims, weighting=counts, tok:amfm)
    >>> v = lsi.unit_vectors(["the cat sat", "a dog sat"])
    >>> v.shape, round(float(v[0] @ v[1]), 2)
    ((2, 2), 0.8)
    """

    def __init__(self, core: _core.LsiModel):
        self._core = core
        self._fingerprint: Optional[str] = None

    # --- training ----------------------------------------------------------------
    @classmethod
    def train(cls, corpus, *, dims: int = 100, weighting: str = "counts", min_count: int = 1,
              max_vocab: Optional[int] = None, seed: int = 0, workers: int = -1, oversampling: int = 10,
              power_iterations: int = 5, max_memory: Optional[int] = None, tmp_dir=None,
              progress: ProgressOption = None, tokenize: str = "amfm", lowercase: bool = False) -> "LsiModel":
        """Train on ``corpus``: a path to a UTF-8 text file (one sentence per line) or any iterable of str.

        Parameters
        ----------
        corpus : str, path or iterable of str
            The training sentences (each one document of the term-document matrix).
        dims : int, default 100
            Dimensions k kept; at most min(terms, sentences).
        weighting : {"counts", "tfidf", "log-entropy"}, default "counts"
            "counts" (the toolkit's default), "tfidf" (scikit-learn's TfidfVectorizer: smooth
            idf, rows L2-normalised) or "log-entropy".
        min_count : int, default 1
            Drop words occurring fewer times in the whole corpus.
        max_vocab : int, optional
            Keep only this many of the most frequent words (ties by word).
        seed : int, default 0
            Seeds the Gaussian test matrix; same seed, same machine -> same bits.
        workers : int, default -1
            Threads (-1: every core).
        oversampling : int, default 10
            Extra random directions (l = dims + oversampling).
        power_iterations : int, default 5
            Subspace iterations with A A^T, re-orthonormalised after each.
        max_memory : int, optional
            Bytes: keep the matrix on disk (in ``tmp_dir``) in chunks of about max_memory/8
            and stream them each pass. The vocabulary statistics and a few terms x l float64
            blocks come on top of the chunks.
        tmp_dir : str or path, optional
            Where the chunk files go with ``max_memory`` (default: the system's).
        progress : bool or callable, optional
            ``fastamfm.progress``'s option (default: a bar on stderr when it is a terminal;
            False; True; a callable of ``ProgressUpdate``), a task per stage: "LsiModel.train:
            read" (sentences; total the line count of a file, None for an iterable), ": build"
            (0 or 1 of 1) and ": svd" (chunk passes); also logged on "fastamfm.amfm.lsi". (A
            callable(stage, done, total), the protocol before 0.2, still works with a
            DeprecationWarning until 0.3.)
        tokenize : {"amfm", "whitespace"}, default "amfm"
            The tokenizer preset: the toolkit's normalisation, or ``str.split``.
        lowercase : bool, default False
            Lowercase first.

        Returns
        -------
        LsiModel
            The trained model.

        Raises
        ------
        ValueError
            A setting out of range or unknown, ``dims`` above the rank of the term-document matrix.
        FileNotFoundError
            A corpus path that does not exist.

        Examples
        --------
        >>> import fastamfm
        >>> corpus = ["the cat sat on the mat", "a cat was on the mat", "the dog ran away",
        ...           "a dog ran in the park", "the cat ran"]
        >>> lsi = fastamfm.LsiModel.train(corpus, dims=2, progress=False)
        >>> lsi
        LsiModel(12 terms, 2 dims, weighting=counts, tok:amfm)
        >>> lsi.components.shape, lsi.unit_vectors(["the cat sat", "a dog ran"]).shape
        ((12, 2), (2, 2))
        """
        with stages("LsiModel.train", progress, STAGE_UNITS) as report:
            return cls._train(lambda builder, tokenizer: _read_corpus(corpus, builder, tokenizer, workers, report),
                              dims=dims, weighting=weighting, min_count=min_count, max_vocab=max_vocab, seed=seed,
                              workers=workers, oversampling=oversampling, power_iterations=power_iterations,
                              max_memory=max_memory, tmp_dir=tmp_dir, progress=report, tokenize=tokenize,
                              lowercase=lowercase)

    @classmethod
    def train_counted(cls, documents, **settings) -> "LsiModel":
        """Train from a corpus counted in parts elsewhere: ``documents`` yields the
        ``count_documents`` of each part, in corpus order (``fastamfm.distributed.train``
        counts the parts on a cluster). ``settings`` are ``train``'s, with the
        ``tokenize``/``lowercase`` the parts were counted with. The model equals
        ``train`` on the whole corpus, bit for bit."""
        def feed(builder, tokenizer):
            for part in documents:
                if not isinstance(part, _core.CountedDocuments):
                    raise TypeError(f"LsiModel.train_counted: expected CountedDocuments (from count_documents), "
                                    f"got {type(part).__name__}")
                builder.add_counted(part)
            log.info("LsiModel.train: read %d sentences, %d distinct words", builder.num_docs, builder.num_types)

        with stages("LsiModel.train", settings.pop("progress", None), STAGE_UNITS) as report:
            return cls._train(feed, progress=report, **settings)

    @classmethod
    def _train(cls, feed, *, dims: int = 100, weighting: str = "counts", min_count: int = 1,
               max_vocab: Optional[int] = None, seed: int = 0, workers: int = -1, oversampling: int = 10,
               power_iterations: int = 5, max_memory: Optional[int] = None, tmp_dir=None,
               progress: Optional[Progress] = None, tokenize: str = "amfm", lowercase: bool = False) -> "LsiModel":
        """Checks the settings, lets ``feed(builder, tokenizer)`` add the corpus, then
        chooses the vocabulary, weights the matrix and runs the SVD."""
        if weighting not in WEIGHTINGS:
            raise ValueError(f"LsiModel.train: weighting must be one of {WEIGHTINGS}, got {weighting!r}")
        dims = _check_int("dims", dims, 1)
        min_count = _check_int("min_count", min_count, 1)
        max_vocab = _check_int("max_vocab", max_vocab, 1, allow_none=True)
        seed = _check_int("seed", seed, 0)
        oversampling = _check_int("oversampling", oversampling, 0)
        power_iterations = _check_int("power_iterations", power_iterations, 0)
        max_memory = _check_int("max_memory", max_memory, 1, allow_none=True)
        _core.resolve_workers(workers)
        tokenizer = make_tokenizer(tokenize, lowercase)

        from ..io.signals import cleanup_on_signals

        # The spill directory goes on errors, Ctrl-C and SIGTERM alike.
        with cleanup_on_signals(), tempfile.TemporaryDirectory(prefix="fastamfm-lsi-", dir=tmp_dir) if max_memory \
                else contextlib.nullcontext("") as spill_dir:
            chunk_bytes = max(max_memory // 8, _MIN_CHUNK_BYTES) if max_memory else _IN_MEMORY_CHUNK_BYTES
            builder = _core.TermDocumentBuilder(tokenizer, chunk_bytes, spill_dir)
            feed(builder, tokenizer)
            if progress is not None:
                progress("build", 0, 1)
            matrix, words, global_weights = builder.finish(min_count, max_vocab or 0, weighting, workers)
            del builder
            if progress is not None:
                progress("build", 1, 1)
            dense_bytes = 4 * 8 * len(words) * min(dims + oversampling, len(words))  # Y, Q, W and QR workspace
            if max_memory and dense_bytes > max_memory:
                log.warning("LsiModel.train: the terms x l blocks of the SVD need about %.1f MiB, more than "
                            "max_memory=%.1f MiB; lower dims or max_vocab to stay within it",
                            dense_bytes / 2**20, max_memory / 2**20)
            singular_values, u = _randomized_svd(matrix, dims, oversampling=oversampling,
                                                 power_iterations=power_iterations, seed=seed, workers=workers,
                                                 progress=progress, what="LsiModel.train")
            documents = matrix.num_docs
            del matrix
        core = _core.LsiModel(words, global_weights, np.ascontiguousarray(u, dtype=np.float32), singular_values,
                              weighting, tokenizer, documents, seed, oversampling, power_iterations, min_count,
                              max_vocab or 0)
        return cls(core)

    # --- what it holds -----------------------------------------------------------
    @property
    def vocabulary(self) -> list[str]:
        return self._core.vocabulary

    @property
    def components(self) -> np.ndarray:
        """U_k as a read-only V x k float32 array (a view of the model, or of the mapped file)."""
        return self._core.components

    @property
    def singular_values(self) -> np.ndarray:
        return self._core.singular_values

    @property
    def dims(self) -> int:
        """k, the number of dimensions trained (any ``dims <= k`` can be used)."""
        return self._core.dims

    @property
    def weighting(self) -> str:
        return self._core.weighting

    @property
    def global_weights(self) -> np.ndarray:
        """The per-term global weight (1 for counts, idf for tfidf, entropy weight for log-entropy)."""
        return self._core.global_weights

    @property
    def tokenizer(self) -> _core.Tokenizer:
        return self._core.tokenizer

    @property
    def settings(self) -> dict:
        return dict(self._core.settings, dims=self.dims, terms=len(self._core.vocabulary),
                    tokenize=self.tokenizer.preset)

    @property
    def fingerprint(self) -> str:
        """A short hash of vocabulary, weights and components: names the model in signatures."""
        if self._fingerprint is None:
            h = hashlib.blake2b(digest_size=8)
            h.update("\n".join(self.vocabulary).encode("utf-8"))
            h.update(np.ascontiguousarray(self.global_weights).tobytes())
            h.update(np.ascontiguousarray(self.components).data)
            h.update(self.tokenizer.describe().encode())
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def check_dims(self, dims: Optional[int], what: str) -> int:
        """``dims`` for scoring: None means all k; otherwise 1..k."""
        if dims is None:
            return self.dims
        if isinstance(dims, bool) or not isinstance(dims, (int, np.integer)) or not 1 <= dims <= self.dims:
            raise ValueError(f"{what}: dims must be an integer in 1..{self.dims} (the model's dimensions), "
                             f"got {dims!r}")
        return int(dims)

    def __repr__(self) -> str:
        return (f"LsiModel({len(self.vocabulary)} terms, {self.dims} dims, weighting={self.weighting}, "
                f"{self.tokenizer.describe()})")

    # --- use -----------------------------------------------------------------------
    def transform(self, sentences, *, dims: Optional[int] = None, workers: int = -1) -> np.ndarray:
        """Project sentences: their weighted bags of words (tf-idf ones L2-normalised, as in
        training) times ``components[:, :dims]``; n x dims float64. A sentence without
        vocabulary words gives a zero row."""
        from .._validation import as_text_list

        dims = self.check_dims(dims, "LsiModel.transform")
        texts = as_text_list(sentences, "sentences", allow_empty=True)
        return self._core.transform(prepare_texts(texts, self.tokenizer, "sentences"), dims, workers)

    def unit_vectors(self, sentences, *, dims: Optional[int] = None, workers: int = -1) -> np.ndarray:
        """The vectors AM compares: ``transform`` rows scaled to unit length, n x dims float32;
        all zero for a sentence without vocabulary words."""
        from .._validation import as_text_list

        dims = self.check_dims(dims, "LsiModel.unit_vectors")
        texts = as_text_list(sentences, "sentences", allow_empty=True)
        return self._core.unit_vectors(prepare_texts(texts, self.tokenizer, "sentences"), dims, workers)

    # --- files -----------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the model (versioned binary format with a checksum), atomically."""
        self._core.save(os.fspath(path))

    @classmethod
    def load(cls, path, *, mmap: bool = True) -> "LsiModel":
        """Read a model saved by ``save``; with ``mmap`` the components stay in the mapped file.

        The checksum is verified on load: a truncated or modified file raises
        ``fastamfm.FormatError`` naming the file and the problem.
        """
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"LsiModel.load: {path} does not exist")
        return cls(_core.LsiModel.load(path, bool(mmap)))

