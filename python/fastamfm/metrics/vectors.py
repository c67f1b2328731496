"""Word vectors for the embedding metrics.

``WordVectors.load(path)`` reads the files people have -- GloVe text (no header),
fastText ``.vec`` / word2vec text (a ``count dim`` header line) and word2vec binary.
The first load converts the file to a cache (``<file>.fastamfm-wv``) that later
loads map read-only: opening it takes milliseconds instead of parsing the text
again, and processes that open it share one copy of the pages. The cache records
the source's size, modification time and a hash of its first MiB (plus the
format); when any of them changes it is rebuilt. It is written to a temporary
file and renamed, so a reader never sees a partial cache.

Where the cache goes: ``cache_dir=`` when given; else beside the source file when
that directory is writable; else ``$FASTAMFM_CACHE_DIR``; else
``$XDG_CACHE_HOME/fastamfm`` (``~/.cache/fastamfm``).

Lookup is case-sensitive, as in nlg-eval (GloVe 6B is lowercased, so there a
capitalised word is unknown); ``lowercase=True`` lowercases the text's tokens
before lookup. A word without a vector gets, per ``oov=``: ``"mean"`` the mean of
all vectors (nlg-eval), ``"skip"`` nothing (the token is dropped), ``"zero"`` a
zero vector. A word that occurs twice in a file keeps its first vector.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from .. import _core
from ..io.cache_dir import cache_dir as default_cache_dir

FORMATS = ("auto", "glove", "word2vec", "fasttext")
OOV_POLICIES = ("mean", "skip", "zero")
CACHE_SUFFIX = ".fastamfm-wv"


def _check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def cache_path_for(source, cache_dir=None) -> Path:
    """Where ``WordVectors.load`` keeps the cache of ``source`` (see the module docstring)."""
    source = Path(os.path.abspath(os.fspath(source)))
    if cache_dir is None and os.access(source.parent, os.W_OK):
        return source.with_name(source.name + CACHE_SUFFIX)
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    # Same-named files from different directories must not share a cache.
    digest = hashlib.sha1(str(source).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return directory / f"{source.name}.{digest}{CACHE_SUFFIX}"


def _ensure_cache(source: str, fmt: str, cache_file: Path, workers: int) -> None:
    """Build the cache unless a current one is there (a stale or other-version one is rebuilt)."""
    if not _core.vector_cache_is_current(str(cache_file), source, fmt):
        from ..io.signals import cleanup_on_signals

        cache_file.parent.mkdir(parents=True, exist_ok=True)
        with cleanup_on_signals():  # SIGTERM stops the build and removes its temporary file
            _core.build_vector_cache(source, fmt, str(cache_file), workers)


class WordVectors:
    """A vocabulary of words with one float32 vector each; see the module docstring.

    Build it with :meth:`load`, :meth:`from_lsi` or :meth:`from_arrays` (the constructor
    takes the core table those build).

    Examples
    --------
    >>> import numpy as np
    >>> import fastamfm
    >>> vectors = fastamfm.WordVectors.from_arrays(["cat", "dog"], np.array([[1.0, 0.0], [0.0, 1.0]]))
    >>> vectors
    WordVectors(2 words x 2, format='memory', source='<memory>', lowercase=False, oov='mean')
    >>> len(vectors), vectors.dim, "cat" in vectors, vectors.vocabulary
    (2, 2, True, ['cat', 'dog'])
    >>> vectors.vector("dog").tolist(), vectors.vector("bird").tolist()  # an unknown word: the mean (oov="mean")
    ([0.0, 1.0], [0.5, 0.5])
    """

    def __init__(self, core: _core.WordVectors, *, source: str, format: str, lowercase: bool, oov: str,
                 identity: str, cache_path: Path | None = None):
        _check_choice("oov", oov, OOV_POLICIES)
        self._core = core
        self._source = source
        self._format = format
        self._lowercase = bool(lowercase)
        self._oov = oov
        self._identity = identity
        self._cache_path = cache_path
        self._tokenizer = _core.Tokenizer("whitespace", self._lowercase)

    # --- construction -------------------------------------------------------------
    @classmethod
    def load(cls, path, *, format: str = "auto", lowercase: bool = False, oov: str = "mean",
             cache_dir=None, cache: bool = True, workers: int = -1, mmap: bool = True) -> "WordVectors":
        """Load a GloVe / word2vec / fastText file, through its cache unless ``cache=False``.

        The cache is memory-mapped (processes share its pages), or with ``mmap=False``
        copied into memory (then changing or truncating it later cannot affect this
        object). Its checksums are verified on every open.

        Raises ``fastamfm.FormatError`` (a ValueError) naming the file and line for a
        truncated file, a row with the wrong number of values, a NaN or infinite value,
        invalid UTF-8 in a word, or a corrupt cache file.

        Parameters
        ----------
        path : str or path
            The vectors file (GloVe text, word2vec binary or fastText ``.vec``).
        format : {"auto", "glove", "word2vec", "fasttext"}, default "auto"
            The file's format; "auto" detects it.
        lowercase : bool, default False
            Lowercase the text's words before lookup (for lowercase vocabularies such as GloVe's).
        oov : {"mean", "skip", "zero"}, default "mean"
            What an unknown word gets: the mean vector, nothing (skipped) or zeros.
        cache_dir : str or path, optional
            Where the cache goes (default: beside the file when writable, else the user's cache directory).
        cache : bool, default True
            Read through the binary cache (built on first load).
        workers : int, default -1
            Threads for parsing (-1: every core).
        mmap : bool, default True
            Memory-map the cache rather than copy it into memory.

        Returns
        -------
        WordVectors
            The vectors.

        Raises
        ------
        FileNotFoundError
            No such file.
        FormatError
            A malformed file or a corrupt cache (see above).
        ValueError
            An unknown ``format`` or ``oov``.
        """
        _check_choice("format", format, FORMATS)
        _check_choice("oov", oov, OOV_POLICIES)
        source = os.fspath(path)
        if not os.path.isfile(source):
            raise FileNotFoundError(f"{source}: no such file")
        fmt = _core.detect_vector_format(source) if format == "auto" else format
        if not cache:
            core = _core.WordVectors.load_uncached(source, fmt, workers)
            cache_file = None
        else:
            cache_file = cache_path_for(source, cache_dir)
            try:
                _ensure_cache(source, fmt, cache_file, workers)
            except (RuntimeError, OSError) as exc:
                # The source's directory looked writable but is not (a read-only mount
                # seen by root): fall back to the user's cache directory.
                if cache_dir is not None or cache_file.parent != Path(os.path.abspath(source)).parent:
                    raise
                cache_file = cache_path_for(source, default_cache_dir())
                try:
                    _ensure_cache(source, fmt, cache_file, workers)
                except (RuntimeError, OSError):
                    raise exc from None
            core = _core.WordVectors.open(str(cache_file), mmap=bool(mmap))
        identity = f"{Path(source).name}:{core.size}x{core.dim}:{core.source_head_hash:016x}"
        return cls(core, source=source, format=fmt, lowercase=lowercase, oov=oov, identity=identity,
                   cache_path=cache_file)

    @classmethod
    def from_arrays(cls, words, vectors, *, lowercase: bool = False, oov: str = "mean") -> "WordVectors":
        """Word vectors held in memory: ``words[i]`` has the vector ``vectors[i]``.

        Parameters
        ----------
        words : iterable of str
            The vocabulary (a later duplicate of a word is dropped).
        vectors : array_like
            [len(words), dim] numbers, stored as float32.
        lowercase : bool, default False
            Lowercase the text's words before lookup.
        oov : {"mean", "skip", "zero"}, default "mean"
            What an unknown word gets.

        Returns
        -------
        WordVectors
            The vectors, ``format="memory"``.

        Raises
        ------
        TypeError
            A word that is not a str.
        ValueError
            As many words as vector rows not given, an unknown ``oov``.

        Examples
        --------
        >>> import numpy as np
        >>> import fastamfm
        >>> fastamfm.WordVectors.from_arrays(["cat", "dog"], np.eye(2), oov="zero").vector("bird").tolist()
        [0.0, 0.0]
        """
        words = list(words)
        if not all(isinstance(w, str) for w in words):
            raise TypeError("words must be strings")
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        core = _core.WordVectors.from_arrays(words, matrix)
        digest = hashlib.sha1("\n".join(words).encode("utf-8", "surrogateescape") + matrix.tobytes()).hexdigest()[:16]
        return cls(core, source="<memory>", format="memory", lowercase=lowercase, oov=oov,
                   identity=f"memory:{core.size}x{core.dim}:{digest}")

    @classmethod
    def from_lsi(cls, model, *, lowercase: bool = False, oov: str = "mean") -> "WordVectors":
        """The rows of a trained LSI model's term matrix (``model.components``, one row per
        word of ``model.vocabulary``) as word vectors: the embedding metrics then run with
        the package's own model when no pretrained vectors are at hand."""
        for attribute in ("vocabulary", "components"):
            if not hasattr(model, attribute):
                raise TypeError(f"from_lsi needs a trained LSI model with .vocabulary and .components; "
                                f"{type(model).__name__} has no .{attribute}")
        wv = cls.from_arrays(model.vocabulary, model.components, lowercase=lowercase, oov=oov)
        wv._identity = "lsi" + wv._identity[len("memory"):]
        wv._source = "<lsi>"
        wv._format = "lsi"
        return wv

    # --- what it holds ----------------------------------------------------------------
    def __len__(self) -> int:
        return self._core.size

    @property
    def dim(self) -> int:
        return self._core.dim

    @property
    def vectors(self) -> np.ndarray:
        """All vectors, ``[len(self), dim]`` float32, a read-only view of the cache mapping."""
        return self._core.vectors

    @property
    def mean(self) -> np.ndarray:
        """The mean of all vectors (float64): the vector of unknown words when ``oov="mean"``."""
        return self._core.mean

    @property
    def vocabulary(self) -> list[str]:
        """The words, in row order."""
        return self._core.words()

    @property
    def source(self) -> str:
        return self._source

    @property
    def format(self) -> str:
        return self._format

    @property
    def cache_path(self) -> Path | None:
        """The cache file mapped, or None for vectors held in memory."""
        return self._cache_path

    @property
    def lowercase(self) -> bool:
        return self._lowercase

    @property
    def oov(self) -> str:
        return self._oov

    @property
    def duplicates_dropped(self) -> int:
        """Rows of the source dropped because their word appeared earlier."""
        return self._core.duplicates_dropped

    @property
    def tokenizer(self) -> _core.Tokenizer:
        """How the metrics split text before lookup: whitespace, lowercased when ``lowercase``."""
        return self._tokenizer

    def embed_references(self, refs, workers: int = -1) -> _core.EmbeddedReferences:
        """``refs`` (a fastamfm.References) looked up in these vectors, once per References:
        kept on it (``refs.derived``) with the references' sentence vectors when the
        References is reusable, so scoring many systems against it looks its tokens up
        and sums them once."""
        def build():
            return _core.EmbeddedReferences(self._core, refs.encoded_with(self._tokenizer), self._oov,
                                            refs.reusable, workers)

        return refs.derived(("word_vectors.references", self._identity, self._oov, self._lowercase), build)

    def describe(self) -> str:
        """Identity for result signatures: source name, size and content hash."""
        return self._identity

    def index(self, word: str) -> int | None:
        """The row of ``word`` (exact, case-sensitive), or None."""
        return self._core.find(word)

    def __contains__(self, word) -> bool:
        return isinstance(word, str) and self._core.find(word) is not None

    def vector(self, word: str) -> np.ndarray:
        """The vector the metrics use for ``word`` (lowercased first when ``lowercase``),
        applying the OOV policy; KeyError for an unknown word under ``oov="skip"``."""
        key = word.lower() if self._lowercase else word
        row = self._core.find(key)
        if row is not None:
            return np.array(self.vectors[row])
        if self._oov == "skip":
            raise KeyError(f"{word!r} has no vector (oov='skip')")
        return self.mean.astype(np.float32) if self._oov == "mean" else np.zeros(self.dim, np.float32)

    def __repr__(self) -> str:
        where = f", cache={str(self._cache_path)!r}" if self._cache_path else ""
        return (f"WordVectors({len(self)} words x {self.dim}, format={self._format!r}, source={self._source!r}, "
                f"lowercase={self._lowercase}, oov={self._oov!r}{where})")
