"""``fastamfm.distributed.score``: a corpus scored as partitions on a Dask cluster.

A run, and where each step runs:

1. client: the inputs are checked and the metric set named (``MetricSpec``); one
   worker builds the pipeline and returns its signatures (the client loads no model).
2. workers: each input file is indexed (line starts every ``partition_size`` lines).
3. workers, only where needed: a first pass reads partitions whose size only reading
   tells (jsonl ranges, bag/dataframe partitions) and, for CIDEr, counts each
   partition's reference statistics; those are summed in a tree of tasks on the
   workers, written to ``out`` and handed to every scoring task.
4. workers: each partition is read, scored through the pipeline, and its rows and
   statistics written to ``out`` (``outputs.py``); the statistics are summed in a tree
   of tasks, and one worker turns the total into corpus scores.
5. client: the rows are concatenated into one file (``assemble``) and the summary written.

Nothing but statistics (and file names) travels between client and workers, and the
sums are exact, so the corpus scores equal ``fastamfm.evaluate``/``score_files`` on the
whole corpus bit for bit, however it is partitioned (the neural metrics, whose float32
products depend on batching, to float32 precision).
"""
from __future__ import annotations

import hashlib
import json
import logging
import uuid
import warnings
from pathlib import Path

from .._version import __version__
from ..progress import ProgressOption, reports_progress, task
from ..streaming import DEFAULT_METRICS, FORMATS
from . import tasks
from .outputs import LAYOUT, OutputDirectory
from .partitions import Inputs, Partition, index_file
from .specs import MetricSpec
from .statistics import register_pickling
from .workers import forget_reference, register

log = logging.getLogger(__name__)

DEFAULT_PARTITION_SIZE = 20000
# Fan-in of the summing trees: the statistics of this many partitions are added per
# task. Wide, because the sum of CIDEr's document frequencies grows with every level
# (each level copies the union of its inputs' tables).
SPLIT_EVERY = 32


@reports_progress
def score(client, data, metrics=DEFAULT_METRICS, out=None, *, format: str = "jsonl",
          partition_size: int = DEFAULT_PARTITION_SIZE, assemble=True, progress: ProgressOption = None,
          **options) -> dict:
    """Score ``data`` on ``client``'s cluster into the directory ``out``; returns the
    corpus summary (also written to ``out/summary.json``).

    ``data``: a list of ``(hyp, refs)`` / ``(hyp, refs, context)`` file tuples and/or
    jsonl paths (scored as if concatenated), a ``dask.bag`` of ``{"hyp", "refs",
    "context"}`` records, or a ``dask.dataframe`` with those columns (see
    ``partitions.py``). Files and ``out`` must be readable and writable by every
    worker under the same paths (a shared file system).
    ``metrics``/``options``: as for ``score_files``, except that models are given by
    path (``model="default"`` or a directory, ``vectors=`` a file; see ``specs.py``) and
    ``workers`` (C++ threads per partition) defaults to 1, one partition per Dask thread.
    ``format``: "jsonl" or "tsv" rows. ``partition_size``: lines per partition of a file.
    ``assemble``: True writes every row, in order, to ``out/scores.<format>`` (the file
    ``fastamfm score`` writes) and removes the parts; a path writes that file there;
    False keeps the per-partition files ``out/parts/part-*.rows`` as the output.
    ``progress`` (``fastamfm.progress``): per finished partition, in responses.

    Rerunning the same call after an interruption (a killed client, workers lost
    beyond Dask's retries) scores only the partitions not yet written.
    """
    if out is None:
        raise ValueError("fastamfm.distributed.score needs out=DIR (rows and statistics are written there)")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if isinstance(partition_size, bool) or not isinstance(partition_size, int) or partition_size < 1:
        raise ValueError(f"partition_size must be a positive integer, got {partition_size!r}")
    register_pickling()
    inputs = Inputs(data)
    spec = MetricSpec.of(metrics, options)
    directory = OutputDirectory(out)
    out = str(directory.path.resolve())
    register(client)
    described = client.submit(tasks.describe, spec, pure=False).result()
    for message in described["warnings"]:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    identity = json.loads(json.dumps({
        "layout": LAYOUT, "version": __version__, "inputs": inputs.identity(), "metrics": list(spec.names),
        "options": spec.options, "signatures": described["signatures"], "format": format,
        "partition_size": partition_size}, default=str))
    run = _Run(client, spec, inputs, out, uuid.uuid4().hex[:12], _run_digest(identity))

    manifest = directory.stored_manifest(identity)
    target = directory.scores_path(format) if assemble is True else (Path(assemble) if assemble else None)
    finished = directory.summary()
    if manifest is not None and finished is not None and (target is None or target.exists()):
        log.info("%s: already scored", out)
        return finished
    reference = None
    if manifest is None:
        directory.create()
        partitions, reference = run.plan(partition_size, described["reference_pass"])
        manifest = {"identity": identity, "columns": described["columns"],
                    "partitions": [p.to_json() for p in partitions]}
        directory.start(manifest)
    partitions = [Partition.from_json(p) for p in manifest["partitions"]]
    done = directory.done()
    if done:
        log.info("resuming: %d of %d partitions already scored in %s", len(done), len(partitions), out)
    try:
        if described["reference_pass"]:
            reference = run.reference(partitions, reference, resumed=directory.has_reference())
        total = run.score(partitions, done, format, reference)
        result = client.submit(tasks.corpus, spec, total, reference, pure=False).result()
        client.gather(run.saving)
    finally:
        if described["reference_pass"]:
            try:
                client.run(forget_reference, run.reference_token())
            except Exception as exc:  # a broken cluster: the error that broke the run matters more
                log.warning("could not release the reference statistics on the workers: %s", exc)
    summary = {"responses": sum(p.rows for p in partitions), "corpus": result["corpus"], "metrics": described["names"],
               "signatures": result["signatures"], "format": format, "inputs": inputs.paths() or identity["inputs"],
               "partitions": len(partitions), "scores": None if target is None else str(target)}
    if target is not None:
        directory.assemble(partitions, format, manifest["columns"], target)
    directory.write_summary(summary)
    if target is not None:
        directory.remove_parts()
    else:
        directory.remove_temporaries()
    return summary


