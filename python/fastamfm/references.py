"""``References``: ragged references checked once and reused across systems, holding
everything metrics derive from them."""
from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from types import FrameType

import numpy as np

from . import _core
from ._derived import DerivedState
from ._validation import check_choice, check_workers, flatten_references
from .errors import AmbiguousReferencesWarning
from .tokenization import make_tokenizer, prepare_texts

# How ``refs`` is laid out where a function takes it: None (the default) is per response
# and warns when the lists also read as streams; "responses" says per response (no
# warning); "streams" is sacrebleu's / nlg-eval's ``refs[j][i]``.
LAYOUTS = (None, "responses", "streams")


def transpose_streams(streams, what: str) -> list:
    """sacrebleu's reference streams (``streams[j][i]``: the j-th reference of hypothesis i,
    ``None`` where hypothesis i has fewer) as the references of each hypothesis.

    >>> transpose_streams([["a", "b"], ["c", None]], "BLEU")
    [['a', 'c'], ['b']]
    """
    if isinstance(streams, (str, bytes)) or not hasattr(streams, "__iter__"):
        raise TypeError(f"{what}: the references must be a sequence of reference streams "
                        f"(refs[j][i]: the j-th reference of hypothesis i), got {type(streams).__name__}")
    streams = list(streams)
    if not streams:
        raise ValueError(f"{what}: no reference stream given")
    for j, stream in enumerate(streams):
        if isinstance(stream, (str, bytes)) or not hasattr(stream, "__iter__"):
            raise TypeError(f"{what}: reference stream {j} must be a sequence of strings (one reference or None "
                            f"per hypothesis), got {type(stream).__name__}")
        if not isinstance(stream, Sequence):
            streams[j] = list(stream)
    n = len(streams[0])
    for j, stream in enumerate(streams):
        if len(stream) != n:
            # sacrebleu zips the streams, silently dropping the segments past the shortest.
            raise ValueError(f"{what}: reference stream {j} has {len(stream)} segments but stream 0 has {n}; "
                             f"every stream holds one reference (or None) per hypothesis")
    if n == 0:
        raise ValueError(f"{what}: the reference streams are empty")
    per_response = []
    for i, column in enumerate(zip(*streams)):
        refs = []
        for j, ref in enumerate(column):
            if ref is None:
                continue
            if not isinstance(ref, str):
                raise TypeError(f"{what}: reference stream {j}, segment {i} is {type(ref).__name__}, "
                                f"not a string or None")
            refs.append(ref)
        if not refs:
            raise ValueError(f"{what}: segment {i} has no reference (None in every stream)")
        per_response.append(refs)
    return per_response


