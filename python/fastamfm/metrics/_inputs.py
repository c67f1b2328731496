"""Input handling shared by the overlap metrics: checked Hypotheses and References."""
from __future__ import annotations

from dataclasses import dataclass

from .. import _core
from .._validation import as_text_list, flatten_references
from ..references import References, as_references
from ..tokenize import make_tokenizer, prepare_texts


def check_workers(workers, what: str) -> int:
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"{what}: workers must be an int (-1 = all cores), got {type(workers).__name__}")
    return workers


def hypotheses(hyps, what: str) -> list:
    """The hypotheses as a non-empty list; errors name the metric."""
    try:
        return as_text_list(hyps, "hyps")
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{what}: {exc}") from None


def encoded_hypotheses(hyps, *, what: str, tokenize, lowercase: bool, max_order: int, workers: int):
    """``hyps`` as a checked ``Hypotheses`` (encoded here unless it already is one)."""
    from .hypotheses import Hypotheses

    if isinstance(hyps, Hypotheses):
        return hyps
    try:
        return Hypotheses(hyps, tokenize=tokenize, lowercase=lowercase, max_order=max_order, workers=workers)
    except (TypeError, ValueError) as exc:
        message = str(exc).replace("Hypotheses: ", "")
        raise type(exc)(message if message.startswith(f"{what}:") else f"{what}: {message}") from None


def prepare(hyps, refs, *, what: str, tokenize, lowercase: bool, max_order: int, workers: int):
    """(Hypotheses, References), checked against each other."""
    from .hypotheses import Hypotheses

    check_workers(workers, what)
    n = len(hyps) if isinstance(hyps, Hypotheses) else len(hyps := hypotheses(hyps, what))
    refs = as_references(refs, n, tokenize=tokenize, lowercase=lowercase, max_order=max_order,
                         workers=workers, what=what)
    if isinstance(hyps, Hypotheses):
        hyps.check_compatible(refs.tokenizer, max_order, what)
        return hyps, refs
    tokenizer = refs.tokenizer
    return encoded_hypotheses(hyps, what=what, tokenize=tokenizer.preset, lowercase=tokenizer.lowercase,
                              max_order=max_order, workers=workers), refs


@dataclass(frozen=True)
class RawTexts:
    """Hypotheses and flattened references as text, for one-shot scoring from text."""

    hyps: list
    flat_refs: list
    offsets: list
    tokenizer: _core.Tokenizer


def raw_texts(hyps, refs, *, what: str, tokenize, lowercase: bool, workers: int) -> "RawTexts | None":
    """Checked text when neither side is encoded yet, else None (score the encoded objects).

    A metric scored once on raw lists is fastest straight from text: encoding the
    references into reusable tables only pays when they are scored again.
    """
    from .hypotheses import Hypotheses

    if isinstance(hyps, Hypotheses) or isinstance(refs, References):
        return None
    check_workers(workers, what)
    hyps = hypotheses(hyps, what)
    tokenizer = make_tokenizer(tokenize, lowercase)
    try:
        flat, offsets = flatten_references(refs, len(hyps))
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{what}: {exc}") from None
    return RawTexts(prepare_texts(hyps, tokenizer, "hyps"), prepare_texts(flat, tokenizer, "references"),
                    offsets, tokenizer)
