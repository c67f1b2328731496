"""fastamfm.ReferenceIndex: AM against a large shared pool of reference responses.

Instead of each hypothesis having its own references, every hypothesis is scored
against one pool (human responses, a response bank): the pool's vectors are
L2-normalised and put in a FAISS inner-product index, so inner product is cosine.
``adequacy`` keeps AM's rule (cosine, clipped to [0, 1], max over the references),
taking the max over the whole pool. ``kind="flat"`` is exact; ``kind="ivf"``
clusters the pool into ``nlist`` lists and searches the ``nprobe`` nearest ones
(approximate: it can only miss the best reference, never invent a better one).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .._core import FormatError
from .._renamed_keywords import NOT_GIVEN, renamed_keyword
from .._validation import as_text_list
from ..io.atomic import write_text_atomic
from ..result import MetricResult, make_signature
from ..runtime import parse_device, resolve_device

__all__ = ["ReferenceIndex"]

_KINDS = ("flat", "ivf")
# FAISS's marker for "no result" in inner-product searches (fewer than k vectors in
# the probed lists); reported to users as -inf / id -1.
_FAISS_MISSING = -np.finfo(np.float32).max


def _faiss():
    try:
        import faiss
    except ImportError as exc:
        raise ImportError(
            "fastamfm.ReferenceIndex needs FAISS: pip install '.[faiss]' in the fastamfm checkout (faiss-cpu), "
            "or for GPU "
            "indexes a faiss build with CUDA (e.g. pip install faiss-gpu-cu12, or conda install -c pytorch faiss-gpu)"
        ) from exc
    return faiss


def _normalised(vectors, name: str, dims: int | None = None) -> np.ndarray:
    """float32 C-contiguous copy with unit rows (zero rows stay zero, cosine 0)."""
    arr = np.asarray(vectors)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (rows x dims), got shape {arr.shape}")
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has no columns")
    if dims is not None and arr.shape[1] != dims:
        raise ValueError(f"{name} has {arr.shape[1]} dims but the index holds {dims}-dim vectors")
    out = np.array(arr, dtype=np.float32, order="C", copy=True)
    finite = np.isfinite(out).all(axis=1)
    if not finite.all():
        raise ValueError(f"{name}[{int(np.argmin(finite))}] holds NaN or infinity")
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _looks_like_texts(data) -> bool:
    """Texts are a str sequence; arrays and nested number lists are vectors."""
    if isinstance(data, (str, bytes)):
        return True  # rejected with a clear message by as_text_list
    if isinstance(data, np.ndarray) or hasattr(data, "__array__"):
        return False
    if not hasattr(data, "__len__"):
        return True  # an iterator of texts
    return len(data) > 0 and isinstance(data[0], (str, bytes))


def _read_index(faiss, path):
    """A FAISS inner-product flat or IVF-flat index from ``path``, or FormatError."""
    data = np.frombuffer(Path(path).read_bytes(), dtype=np.uint8)
    try:
        index = faiss.deserialize_index(data)
    except RuntimeError as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else "unreadable"
        raise FormatError(f"{path}: not a FAISS index ({reason})") from None
    if not isinstance(index, (faiss.IndexFlat, faiss.IndexIVFFlat)) or \
            index.metric_type != faiss.METRIC_INNER_PRODUCT:
        raise FormatError(f"{path}: a FAISS {type(index).__name__} index, not a ReferenceIndex "
                          "(inner-product flat or IVF-flat)")
    return index


class ReferenceIndex:
    """A FAISS index over a pool of reference vectors, searched by cosine.

    ``pool``: a 2-D array of vectors (LSI vectors, sentence embeddings...), or a
    sequence of texts together with ``encoder``, any object whose ``transform(texts)``
    returns one vector per text (``fastamfm.LsiModel``, a scikit-learn pipeline;
    ``model=`` before 0.2).
    Queries given to ``search``/``adequacy`` take the same two forms.

    ``kind``: "flat" (exact) or "ivf" (approximate; ``nlist`` lists, default
    ``4 * sqrt(len(pool))`` but at most ``len(pool) // 39``, trained by k-means on
    the pool with ``seed``; ``nprobe`` lists searched per query). ``device``: "cpu", "cuda" (needs a CUDA device and a
    FAISS build with GPU support) or "auto".

    Parameters
    ----------
    pool : array or sequence of str
        The reference vectors [m, dims] (normalised here), or texts for ``encoder``.
    encoder : object, optional
        Anything with ``transform(texts)`` giving one vector per text, for text pools and queries.
    kind : {"flat", "ivf"}, default "flat"
        Exact or approximate search.
    nlist : int, optional
        IVF lists (default as above; at most the pool size).
    nprobe : int, default 8
        IVF lists searched per query.
    device : str, default "cpu"
        "cpu", "cuda", "cuda:N" or "auto".
    seed : int, default 0
        The seed of the IVF k-means.
    model
        The name of ``encoder`` before 0.2 (a DeprecationWarning).

    Raises
    ------
    ValueError
        An unknown ``kind``, a bad ``nlist``/``nprobe``, an empty pool, vectors that are not
        2-D, finite and of one width, an encoder giving the wrong shape.
    TypeError
        Texts without ``encoder``, vectors that are not real numbers.
    ImportError
        FAISS not installed (the ``faiss`` extra).
    RuntimeError
        A CUDA ``device`` without CUDA or without a GPU build of FAISS.
    """

    def __init__(self, pool, encoder=None, *, kind: str = "flat", nlist: int | None = None, nprobe: int = 8,
                 device: str = "cpu", seed: int = 0, model=NOT_GIVEN):
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
        self.kind = kind
        self._nprobe = _positive_int(nprobe, "nprobe")
        self._device = resolve_device(device)
        faiss = _faiss()
        self._encoder = renamed_keyword("ReferenceIndex", "model", "encoder", model, encoder, None)
        vectors = self._vectors(pool, "pool")
        self.dims = vectors.shape[1]
        self.nlist = None
        if kind == "ivf":
            # FAISS's rule of thumb, capped so k-means gets its minimum of 39 points per list.
            default = max(1, min(round(4 * math.sqrt(len(vectors))), len(vectors) // 39))
            self.nlist = default if nlist is None else _positive_int(nlist, "nlist")
            if self.nlist > len(vectors):
                raise ValueError(f"nlist = {self.nlist} exceeds the pool size {len(vectors)} "
                                 "(k-means needs at least one vector per list)")
        self._index = self._to_device(faiss, self._build(faiss, vectors, seed))
        self._index.add(vectors)
        if kind == "ivf":
            self._index.nprobe = self._nprobe

    def save(self, path) -> None:
        """Write the index (FAISS's own format) atomically; the encoder is not saved."""
        faiss = _faiss()
        index = self._index if self._device == "cpu" else faiss.index_gpu_to_cpu(self._index)
        write_text_atomic(path, faiss.serialize_index(index).tobytes())

    @classmethod
    def load(cls, path, encoder=None, *, nprobe: int = 8, device: str = "cpu", model=NOT_GIVEN) -> ReferenceIndex:
        """An index written by :meth:`save` (``encoder`` as in the constructor, for text queries)."""
        self = cls.__new__(cls)
        self._nprobe = _positive_int(nprobe, "nprobe")
        self._device = resolve_device(device)
        self._encoder = renamed_keyword("ReferenceIndex.load", "model", "encoder", model, encoder, None)
        faiss = _faiss()
        index = _read_index(faiss, path)
        self.dims = index.d
        self.kind = "ivf" if isinstance(index, faiss.IndexIVFFlat) else "flat"
        self.nlist = index.nlist if self.kind == "ivf" else None
        self._index = self._to_device(faiss, index)
        if self.kind == "ivf":
            self._index.nprobe = self._nprobe
        return self

    # -- construction ----------------------------------------------------------------

    def _build(self, faiss, vectors: np.ndarray, seed: int):
        if self.kind == "flat":
            return faiss.IndexFlatIP(self.dims)
        quantizer = faiss.IndexFlatIP(self.dims)
        index = faiss.IndexIVFFlat(quantizer, self.dims, self.nlist, faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = seed  # k-means initialisation: the same pool gives the same lists
        index.train(vectors)
        return index

    def _to_device(self, faiss, index):
        if self._device == "cpu":
            return index
        if not hasattr(faiss, "StandardGpuResources") or faiss.get_num_gpus() == 0:
            raise RuntimeError(
                "device='cuda' needs a FAISS build with GPU support, but the installed faiss has none "
                "(faiss-cpu); install faiss-gpu (e.g. pip install faiss-gpu-cu12) or use device='cpu'")
        self._gpu_resources = faiss.StandardGpuResources()
        return faiss.index_cpu_to_gpu(self._gpu_resources, parse_device(self._device)[1] or 0, index)

    def _vectors(self, data, name: str, dims: int | None = None) -> np.ndarray:
        if hasattr(data, "__len__") and len(data) == 0:
            raise ValueError(f"{name} is empty")
        if not _looks_like_texts(data):
            return _normalised(data, name, dims)
        if self._encoder is None:
            raise TypeError(f"{name} holds texts, which need encoder= (an object with transform(texts))")
        texts = as_text_list(data, name)
        vectors = np.asarray(self._encoder.transform(texts))
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(f"encoder.transform returned shape {vectors.shape} for {len(texts)} {name}; "
                             "expected one vector per text")
        return _normalised(vectors, f"{name} vectors", dims)

    # -- use ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return int(self._index.ntotal)

    @property
    def nprobe(self) -> int:
        return self._nprobe

    @nprobe.setter
    def nprobe(self, value: int) -> None:
        self._nprobe = _positive_int(value, "nprobe")
        if self.kind == "ivf":
            self._index.nprobe = value

    def add(self, pool) -> None:
        """Add vectors (or texts, with the encoder) to the pool; an IVF index keeps its lists."""
        self._index.add(self._vectors(pool, "pool", self.dims))

    def search(self, queries, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` most similar references per query, best first: (cosines float32
        (n, k), pool row numbers int64 (n, k)). Unclipped cosines. An IVF search that
        finds fewer than k references pads with cosine -inf and id -1.

        Parameters
        ----------
        queries : array or sequence of str
            [n, dims] vectors, or texts for the encoder.
        k : int, default 1
            How many references per query (1..the pool size).

        Returns
        -------
        tuple of numpy.ndarray
            (cosines float32 [n, k], pool rows int64 [n, k]).

        Raises
        ------
        ValueError
            ``k`` out of range, empty queries or of another width than the pool.
        TypeError
            Texts without an encoder.
        """
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(self):
            raise ValueError(f"k must be an integer in [1, {len(self)}] (the pool size), got {k!r}")
        q = self._vectors(queries, "queries", self.dims)
        scores, ids = self._index.search(q, k)
        scores[ids < 0] = -np.inf
        return scores, ids

    def adequacy(self, hyps) -> MetricResult:
        """AM against the pool: per hypothesis the best cosine with any reference,
        clipped to [0, 1] (0 for a hypothesis with no known words, or when an IVF
        search finds nothing); ``corpus`` is the mean.

        Parameters
        ----------
        hyps : array or sequence of str
            [n, dims] vectors, or texts for the encoder.

        Returns
        -------
        MetricResult
            Column ``AM`` (float64 [n] in [0, 1]) and its mean in ``.corpus``.

        Raises
        ------
        ValueError
            As ``search``.
        TypeError
            Texts without an encoder.
        """
        scores, _ = self.search(hyps, 1)
        sentences = np.clip(scores[:, 0].astype(np.float64), 0.0, 1.0)
        signature = make_signature("am_reference_index", kind=self.kind, nlist=self.nlist,
                                   nprobe=self.nprobe if self.kind == "ivf" else None, pool=len(self),
                                   dims=self.dims, device=self._device)
        return MetricResult("am", {"AM": float(sentences.mean())}, {"AM": sentences}, signature)
