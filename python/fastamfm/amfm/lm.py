"""``NgramLM``: n-gram language models trained here or loaded from ARPA / binary files.

Training (``NgramLM.train``) counts n-grams of orders 1..6 in a streamed corpus with
bounded memory (sorted runs spill to disk and are merged when the counts outgrow
``max_memory``) and estimates either

- ``smoothing="kneser-ney"``: interpolated modified Kneser-Ney exactly as KenLM's
  ``lmplz`` estimates it (three discounts per order from the counts-of-counts of
  adjusted counts; ``<unk>`` gets the interpolation mass gamma/|V|; ``<s>`` log10 0).
  Where the counts-of-counts cannot give discounts (tiny corpora) the
  ``discount_fallback`` discounts are used, like ``lmplz --discount_fallback``.
- ``smoothing="katz"``: Katz backoff with Good-Turing discounts, SRILM ``ngram-count``'s
  default and what the AM-FM paper used. ``gtmin`` (n-grams rarer than this are left
  out) and ``gtmax`` (counts above it are not discounted) default to SRILM's
  ``1, 1, 2, 2, ...`` and ``1, 7, 7, ...``; unigram mass left over goes to the
  zero-count vocabulary words (``<unk>``), as SRILM with ``-unk`` does.

``prune=t`` removes n-grams by relative entropy like SRILM's ``-prune t`` (the AM-FM
paper used 1e-6). ``vocab=`` closes the vocabulary: other words are counted as
``<unk>``. Literal ``<s>``, ``</s>`` and ``<unk>`` in the corpus are skipped, as lmplz does.

Queries (``score``, ``token_scores``) follow ARPA backoff semantics and equal
``kenlm.Model.score`` (log10, ``<s>`` as the first context, ``</s>`` scored last);
they run on all cores with the GIL released.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

from .. import _core
from .._validation import as_text_list
from ..tokenization import make_tokenizer, prepare_texts

DEFAULT_MAX_MEMORY = 1 << 30
CORPUS_CHUNK_LINES = 65536
SMOOTHINGS = ("kneser-ney", "katz")
MAX_ORDER = 6

_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _parse_memory(max_memory) -> int:
    """Bytes from an int or a string such as "512M" / "2G"."""
    if isinstance(max_memory, bool):
        raise TypeError("max_memory must be a number of bytes or a string like '2G'")
    if isinstance(max_memory, (int, np.integer)):
        value = int(max_memory)
    elif isinstance(max_memory, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", max_memory.upper())
        if not match:
            raise ValueError(f"max_memory {max_memory!r} is not a size like '512M' or '2G'")
        value = int(float(match.group(1)) * _SIZE_UNITS[match.group(2)])
    else:
        raise TypeError(f"max_memory must be a number of bytes or a string like '2G', got {type(max_memory).__name__}")
    if value <= 0:
        raise ValueError(f"max_memory must be positive, got {max_memory!r}")
    return value


def _per_order(values, order: int, name: str) -> list[int]:
    if values is None:
        return []
    if isinstance(values, (int, np.integer)):
        return [int(values)] * order
    values = [int(v) for v in values]
    if len(values) != order:
        raise ValueError(f"{name} needs one value per order ({order}), got {len(values)}")
    if any(v < 0 for v in values):
        raise ValueError(f"{name} values must be >= 0")
    return values


def _tokenizer_from_metadata(metadata: dict) -> _core.Tokenizer:
    described = metadata.get("tokenizer", "tok:whitespace")
    preset = described.removeprefix("tok:")
    lowercase = preset.endswith("+lc")
    return make_tokenizer(preset.removesuffix("+lc"), lowercase)


def _parse_metadata(text: str) -> dict:
    meta: dict = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key == "discounts":
            meta.setdefault("discounts", []).append(value)
        elif key:
            meta[key] = value
    return meta


def _check_order(order) -> None:
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or not 1 <= order <= MAX_ORDER:
        raise ValueError(f"order must be an integer from 1 to {MAX_ORDER}, got {order!r}")


@dataclass(frozen=True)
class _Estimation:
    """The settings that turn counts into a model, checked."""

    smoothing: str
    prune: float
    discount_fallback: tuple
    gtmin: list
    gtmax: list

    @classmethod
    def of(cls, smoothing, prune, discount_fallback, gtmin, gtmax, order: int) -> "_Estimation":
        if smoothing not in SMOOTHINGS:
            raise ValueError(f"smoothing must be one of {SMOOTHINGS}, got {smoothing!r}")
        if prune is not None and not (float(prune) >= 0):
            raise ValueError(f"prune must be a threshold >= 0 (e.g. 1e-6), got {prune!r}")
        if smoothing == "kneser-ney" and (gtmin is not None or gtmax is not None):
            raise ValueError("gtmin/gtmax apply to smoothing='katz' only")
        fallback = tuple(float(d) for d in discount_fallback)
        if len(fallback) != 3:
            raise ValueError("discount_fallback needs three discounts (D1, D2, D3+)")
        return cls(smoothing, float(prune or 0.0), fallback, _per_order(gtmin, order, "gtmin"),
                   _per_order(gtmax, order, "gtmax"))


@dataclass(frozen=True)
class TokenScores:
    """Per-prediction scores of a batch (``</s>`` is the last prediction when eos).

    Flat arrays over every prediction of every sentence; sentence ``i`` owns
    ``offsets[i]:offsets[i+1]``. ``ngram_length`` is the length of the n-gram whose
    probability was used (as kenlm's ``full_scores`` reports it).

    Parameters
    ----------
    log10 : numpy.ndarray
        float32, the log10 probability of every prediction.
    ngram_length : numpy.ndarray
        The length of the n-gram used for each.
    oov : numpy.ndarray
        bool, whether the predicted word is unknown.
    offsets : numpy.ndarray
        n + 1 offsets of the sentences.

    Raises
    ------
    IndexError
        ``scores[i]`` out of range.

    Examples
    --------
    >>> import fastamfm
    >>> corpus = ["the cat sat on the mat", "a cat was on the mat", "the dog ran away",
    ...           "a dog ran in the park", "the cat ran"]
    >>> scores = fastamfm.NgramLM.train(corpus, order=2).token_scores(["the cat sat", "a bird"])
    >>> len(scores), scores.offsets.tolist()  # three words and </s>, two words and </s>
    (2, [0, 4, 7])
    >>> log10, oov = scores[1]
    >>> oov.tolist()
    [False, True, False]
    """

    log10: np.ndarray
    ngram_length: np.ndarray
    oov: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """(log10 scores, OOV flags) of sentence ``i``."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"sentence {i} out of range for {len(self)} sentences")
        i %= len(self)
        span = slice(int(self.offsets[i]), int(self.offsets[i + 1]))
        return self.log10[span], self.oov[span]


class NgramLM:
    """An n-gram backoff language model, equal to KenLM's and SRILM's (see the module
    docstring). Build it with ``NgramLM.train`` or ``NgramLM.load`` (ARPA or fastamfm's
    binary); a model is immutable, so one instance can be shared by threads.

    Examples
    --------
    >>> from fastamfm import NgramLM
    >>> corpus = ["the cat sat on the mat", "a dog sat on the log", "the cat saw a dog", "a bird sang on the mat"]
    >>> lm = NgramLM.train(corpus, order=2)
    >>> lm
    NgramLM(order=2, smoothing=kneser-ney, 1-grams=14, 2-grams=18, tok:amfm)
    >>> lm.score(["the cat sat on the mat"]).round(4)     # log10 probability per sentence
    array([-6.1909])
    >>> round(lm.perplexity(["a dog sat on the mat"]), 3)
    7.489
    """

    def __init__(self, model: _core.NgramModel, tokenizer: _core.Tokenizer):
        self._model = model
        self._tokenizer = tokenizer
        self._metadata = _parse_metadata(model.metadata)
        #: For models trained in this process: sentences, tokens and the number of
        #: sorted runs spilled to disk while counting.
        self.training_stats: dict | None = None

    # --- construction ----------------------------------------------------------
    @classmethod
    def train(cls, corpus, *, order: int = 3, smoothing: str = "kneser-ney", prune: float | None = None,
              vocab=None, workers: int = -1, max_memory=DEFAULT_MAX_MEMORY, tokenize: str = "amfm",
              lowercase: bool = False, discount_fallback=(0.5, 1.0, 1.5), gtmin=None, gtmax=None,
              temp_dir: str | None = None) -> "NgramLM":
        """Train on ``corpus``: a path to a text file (one sentence per line) or an iterable of str.

        Parameters
        ----------
        corpus : str, path or iterable of str
            The training sentences.
        order : int, default 3
            The n-gram order (1..6).
        smoothing : {"kneser-ney", "katz"}, default "kneser-ney"
            KenLM ``lmplz``'s modified Kneser-Ney or SRILM's Katz backoff (see the module docstring).
        prune : float, optional
            Relative-entropy pruning threshold (>= 0), as SRILM's ``-prune``.
        vocab : str, path or sequence of str, optional
            A closed vocabulary (a file of words or the words); other words count as ``<unk>``.
        workers : int, default -1
            Threads (-1: every core).
        max_memory : int or str, default 1 GiB
            Counts beyond this spill to sorted runs on disk (bytes, or e.g. "512M").
        tokenize : str, default "amfm"
            The tokenizer preset.
        lowercase : bool, default False
            Lowercase first.
        discount_fallback : tuple of float, default (0.5, 1.0, 1.5)
            Kneser-Ney discounts D1, D2, D3+ where the counts cannot give them.
        gtmin, gtmax : int or sequence of int, optional
            Katz only: SRILM's per-order count cut-offs and discounting limits.
        temp_dir : str, optional
            Where spilled runs go (default: the system's).

        Returns
        -------
        NgramLM
            The model; ``training_stats`` holds the sentences, tokens and spilled runs.

        Raises
        ------
        ValueError
            ``order`` out of range, an unknown ``smoothing`` or ``tokenize``, a bad ``prune``,
            ``discount_fallback`` or ``max_memory``, ``gtmin``/``gtmax`` with Kneser-Ney.
        TypeError
            ``corpus`` given as bytes; a ``vocab`` word that is not a str.
        FileNotFoundError
            A corpus path that does not exist.

        Examples
        --------
        >>> import fastamfm
        >>> corpus = ["the cat sat on the mat", "a cat was on the mat", "the dog ran away",
        ...           "a dog ran in the park", "the cat ran"]
        >>> lm = fastamfm.NgramLM.train(corpus, order=2)
        >>> lm
        NgramLM(order=2, smoothing=kneser-ney, 1-grams=15, 2-grams=22, tok:amfm)
        >>> lm.score(["the cat sat", "sat the cat"]).round(4).tolist()  # log10 p, as kenlm.Model.score
        [-3.7466, -4.4618]
        """
        _check_order(order)
        estimation = _Estimation.of(smoothing, prune, discount_fallback, gtmin, gtmax, int(order))
        tokenizer = make_tokenizer(tokenize, lowercase)
        counter = cls._counter(order, vocab, workers, max_memory, tokenizer, temp_dir)
        cls._feed(counter, corpus, tokenizer)
        return cls._estimate(counter, estimation, tokenizer, workers, counter.spilled_runs)

    @classmethod
    def count(cls, sentences, *, order: int = 3, vocab=None, workers: int = -1, max_memory=DEFAULT_MAX_MEMORY,
              tokenize: str = "amfm", lowercase: bool = False, temp_dir: str | None = None) -> _core.NgramCounts:
        """The n-gram counts of one part of a corpus (a list of str), as ``train`` counts
        them: picklable, added up in corpus order with ``_core.merge_ngram_counts`` and
        estimated with ``train_counted`` (``fastamfm.distributed.train`` counts the parts
        on a cluster)."""
        _check_order(order)
        tokenizer = make_tokenizer(tokenize, lowercase)
        counter = cls._counter(order, vocab, workers, max_memory, tokenizer, temp_dir)
        cls._feed(counter, sentences, tokenizer)
        return counter.finish()

    @classmethod
    def train_counted(cls, counts: _core.NgramCounts, *, smoothing: str = "kneser-ney", prune: float | None = None,
                      workers: int = -1, tokenize: str = "amfm", lowercase: bool = False,
                      discount_fallback=(0.5, 1.0, 1.5), gtmin=None, gtmax=None) -> "NgramLM":
        """The model of counts made by ``count`` (merged over the parts of a corpus, in
        order): ``train`` on the whole corpus, bit for bit. The counts are taken over
        (empty afterwards). ``tokenize``/``lowercase``: those the parts were counted with."""
        if not isinstance(counts, _core.NgramCounts):
            raise TypeError(f"counts must come from NgramLM.count, got {type(counts).__name__}")
        estimation = _Estimation.of(smoothing, prune, discount_fallback, gtmin, gtmax, counts.order)
        return cls._estimate(counts, estimation, make_tokenizer(tokenize, lowercase), workers, counts.spilled_runs)

    @classmethod
    def _counter(cls, order, vocab, workers, max_memory, tokenizer, temp_dir) -> _core.NgramCounter:
        return _core.NgramCounter(int(order), _parse_memory(max_memory), temp_dir or "", workers, tokenizer,
                                  cls._read_vocab(vocab, tokenizer))

    @classmethod
    def _estimate(cls, counted, estimation: "_Estimation", tokenizer, workers: int, spilled_runs: int) -> "NgramLM":
        """The model of a counter's or merged counts' n-grams."""
        sentences, tokens = counted.sentences, counted.tokens
        model, _ = _core.NgramModel.train(counted, estimation.smoothing, estimation.discount_fallback,
                                          estimation.gtmin, estimation.gtmax, estimation.prune,
                                          tokenizer.describe(), workers)
        lm = cls(model, tokenizer)
        lm.training_stats = {"sentences": sentences, "tokens": tokens, "spilled_runs": spilled_runs}
        return lm

    @staticmethod
    def _read_vocab(vocab, tokenizer) -> list[str]:
        if vocab is None:
            return []
        if isinstance(vocab, (str, os.PathLike)):
            from ..io.readers import read_lines

            return [w for line in read_lines(vocab) for w in line.split()]
        words = as_text_list(vocab, "vocab")
        for i, word in enumerate(words):
            if not isinstance(word, str):
                raise TypeError(f"vocab[{i}] is {type(word).__name__}, expected str")
        return [w for text in tokenizer.tokenize_batch(prepare_texts(words, tokenizer, "vocab"), 1) for w in text]

    @staticmethod
    def _feed(counter, corpus, tokenizer) -> None:
        needs_unicode = tokenizer.preset == "amfm" or tokenizer.lowercase
        if isinstance(corpus, (str, os.PathLike)):
            path = os.fspath(corpus)
            if not os.path.exists(path):
                raise FileNotFoundError(f"{path}: no such corpus file (corpus is a path or an iterable of str)")
            if not needs_unicode:
                counter.add_file(path)
                return
            from ..io.readers import iter_parallel_chunks

            for (lines,) in iter_parallel_chunks([path], CORPUS_CHUNK_LINES):
                counter.add(prepare_texts(lines, tokenizer, "corpus"))
            return
        if isinstance(corpus, bytes):
            raise TypeError("corpus must be a path or an iterable of str, not bytes")
        chunk: list = []
        for text in corpus:
            chunk.append(text)
            if len(chunk) == CORPUS_CHUNK_LINES:
                counter.add(prepare_texts(chunk, tokenizer, "corpus"))
                chunk = []
        if chunk:
            counter.add(prepare_texts(chunk, tokenizer, "corpus"))

    @classmethod
    def load(cls, path, *, tokenize: str | None = None, lowercase: bool | None = None,
             mmap: bool = True) -> "NgramLM":
        """Read an ARPA file (kenlm, SRILM, IRSTLM, ours) or fastamfm's binary file.

        The binary file records its tokenizer; ARPA files use ``tokenize`` (default
        whitespace, as kenlm splits sentences). A binary file is memory-mapped, or with
        ``mmap=False`` copied into memory (then changing or truncating the file later
        cannot affect the model).
        """
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path}: no such language-model file")
        model = _core.NgramModel.load(path, mmap=bool(mmap))
        try:
            tokenizer = _tokenizer_from_metadata(_parse_metadata(model.metadata))
        except ValueError as exc:
            from ..errors import format_error

            raise format_error(path, f"the model's metadata names no usable tokenizer ({exc})") from None
        if tokenize is not None or lowercase is not None:
            tokenizer = make_tokenizer(tokenize or "whitespace", bool(lowercase))
        return cls(model, tokenizer)

    # --- files -----------------------------------------------------------------
    def save(self, path) -> None:
        """Write fastamfm's binary format (memory-mapped on load; versioned, checksummed), atomically."""
        self._model.save(os.fspath(path))

    def save_arpa(self, path) -> None:
        """Write an ARPA file that kenlm, SRILM and IRSTLM read, atomically."""
        self._model.save_arpa(os.fspath(path))

    # --- queries ---------------------------------------------------------------
    def _texts(self, sentences) -> list:
        return prepare_texts(as_text_list(sentences, "sentences", allow_empty=True), self._tokenizer, "sentences")

    def score(self, sentences, *, bos: bool = True, eos: bool = True, workers: int = -1) -> np.ndarray:
        """log10 probability of each sentence, equal to ``kenlm.Model.score(s, bos, eos)``."""
        return self._model.score(self._texts(sentences), self._tokenizer, bool(bos), bool(eos), workers)

    def token_scores(self, sentences, *, bos: bool = True, eos: bool = True, workers: int = -1) -> TokenScores:
        """Per-token log10 probabilities with OOV flags (``</s>`` last when eos)."""
        log10, length, oov, offsets = self._model.token_scores(self._texts(sentences), self._tokenizer, bool(bos),
                                                               bool(eos), workers)
        return TokenScores(log10, length, oov, offsets)

    def perplexity(self, sentences, *, workers: int = -1) -> float:
        """Corpus perplexity counting ``</s>`` as a prediction (kenlm's convention)."""
        texts = self._texts(sentences)
        scores = self.token_scores(texts, workers=workers)
        return float(10.0 ** (-scores.log10.astype(np.float64).sum() / max(len(scores.log10), 1)))

    # --- what it is ------------------------------------------------------------
    @property
    def order(self) -> int:
        return self._model.order

    @property
    def vocabulary_size(self) -> int:
        """Words in the model, <unk>, <s> and </s> included."""
        return self._model.vocabulary_size

    @property
    def vocabulary(self) -> list[str]:
        return self._model.words()

    @property
    def counts(self) -> list[int]:
        """Number of n-grams of each order."""
        return self._model.counts()

    @property
    def tokenizer(self) -> _core.Tokenizer:
        return self._tokenizer

    @property
    def smoothing(self) -> str | None:
        """"kneser-ney" or "katz" for models trained here; None for ARPA files from elsewhere."""
        return self._metadata.get("smoothing")

    @property
    def metadata(self) -> dict:
        """How the model was made: source, smoothing, discounts, corpus size, pruning."""
        return dict(self._metadata)

    @property
    def fingerprint(self) -> str:
        """Checksum of the model's content, recorded in metric signatures."""
        return f"{self._model.checksum:016x}"

    @property
    def core(self) -> _core.NgramModel:
        """The C++ model (for other fastamfm modules)."""
        return self._model

    def __repr__(self) -> str:
        counts = ", ".join(f"{n + 1}-grams={c}" for n, c in enumerate(self.counts))
        return f"NgramLM(order={self.order}, smoothing={self.smoothing}, {counts}, {self._tokenizer.describe()})"
