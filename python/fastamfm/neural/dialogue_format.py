"""How a response and its dialogue context become the token ids a causal LM scores.

A ``ScoringRequest`` is a ``prefix`` (what the response is conditioned on: never empty,
so the first response token has something to be predicted from) and a ``target`` (the
response tokens, plus the end-of-turn token when ``end_token``: off by default, as
scoring it lowered the correlation with people on every DSTC-10 development set). The response is always
tokenized on its own, so its tokens are the same with and without a context (the
reference-free FM subtracts the two log-probabilities token by token).

Styles (``"auto"``, the default: ``"chat"`` when the tokenizer has a chat template, else
``"plain"``; chat tracked people better with SmolLM2-Instruct, benchmarks/deep/amfm_correlation.py):
``"plain"``
  turns joined by newlines: ``<start> turn_1 \\n ... turn_k \\n`` then the response, ended
  by ``\\n``. ``<start>`` is the document separator ``<|endoftext|>`` when the vocabulary
  has it (GPT-2's convention; SmolLM2 was pretrained with it), else BOS, else EOS.
``"chat"``
  the tokenizer's own chat template: the last context turn is the ``user``, earlier
  turns alternate ``assistant``/``user`` backwards, the response is the ``assistant``
  reply, ended by the template's end-of-turn token. No system turn unless
  ``system_prompt`` is given: templates that insert a default system prompt when there
  is none (SmolLM2's does) have that block cut out (see ``ChatTemplate``).

Contexts are truncated from the START (the most recent turns are what the response
answers): ``context_turns`` keeps the last k turns, then whole turns are dropped, oldest
first, until the prefix fits ``max_context_tokens``; a single turn longer than that keeps
its last tokens.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from .bounded_template import (
    ChatTemplateError,
    TemplateRaised,
    compile_template,
    render,
)

STYLES = ("auto", "plain", "chat")


class LMTokenizer(Protocol):
    """What the formatting needs from a tokenizer (``hf_tokenizer``/``llama_cpp_engine``)."""

    special_tokens: tuple          # control-token strings (e.g. "<|im_start|>")
    chat_template: str | None
    bos_token: str | None
    eos_token: str | None

    def encode_batch(self, texts: list, *, special: bool) -> list:
        """Token ids of each text, no BOS/EOS added. ``special``: control-token strings in
        the text become their ids (formatting text); otherwise they are plain text (user text)."""

    def token_id(self, text: str) -> int | None:
        """The id of a single-token string, or None when it is not one token."""


@dataclass(frozen=True)
class ScoringRequest:
    prefix: tuple
    target: tuple


@dataclass(frozen=True)
class ContinuationRequest:
    """Continuations (tuples of token ids) scored after one shared ``prefix`` (never empty):
    what a judge asks (``fastamfm.neural.continuations``)."""

    prefix: tuple
    continuations: tuple


@dataclass(frozen=True)
class FormatSettings:
    style: str = "auto"
    context_turns: int | None = None       # keep the last k turns (None: all)
    max_context_tokens: int = 512
    end_token: bool = False
    system_prompt: str | None = None       # chat style only

    def check(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"NeuralLM: style must be one of {STYLES}, got {self.style!r}")
        if self.context_turns is not None and (isinstance(self.context_turns, bool)
                                               or not isinstance(self.context_turns, int) or self.context_turns < 1):
            raise ValueError(f"NeuralLM: context_turns must be a positive int or None, got {self.context_turns!r}")
        if isinstance(self.max_context_tokens, bool) or not isinstance(self.max_context_tokens, int) \
                or self.max_context_tokens < 1:
            raise ValueError(f"NeuralLM: max_context_tokens must be a positive int, got {self.max_context_tokens!r}")
        if self.system_prompt is not None and self.style == "plain":
            raise ValueError("NeuralLM: system_prompt applies to style='chat' only")

    def describe(self) -> str:
        parts = [self.style, f"turns={self.context_turns or 'all'}", f"ctxtok={self.max_context_tokens}",
                 f"end={int(self.end_token)}"]
        if self.system_prompt is not None:
            parts.append(f"system={len(self.system_prompt)}ch")
        return ",".join(parts)


def normalize_contexts(contexts, n: int) -> list | None:
    """``contexts`` -> per response a list of turns (a str is split on newlines), or None."""
    if contexts is None:
        return None
    if isinstance(contexts, (str, bytes)):
        raise TypeError("contexts must be a list (one context per response), not a single string")
    contexts = list(contexts)
    if len(contexts) != n:
        raise ValueError(f"{n} responses but {len(contexts)} contexts")
    out: list[list[str]] = []
    for i, context in enumerate(contexts):
        if context is None:
            out.append([])
            continue
        if isinstance(context, str):
            context = context.split("\n")
        elif not isinstance(context, (list, tuple)):
            raise TypeError(f"contexts[{i}]: expected a str or a list of turns, got {type(context).__name__}")
        for j, turn in enumerate(context):
            if not isinstance(turn, str):
                raise TypeError(f"contexts[{i}][{j}]: turns must be str, got {type(turn).__name__}")
        out.append([t for t in context])
    return out


class ChatTemplate:
    """A Jinja chat template rendered as ``transformers``' ``apply_chat_template`` renders
    it (in a sandbox, within bounds: ``bounded_template``), minus any system turn the
    template inserts on its own.

    Cutting the inserted block: a probe conversation [system: S, user: U] is rendered; the
    system block runs from the last control token before the role name ``system`` to the
    last control token before the role name ``user`` (for ChatML, ``<|im_start|>system ...
    <|im_end|>\\n``). Conversations are rendered with the probe's system message first
    and that block is removed, so what precedes the first real turn (a BOS, say) stays.
    """

    _SYSTEM_PROBE = "\u2063fastamfm-system\u2063"
    _USER_PROBE = "\u2063fastamfm-user\u2063"
    _REPLY_PROBE = "\u2063fastamfm-reply\u2063"

    def __init__(self, tokenizer: LMTokenizer, system_prompt: str | None):
        if not tokenizer.chat_template:
            raise ValueError("NeuralLM: style='chat' needs a tokenizer with a chat template; this model has none "
                             "(use style='plain')")
        self._template = compile_template(tokenizer.chat_template)
        self._tokens = {"bos_token": tokenizer.bos_token or "", "eos_token": tokenizer.eos_token or ""}
        self._specials = tuple(tokenizer.special_tokens)
        self.system_prompt = system_prompt
        self._cut = None if system_prompt is not None else self._system_block()
        self.end_of_turn = self._end_of_turn(tokenizer)

    def _render_raw(self, messages: list, generation_prompt: bool) -> str:
        return render(self._template, sum(len(m["content"]) for m in messages), messages=messages,
                      add_generation_prompt=generation_prompt, **self._tokens)

    def _last_special_before(self, text: str, end: int) -> int:
        starts = [text.rfind(s, 0, end) for s in self._specials]
        return max(starts, default=-1)

    def _system_block(self) -> tuple | None:
        probe = [{"role": "system", "content": self._SYSTEM_PROBE}, {"role": "user", "content": self._USER_PROBE}]
        try:
            text = self._render_raw(probe, False)
        except TemplateRaised:
            return None          # the template refuses system turns, so it inserts none
        system_at = text.rfind("system", 0, text.index(self._SYSTEM_PROBE))
        user_at = text.rfind("user", 0, text.index(self._USER_PROBE))
        start = self._last_special_before(text, system_at) if system_at >= 0 else -1
        end = self._last_special_before(text, user_at) if user_at >= 0 else -1
        if start < 0 or end <= start:
            raise ChatTemplateError("NeuralLM: cannot locate the system turn of this chat template; "
                                    "pass system_prompt=")
        return text[:start], text[:end]

    def render(self, messages: list, generation_prompt: bool) -> str:
        if self.system_prompt is not None:
            return self._render_raw([{"role": "system", "content": self.system_prompt}] + messages, generation_prompt)
        if self._cut is None:
            return self._render_raw(messages, generation_prompt)
        keep, block_end = self._cut
        text = self._render_raw([{"role": "system", "content": self._SYSTEM_PROBE}] + messages, generation_prompt)
        if not text.startswith(block_end):
            raise ChatTemplateError("NeuralLM: this chat template renders its system turn differently per "
                                    "conversation; pass system_prompt=")
        return keep + text[len(block_end):]

    def _end_of_turn(self, tokenizer: LMTokenizer) -> str:
        """The text the template puts right after an assistant reply, up to its first control token."""
        messages = [{"role": "user", "content": self._USER_PROBE}, {"role": "assistant", "content": self._REPLY_PROBE}]
        text = self.render(messages, False)
        after = text[text.index(self._REPLY_PROBE) + len(self._REPLY_PROBE):]
        hits = [(after.find(s), s) for s in self._specials if after.find(s) >= 0]
        if not hits:
            return tokenizer.eos_token or ""
        at, special = min(hits)
        return after[:at + len(special)]

    @staticmethod
    def messages(turns: list) -> list:
        """Context turns as chat messages: the last turn is the user's, roles alternate backwards."""
        n = len(turns)
        return [{"role": "user" if (n - 1 - i) % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)]


