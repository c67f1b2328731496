"""LM judge: a local causal LM rates a reply, 1 to 5, per aspect, by the probabilities of
the rating tokens (G-Eval's expectation, Liu et al. 2023: no sampling, no parsing).

    judge = LMJudge()                                    # the packaged SmolLM2-135M-Instruct
    judge.score(hyps, contexts=contexts)                 # .lm_judge, .lm_judge_relevance, ...
    judge.score(hyps, refs=refs, contexts=contexts)      # references shown in the prompt (references=True)
    judge.reward(hyps, contexts=contexts)                # float32 torch tensor on the LM's device

The prompt (``PROMPT_HEAD`` + one aspect's question) is the user's message in the LM's chat
format (a model without a chat template: plain text, said in the signature); the answer
opens with ``CUE`` and the next-token distribution over the digits 1..5 gives

    rating(aspect) = sum_k k * p(k) / sum_k p(k)            (k = 1..5)

The instruction, context and reply come before the aspect's question, so they are computed
once for every aspect (``fastamfm.neural.continuations``); the context keeps its most
recent turns within ``max_context_tokens`` of the LM. Columns: ``lm_judge`` (the mean of
the ratings of ``aspects``) and ``lm_judge_<aspect>`` per aspect. Scale [1, 5]; an empty
or whitespace-only reply scores 1, the scale's minimum.
"""
from __future__ import annotations

import hashlib

import numpy as np

from .._argument_order import refs_before_contexts
from ..progress import ProgressOption, reports_progress
from ..result import MetricResult, make_signature
from .inputs import ReferenceTexts, context_turns, empty_responses, text_list

# fastamfm's own wording of the aspects dialogue-evaluation work rates (FED, USR, UniEval).
ASPECTS = {
    "relevance": "Relevance: does the reply respond to what was just said?",
    "coherence": "Coherence: does the reply follow logically from the conversation?",
    "engagingness": "Engagingness: is the reply interesting to talk about?",
    "naturalness": "Naturalness: does the reply sound natural, like a person?",
    "groundedness": "Groundedness: is the reply consistent with the facts in the conversation?",
    "specificity": "Specificity: is the reply specific rather than generic?",
}
# The aspects rated by default (a column each), and those whose mean is the ``lm_judge`` column:
# groundedness, chosen leave-one-set-out on dstc10_dev (every 5th turn; best on the other four sets
# in every fold, held-out mean Spearman 11.5 with SmolLM2-135M: benchmarks/judge/README.md).
DEFAULT_ASPECTS = tuple(ASPECTS)
DEFAULT_COMBINED = ("groundedness",)
PROMPT_HEAD = ("Read this conversation between A and B and the reply B gives next.\n\n{dialogue}\n\n"
               "Reply of B: {reply}\n{references}\n"
               "Rate the reply on one aspect, from 1 (very poor) to 5 (excellent).\n")
REFERENCE_LINE = "Example of a good reply: {reference}\n"
CUE = "Score:"
RATINGS = ("1", "2", "3", "4", "5")
LOWEST = 1.0
MAX_REFERENCES = 3      # references shown in a prompt (the first ones)


def check_aspects(aspects, what: str = "lm_judge") -> dict:
    """{name: question}: a list of names of ``ASPECTS``, or a mapping name -> question."""
    if isinstance(aspects, str):
        raise TypeError(f"{what}: aspects must be a list of aspect names or a mapping name -> question, not a str")
    if isinstance(aspects, dict):
        found = dict(aspects)
    else:
        found = {}
        for name in aspects:
            if name not in ASPECTS:
                raise ValueError(f"{what}: unknown aspect {name!r}; choose from {sorted(ASPECTS)} or pass a mapping "
                                 f"name -> question")
            found[name] = ASPECTS[name]
    if not found:
        raise ValueError(f"{what}: the aspect list is empty; name at least one aspect")
    for name, question in found.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"{what}: aspect name {name!r} must be an identifier (it names a column)")
        if not isinstance(question, str) or not question.strip():
            raise ValueError(f"{what}: the question of aspect {name!r} is empty")
    return found


def expected_ratings(log_probs: np.ndarray) -> np.ndarray:
    """sum_k k p(k) over the rating tokens, p renormalised over them: [..., 5] -> [...]."""
    log_probs = np.asarray(log_probs, dtype=np.float64)
    weights = np.exp(log_probs - log_probs.max(axis=-1, keepdims=True))
    values = np.arange(1, log_probs.shape[-1] + 1, dtype=np.float64)
    return (weights * values).sum(axis=-1) / weights.sum(axis=-1)


