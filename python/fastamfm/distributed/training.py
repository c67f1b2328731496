"""``fastamfm.distributed.train``: an AM-FM model trained on a corpus spread over many
files, the counting on the workers.

What runs where:

- workers: each partition of the corpus (``partition_size`` lines of a file, or a
  ``dask.bag`` partition of str) is tokenized and counted twice over: its LSI
  term-document rows (``lsi.count_documents``) and its n-gram counts
  (``NgramLM.count``). N-gram counts are merged pairwise in corpus order in a tree of
  tasks (``_core.merge_ngram_counts``: the counts add, the vocabulary keeps the order of
  first occurrence).
- client: the term-document rows are added to one builder in corpus order (they are
  the matrix the SVD needs; ``lsi_options={"max_memory": ...}`` keeps it on disk), the
  vocabulary chosen, the randomized SVD run, and the language model estimated from the
  merged counts.

Counting is where training spends its time reading text (tokenization, the amfm
preset's normalisation, hashing, n-gram tables); the SVD's passes over the matrix and
the estimation stay on one machine. Because every count is an integer and parts are
added in corpus order, the model equals ``AMFM.train`` on the concatenated corpus bit
for bit (same seed, same machine for the SVD).
"""
from __future__ import annotations

import os
from collections.abc import Mapping

from ..amfm.lm import NgramLM
from ..amfm.lsi import LsiModel, count_documents
from ..amfm.scorer import AMFM
from .partitions import Partition, index_file
from .workers import register

DEFAULT_TRAINING_PARTITION_SIZE = 200_000
SPLIT_EVERY = 8
# NgramLM.train options used while counting (the others shape the estimation).
_LM_COUNTING = ("vocab", "max_memory", "temp_dir")


def _texts(partition: Partition, data) -> list:
    if data is None:
        hyps, _, _ = partition.read(require_refs=False)
        return hyps
    texts = list(data)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"{partition.describe()}: item {i} is a {type(text).__name__}, not a str")
    return texts


def count_lsi(partition: Partition, tokenize: str, lowercase: bool, data=None):
    return count_documents(_texts(partition, data), tokenize=tokenize, lowercase=lowercase, workers=1,
                           first_index=max(partition.first_id, 0))


def count_lm(partition: Partition, order: int, tokenize: str, lowercase: bool, counting: dict, data=None):
    return NgramLM.count(_texts(partition, data), order=order, tokenize=tokenize, lowercase=lowercase, workers=1,
                         **counting)


def merge_lm(*parts):
    """Counts of consecutive parts, merged in order."""
    from .. import _core

    total = parts[0]
    for part in parts[1:]:
        total = _core.merge_ngram_counts(total, part, 1)
    return total


def train(client, corpus, *, partition_size: int = DEFAULT_TRAINING_PARTITION_SIZE, dims: int = 100,
          weighting: str = "counts", min_count: int = 1, max_vocab: int | None = None, order: int = 3,
          smoothing: str = "kneser-ney", prune: float | None = None, tokenize: str = "amfm",
          lowercase: bool = False, seed: int = 0, workers: int = -1, lsi_options: Mapping | None = None,
          lm_options: Mapping | None = None, **settings) -> AMFM:
    """``AMFM.train`` on ``corpus`` with the counting on ``client``'s workers.

    ``corpus``: text files (one sentence per line; a path or a list, read as if
    concatenated in order, at the same paths on every worker) or a ``dask.bag`` of
    str. The other arguments are ``AMFM.train``'s; ``workers`` are the client's
    threads for the SVD and the estimation.
    """
    if isinstance(partition_size, bool) or not isinstance(partition_size, int) or partition_size < 1:
        raise ValueError(f"partition_size must be a positive integer, got {partition_size!r}")
    lm_options = dict(lm_options or {})
    counting = {k: lm_options.pop(k) for k in _LM_COUNTING if k in lm_options}
    if isinstance(counting.get("vocab"), (str, os.PathLike)):  # a file every worker reads
        counting["vocab"] = os.path.abspath(os.fspath(counting["vocab"]))
    register(client)
    partitions, data = _plan(client, corpus, partition_size)

    def submit(function, partition, *args):
        if data is None:
            return client.submit(function, partition, *args, pure=False)
        return client.submit(function, partition, *args, client.compute(data[partition.start]), pure=False)

    lsi_parts = [submit(count_lsi, p, tokenize, lowercase) for p in partitions]
    lm_parts = [submit(count_lm, p, order, tokenize, lowercase, counting) for p in partitions]
    level = lm_parts
    while len(level) > 1:
        level = [client.submit(merge_lm, *level[i:i + SPLIT_EVERY], pure=False)
                 for i in range(0, len(level), SPLIT_EVERY)]
    lm_total = level[0]
    del lm_parts, level

    def counted_in_order():
        for i in range(len(lsi_parts)):
            part, lsi_parts[i] = lsi_parts[i], None  # release each part once added
            yield part.result()

    lsi = LsiModel.train_counted(counted_in_order(), dims=dims, weighting=weighting, min_count=min_count,
                                 max_vocab=max_vocab, seed=seed, workers=workers, tokenize=tokenize,
                                 lowercase=lowercase, **dict(lsi_options or {}))
    lm = NgramLM.train_counted(lm_total.result(), smoothing=smoothing, prune=prune, workers=workers,
                               tokenize=tokenize, lowercase=lowercase, **lm_options)
    return AMFM(lsi, lm, workers=workers, **settings)


def _plan(client, corpus, partition_size: int) -> tuple:
    """(partitions, bag partitions as Delayed or None) of the corpus."""
    if type(corpus).__module__.startswith("dask.bag"):
        delayed = corpus.to_delayed()
        return [Partition(i, "bag", start=i, stop=i + 1) for i in range(len(delayed))], delayed
    paths = [corpus] if isinstance(corpus, (str, os.PathLike)) else list(corpus)
    if not paths:
        raise ValueError("the corpus names no file")
    for i, path in enumerate(paths):
        if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
            raise FileNotFoundError(f"corpus[{i}]: {path!r} is not a file (corpus: text files or a dask.bag of str)")
    paths = [os.path.abspath(os.fspath(p)) for p in paths]
    indexes = client.gather(client.map(index_file, paths, every=partition_size, pure=False))
    partitions: list[Partition] = []
    first_line = 0
    for path, (offsets, lines) in zip(paths, indexes):
        for k, offset in enumerate(offsets):
            start = k * partition_size
            # ``start`` numbers lines within the file (for reading); errors of LSI
            # counting name corpus[...] by the line's index in the whole corpus.
            partitions.append(Partition(len(partitions), "lines", (path,), start=start,
                                        stop=min(start + partition_size, lines), offsets=(offset,),
                                        first_id=first_line + start))
        first_line += lines
    if not partitions:
        raise ValueError("the corpus files are empty")
    return partitions, None
