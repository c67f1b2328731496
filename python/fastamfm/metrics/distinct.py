"""Distinct-n (Li et al. 2016): the share of n-grams that are distinct."""
from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

from .. import _core
from .._validation import check_workers
from ..registry import Chunk, Metric, SentenceStatistics, Statistics, register, statistics_of
from ..result import MetricResult, make_signature
from ..tokenization import make_tokenizer


def _ratio(unique: np.ndarray, total: np.ndarray) -> np.ndarray:
    out = np.zeros(np.shape(unique), dtype=np.float64)
    np.divide(unique, total, out=out, where=np.asarray(total) > 0)
    return out


@dataclass(frozen=True)
class DistinctStatistics(Statistics):
    """Per order: every distinct n-gram key seen (sorted uint64) and the number of
    n-grams. Two batches add by the union of their keys, so corpus Distinct-n streams."""

    orders: tuple
    keys: tuple        # per order: sorted unique uint64 n-gram keys
    totals: tuple      # per order: number of n-grams

    def __add__(self, other: "DistinctStatistics") -> "DistinctStatistics":
        if not isinstance(other, DistinctStatistics) or other.orders != self.orders:
            return NotImplemented
        return DistinctStatistics(self.orders, tuple(np.union1d(a, b) for a, b in zip(self.keys, other.keys)),
                                  tuple(a + b for a, b in zip(self.totals, other.totals)))

    def ratios(self) -> np.ndarray:
        return _ratio(np.array([len(k) for k in self.keys]), np.array(self.totals))

    def to_json(self) -> dict:
        return {"orders": list(self.orders), "totals": list(self.totals),
                "keys": [base64.b64encode(np.ascontiguousarray(k, dtype=np.uint64).tobytes()).decode("ascii")
                         for k in self.keys]}

    @classmethod
    def from_json(cls, data: dict) -> "DistinctStatistics":
        return cls(tuple(int(o) for o in data["orders"]),
                   tuple(np.frombuffer(base64.b64decode(k), dtype=np.uint64) for k in data["keys"]),
                   tuple(int(t) for t in data["totals"]))