def dialogue_lines(turns: list) -> str:
    """Turns as lines, the last one A's (the reply is B's)."""
    n = len(turns)
    return "\n".join(f"{'A' if (n - 1 - i) % 2 == 0 else 'B'}: {t}" for i, t in enumerate(turns))


class LMJudge:
    """Per-aspect ratings by one causal LM (see the module docstring). ``lm``: a
    ``NeuralLM`` or a model to load (default the packaged SmolLM2); ``aspects``: names of
    ``ASPECTS`` or {name: question}; ``combined``: the aspects averaged into ``lm_judge``
    (default: those of ``DEFAULT_COMBINED`` present, else all); ``references``: show the
    references in the prompt when given. ``reward`` rates the ``combined`` aspects only.

    Parameters
    ----------
    lm : NeuralLM, str or path, optional
        The judge: a loaded ``NeuralLM``, or a model to load; None: the packaged SmolLM2.
    aspects : sequence of str or mapping of str to str, default every name of ``ASPECTS``
        Aspect names of ``ASPECTS``, or ``{name: question}`` (a column ``lm_judge_<name>`` each).
    combined : sequence of str, optional
        The aspects averaged into ``lm_judge``; None: ``DEFAULT_COMBINED`` (groundedness)
        where present, else every aspect.
    references : bool, default True
        Show up to 3 references in the prompt when they are given.
    device : str, default "auto"
        Where a model to load goes.
    method : {"auto", "cache", "tree", "separate"}, default "auto"
        How the aspects' continuations share the prompt (``fastamfm.neural.continuations``).

    Raises
    ------
    ValueError
        An unknown or empty aspect list, a ``combined`` aspect not among ``aspects``, an
        unknown ``method``.
    TypeError
        ``aspects`` a single str, ``references`` not a bool.
    """

    def __init__(self, lm=None, *, aspects=DEFAULT_ASPECTS, combined=None, references: bool = True,
                 device: str = "auto", method: str = "auto"):
        from ..neural.continuations import METHODS
        from ..neural.neural_lm import NeuralLM

        self.aspects = check_aspects(aspects)
        if combined is None:
            combined = [a for a in DEFAULT_COMBINED if a in self.aspects] or list(self.aspects)
        self.combined = tuple(combined)
        for name in self.combined:
            if name not in self.aspects:
                raise ValueError(f"lm_judge: combined aspect {name!r} is not among the aspects {list(self.aspects)}")
        if not self.combined:
            raise ValueError("lm_judge: combined names no aspect")
        if not isinstance(references, bool):
            raise TypeError(f"lm_judge: references must be True or False, got {type(references).__name__}")
        if method not in METHODS:
            raise ValueError(f"lm_judge: method must be one of {METHODS}, got {method!r}")
        self.references, self.method = references, method
        self.lm = lm if isinstance(lm, NeuralLM) else NeuralLM.load(*(() if lm is None else (lm,)), device=device)

    @property
    def columns(self) -> tuple:
        return ("lm_judge",) + tuple(f"lm_judge_{a}" for a in self.aspects)

    def _prompt_name(self) -> str:
        custom = {a: q for a, q in self.aspects.items() if ASPECTS.get(a) != q}
        if not custom:
            return "fastamfm-1"
        return "fastamfm-1+" + hashlib.sha256(repr(sorted(custom.items())).encode()).hexdigest()[:12]

    def signature(self, with_references: bool | None = False) -> str:
        """``with_references``: whether references were given (None: when a batch has them)."""
        refs = int(bool(with_references) and self.references) if with_references is not None else \
            ("auto" if self.references else 0)
        return make_signature("lm_judge", lm=self.lm.fingerprint, prompt=self._prompt_name(),
                              aspects="+".join(self.aspects), combined="+".join(self.combined), refs=refs,
                              rating="expected1-5")

    def __repr__(self) -> str:
        return f"LMJudge(aspects={list(self.aspects)}, lm={self.lm!r})"

    @refs_before_contexts
    def log_probs(self, hyps, refs=None, contexts=None, *, aspects=None) -> np.ndarray:
        """ln p of each rating token 1..5 per reply and aspect (``aspects``: a subset of
        them; default all): float64 [n, A, 5]; rows of empty replies are NaN (not scored)."""
        hyps = text_list(hyps, "hyps")
        if contexts is None:
            raise ValueError("lm_judge: needs the dialogue contexts (contexts=): it rates a reply to a dialogue")
        turns = context_turns(contexts, len(hyps), "lm_judge")
        shown = None
        if refs is not None and self.references:
            texts = ReferenceTexts(refs, len(hyps), "lm_judge")
            shown = [texts.flat[texts.offsets[i]:texts.offsets[i + 1]][:MAX_REFERENCES] for i in range(len(hyps))]
        asked = list(self.aspects) if aspects is None else list(aspects)
        out = np.full((len(hyps), len(asked), len(RATINGS)), np.nan)
        keep = np.nonzero(~empty_responses(hyps))[0]
        if len(keep):
            items = [(turns[i], _head(hyps[i], None if shown is None else shown[i])) for i in keep]
            tails = [self.aspects[a] for a in asked]
            out[keep] = self.lm.prompt_answer_log_probs(items, tails, list(RATINGS), cue=CUE, method=self.method)
        return out

    def columns_from(self, log_probs: np.ndarray) -> dict:
        """{column: ratings} from ``log_probs`` (NaN rows: empty replies, ``LOWEST``)."""
        ratings = np.where(np.isnan(log_probs).any(axis=-1), LOWEST,
                           expected_ratings(np.nan_to_num(log_probs, nan=0.0)))
        columns = {f"lm_judge_{a}": ratings[:, k] for k, a in enumerate(self.aspects)}
        columns = {"lm_judge": np.mean([columns[f"lm_judge_{a}"] for a in self.combined], axis=0)
                   if len(ratings) else np.zeros(0), **columns}
        return columns

    @refs_before_contexts
    @reports_progress
    def score(self, hyps, refs=None, contexts=None, *, progress: ProgressOption = None) -> MetricResult:
        """``lm_judge`` and ``lm_judge_<aspect>`` per reply; ``.extra["log_probs"]`` [n, A, 5];
        ``progress``: per forward batch (``fastamfm.progress``).

        Parameters
        ----------
        hyps : sequence of str
            The n replies.
        refs : sequence of sequences of str, optional
            Their references, shown in the prompt when the judge was built with ``references=True``.
        contexts : sequence
            Per reply the dialogue before it (required).
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        MetricResult
            Columns ``lm_judge`` and ``lm_judge_<aspect>`` (ratings in [1, 5], float64 [n]),
            their means in ``.corpus``; ``.extra["log_probs"]`` and ``.extra["aspects"]``.

        Raises
        ------
        ValueError
            No ``contexts``; inputs of different lengths.
        TypeError
            ``hyps`` not a sequence of strings; ``refs`` and ``contexts`` both positional.
        """
        log_probs = self.log_probs(hyps, refs=refs, contexts=contexts)
        columns = self.columns_from(log_probs)
        corpus = {c: float(np.mean(v)) if len(v) else float("nan") for c, v in columns.items()}
        return MetricResult("lm_judge", corpus, columns, self.signature(refs is not None),
                            {"log_probs": log_probs, "aspects": tuple(self.aspects)})

    @refs_before_contexts
    @reports_progress
    def reward(self, hyps, refs=None, contexts=None, *, progress: ProgressOption = None):
        """``lm_judge`` per reply as a float32 torch tensor on the LM's device.

        Parameters
        ----------
        hyps : sequence of str
            The n replies (completions) to reward.
        refs : sequence of sequences of str, optional
            Their references (see ``score``).
        contexts : sequence
            Per reply the dialogue before it (required).
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        torch.Tensor
            float32 [n]: the mean rating of the ``combined`` aspects, in [1, 5].

        Raises
        ------
        ValueError
            As ``score``.
        """
        from ..runtime import import_torch

        log_probs = self.log_probs(hyps, refs=refs, contexts=contexts, aspects=self.combined)
        ratings = np.where(np.isnan(log_probs).any(axis=-1), LOWEST, expected_ratings(np.nan_to_num(log_probs)))
        values = ratings.mean(axis=1).astype(np.float32)
        return import_torch().from_numpy(values).to(self.lm.device)


def _head(reply: str, references):
    """The shared part of the prompt, from the context turns kept."""
    shown = "".join(REFERENCE_LINE.format(reference=r) for r in references or ())

    def head(turns: list) -> str:
        return PROMPT_HEAD.format(dialogue=dialogue_lines(turns), reply=reply, references=shown)

    return head
