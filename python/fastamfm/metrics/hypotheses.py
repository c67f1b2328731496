"""``Hypotheses``: responses encoded once and scored by several metrics."""
from __future__ import annotations

from .. import _core
from ..tokenize import make_tokenizer, prepare_texts
from ._inputs import check_workers, hypotheses


class Hypotheses:
    """n responses tokenized and n-gram-counted once (the counterpart of ``References``).

    Pass it wherever a metric takes ``hyps`` to score BLEU, ROUGE-L, CIDEr and
    Distinct-n without re-encoding; its tokenizer must match the references'.
    """

    def __init__(self, hyps, *, tokenize: str = "whitespace", lowercase: bool = False, max_order: int = 4,
                 workers: int = -1):
        check_workers(workers, "Hypotheses")
        self._texts = hypotheses(hyps, "Hypotheses")
        self._tokenizer = make_tokenizer(tokenize, lowercase)
        prepared = prepare_texts(self._texts, self._tokenizer, "hyps")
        self._encoded = _core.EncodedHypotheses(prepared, self._tokenizer, max_order, workers)

    def __len__(self) -> int:
        return self._encoded.size

    def __getitem__(self, i: int) -> str:
        return self._texts[i]

    def __repr__(self) -> str:
        return f"Hypotheses({len(self)} responses, {self._tokenizer.describe()}, max_order={self.max_order})"

    @property
    def texts(self) -> list:
        return self._texts

    @property
    def max_order(self) -> int:
        return self._encoded.max_order

    @property
    def tokenizer(self) -> _core.Tokenizer:
        return self._tokenizer

    @property
    def encoded(self) -> _core.EncodedHypotheses:
        return self._encoded

    def tokens(self, i: int) -> list[str]:
        return self._encoded.tokens(i)

    def check_compatible(self, tokenizer: _core.Tokenizer, max_order: int, what: str) -> None:
        if tokenizer.describe() != self._tokenizer.describe():
            raise ValueError(f"{what}: Hypotheses were encoded with {self._tokenizer.describe()} but the "
                             f"references with {tokenizer.describe()}; use the same tokenize=/lowercase=")
        if max_order > self.max_order:
            raise ValueError(f"{what}: needs n-grams up to order {max_order} but Hypotheses holds up to "
                             f"{self.max_order}; build Hypotheses with max_order={max_order}")