@register
class Distinct(Metric):
    """Distinct-n per response (``Distinct_<n>`` columns) and over the corpus."""

    name = "distinct"
    columns: tuple[str, ...] = ("Distinct_1", "Distinct_2")
    aliases = ("distinct-n",)
    needs_references = False

    def __init__(self, *, orders=(1, 2), tokenize: str = "whitespace", lowercase: bool = False, workers: int = -1):
        if isinstance(orders, int):
            orders = (orders,)
        orders = tuple(orders)
        if not orders or any(isinstance(o, bool) or not isinstance(o, int) or not 1 <= o <= _core.MAX_NGRAM_ORDER
                             for o in orders):
            raise ValueError(f"distinct: orders must be a non-empty sequence of ints in 1..{_core.MAX_NGRAM_ORDER}, "
                             f"got {orders!r}")
        self.orders = orders
        self.tokenizer = make_tokenizer(tokenize, lowercase)
        self.workers = check_workers(workers, "distinct")
        self.columns = tuple(f"Distinct_{n}" for n in orders)

    def signature(self) -> str:
        return make_signature("distinct", orders=",".join(map(str, self.orders)), tok=self.tokenizer.describe())

    def update(self, batch) -> Chunk:
        counts = _core.distinct(batch.hyps.encoded(self.tokenizer), list(self.orders), self.workers)
        sentences = _ratio(counts["unique"], counts["total"])
        columns = {c: sentences[:, k] for k, c in enumerate(self.columns)}
        statistics = DistinctStatistics(self.orders, tuple(counts["corpus_keys"]),
                                        tuple(int(t) for t in counts["corpus_total"]))
        return Chunk(columns, statistics, {"sentences": sentences, "counts": counts})

    def compute(self, statistics: Statistics) -> dict:
        statistics = statistics_of(DistinctStatistics, statistics, self.name)
        return {c: float(r) for c, r in zip(self.columns, statistics.ratios())}

    def sentence_statistics(self, batch, chunk: Chunk) -> SentenceStatistics:
        """Rows keyed by n-gram: per order the response's n-gram count (key ``"<n>"``)
        and a 1 for each distinct n-gram it holds (key ``"<n>\x1f<n-gram>"``). A sample's
        Distinct-n is the number of n-gram columns with a non-zero sum over its n-gram
        total: a response drawn twice adds its n-grams twice, its distinct ones once."""
        import scipy.sparse

        encoded = batch.hyps.encoded(self.tokenizer)
        rows: list[int] = []
        keys: list[str] = []
        for i in range(len(batch)):
            tokens = encoded.tokens(i)
            for n in self.orders:
                grams = {" ".join(tokens[k:k + n]) for k in range(len(tokens) - n + 1)}
                keys.extend(f"{n}\x1f{g}" for g in grams)
                rows.extend([i] * len(grams))
        totals = np.asarray(chunk.extra["counts"]["total"], dtype=np.float64).reshape(len(batch), len(self.orders))
        all_keys, columns = np.unique(np.array([str(n) for n in self.orders] + keys), return_inverse=True)
        ones = np.ones(len(rows))
        row_index = np.concatenate([np.repeat(np.arange(len(batch)), len(self.orders)), rows]).astype(np.int64)
        data = np.concatenate([totals.ravel(), ones])
        column_index = np.concatenate([np.tile(columns[:len(self.orders)], len(batch)), columns[len(self.orders):]])
        values = scipy.sparse.csr_matrix((data, (row_index, column_index)), shape=(len(batch), len(all_keys)))
        orders, names = self.orders, self.columns

        def corpus(sums, keys):
            order_of_key = np.array([int(k.split("\x1f", 1)[0]) for k in keys])
            is_total = np.array(["\x1f" not in k for k in keys])
            present = sums > 0
            return {c: _ratio(present[:, ~is_total & (order_of_key == n)].sum(axis=1),
                              sums[:, is_total & (order_of_key == n)][:, 0])
                    for n, c in zip(orders, names)}

        return SentenceStatistics(values, corpus, all_keys)

    def empty_statistics(self) -> DistinctStatistics:
        return DistinctStatistics(self.orders, tuple(np.zeros(0, dtype=np.uint64) for _ in self.orders),
                                  (0,) * len(self.orders))

    def statistics_from_json(self, data: dict) -> DistinctStatistics:
        return DistinctStatistics.from_json(data)

    def result_extra(self, chunk: Chunk) -> dict:
        counts = chunk.extra["counts"]
        # The keys of the dict distinct() returned before MetricResult, still readable as res[key]:
        # "distinct_<n>" the corpus score of order n, "sentences" the [n, k] array.
        corpus = self.compute(chunk.statistics)
        extra = {f"distinct_{n}": corpus[c] for n, c in zip(self.orders, self.columns)}
        extra.update(sentences=chunk.extra["sentences"], orders=self.orders, unique=counts["unique"],
                     total=counts["total"], corpus_unique=counts["corpus_unique"],
                     corpus_total=counts["corpus_total"], signature=self.signature())
        return extra


def distinct(hyps, *, orders=(1, 2), tokenize: str = "whitespace", lowercase: bool = False,
             workers: int = -1) -> MetricResult:
    """Distinct-n over all responses (``.corpus["Distinct_<n>"]`` for each n of ``orders``:
    distinct n-grams over all responses / all n-grams; 0 when there is none) and per
    response (``.sentences["Distinct_<n>"][i]``: the same ratio within response i, 0 for a
    response shorter than n). ``.extra`` holds the raw counts: ``unique``/``total`` per response,
    ``corpus_unique``/``corpus_total``, and the keys of the dict this function returned
    before (``res["distinct_2"]``, ``res["sentences"]``, ...).

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The responses (no references: Distinct-n is reference-free).
    orders : int or sequence of int, default (1, 2)
        The n-gram orders (each in 1..16): one column ``Distinct_<n>`` each.
    tokenize : str, default "whitespace"
        A tokenizer preset (``fastamfm.TOKENIZER_PRESETS``).
    lowercase : bool, default False
        Lowercase before tokenizing.
    workers : int, default -1
        Threads (-1: every core).

    Returns
    -------
    MetricResult
        ``.corpus["Distinct_<n>"]`` over all responses and ``.sentences["Distinct_<n>"]``
        (float64 [n]) within each response; the raw counts in ``.extra``.

    Raises
    ------
    ValueError
        ``orders`` empty or out of range, an unknown ``tokenize``; ``hyps`` empty.
    TypeError
        ``hyps`` not a sequence of strings.

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.distinct(["the cat sat on the mat", "a dog ran", "the cat ran"])
    >>> {column: round(score, 6) for column, score in res.corpus.items()}
    {'Distinct_1': 0.666667, 'Distinct_2': 0.888889}
    >>> res.sentences["Distinct_1"].round(6).tolist()
    [0.833333, 1.0, 1.0]
    """
    return Distinct(orders=orders, tokenize=tokenize, lowercase=lowercase, workers=workers).score(hyps)
