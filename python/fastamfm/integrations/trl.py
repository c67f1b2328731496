"""Any registered metric as a reward function of TRL's trainers (GRPO, RLOO, ...).

    from fastamfm.integrations.trl import reward_function
    trainer = GRPOTrainer(model, reward_funcs=reward_function("amfm"), args=config, train_dataset=dataset)

TRL calls each reward function as ``f(prompts=..., completions=..., completion_ids=...,
**columns)``, where ``columns`` are the dataset's other columns repeated for every
completion of a prompt (plus ``trainer_state``, ``log_metric``, ...), and expects one
float per completion. A ``RewardFunction`` reads:

- the responses from ``completions``: plain strings, or conversational message lists
  (the last assistant message's content);
- the references from the dataset column ``references=`` (default ``"references"``):
  per row a list of strings or one string;
- the dialogue context from the prompt (``contexts="prompt"``, the default): a plain
  prompt is the dialogue as text (turns separated by newlines), a conversational one
  its messages' contents, the system prompt left out. Metrics that can score without
  references (``deep_amfm``, ``deep_fm``, ``deep_am``) or need contexts (a ``learned``
  scorer fitted on them) score from it -- with references too, if the dataset has them
  (``deep_amfm``'s "both" mode; ``references=None`` for reference-free only); the prompts
  are not even read for the others. ``contexts=None`` passes none, another string names
  a dataset column.

Metrics come from the registry by name, column or alias, with the options of
``fastamfm.evaluate`` (``model=``, ``encoder=``, ``lm=``, ``vectors=``, a dict per
metric...): ``reward_function("amfm")``, ``reward_function("Bleu_4")``,
``reward_function({"deep_amfm": 0.7, "Bleu_2": 0.3}, encoder=..., lm=...)``. A metric
with several columns is named by the column to reward (``"Bleu_4"``, ``"bertscore_f1"``)
unless one of its columns bears its name (``deep_amfm``). Several terms are added with
their weights into one reward (and each term's batch mean goes to TRL's ``log_metric``,
so the logs show them apart); for TRL to weigh and log them itself, pass one
``reward_function`` per term with ``GRPOConfig(reward_weights=...)``.

Neural metrics load their models on the first call, on ``device="auto"`` unless told
otherwise: that is the current CUDA device, which accelerate sets to each process's own
GPU before training starts -- the trainer's device. Their scores come back to the host
once per call, as TRL's synchronous reward path builds its reward tensor from a list of
floats (a device tensor returned to it would be read element by element).

Rewards on the completions' token ids (no decoding; TRL's async path too):
``fastamfm.integrations.trl_token_ids.token_reward_function``.

CIDEr computes its idf over the references of each call unless given
``document_frequencies=`` (e.g. counted once over the training set's references).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .. import registry
from .._validation import metrics_need
from ..pipeline import Pipeline
from ._columns import requested_columns

DEFAULT_REFERENCES = "references"
PROMPT = "prompt"


def reward_function(metrics, *, weights=None, references: str | None = DEFAULT_REFERENCES,
                    contexts: str | None = PROMPT, name: str | None = None, **options) -> "RewardFunction":
    """A TRL reward function over registry ``metrics`` (see the module docstring):
    a name, column or alias, a list of them, or a mapping {metric: weight}.

    Parameters
    ----------
    metrics : str, sequence of str or mapping
        Registry names, columns or aliases; a mapping {metric: weight} adds weighted terms.
    weights : sequence of float, optional
        The terms' weights when ``metrics`` is a list.
    references : str or None
        The dataset column holding each prompt's references (``None``: reference-free).
    contexts : str or None
        Where the dialogue comes from for reference-free metrics (default: the prompt).
    name : str, optional
        The name TRL logs the reward under (``rewards/<name>/mean``); default
        ``fastamfm_<metrics>``.
    **options
        The metrics' settings, as for ``fastamfm.evaluate``.

    Returns
    -------
    RewardFunction
        A callable with TRL's ``reward_funcs`` signature, returning one float per completion.

    Raises
    ------
    TypeError
        ``references=`` or ``contexts=`` that is not a column name or None.
    ValueError
        A metric that cannot run here (the error says how to enable it): a reward term is
        never dropped silently.

    Examples
    --------
    >>> from fastamfm.integrations.trl import reward_function
    >>> reward = reward_function("Bleu_2")
    >>> reward.__name__
    'fastamfm_Bleu_2'
    """
    return RewardFunction(metrics, weights=weights, references=references, contexts=contexts, name=name, **options)


class RewardFunction:
    """A callable with TRL's ``reward_funcs`` signature over one fastamfm pipeline; its
    ``__name__`` is the name TRL logs the reward under (``rewards/<name>/mean``)."""

    def __init__(self, metrics, *, weights=None, references: str | None = DEFAULT_REFERENCES,
                 contexts: str | None = PROMPT, name: str | None = None, **options):
        specs, weights = _terms(metrics, weights)
        for what, column in (("references", references), ("contexts", contexts)):
            if column is not None and not isinstance(column, str):
                raise TypeError(f"reward_function: {what}= must be a dataset column name or None, "
                                f"got {type(column).__name__}")
        self.__name__ = name or "fastamfm_" + "+".join(specs)
        self.references = references
        self.contexts = contexts
        # strict: a reward term that cannot run here is an error, never silently dropped.
        self.pipeline = Pipeline.from_names([registry.metric_class(s).name for s in specs], strict=True,
                                            what=self.__name__, **options)
        self.terms = [(_column(self.pipeline, spec, self.__name__), weight) for spec, weight in zip(specs, weights)]
        self._needs_references = any(m.needs_references for m in self.pipeline.metrics)
        # Only a metric that can score without references, or needs contexts, reads them:
        # for the others (BLEU, AM-FM...) the prompts are not converted at all.
        self._reads_contexts = any(m.needs_contexts or not m.needs_references for m in self.pipeline.metrics)

    def __repr__(self) -> str:
        terms = " + ".join(f"{w:g}*{c}" for c, w in self.terms)
        return f"RewardFunction({self.__name__!r}: {terms}; references={self.references!r}, contexts={self.contexts!r})"

    def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs) -> list:
        if completions is None:
            raise TypeError(f"{self.__name__}: called without completions= (TRL passes prompts=, completions=, ...)")
        hyps = [_completion_text(c, i, self.__name__) for i, c in enumerate(completions)]
        columns = self.scores(hyps, self._references(kwargs, len(hyps)), self._contexts(prompts, kwargs))
        reward = np.zeros(len(hyps), dtype=np.float64)
        for column, weight in self.terms:
            reward += weight * columns[column]
        log_metric = kwargs.get("log_metric")
        if len(self.terms) > 1 and callable(log_metric):
            for column in dict(self.terms):
                log_metric(f"{self.__name__}/{column}", float(np.nanmean(columns[column])))
        return reward.tolist()

    def scores(self, hyps, refs=None, contexts=None) -> dict:
        """Per-response columns {column: ndarray[n]} of this call's metrics."""
        pipeline = self.pipeline
        batch = pipeline.batch(hyps, refs, contexts, what=self.__name__)
        if pipeline.needs_reference_pass:
            pipeline = pipeline.with_reference_statistics(pipeline.reference_statistics(batch.refs))
        return pipeline.score_batch(batch)[0]

    # --- what TRL passes -------------------------------------------------------------
    def _references(self, kwargs: dict, n: int):
        if self.references is None or self.references not in kwargs:
            if self._needs_references:
                given = sorted(k for k in kwargs if k not in ("trainer_state", "log_extra", "log_metric",
                                                             "environments"))
                raise KeyError(f"{self.__name__}: {metrics_need(self.pipeline.names)} references, read from the "
                               f"dataset column {self.references!r}, which TRL did not pass (dataset columns it "
                               f"passed: {given}); add that column or name another with references=")
            return None
        column = kwargs[self.references]
        if len(column) != n:
            raise ValueError(f"{self.__name__}: {n} completions but {len(column)} rows of {self.references!r}")
        return [[r] if isinstance(r, str) else r for r in column]

    def _contexts(self, prompts, kwargs: dict):
        if self.contexts is None or not self._reads_contexts:
            return None
        if self.contexts == PROMPT:
            if prompts is None:
                raise TypeError(f"{self.__name__}: contexts='prompt' but called without prompts=")
            return [_prompt_turns(p, i, self.__name__) for i, p in enumerate(prompts)]
        if self.contexts not in kwargs:
            raise KeyError(f"{self.__name__}: no dataset column {self.contexts!r} for contexts= "
                           f"(contexts='prompt' reads the dialogue from the prompt)")
        return kwargs[self.contexts]


