"""Follow-up likelihood: a reply judged by how the conversation would go on.

    scorer = FollowupScorer()                           # the packaged SmolLM2-135M-Instruct
    scorer.score(hyps, contexts=contexts).sentences["followup"]     # per reply
    scorer.reward(hyps, contexts=contexts)              # float32 torch tensor on the LM's device

For each (context, reply), a causal LM reads the dialogue with the reply as the next turn
(in its own chat format: the reply is the assistant's turn, each follow-up the user's
answer to it; a model without a chat template: turns on lines) and gives the mean ln p
per token of each utterance of a follow-up set. A good reply makes "That's really
interesting!" likely and "You're really boring." unlikely (FED, Mehri & Eskenazi 2020;
FULL, De Bruyn et al. 2022):

    followup = mean over positive follow-ups - mean over negative follow-ups

(a set with no positive follow-ups: minus the mean over the negative ones; none negative:
the mean over the positive ones). The context + reply is computed once for all the
follow-ups (``fastamfm.neural.continuations``). The default set was chosen on the DSTC-10
development sets only, leave-one-set-out (``benchmarks/judge/correlation.py``); it is named
in the signature (``set=``), a custom set by the hash of its texts.

The scale: nats per token, clipped below at ``LOWEST`` (-20, below any real reply: a
mean ln p per token is above -12 even for a uniform guess over a 100k vocabulary), which
an empty or whitespace-only reply scores, so rewards stay finite.
``extra["log_probs"]`` holds every follow-up's mean ln p [n, K] (positive ones first),
``extra["followups"]`` their texts.

``DeepAMFM(context_combination="am+fm+followup")`` adds the default set's followup, on its fixed
calibration, to Deep AM and Deep FM in its reference-free score (``DeepAMFM.followup``; not the
default: see ``fastamfm.deep.deep_amfm``).
"""
from __future__ import annotations

import hashlib

import numpy as np

from .._argument_order import refs_before_contexts
from ..progress import ProgressOption, reports_progress
from ..result import MetricResult, make_signature
from .inputs import context_turns, empty_responses, text_list

# The candidate follow-ups scored on the development sets (fastamfm's own wording of the
# kinds of follow-up FED uses: interest, understanding, boredom, confusion).
CANDIDATE_POSITIVE = ("That's really interesting!", "That makes sense.", "Wow, tell me more!")
CANDIDATE_NEGATIVE = ("You're really boring.", "That doesn't make sense.", "What are you talking about?")
# The default set, chosen leave-one-set-out on dstc10_dev among the candidates' variants (both
# sides, negatives only, positives only, each alone): both sides, the best on the other four sets in
# every fold (every turn; mean Spearman 18.3, fed-turn 39.0 with SmolLM2-135M: benchmarks/judge/README.md).
DEFAULT_POSITIVE = CANDIDATE_POSITIVE
DEFAULT_NEGATIVE = CANDIDATE_NEGATIVE
DEFAULT_SET_NAME = "fastamfm-1"
LOWEST = -20.0


def check_followups(positive, negative, what: str = "followup") -> tuple:
    """(positive, negative) as tuples of non-empty strings; at least one follow-up."""
    out = []
    for name, texts in (("positive", positive), ("negative", negative)):
        if isinstance(texts, str):
            raise TypeError(f"{what}: {name} must be a list of follow-up utterances, not one string")
        texts = tuple(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"{what}: {name}[{i}] is {type(t).__name__}, expected str")
            if not t.strip():
                raise ValueError(f"{what}: {name}[{i}] is empty; a follow-up must be an utterance")
        out.append(texts)
    if not out[0] and not out[1]:
        raise ValueError(f"{what}: the follow-up set is empty; give at least one positive or negative follow-up")
    return tuple(out)


def set_name(positive: tuple, negative: tuple) -> str:
    """The default set's name, or the counts and a hash of a custom set's texts."""
    if positive == DEFAULT_POSITIVE and negative == DEFAULT_NEGATIVE:
        return DEFAULT_SET_NAME
    digest = hashlib.sha256("\x1f".join(positive + ("\x1e",) + negative).encode()).hexdigest()[:12]
    return f"custom:+{len(positive)}-{len(negative)}:{digest}"


def combine(log_probs: np.ndarray, n_positive: int) -> np.ndarray:
    """followup from the follow-ups' mean ln p [n, K] (the positive ones first), before clipping."""
    log_probs = np.asarray(log_probs, dtype=np.float64)
    positive, negative = log_probs[:, :n_positive], log_probs[:, n_positive:]
    score = np.zeros(len(log_probs))
    if positive.shape[1]:
        score += positive.mean(axis=1)
    if negative.shape[1]:
        score -= negative.mean(axis=1)
    return score