class _Run:
    """The client side of one run: submits the passes and holds their futures."""

    def __init__(self, client, spec: MetricSpec, inputs: Inputs, out: str, token: str, run: str):
        self.client, self.spec, self.inputs, self.out, self.token = client, spec, inputs, out, token
        self.run = run  # what the run is (a digest of its identity): names the files it keeps
        self.data = inputs.delayed_partitions()
        self.saving: list = []  # futures of files written beside the scoring

    def _key(self, stage: str, index: int) -> str:
        """Task keys name the stage, the run and the partition (or tree node)."""
        return f"fastamfm-{stage}-{self.token}-{index}"

    def _submit(self, function, *args, stage: str, partition: Partition):
        """One task per partition. A bag/dataframe partition is computed by its own task
        and handed over; the client keeps no hold on it, so Dask frees it once used."""
        key = self._key(stage, partition.index)
        if self.data is None:
            return self.client.submit(function, *args, key=key, pure=False)
        data = self.client.compute(self.data[partition.start])
        return self.client.submit(function, *args, data, key=key, pure=False)

    def _tree(self, futures: list, stage: str, first=tasks.add_statistics):
        """The sum of the futures' statistics, added in a tree with fan-in SPLIT_EVERY on
        the workers; ``first`` adds the leaves (at least once, even a single one)."""
        level, depth, function = list(futures), 0, first
        while True:
            level = [self.client.submit(function, *level[i:i + SPLIT_EVERY], key=self._key(f"{stage}{depth}", i),
                                        pure=False) for i in range(0, len(level), SPLIT_EVERY)]
            if len(level) == 1:
                return level[0]
            depth, function = depth + 1, tasks.add_statistics

    def plan(self, partition_size: int, reference_pass: bool) -> tuple:
        """Partitions with their sizes and first ids, and (when the first pass ran and the
        metrics need it) the future of the run's reference statistics."""
        paths = self.inputs.paths()
        indexes = dict(zip(paths, self.client.gather(self.client.map(
            index_file, paths, every=partition_size, key=[self._key("index", i) for i in range(len(paths))],
            pure=False))))
        partitions = self.inputs.plan(indexes, partition_size)
        reference = None
        unknown = [p for p in partitions if p.rows < 0]
        if unknown or reference_pass:
            passed = partitions if reference_pass else unknown
            futures = [self._submit(tasks.first_pass, self.spec, p, reference_pass, stage="first", partition=p)
                       for p in passed]
            sizes = dict(zip((p.index for p in passed), self.client.gather(
                [self.client.submit(_first, f, pure=False) for f in futures])))
            partitions = [p if p.index not in sizes else _with(p, rows=sizes[p.index]) for p in partitions]
            if reference_pass:
                reference = self._reference_from(futures)
        first_id = 0
        planned = []
        for p in partitions:
            if p.rows > 0:
                planned.append(_with(p, first_id=first_id))
                first_id += p.rows
        if not planned:
            raise ValueError("the input holds no response")
        return planned, reference

    def _reference_from(self, first_pass_futures: list):
        total = self._tree(first_pass_futures, "reference", first=tasks.add_reference_statistics)
        reference = self.client.submit(tasks.make_reference, self.reference_token(), total, pure=False)
        self.saving.append(self.client.submit(tasks.save_reference, self.out, self.run, reference, pure=False))
        return reference

    def reference_token(self) -> str:
        return f"{self.out}#{self.spec.key}#{self.token}"

    def reference(self, partitions: list, planned, resumed: bool):
        """The future of the run's reference statistics: from the plan's first pass, from
        ``out`` when resuming, or a reference pass now."""
        if planned is not None:
            return planned
        if resumed:
            return self.client.submit(tasks.load_reference, self.out, self.run, self.reference_token(),
                                      pure=False)
        futures = [self._submit(tasks.first_pass, self.spec, p, True, stage="first", partition=p)
                   for p in partitions]
        return self._reference_from(futures)

    def score(self, partitions: list, done: set, fmt: str, reference):
        """Score the partitions not done, load the others' statistics; the future of the total."""
        from distributed import as_completed

        with task("partitions", total=sum(p.rows for p in partitions), unit="resp") as scored:
            futures, rows_of = [], {}
            for p in partitions:
                if p.index in done:
                    futures.append(self.client.submit(tasks.load_partition, self.spec, self.out, p,
                                                      key=self._key("load", p.index), pure=False))
                    scored.advance(p.rows)
                else:
                    future = self._submit(tasks.score_partition, self.spec, self.out, fmt, p, reference,
                                          stage="score", partition=p)
                    rows_of[future.key] = p.rows
                    futures.append(future)
            total = self._tree(futures, "sum")
            scoring = [f for f in futures if f.key in rows_of]
            try:
                for future in as_completed(scoring):
                    if future.status != "finished":
                        future.result()  # raises the task's exception (or its cancellation) here
                    scored.advance(rows_of[future.key])
            except BaseException:
                self.client.cancel(futures + [total])
                raise
        return total


def _run_digest(identity: dict) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()[:32]


def _first(result: tuple):
    return result[0]


def _with(partition: Partition, **changes) -> Partition:
    return Partition.from_json({**partition.to_json(), **changes})