def _terms(metrics, weights) -> tuple[list, list]:
    """(metric specs, weights) from a name, a list of names or a {name: weight} mapping."""
    if isinstance(metrics, Mapping):
        if weights is not None:
            raise TypeError("reward_function: give weights either as a mapping {metric: weight} or as weights=, "
                            "not both")
        specs, weights = list(metrics), list(metrics.values())
    elif isinstance(metrics, str):
        specs = [s.strip() for s in metrics.split(",") if s.strip()]
    elif isinstance(metrics, Sequence):
        specs = list(metrics)
    else:
        raise TypeError(f"reward_function: metrics must be a name, a list of names or a mapping {{name: weight}}, "
                        f"got {type(metrics).__name__}")
    if not specs:
        raise ValueError("reward_function: no metric named")
    for s in specs:
        if not isinstance(s, str):
            raise TypeError(f"reward_function: metric names must be strings, got {type(s).__name__}")
    weights = [1.0] * len(specs) if weights is None else list(weights)
    if len(weights) != len(specs):
        raise ValueError(f"reward_function: {len(specs)} metrics but {len(weights)} weights")
    for s, w in zip(specs, weights):
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
            raise ValueError(f"reward_function: the weight of {s!r} must be a finite number, got {w!r}")
    return specs, [float(w) for w in weights]


