"""Scoring and training beyond one machine, on Dask (``pip install ".[dask]" in the fastamfm checkout``).

    from dask.distributed import Client
    import fastamfm.distributed

    client = Client("tcp://scheduler:8786")          # or Client(LocalCluster(...))
    summary = fastamfm.distributed.score(client, [("hyp.txt", ["ref1.txt", "ref2.txt"])],
                                         metrics=["bleu", "cider", "amfm"], out="scores/")
    scorer = fastamfm.distributed.train(client, ["corpus-00.txt", "corpus-01.txt"], dims=100)

``score`` cuts the input into partitions (line ranges of files, the partitions of a
``dask.bag`` or ``dask.dataframe``) and scores each on a worker through the same
``Pipeline`` as ``fastamfm.evaluate`` and ``fastamfm score``; the corpus scores come
from the pipeline's summable statistics added up across partitions, so they equal the
single-process numbers bit for bit (the neural metrics to float32 precision, as across
chunk sizes). Models are named by their paths and loaded once per worker (``WorkerModels``). Every partition's rows and statistics are written to ``out``
atomically; a rerun after a killed worker or client scores only what is missing.

``train`` counts a corpus spread over many files on the workers (LSI term-document
rows, n-gram counts) and fits the models from the added counts on the client: the
model ``AMFM.train`` would make from the concatenated corpus, bit for bit.

Importing ``fastamfm`` never imports Dask; this package does.
"""
from __future__ import annotations

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401  (dask's package, not this one)
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError('fastamfm.distributed needs Dask: pip install ".[dask]" in the fastamfm checkout') from None

from .scoring import DEFAULT_PARTITION_SIZE, score
from .training import train
from .workers import WorkerModels

__all__ = ["DEFAULT_PARTITION_SIZE", "WorkerModels", "score", "train"]
