"""``DialogueCorpus``: the dialogues of one or more corpus files, streamed, deduplicated,
decontaminated and split into a training stream and a small held-out slice.

    corpus = DialogueCorpus(["twcs.txt", "more.jsonl.bz2"])       # default blocklist
    counts = corpus.scan()          # one pass: CorpusCounts (read, dropped, duplicates, held out...)
    for dialogue in corpus.training(): ...     # Dialogue(turns, source, line)
    for dialogue in corpus.held_out(): ...

Every pass reads the files again from the start (``corpus_formats``): nothing but the
dialogue hashes seen so far (``DialogueHashSet``) is kept between dialogues. A dialogue
is dropped when it holds an utterance of the blocklist (``blocklist``), and when the same
turns came earlier in the stream (deduplication). Which dialogues are held out depends
only on their turns (a hash), not on their place in the files: the first
``max_held_out`` dialogues whose hash falls in the ``held_out`` fraction.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

from .blocklist import Blocklist
from .corpus_formats import corpus_format, read_dialogues
from .dialogue_hashes import DialogueHashSet, dialogue_hash

_HASH_RANGE = 1 << 16


@dataclass(frozen=True)
class Dialogue:
    turns: tuple
    source: str         # the file it came from
    line: int           # where it starts there (1-based)


@dataclass
class CorpusCounts:
    """What one pass over the corpus found (``DialogueCorpus.scan``)."""

    files: int = 0
    dialogues_read: int = 0
    dropped_blocklist: int = 0
    duplicates: int = 0
    held_out: int = 0
    training_dialogues: int = 0
    training_turns: int = 0
    content_sha256: str = ""       # of the files' bytes, in order (the corpus hash of the provenance)

    def as_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        return (f"{self.dialogues_read} dialogues read from {self.files} file(s): {self.dropped_blocklist} dropped "
                f"(blocklist), {self.duplicates} duplicates dropped, {self.held_out} held out, "
                f"{self.training_dialogues} for training ({self.training_turns} turns)")


class DialogueCorpus:
    """Corpus files as streams of ``Dialogue``s (see the module docstring)."""

    def __init__(self, paths, *, blocklist=None, held_out: float = 0.02, max_held_out: int = 400,
                 min_held_out: int = 0, deduplicate: bool = True):
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        self.paths = [Path(p) for p in paths]
        if not self.paths:
            raise ValueError("DialogueCorpus: give at least one corpus file")
        for path in self.paths:
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such corpus file")
        if isinstance(held_out, bool) or not isinstance(held_out, (int, float)) or not 0.0 <= held_out < 1.0:
            raise ValueError(f"DialogueCorpus: held_out must be a fraction in [0, 1), got {held_out!r}")
        if isinstance(max_held_out, bool) or not isinstance(max_held_out, int) or max_held_out < 0:
            raise ValueError(f"DialogueCorpus: max_held_out must be a non-negative int, got {max_held_out!r}")
        self.blocklist = Blocklist.resolve(blocklist)
        self.held_out_fraction = float(held_out)
        self.max_held_out = max_held_out
        if isinstance(min_held_out, bool) or not isinstance(min_held_out, int) or min_held_out < 0:
            raise ValueError(f"DialogueCorpus: min_held_out must be a non-negative int, got {min_held_out!r}")
        self.min_held_out = min_held_out
        self.deduplicate = deduplicate
        self._counts: CorpusCounts | None = None

    @classmethod
    def of(cls, corpus, **options) -> "DialogueCorpus":
        """``corpus`` itself when it is a ``DialogueCorpus`` (its own settings kept), else a
        corpus over the file(s) it names, with ``options`` (``blocklist``, ``held_out``...)."""
        if isinstance(corpus, DialogueCorpus):
            return corpus
        return cls(corpus, **options)

    def describe(self) -> dict:
        return {"files": [str(p) for p in self.paths], "formats": [corpus_format(p) for p in self.paths],
                "held_out": self.held_out_fraction, "max_held_out": self.max_held_out, "min_held_out": self.min_held_out,
                "deduplicate": self.deduplicate, **self.blocklist.describe()}

    def _classified(self, counts: CorpusCounts | None = None) -> Iterator[tuple]:
        """("train" | "held_out", Dialogue) for every dialogue kept, in file order."""
        seen = DialogueHashSet() if self.deduplicate else None
        threshold = int(self.held_out_fraction * _HASH_RANGE)
        held = 0
        for path in self.paths:
            for turns, line in read_dialogues(path):
                if counts is not None:
                    counts.dialogues_read += 1
                if self.blocklist.blocks(turns):
                    if counts is not None:
                        counts.dropped_blocklist += 1
                    continue
                digest = dialogue_hash(turns)
                if seen is not None and not seen.add(digest):
                    if counts is not None:
                        counts.duplicates += 1
                    continue
                dialogue = Dialogue(turns, str(path), line)
                if held < self.max_held_out and (digest >> 8) % _HASH_RANGE < threshold:
                    held += 1
                    yield "held_out", dialogue
                else:
                    yield "train", dialogue

    def training(self) -> Iterator[Dialogue]:
        for split, dialogue in self._classified():
            if split == "train":
                yield dialogue

    def held_out(self) -> Iterator[Dialogue]:
        for split, dialogue in self._classified():
            if split == "held_out":
                yield dialogue

    def scan(self) -> CorpusCounts:
        """One pass over every file: the counts and the corpus hash (kept: later calls are free).
        A small corpus whose ``held_out`` fraction gives fewer than ``min_held_out`` dialogues
        holds out more (at most a fifth of it), decided here, before any dialogue is trained on."""
        if self._counts is not None:
            return self._counts
        counts = self._count()
        if counts.held_out < self.min_held_out and counts.dialogues_read > 2 * self.min_held_out:
            self.held_out_fraction = min(0.2, max(self.held_out_fraction,
                                                  1.5 * self.min_held_out / counts.dialogues_read))
            counts = self._count()
        self._counts = counts
        return counts

    def _count(self) -> CorpusCounts:
        counts = CorpusCounts(files=len(self.paths))
        for split, dialogue in self._classified(counts):
            if split == "held_out":
                counts.held_out += 1
            else:
                counts.training_dialogues += 1
                counts.training_turns += len(dialogue.turns)
        digest = hashlib.sha256()
        for path in self.paths:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
        counts.content_sha256 = digest.hexdigest()
        if counts.training_dialogues == 0:
            raise ValueError(f"DialogueCorpus: no dialogue left to train on ({counts.describe()})")
        return counts