def _column(pipeline: Pipeline, spec: str, what: str) -> str:
    """The one column ``spec`` rewards: the column it names, else its metric's only
    column, else the column bearing the metric's name."""
    columns = requested_columns(pipeline, spec, what)
    if len(columns) == 1:
        return columns[0]
    name = registry.metric_class(spec).name
    if name in columns:
        return name
    raise ValueError(f"{what}: {name} has the columns {columns}; name the one to reward, "
                     f"e.g. reward_function({columns[-1]!r})")


def _is_message(item) -> bool:
    return isinstance(item, dict) or isinstance(item, Mapping)   # dicts first: the common case, and fast


def _message_text(message, where: str) -> str:
    if not _is_message(message):
        raise TypeError(f"{where} must be a str or a list of chat messages (dicts with 'role' and 'content'), "
                        f"got {type(message).__name__}")
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    # Multimodal content: a list of parts, of which the text parts are the turn's words.
    return " ".join(p.get("text", "") for p in content if _is_message(p) and p.get("type") == "text")


def _completion_text(completion, i: int, what: str) -> str:
    """A plain completion, or a conversational one's last assistant message."""
    if isinstance(completion, str):
        return completion
    where = f"{what}: completions[{i}]"
    if not isinstance(completion, Sequence) or not completion:
        raise TypeError(f"{where} must be a str or a non-empty list of chat messages, got {completion!r:.80}")
    for message in reversed(completion):
        if _is_message(message) and message.get("role") == "assistant":
            return _message_text(message, where)
    return _message_text(completion[-1], where)


def _prompt_turns(prompt, i: int, what: str):
    """The dialogue so far: a plain prompt as it is (the pipeline splits it into turns at
    newlines), a conversational one as its turns, without the system prompt."""
    if isinstance(prompt, str):
        return prompt
    where = f"{what}: prompts[{i}]"
    if not isinstance(prompt, Sequence):
        raise TypeError(f"{where} must be a str or a list of chat messages, got {type(prompt).__name__}")
    return [_message_text(m, where) for m in prompt if not (_is_message(m) and m.get("role") == "system")]


__all__ = ["RewardFunction", "reward_function"]