class FollowupScorer:
    """Follow-up likelihood with one causal LM (see the module docstring). Thread-safe as
    ``NeuralLM`` is. ``lm``: a ``NeuralLM``, or a model to load (a transformers directory,
    a GGUF file, an installed package; default the packaged SmolLM2); ``method``: how the
    shared prefix is reused (``fastamfm.neural.continuations``).

    Parameters
    ----------
    lm : NeuralLM, str or path, optional
        The LM, or a model to load; None: the packaged SmolLM2.
    positive : sequence of str, default ``DEFAULT_POSITIVE``
        Follow-ups of a pleased interlocutor.
    negative : sequence of str, default ``DEFAULT_NEGATIVE``
        Follow-ups of a bored or puzzled one.
    device : str, default "auto"
        Where a model to load goes.
    method : {"auto", "cache", "tree", "separate"}, default "auto"
        How the shared prefix is reused.

    Raises
    ------
    ValueError
        An empty follow-up set or an empty follow-up, an unknown ``method``.
    TypeError
        A follow-up list given as one string, a follow-up that is not a str.
    """

    def __init__(self, lm=None, *, positive=DEFAULT_POSITIVE, negative=DEFAULT_NEGATIVE, device: str = "auto",
                 method: str = "auto"):
        from ..neural.continuations import METHODS
        from ..neural.neural_lm import NeuralLM

        self.positive, self.negative = check_followups(positive, negative)
        if method not in METHODS:
            raise ValueError(f"followup: method must be one of {METHODS}, got {method!r}")
        self.method = method
        self.lm = lm if isinstance(lm, NeuralLM) else NeuralLM.load(*(() if lm is None else (lm,)), device=device)

    @property
    def followups(self) -> tuple:
        return self.positive + self.negative

    def signature(self) -> str:
        return make_signature("followup", lm=self.lm.fingerprint, set=set_name(self.positive, self.negative),
                              formula="mean_pos-mean_neg", low=LOWEST)

    def __repr__(self) -> str:
        return f"FollowupScorer({set_name(self.positive, self.negative)}, lm={self.lm!r})"

    @staticmethod
    def _inputs(hyps, contexts) -> tuple:
        """(the replies, their contexts as lists of turns), checked."""
        hyps = text_list(hyps, "hyps")
        if contexts is None:
            raise ValueError("followup: needs the dialogue contexts (contexts=): it scores what comes after the reply")
        return hyps, context_turns(contexts, len(hyps), "followup")

    def log_probs(self, hyps, contexts) -> np.ndarray:
        """Mean ln p per token of each follow-up (positive ones first) after each (context,
        reply): float64 [n, K]; rows of empty replies are NaN (not scored)."""
        hyps, turns = self._inputs(hyps, contexts)
        empty = empty_responses(hyps)
        out = np.full((len(hyps), len(self.followups)), np.nan)
        keep = np.nonzero(~empty)[0]
        if len(keep):
            out[keep] = self.lm.followup_log_probs([hyps[i] for i in keep], [turns[i] for i in keep],
                                                   list(self.followups), method=self.method)
        return out

    def log_probs_with_replies(self, hyps, contexts) -> tuple:
        """(``log_probs(hyps, contexts)``, each reply's ``NeuralTokenScores`` given its context)
        from one pass of the LM's prefix tree (``NeuralLM.replies_and_followups``): the
        reply's own tokens, which Deep FM's conditional term needs, are the start of its
        follow-ups' prefix. Rows of empty replies are NaN, as ``log_probs`` gives them."""
        hyps, turns = self._inputs(hyps, contexts)
        replies, log_probs = self.lm.replies_and_followups(hyps, turns, list(self.followups), method=self.method)
        log_probs[empty_responses(hyps)] = np.nan
        return log_probs, replies

    def scores_from(self, log_probs: np.ndarray) -> np.ndarray:
        """followup per reply from ``log_probs`` (NaN rows: empty replies, ``LOWEST``)."""
        score = combine(log_probs, len(self.positive))
        return np.where(np.isnan(score), LOWEST, np.maximum(score, LOWEST))

    @refs_before_contexts
    @reports_progress
    def score(self, hyps, refs=None, contexts=None, *, progress: ProgressOption = None) -> MetricResult:
        """followup per reply (``.sentences["followup"]``), its mean (``.corpus["followup"]``);
        ``.extra``: the log-probs; ``progress``: per forward batch (``fastamfm.progress``).

        Parameters
        ----------
        hyps : sequence of str
            The n replies.
        refs : None
            Must stay None (the score is reference-free; in the signature for the shared argument order).
        contexts : sequence
            Per reply the dialogue before it (required).
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        MetricResult
            Column ``followup`` (float64 [n], at least -20, the score of an empty reply) and
            its mean; ``.extra["log_probs"]`` [n, K] and ``.extra["followups"]``.

        Raises
        ------
        ValueError
            ``refs`` given, no ``contexts``, inputs of different lengths.
        TypeError
            ``hyps`` not a sequence of strings.
        """
        _reference_free(refs)
        log_probs = self.log_probs(hyps, contexts)
        values = self.scores_from(log_probs)
        corpus = float(np.mean(values)) if len(values) else float("nan")
        return MetricResult("followup", {"followup": corpus}, {"followup": values}, self.signature(), {"log_probs": log_probs, "followups": self.followups})

    @refs_before_contexts
    @reports_progress
    def reward(self, hyps, refs=None, contexts=None, *, progress: ProgressOption = None):
        """followup per reply as a float32 torch tensor on the LM's device.

        Parameters
        ----------
        hyps : sequence of str
            The n replies (completions) to reward.
        refs : None
            Must stay None (reference-free).
        contexts : sequence
            Per reply the dialogue before it (required).
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        torch.Tensor
            float32 [n].

        Raises
        ------
        ValueError
            As ``score``.
        """
        from ..runtime import import_torch

        _reference_free(refs)
        values = self.scores_from(self.log_probs(hyps, contexts)).astype(np.float32)
        return import_torch().from_numpy(values).to(self.lm.device)


def _reference_free(refs) -> None:
    # refs= is in the signature only for the one argument order every scorer shares.
    if refs is not None:
        raise ValueError("followup: is reference-free (it scores what comes after the reply in its dialogue); "
                         "drop refs= and pass contexts=")
