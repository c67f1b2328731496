"""The JSON bodies the service takes, checked before anything is queued: every error is a
``RequestError`` that names the field and the index (``refs[3][1]``) and carries its HTTP
status (400 for what is malformed, 413 for what is too large), so a client can fix the one
item at fault.

- ``/v1/score``: ``{"hyps": [str], "refs": [[str]]?, "contexts": [str | [str]]?,
  "metrics": [str] | "a,b"?, "options": {...}?}``
- ``/v1/reward``: ``{"completions": [str], "references": [[str] | str]?,
  "contexts": [str | [str]]?, "metric": str | [str] | {str: weight}?, "options": {...}?}``
- ``/get_reward`` (OpenRLHF's remote reward model): ``{"query": [str], "prompts": [str]?,
  "labels": [str | [str] | null]?}``; a query is the prompt followed by the response.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass


class RequestError(ValueError):
    """A request the service refuses: ``status`` (400, 413...), the ``field`` at fault
    (``"hyps[2]"``; None for the body as a whole) and what is wrong with it."""

    def __init__(self, status: int, field: str | None, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.status, self.field, self.message = status, field, message

    def to_json(self) -> dict:
        return {"error": {"status": self.status, "field": self.field, "message": self.message}}


@dataclass(frozen=True)
class ScoreRequest:
    """One checked request: the texts, the metric names and the request's own options."""

    hyps: list
    refs: list | None
    contexts: list | None
    metrics: tuple
    options: dict


@dataclass(frozen=True)
class RewardRequest:
    hyps: list
    refs: list | None
    contexts: list | None
    metric: object            # what fastamfm.integrations.trl.reward_function takes
    options: dict


def decode_body(body: bytes) -> dict:
    """The body as a JSON object: invalid UTF-8, invalid JSON, NaN/Infinity and anything
    but an object are 400s saying where."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(400, None, f"the body is not valid UTF-8 (byte {exc.start}: {exc.reason})") from None
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RequestError(400, None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise RequestError(400, None, f"the body must be a JSON object, got {_json_type(data)}")
    return data


def _no_constant(name: str):
    raise RequestError(400, None, f"invalid JSON: {name} is not a JSON number")


def _json_type(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


class _Budget:
    """The request's word count against ``max_tokens`` (413 once over)."""

    def __init__(self, max_tokens: int):
        self.left = max_tokens
        self.max_tokens = max_tokens

    def spend(self, text: str, where: str) -> None:
        self.left -= len(text.split())
        if self.left < 0:
            raise RequestError(413, where, f"the request holds more than {self.max_tokens} words "
                                           f"(the server's max_tokens)")


def _text(value, where: str, budget: _Budget) -> str:
    if not isinstance(value, str):
        raise RequestError(400, where, f"expected a string, got {_json_type(value)}")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            # JSON's \ud800-style escapes decode to lone surrogates, which no tokenizer can encode.
            raise RequestError(400, where, "not valid Unicode (an unpaired surrogate escape)") from None
    budget.spend(value, where)
    return value


def _texts(value, where: str, budget: _Budget, *, max_lines: int | None = None) -> list:
    if not isinstance(value, list):
        raise RequestError(400, where, f"expected an array of strings, got {_json_type(value)}")
    if not value:
        raise RequestError(400, where, "is empty")
    if max_lines is not None and len(value) > max_lines:
        raise RequestError(413, where, f"{len(value)} responses, more than the server's max_lines ({max_lines})")
    return [_text(v, f"{where}[{i}]", budget) for i, v in enumerate(value)]


def _reference_lists(value, where: str, n: int, budget: _Budget, *, single_strings: bool) -> list:
    """Per response a non-empty list of references (or one string, where ``single_strings``)."""
    if not isinstance(value, list):
        raise RequestError(400, where, f"expected an array of {n} reference lists, got {_json_type(value)}")
    if len(value) != n:
        raise RequestError(400, where, f"{len(value)} reference lists for {n} responses")
    out = []
    for i, refs in enumerate(value):
        if single_strings and isinstance(refs, str):
            refs = [refs]
        out.append(_texts(refs, f"{where}[{i}]", budget))
    return out


def _contexts(value, where: str, n: int, budget: _Budget) -> list:
    if not isinstance(value, list):
        raise RequestError(400, where, f"expected an array of {n} contexts, got {_json_type(value)}")
    if len(value) != n:
        raise RequestError(400, where, f"{len(value)} contexts for {n} responses")
    out: list = []
    for i, context in enumerate(value):
        if isinstance(context, list):
            out.append([_text(t, f"{where}[{i}][{j}]", budget) for j, t in enumerate(context)])
        else:
            out.append(_text(context, f"{where}[{i}]", budget))
    return out


