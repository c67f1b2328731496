"""``Batch``: one call's inputs (responses, references, dialogue contexts), checked once
against what the call's metrics need and shared by all of them.

Every scoring path makes its batches here: ``Pipeline`` (``evaluate``, ``score_files``,
``fastamfm.distributed``) and a single metric's ``Metric.score``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ._validation import as_text_list, metrics_need
from .hypotheses import Hypotheses
from .references import References


@dataclass
class Batch:
    """One call's inputs, validated once and shared by every metric of the call.

    ``hyps``: a ``Hypotheses`` (texts; tokenizations and other state cached per call);
    ``refs``: a ``References`` or None (reference-free scoring); ``contexts``: per
    response the dialogue so far as a list of turns, or None; ``metrics``: the names of
    every metric scored in this call (metrics that share one computation, such as the
    three embedding metrics, compute what all of them need at once).
    """

    hyps: Hypotheses
    refs: References | None = None
    contexts: list | None = None
    metrics: frozenset = field(default_factory=frozenset)
    cache: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.hyps)

    def derived(self, key, build):
        """State of this call that depends on responses AND references (e.g. AM scores,
        which AM and AM-FM both report), built once per ``key``."""
        if key not in self.cache:
            self.cache[key] = build()
        return self.cache[key]


def as_contexts(contexts, n: int, what: str = "contexts") -> list | None:
    """Per response the dialogue so far as a list of turns (last turn last).

    ``contexts[i]`` may be a str (turns separated by newlines, as the DSTC-10 sets hold
    them) or a sequence of str."""
    if contexts is None:
        return None
    contexts = as_text_list(contexts, what)
    if len(contexts) != n:
        raise ValueError(f"{n} hypotheses but {len(contexts)} contexts")
    out = []
    for i, c in enumerate(contexts):
        if isinstance(c, str):
            out.append(c.split("\n"))
        elif isinstance(c, (list, tuple)) and all(isinstance(t, str) for t in c):
            out.append(list(c))
        else:
            raise TypeError(f"{what}[{i}] must be a str (turns joined by newlines) or a list of str, "
                            f"got {type(c).__name__}")
    return out


def make_batch(hyps, refs, contexts, metrics, *, what: str = "evaluate", workers: int = -1,
               layout: str | None = None) -> Batch:
    """Check one call's inputs once against what ``metrics`` need (``layout`` of ``refs``:
    see ``References.of``; checked here once per call, so a warning comes once per call)."""
    try:
        hyps = Hypotheses.of(hyps, workers=workers)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{what}: {exc}") from None
    if refs is not None:
        refs = References.of(refs, len(hyps), what=what, workers=workers, layout=layout)
    elif any(m.needs_references for m in metrics):
        needing = metrics_need(m.name for m in metrics if m.needs_references)
        raise ValueError(f"{what}: {needing} references (refs=)")
    contexts = as_contexts(contexts, len(hyps))
    if contexts is None and any(m.needs_contexts for m in metrics):
        needing = metrics_need(m.name for m in metrics if m.needs_contexts)
        raise ValueError(f"{what}: {needing} the dialogue contexts (contexts=)")
    return Batch(hyps, refs, contexts, frozenset(m.name for m in metrics))
