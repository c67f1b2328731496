"""``fastamfm score --scheduler ADDRESS | --local-workers N``: the command's files, scored
on a Dask cluster.

The outputs are those of the single-process command: ``--out FILE`` gets every row in
order and ``FILE.summary.json`` the corpus scores. While the run lasts, its partitions
live in ``FILE.partitions/`` (on a file system every worker reaches); an interrupted run
rerun with the same command resumes from them.
"""
from __future__ import annotations

import contextlib
import json
import logging
import shutil
import tempfile
from pathlib import Path

from ..io.atomic import write_text_atomic
from .scoring import score

log = logging.getLogger(__name__)


# How a local cluster started here differs from Dask's defaults, for CPU the scoring wants
# (docs/distributed.md recommends the same on real clusters):
# - Dask's workers start with MALLOC_TRIM_THRESHOLD_=65536, which also fixes glibc's mmap
#   threshold at 128 KiB: every large array of a partition is then mapped, faulted in page
#   by page and unmapped again (measured on 50k responses, am/fm/amfm: 76k page faults and
#   0.64 CPU-s per worker; with the values below 0.5k and 0.43 CPU-s, as in one process).
#   Arrays below 32 MiB come from the heap, which keeps up to 64 MiB free.
# - the statistical profiler samples every thread's stack each 10 ms and the event loops
#   check themselves each 20 ms: ~0.1 core busy on an idle 2-worker cluster (0.96 CPU-s
#   per 10 s; 0.26 without the profiler and with a 200 ms tick).
LOCAL_CLUSTER_CONFIG = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 64 << 20,
    "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 32 << 20,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "200ms",
}


@contextlib.contextmanager
def connect(scheduler: str | None, local_workers: int | None):
    """A client of the cluster at ``scheduler``, or of a new local cluster of
    ``local_workers`` processes with one thread each (closed on exit)."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler is not None:
        with Client(scheduler) as client:
            yield client
        return
    try:
        import bokeh  # noqa: F401  (the dashboard needs it)
        dashboard = ":0"
    except ImportError:
        dashboard = None
    with dask.config.set(LOCAL_CLUSTER_CONFIG), \
            LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                         dashboard_address=dashboard) as cluster, Client(cluster) as client:
        if dashboard is not None:
            log.info("Dask dashboard: %s", client.dashboard_link)
        yield client


def score_command(*, scheduler, local_workers, hyp, refs, contexts, jsonl, out, format, metrics, partition_size,
                  progress, **options) -> dict:
    """Score the command's inputs on a cluster; the summary (see the module docstring)."""
    data = [jsonl] if jsonl is not None else [(hyp, list(refs or ()), contexts)]
    out = None if out is None else Path(out)
    if format is None:
        format = "tsv" if out is not None and out.suffix.lower() == ".tsv" else "jsonl"
    with connect(scheduler, local_workers) as client:
        if out is None:  # corpus scores only: the parts go to a temporary directory
            with tempfile.TemporaryDirectory(prefix="fastamfm-scores-") as work:
                return score(client, data, metrics, Path(work) / "parts", format=format,
                             partition_size=partition_size, assemble=False, progress=progress, **options)
        if out.is_dir():
            raise IsADirectoryError(f"{out} is a directory; give a file path for the output")
        work = out.with_name(out.name + ".partitions")
        summary = score(client, data, metrics, work, format=format, partition_size=partition_size, assemble=out,
                        progress=progress, **options)
    write_text_atomic(out.with_name(out.name + ".summary.json"), json.dumps(summary, indent=2) + "\n")
    shutil.rmtree(work)
    return summary