class DialogueFormat:
    """Builds ``ScoringRequest``s for responses (and contexts) with one tokenizer."""

    def __init__(self, tokenizer: LMTokenizer, settings: FormatSettings, *, max_length: int | None = None):
        settings.check()
        if settings.style == "auto":
            settings = replace(settings, style="chat" if tokenizer.chat_template else "plain")
        if settings.system_prompt is not None and settings.style != "chat":
            raise ValueError("NeuralLM: system_prompt applies to style='chat' only (this model has no chat template)")
        self.settings = settings
        self._tokenizer = tokenizer
        self._max_length = max_length
        if settings.style == "chat":
            self._chat: ChatTemplate | None = ChatTemplate(tokenizer, settings.system_prompt)
            end = self._chat.end_of_turn
        else:
            self._chat = None
            end = "\n"
        self._end_ids = tuple(tokenizer.encode_batch([end], special=True)[0]) if settings.end_token else ()
        self._start_ids = self._plain_start(tokenizer) if settings.style == "plain" else ()
        self._empty_prefix = self._prefix_ids([])
        self._turn_overhead: int | None = None  # tokens a turn adds beyond its own (measured on first use)

    @staticmethod
    def _plain_start(tokenizer: LMTokenizer) -> tuple:
        for text in ("<|endoftext|>", tokenizer.bos_token, tokenizer.eos_token):
            if text and tokenizer.token_id(text) is not None:
                return (tokenizer.token_id(text),)
        raise ValueError("NeuralLM: style='plain' needs a start token (<|endoftext|>, BOS or EOS); this tokenizer has none")

    def _prefix_text(self, turns: list) -> str:
        if self._chat is not None:
            return self._chat.render(ChatTemplate.messages(turns), True)
        return "".join(t + "\n" for t in turns)

    def _prefix_ids(self, turns: list) -> tuple:
        text = self._prefix_text(turns)
        ids = self._tokenizer.encode_batch([text], special=True)[0] if text else []
        return self._start_ids + tuple(ids)

    def _fitted_prefix(self, turns: list) -> tuple:
        """The prefix of the most recent turns that fits ``max_context_tokens`` (``_fit``)."""
        return self._fit(turns, self._prefix_ids)

    def _fit(self, turns: list, build, costs: np.ndarray | None = None) -> tuple:
        """``build(turns[first:])`` (token ids) for the smallest ``first`` whose ids fit
        ``max_context_tokens``: the fewest oldest turns dropped (the last turn alone, the
        ids cut to their last tokens after the start token, if none fits).

        Linear in the context: each turn is tokenized once (``costs``: the tokens each turn
        adds, when the caller has them) to estimate where the cut falls, and only suffixes
        of about the limit's size are rendered and tokenized to find the exact cut
        (galloping from the estimate, then bisecting), instead of re-rendering the whole
        remaining context once per dropped turn."""
        limit = self.settings.max_context_tokens
        if self.settings.context_turns is not None:
            turns = turns[-self.settings.context_turns:]
            costs = None if costs is None else costs[-self.settings.context_turns:]
        rendered: dict = {}

        def ids_from(first: int) -> tuple:
            if first not in rendered:
                rendered[first] = tuple(build(turns[first:]))
            return rendered[first]

        last = max(len(turns) - 1, 0)

        def fits(first: int) -> bool:  # dropping the turns before ``first`` is enough (or nothing more can go)
            return first == last or len(ids_from(first)) <= limit

        if len(turns) > 1:
            costs = self.turn_costs(turns) if costs is None else costs
            # The tokens of everything but the turns, estimated from the last turn's render.
            base = len(ids_from(last)) - int(costs[-1])
            suffix = np.cumsum(costs[::-1])[::-1]         # suffix[i]: the tokens of turns[i:]
            inside = np.nonzero(base + suffix <= limit)[0]
            first = _first_true(fits, int(inside[0]) if len(inside) else last, last)
        else:
            first = 0
        ids = ids_from(first)
        if len(ids) > limit:
            # One turn alone is too long: keep its last tokens, after the start token.
            head = self._start_ids
            ids = head + ids[len(ids) - (limit - len(head)):]
        return ids

    def turn_costs(self, turns: list) -> np.ndarray:
        """The tokens each turn adds to a rendered dialogue: its own plus a fixed overhead."""
        if self._turn_overhead is None:
            probe = self._tokenizer.encode_batch(["x"], special=False)[0]
            one, two = self._prefix_ids(["x"]), self._prefix_ids(["x", "x"])
            self._turn_overhead = max(0, len(two) - len(one) - len(probe))
        return np.array([len(ids) + self._turn_overhead for ids in self._tokenizer.encode_batch(turns, special=False)],
                        dtype=np.int64)

    def requests(self, responses: list, contexts: list | None) -> list:
        """One ``ScoringRequest`` per response; ``contexts`` as ``normalize_contexts`` returns."""
        targets = self._tokenizer.encode_batch(responses, special=False)
        prefixes: dict = {}
        out = []
        for i, ids in enumerate(targets):
            turns = contexts[i] if contexts is not None else []
            key = tuple(turns)
            if key not in prefixes:
                prefixes[key] = self._fitted_prefix(list(turns)) if turns else self._empty_prefix
            prefix = prefixes[key]
            target = tuple(ids) + self._end_ids
            if self._max_length is not None and len(prefix) + len(target) > self._max_length:
                raise ValueError(f"response {i}: {len(target)} tokens with a {len(prefix)}-token context exceed the "
                                 f"model's {self._max_length} positions (lower max_context_tokens or shorten it)")
            out.append(ScoringRequest(prefix, target))
        return out


    # --- judges: continuations of one shared prefix (``continuations``) ------------------
    def _split_render(self, messages: list, generation_prompt: bool) -> tuple:
        """(text before, text after) the content of the last message, whose content is
        ``_OPEN`` (the place a continuation goes)."""
        assert self._chat is not None   # the chat style's prompts only
        text = self._chat.render(messages, generation_prompt)
        at = text.find(_OPEN)
        if at < 0:
            raise ChatTemplateError("NeuralLM: this chat template does not render a message's content as it is; "
                                    "use style='plain'")
        return text[:at], text[at + len(_OPEN):]

    def followup_requests(self, replies: list, contexts: list, followups: list) -> list:
        """Per (context, reply), a ``ContinuationRequest`` whose prefix is the dialogue with
        the reply as the next turn (chat: the assistant's) and the opening of the turn
        after it (chat: the user's), trimmed to ``max_context_tokens`` from the start as
        ``requests`` does; its continuations are the tokens of each of ``followups``."""
        continuations = tuple(tuple(ids) for ids in self._tokenizer.encode_batch(list(followups), special=False))
        costs: dict = {}
        out = []
        for i, (reply, turns) in enumerate(zip(replies, contexts)):
            key = tuple(turns)
            if key not in costs:
                costs[key] = self.turn_costs(list(turns)) if len(turns) > 1 else None

            def build(kept, reply=reply):
                if self._chat is None:
                    text = "".join(t + "\n" for t in list(kept) + [reply])
                else:
                    text = self._split_render(ChatTemplate.messages(list(kept) + [reply, _OPEN]), False)[0]
                return self._start_ids + tuple(self._tokenizer.encode_batch([text], special=True)[0])

            prefix = self._fit(list(turns), build, costs[key])
            self._check_length(i, prefix, continuations)
            out.append(ContinuationRequest(prefix, continuations))
        return out

    def prompt_requests(self, items: list, tails: list, answers: list, *, cue: str = "") -> tuple:
        """A prompt asked in several ways, and the tokens of its possible answers:
        (``ContinuationRequest``s, answer token ids). ``items`` per request (turns, head),
        where ``head(kept_turns)`` is the text of the shared part of a user message (built
        from the most recent turns that fit ``max_context_tokens``); ``tails`` the texts
        completing that message, one continuation each, followed by the opening of the
        assistant's answer (chat; plain: a newline) and ``cue``. Each answer (e.g. a rating
        digit) must be one token after the cue, as the text "cue answer" is tokenized (a
        separate space token is put at the end of the continuations)."""
        opening = self._answer_opening() + cue
        extra, answer_ids = self._answer_ids(opening, answers)
        continuations = tuple(tuple(ids) + extra for ids in
                              self._tokenizer.encode_batch([t + opening for t in tails], special=True))
        out = []
        for i, (turns, head) in enumerate(items):
            def build(kept, head=head):
                text = head(list(kept))
                if self._chat is not None:
                    text = self._split_render([{"role": "user", "content": text + _OPEN}], True)[0]
                return self._start_ids + tuple(self._tokenizer.encode_batch([text], special=True)[0])

            prefix = self._fit(list(turns), build)
            self._check_length(i, prefix, continuations)
            out.append(ContinuationRequest(prefix, continuations))
        return out, answer_ids

    def _answer_opening(self) -> str:
        """What follows a prompt before its answer: the chat template's end of the user
        turn and opening of the assistant's, or a newline (plain)."""
        if self._chat is None:
            return "\n"
        return self._split_render([{"role": "user", "content": _OPEN}], True)[1]

    def _answer_ids(self, opening: str, answers: list) -> tuple:
        """(token ids to end the continuations with, one token id per answer): how the text
        ``opening`` + (a space, unless it ends in whitespace) + answer is tokenized."""
        base = tuple(self._tokenizer.encode_batch([opening], special=True)[0])
        space = "" if not opening or opening[-1].isspace() else " "
        rests = []
        for answer in answers:
            ids = tuple(self._tokenizer.encode_batch([opening + space + answer], special=True)[0])
            rests.append(ids[len(base):] if ids[:len(base)] == base else None)
        found = [r for r in rests if r is not None]
        if len(found) == len(rests) and all(len(r) == 1 for r in found):
            return (), tuple(r[0] for r in found)
        if len(found) == len(rests) and all(len(r) == 2 and r[0] == found[0][0] for r in found):
            return (found[0][0],), tuple(r[1] for r in found)      # a space token of its own, then the answer
        raise ValueError(f"NeuralLM: the answers {list(answers)} are not one token each after {opening[-20:]!r} "
                         f"for this tokenizer")

    def _check_length(self, i: int, prefix: tuple, continuations: tuple) -> None:
        longest = max((len(c) for c in continuations), default=0) + 1
        if self._max_length is not None and len(prefix) + longest > self._max_length:
            raise ValueError(f"item {i}: a {len(prefix)}-token prefix and a {longest}-token continuation exceed the "
                             f"model's {self._max_length} positions (lower max_context_tokens)")


# Where a continuation goes in a rendered chat (the content of the last message).
_OPEN = "\u2063fastamfm-open\u2063"


def _first_true(predicate, guess: int, last: int) -> int:
    """The smallest i in 0..last with ``predicate(i)`` for a predicate that is false then
    true (``predicate(last)`` is true), searched from ``guess``: galloping away from it
    until the answer is bracketed, then bisecting. Calls: O(log distance from the guess)."""
    guess = min(max(guess, 0), last)
    if predicate(guess):
        good, bad, step = guess, -1, 1
        while good - step >= 0:
            if not predicate(good - step):
                bad = good - step
                break
            good -= step
            step *= 2
    else:
        bad, step = guess, 1
        while True:
            candidate = min(bad + step, last)
            if predicate(candidate):
                good = candidate
                break
            bad, step = candidate, step * 2
    while good - bad > 1:
        middle = (good + bad) // 2
        if predicate(middle):
            good = middle
        else:
            bad = middle
    return good
