"""Registry metrics as ``torchmetrics.Metric`` objects whose state is their summable statistics.

    from fastamfm.integrations.torchmetrics import metric
    bleu = metric("bleu")                      # any registry name, column or alias, or a list of them
    for hyps, refs in loader:                  # per process: its own shard of the data
        bleu.update(hyps, refs)
    bleu.compute()                             # {"Bleu_1": tensor, ...}; synchronised across processes

The corpus score of every registered metric is a function of statistics that add up
exactly (``fastamfm.registry``: exact big-integer sums of sentence scores, BLEU's n-gram
counts, METEOR's 23 counts, Distinct-n's n-gram key sets...). Each ``update`` scores its
batch and keeps the batch's statistics; ``compute`` adds those of every update on every
process and turns the sum into the corpus scores: the numbers of one ``fastamfm.evaluate``
call over all the data, bit for bit (neural metrics: to float32 precision, as their
scores depend on how sentences are batched).

How the statistics synchronise. torchmetrics keeps tensors (or lists of tensors) and
gathers them with fixed reductions; exact big-integer sums and n-gram tables are neither
tensors nor reducible by a tensor sum or mean. Each update therefore appends one record
-- the registry's own JSON form of its statistics (``Statistics.to_json``, exact: Python
ints of any size, base64 n-gram keys), one line of UTF-8 -- as a uint8 tensor to a list
state reduced by ``"cat"``. torchmetrics concatenates a process's records into one tensor,
gathers the tensors of every process (of different lengths) and concatenates them, so
after ``sync`` the state is every record of every process, and ``compute`` reads them
back line by line and adds them with the registry's exact ``+``. Records rather than
``all_gather_object``: torchmetrics' own ``sync``/``unsync``/``merge_state``/``forward``
and ``compute_on_cpu`` then work unchanged, no pickle crosses processes, and a process
that scored nothing or more batches than another syncs all the same.

CIDEr's idf comes from every reference of the corpus, so no response can be scored
before all references are seen: a metric with a reference pass keeps its batches' texts
as records instead, and ``compute`` scores them once against the gathered references.
"""
from __future__ import annotations

import json

from .. import registry
from ..pipeline import Pipeline
from ._columns import requested_columns

try:
    import torch
    from torchmetrics import Metric
    from torchmetrics.utilities.distributed import gather_all_tensors
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError('fastamfm.integrations.torchmetrics needs torchmetrics: pip install ".[torchmetrics]" in the '
                      "fastamfm checkout (on a machine without a GPU, first: pip install torch --index-url "
                      "https://download.pytorch.org/whl/cpu)") from None

# torchmetrics.Metric's own keyword arguments (the others configure the fastamfm metrics).
TORCHMETRICS_OPTIONS = ("compute_on_cpu", "dist_sync_on_step", "process_group", "dist_sync_fn",
                        "distributed_available_fn", "sync_on_compute", "compute_with_cache")


def metric(metrics, **options) -> "RegistryMetric":
    """A ``torchmetrics.Metric`` computing registry ``metrics`` (a name, column or alias,
    or a list of them), configured as ``fastamfm.evaluate`` configures them (``model=``,
    ``vectors=``, ``encoder=``, a dict per metric...); torchmetrics' own options
    (``sync_on_compute``, ``process_group``, ``compute_on_cpu``...) pass to it.

    Parameters
    ----------
    metrics : str or sequence of str
        Registry names, columns or aliases.
    **options
        The metrics' settings and torchmetrics' own options.

    Returns
    -------
    RegistryMetric
        A ``torchmetrics.Metric``: ``update(preds, target=None, contexts=None)``, then
        ``compute()`` gives the corpus scores of everything it was updated with (after a
        sync, of every process), equal to one ``fastamfm.evaluate`` over all of it.

    Examples
    --------
    >>> from fastamfm.integrations.torchmetrics import metric
    >>> bleu = metric("Bleu_4")
    >>> bleu.update(["the cat sat on the mat"], [["the cat sat on the mat"]])
    >>> round(float(bleu.compute()), 6)
    1.0
    """
    return RegistryMetric(metrics, **options)