class References(DerivedState):
    """References of n segments: ``refs[i]`` is the list of references of hypothesis
    ``i`` (any count >= 1).

    Pass one instance wherever a function takes ``refs`` to score many systems
    against the same references: what each metric derives from them (tokens and
    n-gram counts per tokenizer, CIDEr's tf-idf vectors, LSI projections, LM
    probabilities, METEOR's prepared texts, reference embeddings ...) is built on
    first use, kept on this object (:meth:`derived`) and dies with it.

    ``tokenize``/``lowercase``/``max_order`` name the default encoding (``.encoded``),
    the one the nlg-eval metrics use by default; like every other encoding a metric
    needs, it is built on first use (``encode=True``: at construction).

    Parameters
    ----------
    refs : sequence of sequences of str
        ``refs[i]``: the references of hypothesis i (at least one each). For sacrebleu's
        reference streams use ``from_streams``; for parallel files ``from_files``.
    tokenize : str, default "whitespace"
        The tokenizer preset of the default encoding (``fastamfm.TOKENIZER_PRESETS``).
    lowercase : bool, default False
        Lowercase in the default encoding.
    max_order : int, default 4
        The n-gram orders counted in the default encoding.
    workers : int, default -1
        Threads for what is built from the references (-1: every core).
    encode : bool, default False
        Build the default encoding now rather than on first use.

    Raises
    ------
    ValueError
        ``refs`` empty or a segment without references; an unknown ``tokenize``.
    TypeError
        ``refs`` (or ``refs[i]``) a single string, or references that are not strings.

    Examples
    --------
    >>> import fastamfm
    >>> refs = fastamfm.References([["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]])
    >>> len(refs), refs.num_references, refs[1]
    (2, 3, ['the dog ran away'])
    >>> round(fastamfm.bleu(["the cat sat on the mat", "a dog ran"], refs).corpus["Bleu_4"], 6)
    0.540729
    >>> round(fastamfm.rouge_l(["a cat sat", "the dog ran"], refs).corpus["ROUGE_L"], 6)
    0.62743
    >>> refs
    References(2 segments, 3 references, encoded with ['tok:whitespace'])
    """

    def __init__(self, refs, *, tokenize: str = "whitespace", lowercase: bool = False, max_order: int = 4,
                 workers: int = -1, encode: bool = False):
        check_workers(workers, "References")
        flat, offsets = flatten_references(refs, None)
        self._init(flat, offsets, workers)
        self._default = make_tokenizer(tokenize, lowercase)
        self._default_order = max_order
        if encode:
            self.encoded_with(self._default, max_order)

    def _init(self, flat: list, offsets: list, workers: int) -> None:
        self._texts = flat
        self._offsets = offsets
        self._workers = workers
        # False for references the pipeline wrapped for a single call: a metric then
        # scores straight from text rather than building tables nobody will reuse.
        self.reusable = True
        self._init_derived()

    # --- construction ------------------------------------------------------------
    @classmethod
    def from_columns(cls, columns, *, workers: int = -1, **options) -> "References":
        """K line-aligned columns (``columns[k][i]``: the k-th reference of segment i),
        as read from K parallel reference files, without building per-segment lists."""
        columns = [list(c) for c in columns]
        if not columns:
            raise ValueError("References.from_columns: no reference column")
        n = len(columns[0])
        for k, column in enumerate(columns):
            if len(column) != n:
                raise ValueError(f"References.from_columns: column {k} has {len(column)} references, column 0 has {n}")
        if n == 0:
            raise ValueError("refs is empty")
        k = len(columns)
        flat = [None] * (n * k)
        for j, column in enumerate(columns):
            flat[j::k] = column
        self = cls.__new__(cls)
        self._init(flat, list(range(0, n * k + 1, k)), workers)
        self._default = make_tokenizer(options.get("tokenize", "whitespace"), options.get("lowercase", False))
        self._default_order = options.get("max_order", 4)
        if options.get("encode", False):
            self.encoded_with(self._default, self._default_order)
        return self

    @classmethod
    def from_streams(cls, streams, *, what: str = "References.from_streams", workers: int = -1,
                     **options) -> "References":
        """sacrebleu's (and nlg-eval's ``ref_list``) layout: m reference streams of n entries
        each, ``streams[j][i]`` the j-th reference of hypothesis i. ``None`` marks a missing
        reference (sacrebleu's padding for a varying count); ``""`` is an empty reference,
        as in sacrebleu 2.6. ``options`` as for ``References``.

        Parameters
        ----------
        streams : sequence of sequences of str or None
            m streams of n entries each (at least one stream).
        what : str, default "References.from_streams"
            The name errors start with.
        workers : int, default -1
            Threads (-1: every core).
        **options
            ``tokenize``, ``lowercase``, ``max_order``, ``encode``, as for ``References``.

        Returns
        -------
        References
            n segments, segment i holding the entries of column i that are not None.

        Raises
        ------
        ValueError
            No stream, streams of different lengths or of none, a segment that is None in
            every stream.
        TypeError
            ``streams`` or a stream not a sequence, an entry that is neither a str nor None.

        Examples
        --------
        >>> import fastamfm
        >>> refs = fastamfm.References.from_streams([["the cat sat on a mat", "the dog ran away"],
        ...                                          ["a cat was on the mat", None]])
        >>> list(refs)
        [['the cat sat on a mat', 'a cat was on the mat'], ['the dog ran away']]
        """
        per_response = transpose_streams(streams, what)
        try:
            return cls(per_response, workers=workers, **options)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{what}: {exc}") from None

    @classmethod
    def from_files(cls, paths, **options) -> "References":
        """K parallel reference files (nlg-eval layout): line i of each file is a reference of segment i."""
        from .io.readers import read_line_columns

        return cls.from_columns(read_line_columns(paths), **options)

    @classmethod
    def from_jsonl(cls, path, **options) -> "References":
        """The ``refs`` of jsonl records ``{"hyp": ..., "refs": [...]}``."""
        from .io.readers import read_jsonl

        _, refs = read_jsonl(path)
        return cls(refs, **options)

    @classmethod
    def of(cls, refs, n_hyps: int | None = None, *, what: str = "metric", workers: int = -1,
           layout: str | None = None) -> "References":
        """``refs`` itself when it already is a ``References`` (checked against the number
        of hypotheses), else the raw lists checked and flattened, encoded lazily.

        ``layout``: None (default) or "responses": ``refs[i]`` holds the references of
        hypothesis i; "streams": sacrebleu's ``refs[j][i]`` (see ``from_streams``). With
        None, lists that fit both layouts warn (``AmbiguousReferencesWarning``).

        Parameters
        ----------
        refs : References or sequence of sequences of str
            The references, in the given ``layout``.
        n_hyps : int, optional
            The number of hypotheses they must match.
        what : str, default "metric"
            The name errors and warnings start with.
        workers : int, default -1
            Threads (-1: every core).
        layout : {None, "responses", "streams"}, optional
            How plain lists are laid out.

        Returns
        -------
        References
            ``refs`` itself, or new references marked for one call (``reusable`` False).

        Raises
        ------
        ValueError
            ``refs`` None or empty, an unknown ``layout``, a length other than ``n_hyps``, a
            segment without references.
        TypeError
            ``refs`` a single string, or references that are not strings.

        Warns
        -----
        AmbiguousReferencesWarning
            With ``layout=None``: n lists of n references for n >= 2 hypotheses.

        Examples
        --------
        >>> import fastamfm
        >>> list(fastamfm.References.of([["a", "b"], ["c", "d"]], 2, layout="streams"))
        [['a', 'c'], ['b', 'd']]
        >>> refs = fastamfm.References([["a"], ["b"]])
        >>> fastamfm.References.of(refs, 2) is refs
        True
        """
        check_choice(layout, "layout", LAYOUTS, what)
        if isinstance(refs, References):
            if n_hyps is not None:
                refs.check_length(n_hyps, what)
            return refs
        if refs is None:
            raise ValueError(f"{what}: needs references (refs=)")
        if isinstance(refs, (str, bytes)):
            raise TypeError(f"{what}: refs must be a list of reference lists, not a single string")
        if layout == "streams":
            self = cls.from_streams(refs, what=what, workers=workers)
            if n_hyps is not None and len(self) != n_hyps:
                raise ValueError(f"{what}: {n_hyps} hypotheses but the reference streams hold {len(self)} "
                                 f"entries each")
        else:
            try:
                flat, offsets = flatten_references(refs, n_hyps)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"{what}: {exc}") from None
            if layout is None and n_hyps is not None:
                _warn_if_ambiguous(offsets, what)
            self = cls.__new__(cls)
            self._init(flat, offsets, workers)
            self._default = make_tokenizer("whitespace")
            self._default_order = 4
        self.reusable = False
        return self

    # --- what it holds -----------------------------------------------------------
    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i: int) -> list:
        if not -len(self) <= i < len(self):
            raise IndexError(f"segment {i} out of range for {len(self)} segments")
        i %= len(self)
        return self._texts[self._offsets[i]:self._offsets[i + 1]]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return (f"References({len(self)} segments, {self.num_references} references, "
                f"encoded with {self._encoded_with()})")

    @property
    def num_references(self) -> int:
        return len(self._texts)

    @property
    def flat_texts(self) -> list:
        """Every reference text, segment after segment (as given)."""
        return self._texts

    @property
    def segment_offsets(self) -> list[int]:
        return self._offsets

    @property
    def offsets_array(self) -> np.ndarray:
        """The n + 1 segment offsets as uint64 (what the scoring kernels take)."""
        return self.derived("offsets_array", lambda: np.asarray(self._offsets, dtype=np.uint64))

    def check_length(self, n_hyps: int, what: str = "metric") -> None:
        if n_hyps != len(self):
            raise ValueError(f"{what}: {n_hyps} hypotheses but References holds {len(self)} segments")

    # --- derived state ---------------------------------------------------------------
    def encoded_with(self, tokenizer, max_order: int = 0) -> _core.ReferenceSet:
        """Tokens (and n-gram counts of orders 1..max_order) under ``tokenizer``, built once
        per tokenizer (rebuilt only when a higher order is asked for)."""
        def encode(tokenizer, order):
            if tokenizer.describe() == self._default.describe():
                order = max(order, self._default_order)
            texts = prepare_texts(self._texts, tokenizer, "references")
            return _core.ReferenceSet(texts, self._offsets, tokenizer, order, self._workers)

        return self._encoding(tokenizer, max_order, encode)

    # --- the encoding named at construction --------------------------------------------
    @property
    def encoded(self) -> _core.ReferenceSet:
        """The ReferenceSet of the tokenizer named at construction (whitespace by default)."""
        return self.encoded_with(self._default, self._default_order)

    @property
    def tokenizer(self) -> _core.Tokenizer:
        return self._default

    @property
    def max_order(self) -> int:
        return self._default_order

    def tokens(self, segment: int, tokenizer=None) -> list[list[str]]:
        encoded = self.encoded if tokenizer is None else self.encoded_with(tokenizer)
        return [encoded.tokens(r) for r in range(self._offsets[segment], self._offsets[segment + 1])]


