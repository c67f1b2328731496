"""What the workers run for ``score``: each task finds its pipeline in the worker's
``WorkerModels`` (built and its models loaded on the worker's first task), reads its
partition itself, and returns statistics, never rows (rows go to files)."""
from __future__ import annotations

import json

from .. import _core
from ..pipeline import Pipeline
from .outputs import read_part_record, read_reference, write_part, write_reference
from .partitions import Partition
from .specs import MetricSpec
from .statistics import add_all
from .workers import ReferenceTotals, worker_models


def _needs_references(pipeline: Pipeline) -> bool:
    return any(m.needs_references for m in pipeline.metrics)


def describe(spec: MetricSpec) -> dict:
    """What the metric set is, from a worker (the client loads no model)."""
    pipeline, warned = worker_models().pipeline(spec)
    return {"names": pipeline.names, "columns": pipeline.columns, "signatures": pipeline.signatures(),
            "reference_pass": pipeline.needs_reference_pass, "warnings": warned}


def first_pass(spec: MetricSpec, partition: Partition, reference: bool, data=None) -> tuple:
    """(responses, reference statistics or None) of one partition: its size where only
    reading tells it, and the reference pass when the metrics need one."""
    pipeline, _ = worker_models().pipeline(spec)
    if partition.rows >= 0:  # the size is known: this is the reference pass alone
        _, refs, _ = partition.read(data, require_refs=True, responses=False, workers=pipeline.workers)
        return partition.rows, pipeline.reference_statistics(refs)
    hyps, refs, _ = partition.read(data, require_refs=reference or _needs_references(pipeline),
                                   workers=pipeline.workers)
    return len(hyps), (pipeline.reference_statistics(refs) if reference and hyps else None)


def add_reference_statistics(*results) -> dict | None:
    """The sum of ``first_pass`` reference statistics (empty partitions have none)."""
    return add_all([statistics for _, statistics in results])


def make_reference(token: str, total: dict) -> ReferenceTotals:
    return ReferenceTotals(token, total)


def save_reference(out: str, run: str, reference: ReferenceTotals) -> None:
    """Keep the run's reference statistics in ``out`` for a resumed run (beside the
    scoring, which does not wait for it); ``run`` names the run they belong to."""
    write_reference(out, reference.statistics, run)


def load_reference(out: str, run: str, token: str) -> ReferenceTotals:
    return ReferenceTotals(token, read_reference(out, run))


def score_partition(spec: MetricSpec, out: str, fmt: str, partition: Partition, reference, data=None) -> dict:
    """Score one partition, write its rows and statistics (atomically), return the statistics."""
    pipeline, _ = worker_models().pipeline(spec, reference)
    hyps, refs, contexts = partition.read(data, require_refs=_needs_references(pipeline), workers=pipeline.workers)
    if len(hyps) != partition.rows:
        raise RuntimeError(f"{partition.describe()}: {len(hyps)} responses where {partition.rows} were counted; "
                           f"did the input change during the run?")
    batch = pipeline.batch(hyps, refs, contexts, what=partition.describe())
    columns, statistics = pipeline.score_batch(batch)
    keys = [json.dumps(c) for c in pipeline.columns]
    rows = _core.format_score_rows(partition.first_id, [columns[c] for c in pipeline.columns], keys, fmt,
                                   pipeline.workers)
    write_part(out, partition.index, rows, {"rows": len(hyps), "first_id": partition.first_id,
                                            "statistics": pipeline.statistics_to_json(statistics)})
    return statistics


def load_partition(spec: MetricSpec, out: str, partition: Partition) -> dict:
    """The statistics of a partition a previous run finished."""
    pipeline, _ = worker_models().pipeline(spec)
    record = read_part_record(out, partition.index)
    if record["rows"] != partition.rows or record["first_id"] != partition.first_id:
        raise RuntimeError(f"{out}: part {partition.index} holds rows {record['first_id']}+{record['rows']}, "
                           f"the manifest says {partition.first_id}+{partition.rows}")
    return pipeline.statistics_from_json(record["statistics"])


def add_statistics(*statistics) -> dict | None:
    return add_all(list(statistics))


def corpus(spec: MetricSpec, total: dict, reference) -> dict:
    """Corpus scores and signatures of the run, from the summed statistics."""
    pipeline, _ = worker_models().pipeline(spec, reference)
    return {"corpus": pipeline.corpus(total), "signatures": pipeline.signatures()}