class RegistryMetric(Metric):
    """See the module docstring. ``update(preds, target=None, contexts=None)``: responses,
    their references (per response a list of str, or one str) and, for reference-free
    metrics, the dialogue contexts. ``compute()``: a float64 tensor for a single column,
    else {column: float64 tensor}, in the pipeline's column order."""

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    records: list[torch.Tensor]   # the "cat" list state that add_state creates in __init__

    def __init__(self, metrics, **options):
        own = {k: options.pop(k) for k in TORCHMETRICS_OPTIONS if k in options}
        super().__init__(dist_sync_fn=_ByteGather(own.pop("dist_sync_fn", None) or gather_all_tensors), **own)
        specs = [s.strip() for s in metrics.split(",") if s.strip()] if isinstance(metrics, str) else list(metrics)
        # strict: a metric that cannot run here is an error, not an empty result.
        self.pipeline = Pipeline.from_names(registry.resolve(specs), strict=True, what="torchmetrics", **options)
        self.columns = list(dict.fromkeys(c for s in specs for c in requested_columns(self.pipeline, s, "torchmetrics")))
        streamed = [m for m in self.pipeline.metrics if not m.reference_pass]
        deferred = [m for m in self.pipeline.metrics if m.reference_pass]
        workers = self.pipeline.workers
        self._streamed = Pipeline(streamed, workers=workers) if streamed else None
        self._deferred = Pipeline(deferred, workers=workers) if deferred else None
        self.add_state("records", default=[], dist_reduce_fx="cat")

    def update(self, preds, target=None, contexts=None) -> None:
        if target is not None and not isinstance(target, str) and all(isinstance(t, str) for t in target):
            target = [[t] for t in target]   # one reference per response, as torchmetrics' text metrics take it
        batch = self.pipeline.batch(preds, target, contexts, what="torchmetrics update")
        record = {}
        if self._streamed is not None:
            record["statistics"] = self._streamed.statistics_to_json(self._streamed.score_batch(batch)[1])
        if self._deferred is not None:
            record["texts"] = {"hyps": list(batch.hyps.texts),
                               "refs": None if batch.refs is None else [list(r) for r in batch.refs],
                               "contexts": batch.contexts}
        line = json.dumps(record, separators=(",", ":")).encode("utf-8") + b"\n"
        self.records.append(torch.frombuffer(bytearray(line), dtype=torch.uint8).to(self.device))

    def compute(self):
        records = _read_records(self.records)
        corpus = {}
        if self._streamed is not None:
            parts = [self._streamed.statistics_from_json(r["statistics"]) for r in records]
            total = _sum(parts, self._streamed.empty_statistics())
            corpus.update(self._streamed.corpus(total))
        if self._deferred is not None:
            corpus.update(self._score_texts([r["texts"] for r in records]))
        values = {c: torch.tensor(corpus[c], dtype=torch.float64, device=self.device) for c in self.columns}
        return next(iter(values.values())) if len(values) == 1 else values

    def _score_texts(self, texts: list) -> dict:
        """Corpus scores of the reference-pass metrics over every gathered batch's texts."""
        pipeline = self._deferred
        if not texts:
            return pipeline.corpus(pipeline.empty_statistics())
        hyps = [h for t in texts for h in t["hyps"]]
        refs = None if texts[0]["refs"] is None else [r for t in texts for r in t["refs"]]
        contexts = None if texts[0]["contexts"] is None else [c for t in texts for c in t["contexts"]]
        batch = pipeline.batch(hyps, refs, contexts, what="torchmetrics compute")
        pipeline = pipeline.with_reference_statistics(pipeline.reference_statistics(batch.refs))
        return pipeline.corpus(pipeline.score_batch(batch)[1])


class _ByteGather:
    """torchmetrics' gather for the byte records. A process without records sends
    torchmetrics' empty placeholder, which it makes in the metric's float dtype: sent as
    bytes too, every process gathers one dtype."""

    def __init__(self, gather):
        self.gather = gather

    def __call__(self, tensor, group=None):
        return self.gather(tensor.to(torch.uint8), group=group)


def _read_records(state) -> list:
    """The JSON records of a ``records`` state: a list of uint8 tensors before ``sync``,
    one tensor of every process's records after it."""
    if isinstance(state, list):
        if not state:
            return []
        state = torch.cat([t.to(torch.uint8) for t in state])
    data = state.to(torch.uint8).cpu().numpy().tobytes()
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line]


def _sum(parts: list, empty: dict) -> dict:
    """The sum of statistics dicts, added pairwise (n-gram key sets grow with the sum,
    so a balanced tree of additions costs O(total log parts), a chain O(total x parts))."""
    if not parts:
        return empty
    while len(parts) > 1:
        parts = [Pipeline.add(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return parts[0]


__all__ = ["RegistryMetric", "metric"]