def _options(value, where: str = "options") -> dict:
    """A request's metric settings: any JSON object, except settings that name files (a
    path sent over HTTP would let any client load any file of the server's machine);
    those are the server's own (``fastamfm serve --option``)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RequestError(400, where, f"expected an object of metric settings, got {_json_type(value)}")
    for key, setting in value.items():
        inner = setting.items() if isinstance(setting, dict) else [(None, setting)]
        for name, v in inner:
            place = f"{where}.{key}" + (f".{name}" if name is not None else "")
            if isinstance(v, str) and ("/" in v or "\\" in v or v.startswith((".", "~"))):
                raise RequestError(400, place, f"{v!r} looks like a path: a request may not name files; start the "
                                               f"server with --option {key}=PATH")
            if isinstance(v, float) and not math.isfinite(v):
                raise RequestError(400, place, "not a finite number")
    return dict(value)


def _check_fields(data: dict, known: tuple) -> None:
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise RequestError(400, unknown[0], f"unknown field; the fields are {', '.join(known)}")


def _metric_names(value) -> tuple:
    if value is None:
        return ()
    if isinstance(value, str):
        names = [m.strip() for m in value.split(",") if m.strip()]
    elif isinstance(value, list):
        for i, m in enumerate(value):
            if not isinstance(m, str):
                raise RequestError(400, f"metrics[{i}]", f"expected a metric name, got {_json_type(m)}")
        names = value
    else:
        raise RequestError(400, "metrics", f"expected an array of metric names, got {_json_type(value)}")
    if not names:
        raise RequestError(400, "metrics", "is empty")
    return tuple(names)


def _responses(data: dict, responses: str, references: str, *, single_strings: bool, max_lines: int,
               max_tokens: int) -> tuple:
    """(responses, references or None, contexts or None) of a request, the responses under the
    field ``responses`` and their references under ``references``, within one token budget."""
    budget = _Budget(max_tokens)
    hyps = _texts(data[responses], responses, budget, max_lines=max_lines)
    refs = data.get(references)
    contexts = data.get("contexts")
    return (hyps,
            None if refs is None else _reference_lists(refs, references, len(hyps), budget,
                                                       single_strings=single_strings),
            None if contexts is None else _contexts(contexts, "contexts", len(hyps), budget))


def score_request(data: dict, *, max_lines: int, max_tokens: int) -> ScoreRequest:
    _check_fields(data, ("hyps", "refs", "contexts", "metrics", "options"))
    if "hyps" not in data:
        raise RequestError(400, "hyps", "missing: the responses to score")
    hyps, refs, contexts = _responses(data, "hyps", "refs", single_strings=False, max_lines=max_lines,
                                      max_tokens=max_tokens)
    return ScoreRequest(hyps, refs, contexts, _metric_names(data.get("metrics")), _options(data.get("options")))


def _reward_spec(value):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(m, str) for m in value):
        return value
    if isinstance(value, dict) and value:
        for name, weight in value.items():
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
                raise RequestError(400, f"metric.{name}", f"expected a finite weight, got {_json_type(weight)}")
        return value
    raise RequestError(400, "metric", "expected a metric name, an array of names or an object {name: weight}")


def reward_request(data: dict, *, max_lines: int, max_tokens: int) -> RewardRequest:
    _check_fields(data, ("completions", "references", "contexts", "metric", "options"))
    if "completions" not in data:
        raise RequestError(400, "completions", "missing: the completions to reward")
    hyps, refs, contexts = _responses(data, "completions", "references", single_strings=True, max_lines=max_lines,
                                      max_tokens=max_tokens)
    return RewardRequest(hyps, refs, contexts, _reward_spec(data.get("metric")), _options(data.get("options")))


def openrlhf_request(data: dict, *, metric, max_lines: int, max_tokens: int) -> RewardRequest:
    """OpenRLHF's request as a reward request: the response is the query after its prompt
    (the whole query when it does not start with the prompt), the prompt the context, the
    label (when given) the reference."""
    _check_fields(data, ("query", "prompts", "labels"))
    if "query" not in data:
        raise RequestError(400, "query", "missing: OpenRLHF's queries (prompt + response)")
    budget = _Budget(max_tokens)
    queries = _texts(data["query"], "query", budget, max_lines=max_lines)
    prompts = data.get("prompts")
    if prompts is not None:
        if not isinstance(prompts, list) or len(prompts) != len(queries):
            raise RequestError(400, "prompts", f"expected an array of {len(queries)} prompts")
        prompts = [_text(p, f"prompts[{i}]", budget) for i, p in enumerate(prompts)]
    hyps = [q[len(p):] if p and q.startswith(p) else q for q, p in zip(queries, prompts or [""] * len(queries))]
    labels = data.get("labels")
    if isinstance(labels, list) and all(label is None for label in labels):
        labels = None             # OpenRLHF sends a null label per query when the dataset has none
    refs = None if labels is None else _reference_lists(labels, "labels", len(hyps), budget, single_strings=True)
    return RewardRequest(hyps, refs, prompts, metric, {})
