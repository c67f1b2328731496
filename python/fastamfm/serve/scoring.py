"""Several requests for the same metrics and options scored as one batch, and each
request's answer split back out exactly as ``fastamfm.evaluate`` gives it for that request
alone.

A metric is scored on the merged batch only when its per-response numbers cannot depend
on the other responses of the batch and its corpus score is the mean of its own rows
(``MeanStatistics``): the request's rows are then sliced out and its corpus score is
computed from them alone, with the same exact sums ``evaluate`` uses. That is every
sentence-level metric with mean corpus scores, the neural ones included (where batching
pays: one forward pass per batch instead of per request). The others are scored request
by request on the request's own texts: corpus statistics that are not means (BLEU's n-gram
counts, METEOR's statistics, Distinct's n-gram sets), statistics of every reference of the
call (CIDEr's document frequencies, ``reference_pass``) and scores against the rest of the
set (Self-BLEU, ``whole_set``) would otherwise mix requests. Those are C++ metrics whose
cost is the texts themselves, so merging them would save little.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..pipeline import Pipeline
from ..registry import MeanStatistics


@dataclass(frozen=True)
class Scored:
    """One request's answer: per-response columns and corpus scores in the metrics' order,
    each metric's signature, and the signature of the whole set (as ``evaluate``'s)."""

    columns: dict
    corpus: dict
    signatures: dict
    signature: str

    def to_json(self) -> dict:
        return {"columns": {c: v.tolist() for c, v in self.columns.items()}, "corpus": self.corpus,
                "signatures": self.signatures, "signature": self.signature}


def splits_back_exactly(metric) -> bool:
    """Whether ``metric`` can score a merged batch and give each request its own numbers."""
    return (isinstance(metric.empty_statistics(), MeanStatistics) and not metric.reference_pass
            and not getattr(metric, "whole_set", False))


class MergedScoring:
    """The metrics of one pipeline, split into those scored on the merged batch and those
    scored per request (see the module docstring)."""

    def __init__(self, pipeline: Pipeline):
        self.pipeline = pipeline
        merged = [m for m in pipeline.metrics if splits_back_exactly(m)]
        alone = [m for m in pipeline.metrics if not splits_back_exactly(m)]
        self.merged = Pipeline(merged, workers=pipeline.workers) if merged else None
        self.alone = Pipeline(alone, workers=pipeline.workers) if alone else None
        # Whether any metric scores from the dialogue contexts (one that can do without references, or needs them).
        self.reads_contexts = any(m.needs_contexts or not m.needs_references for m in pipeline.metrics)

    def score(self, requests: list) -> list:
        """``Scored`` per request of ``requests`` (each with ``hyps``, ``refs``, ``contexts``
        of the same presence), in order. A request whose inputs the library refuses gets
        its own exception in its place; the others are still scored."""
        merged_parts = self._score_merged(self.merged, requests) if self.merged is not None else \
            [{}] * len(requests)
        out: list = []
        for request, part in zip(requests, merged_parts):
            if isinstance(part, Exception):
                out.append(part)
                continue
            try:
                out.append(self._answer(request, part))
            except (TypeError, ValueError) as exc:
                out.append(exc)
        return out

    def _score_merged(self, merged: Pipeline, requests: list) -> list:
        """Per request {metric name: columns} from one ``update`` over every request's texts."""
        if len(requests) > 1:
            try:
                return self._split(requests, self._chunks(merged, requests))
            except (TypeError, ValueError):
                pass     # some request's input is refused: score each alone, so only it fails
        parts: list = []
        for request in requests:
            try:
                parts.append(self._split([request], self._chunks(merged, [request]))[0])
            except (TypeError, ValueError) as exc:
                parts.append(exc)
        return parts

    @staticmethod
    def _chunks(merged: Pipeline, requests: list) -> dict:
        hyps = [h for r in requests for h in r.hyps]
        refs = None if requests[0].refs is None else [refs for r in requests for refs in r.refs]
        contexts = None if requests[0].contexts is None else [c for r in requests for c in r.contexts]
        return merged.score_chunks(merged.batch(hyps, refs, contexts, what="serve", layout="responses"))

    @staticmethod
    def _split(requests: list, chunks: dict) -> list:
        parts, start = [], 0
        for request in requests:
            end = start + len(request.hyps)
            parts.append({name: {c: np.array(v[start:end]) for c, v in chunk.columns.items()}
                          for name, chunk in chunks.items()})
            start = end
        return parts

    @staticmethod
    def _alone_chunks(pipeline: Pipeline, request) -> tuple:
        """(the per-request metrics as configured for this request, {name: Chunk}): what
        ``Pipeline.score`` does, CIDEr's pass over the request's references included."""
        batch = pipeline.batch(request.hyps, request.refs, request.contexts, what="serve", layout="responses")
        if pipeline.needs_reference_pass:
            pipeline = pipeline.with_reference_statistics(pipeline.reference_statistics(batch.refs))
        return {m.name: m for m in pipeline.metrics}, pipeline.score_chunks(batch)

    def _answer(self, request, merged_columns: dict) -> Scored:
        configured, chunks = self._alone_chunks(self.alone, request) if self.alone is not None else ({}, {})
        columns: dict = {}
        corpus: dict = {}
        signatures: dict = {}
        for metric in self.pipeline.metrics:
            if metric.name in configured:
                metric, chunk = configured[metric.name], chunks[metric.name]
                own, statistics = chunk.columns, chunk.statistics
            else:
                own = merged_columns[metric.name]
                statistics = MeanStatistics.of(own)
            columns.update(own)
            corpus.update(metric.compute(statistics))
            signatures[metric.name] = metric.signature()
        return Scored(columns, corpus, signatures, " + ".join(signatures.values()))
