"""Trimming a long dialogue context to ``max_context_tokens`` (``DialogueFormat``): the
same cut as dropping the oldest turn one at a time (the readable oracle below), in time
linear in the context: each turn is tokenized once and only suffixes of about the
limit's size are rendered (issue 29: 50k words in 5,000 turns took 449 s for one
response when every dropped turn re-rendered the rest)."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("transformers", reason="the neural LM tokenizers need transformers")

from causal_models import make_tokenizer  # noqa: E402
from fastamfm.neural.dialogue_format import DialogueFormat, FormatSettings, _first_true  # noqa: E402
from fastamfm.neural.hf_tokenizer import HFTokenizer  # noqa: E402


def oracle_prefix(fmt: DialogueFormat, turns: list) -> tuple:
    """Drop the oldest turn until the prefix fits (the last turn alone keeps its end)."""
    limit = fmt.settings.max_context_tokens
    if fmt.settings.context_turns is not None:
        turns = turns[-fmt.settings.context_turns:]
    while True:
        ids = fmt._prefix_ids(turns)
        if len(ids) <= limit or len(turns) <= 1:
            break
        turns = turns[1:]
    if len(ids) > limit:
        ids = fmt._start_ids + ids[len(ids) - (limit - len(fmt._start_ids)):]
    return ids


class CountingTokenizer:
    """An ``LMTokenizer`` that counts the characters it tokenizes."""

    def __init__(self, inner):
        self.inner = inner
        self.chars = 0
        for name in ("special_tokens", "chat_template", "bos_token", "eos_token"):
            setattr(self, name, getattr(inner, name))

    def encode_batch(self, texts, *, special):
        self.chars += sum(len(t) for t in texts)
        return self.inner.encode_batch(texts, special=special)

    def token_id(self, text):
        return self.inner.token_id(text)


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tok")
    make_tokenizer(directory)
    return HFTokenizer.load(directory)


WORDS = "hello how are you today i am fine thank you very much what do like to on weekends ? , .".split()


def _context(rng: random.Random, turns: int) -> list:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.choice([1, 2, 5, 12, 40, 150]))) for _ in range(turns)]


@pytest.mark.parametrize("style", ["plain", "chat"])
def test_the_cut_equals_dropping_one_turn_at_a_time(tokenizer, style):
    rng = random.Random(0)
    for case in range(60):
        settings = FormatSettings(style=style, max_context_tokens=rng.choice([1, 5, 17, 40, 90, 300, 2000]),
                                  context_turns=rng.choice([None, None, 3]))
        fmt = DialogueFormat(tokenizer, settings)
        turns = _context(rng, rng.choice([1, 2, 3, 8, 30]))
        assert fmt._fitted_prefix(list(turns)) == oracle_prefix(fmt, list(turns)), (case, settings)


@pytest.mark.parametrize("style", ["plain", "chat"])
def test_trimming_is_linear_in_the_context(tokenizer, style):
    counting = CountingTokenizer(tokenizer)
    fmt = DialogueFormat(counting, FormatSettings(style=style, max_context_tokens=512))
    rng = random.Random(1)
    turns = [" ".join(rng.choice(WORDS) for _ in range(10)) for _ in range(5000)]  # 50k words
    context_chars = sum(len(t) for t in turns)
    counting.chars = 0
    (request,) = fmt.requests(["fine , thanks"], [turns])
    # Each turn tokenized once, plus renders of suffixes of about 512 tokens.
    assert counting.chars < 1.2 * context_chars, (counting.chars, context_chars)
    assert len(request.prefix) <= 512
    assert request.prefix == oracle_prefix(fmt, turns[-200:])  # the cut is within the last 200 turns


def test_first_true_finds_the_boundary_from_any_guess():
    for last in range(0, 40):
        for boundary in range(0, last + 1):
            for guess in (-3, 0, boundary - 1, boundary, boundary + 1, last, last + 5):
                calls = []

                def predicate(i):
                    calls.append(i)
                    return i >= boundary

                assert _first_true(predicate, guess, last) == boundary
                assert all(0 <= i <= last for i in calls)