def _warn_if_ambiguous(offsets: list, what: str) -> None:
    """Warn when n reference lists of n references each (n >= 2) could as well be n
    sacrebleu streams of n entries: both readings fit, and only one is meant.

    A warning, not an error: n responses with n references each is a legitimate
    per-response set (four responses with four references each), which refusing would
    break; the warning says which reading is used and how to say the other (or to
    silence it). ``warnings.filterwarnings("error", category=AmbiguousReferencesWarning)``
    turns it into an error for whoever prefers that."""
    n = len(offsets) - 1
    if n < 2 or offsets[-1] != n * n or any(offsets[i + 1] - offsets[i] != n for i in range(n)):
        return
    warnings.warn(
        f"{what}: refs is {n} lists of {n} references for {n} hypotheses, which reads two ways: per response "
        f"(refs[i] = the references of hyps[i], fastamfm's layout) or as {n} sacrebleu/nlg-eval reference "
        f"streams (refs[j][i] = the j-th reference of hyps[i]). Scoring it per response. If these are streams, "
        f"pass fastamfm.References.from_streams(refs) (or layout=\"streams\"); if they are per response, pass "
        f"layout=\"responses\" or fastamfm.References(refs), which also silences this warning.",
        AmbiguousReferencesWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside fastamfm (the user's call)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "fastamfm":
        frame, level = frame.f_back, level + 1
    return level
