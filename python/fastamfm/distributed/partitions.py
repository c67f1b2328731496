"""The partitions of an input, and reading one partition on a worker.

Inputs (``score``'s ``data``):

- a list of items, scored as if concatenated in order, each either
  ``(hyp, refs)`` / ``(hyp, refs, context)``: line-aligned text files (the layout of
  ``fastamfm score --hyp/--ref/--context``; ``refs`` one path or a list, possibly empty
  for reference-free metrics), cut into ranges of ``partition_size`` lines; or
  a path to a jsonl file of ``{"hyp", "refs", "context"}`` records (``--jsonl``), cut
  into ranges of ``partition_size`` lines;
- a ``dask.bag`` of such records, one partition per bag partition;
- a ``dask.dataframe`` with ``hyp``, ``refs`` (a list of str per row, or one str) and
  optionally ``context`` columns, one partition per dataframe partition.

References always travel with their responses: a partition holds both. Line ranges
are found by scanning each file once for line starts (``_core.line_start_offsets``,
on the workers); a worker then reads its range from that byte offset. How many
responses a jsonl range or a bag/dataframe partition holds is known only once it is
read (a first pass, shared with CIDEr's reference pass).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .. import _core
from ..io.readers import check_record
from ..models.file_digest import file_digest
from ..references import References
from ..streaming import _read_contexts


def _fingerprint(path: str) -> dict:
    """What an input file is: its path and the SHA-256 of its content (``file_digest``:
    streamed, and remembered per version of the file, so a rerun reads only its status).
    An edit that keeps the size and restores the modification time still changes it."""
    return {"path": path, "size": os.stat(path).st_size, "sha256": file_digest(path)}


@dataclass(frozen=True)
class Partition:
    """One partition of a run: where its responses are, and (once known) how many and
    the id of the first.

    ``kind`` "lines": ``files`` are the hyp file, the reference files and the context
    file (``n_refs`` references, ``has_context``), lines ``start..stop-1`` beginning at
    byte ``offsets[k]`` of file k. "jsonl": ``files`` is the jsonl file, lines
    ``start..stop-1`` from byte ``offsets[0]``. "bag"/"frame": partition ``start`` of
    the collection.
    """

    index: int
    kind: str
    files: tuple = ()
    n_refs: int = 0
    has_context: bool = False
    start: int = 0
    stop: int = 0
    offsets: tuple = ()
    rows: int = -1
    first_id: int = -1

    def describe(self) -> str:
        if self.kind in ("lines", "jsonl"):
            return f"{self.files[0]}:{self.start + 1}-{self.stop}"
        return f"{self.kind} partition {self.start}"

    def to_json(self) -> dict:
        return {"index": self.index, "kind": self.kind, "files": list(self.files), "n_refs": self.n_refs,
                "has_context": self.has_context, "start": self.start, "stop": self.stop,
                "offsets": list(self.offsets), "rows": self.rows, "first_id": self.first_id}

    @classmethod
    def from_json(cls, data: dict) -> "Partition":
        return cls(data["index"], data["kind"], tuple(data["files"]), data["n_refs"], data["has_context"],
                   data["start"], data["stop"], tuple(data["offsets"]), data["rows"], data["first_id"])

    # --- reading, on a worker --------------------------------------------------------
    def read(self, data=None, *, require_refs: bool, responses: bool = True, workers: int = 1) -> tuple:
        """(hyps or None, References or None, contexts or None) of this partition;
        ``data`` is the bag/dataframe partition itself. ``responses=False`` reads the
        references alone where they are separate (the reference pass). The References
        encode with ``workers`` threads (the pipeline's)."""
        if self.kind == "lines":
            return self._read_lines(require_refs, responses, workers)
        if self.kind == "jsonl":
            return _batch(self._jsonl_records(), require_refs, workers)
        if self.kind == "bag":
            return _batch(((self.describe(), i + 1, r) for i, r in enumerate(data)), require_refs, workers)
        return _batch(_frame_records(data, self.describe()), require_refs, workers)

    def _read_lines(self, require_refs: bool, responses: bool, workers: int) -> tuple:
        n = self.stop - self.start
        wanted = [0] if responses else []
        wanted += list(range(1, 1 + self.n_refs))
        if self.has_context and responses:
            wanted.append(1 + self.n_refs)
        columns = {}
        for k in wanted:
            reader = _core.LineReader(self.files[k], start_offset=self.offsets[k], first_line=self.start)
            lines = reader.read_chunk(n)
            if len(lines) != n:
                raise ValueError(f"{self.files[k]}: ended at line {self.start + len(lines)}; it changed since it was "
                                 f"indexed (expected lines {self.start + 1}-{self.stop})")
            columns[k] = lines
        refs = None
        if self.n_refs:
            refs = References.from_columns([columns[k] for k in range(1, 1 + self.n_refs)], workers=workers)
            refs.reusable = False  # one partition, scored once: metrics may score straight from text
        elif require_refs:
            raise ValueError(f"{self.describe()}: the metrics need reference files")
        contexts = _read_contexts(columns[1 + self.n_refs]) if self.has_context and responses else None
        return columns.get(0), refs, contexts

    def _jsonl_records(self):
        path = self.files[0]
        reader = _core.LineReader(path, start_offset=self.offsets[0], first_line=self.start)
        for line_no, line in enumerate(reader.read_chunk(self.stop - self.start), self.start + 1):
            if not line.strip(" \t\r\n\x0b\x0c"):
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{line_no}: invalid JSON: {exc.msg} (column {exc.colno})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{line_no}: expected a JSON object, got {type(record).__name__}")
            yield path, line_no, record


def _frame_records(frame, where: str):
    """The rows of a pandas DataFrame partition as records."""
    if "hyp" not in frame.columns:
        raise ValueError(f"{where}: the dataframe has no 'hyp' column (columns: {list(frame.columns)})")
    hyps = frame["hyp"].tolist()
    refs = frame["refs"].tolist() if "refs" in frame.columns else [None] * len(hyps)
    contexts = frame["context"].tolist() if "context" in frame.columns else [None] * len(hyps)
    for i, (hyp, ref, context) in enumerate(zip(hyps, refs, contexts)):
        record = {"hyp": hyp}
        if ref is not None:
            # list columns come back as numpy arrays (pyarrow) or tuples
            record["refs"] = ref if isinstance(ref, str) else list(ref)
        if context is not None:
            record["context"] = context if isinstance(context, str) else list(context)
        yield where, i + 1, record


def _batch(records, require_refs: bool, workers: int) -> tuple:
    """(hyps, References or None, contexts or None) of (where, number, record) items,
    checked as ``fastamfm score --jsonl`` checks them (errors name where:number)."""
    hyps, refs, contexts = [], [], []
    shape = None
    for where, number, record in records:
        if not isinstance(record, dict):
            raise ValueError(f"{where}:{number}: expected a record {{\"hyp\": ..., \"refs\": [...]}}, "
                             f"got {type(record).__name__}")
        hyp, rs, context = check_record(where, number, record, require_refs)
        if shape is None:
            shape = (rs is not None, context is not None)
        elif shape != (rs is not None, context is not None):
            raise ValueError(f"{where}:{number}: the first record {'has' if shape[0] else 'has no'} 'refs' and "
                             f"{'has' if shape[1] else 'has no'} 'context'; every record must have the same keys")
        hyps.append(hyp)
        refs.append(rs)
        contexts.append(context)
    if shape is None:
        return [], None, None
    return (hyps, (References.of(refs, len(hyps), workers=workers, layout="responses") if shape[0] else None),
            (contexts if shape[1] else None))


# --- inputs, on the client -----------------------------------------------------------

class Inputs:
    """``score``'s ``data`` checked: file items or one Dask collection."""

    def __init__(self, data) -> None:
        self.collection = None
        self.items: list = []
        if _is_collection(data):
            self.collection = data
            self.kind = "frame" if _is_dataframe(data) else "bag"
            return
        if isinstance(data, (str, os.PathLike)) or not isinstance(data, (list, tuple)) or not data:
            raise TypeError("data must be a non-empty list of (hyp, refs[, context]) file tuples or jsonl paths, "
                            "a dask.bag of records, or a dask.dataframe")
        self.kind = "files"
        for i, item in enumerate(data):
            self.items.append(_file_item(item, f"data[{i}]"))

    def identity(self) -> dict:
        """What the inputs are, for the manifest: each file's path, size and content hash,
        or the collection's Dask name (a content token for from_sequence, the graph's name
        otherwise)."""
        if self.collection is not None:
            return {"kind": self.kind, "name": _collection_name(self.collection),
                    "npartitions": self.collection.npartitions}
        return {"kind": "files", "items": [{key: ([_fingerprint(p) for p in value] if isinstance(value, list)
                                                  else None if value is None else _fingerprint(value))
                                            for key, value in item.items()} for item in self.items]}

    def paths(self) -> list:
        """Every input file (files inputs), in order."""
        out = []
        for item in self.items:
            out += [item["jsonl"]] if "jsonl" in item else [item["hyp"], *item["refs"]] + \
                ([item["context"]] if item["context"] else [])
        return out

    def delayed_partitions(self) -> list | None:
        """The bag/dataframe partitions as Delayed objects (None for files)."""
        if self.collection is None:
            return None
        return self.collection.to_delayed()

    def plan(self, indexes: dict, partition_size: int) -> list:
        """Partitions, given each file's ``(offsets, lines)`` from ``line_start_offsets``."""
        if self.collection is not None:
            return [Partition(i, self.kind, start=i, stop=i + 1) for i in range(self.collection.npartitions)]
        partitions: list = []
        for item in self.items:
            if "jsonl" in item:
                offsets, lines = indexes[item["jsonl"]]
                for k, offset in enumerate(offsets):
                    start = k * partition_size
                    partitions.append(Partition(len(partitions), "jsonl", (item["jsonl"],), start=start,
                                                stop=min(start + partition_size, lines), offsets=(offset,)))
                continue
            files = [item["hyp"], *item["refs"]] + ([item["context"]] if item["context"] else [])
            counts = {p: indexes[p][1] for p in files}
            if len(set(counts.values())) > 1:
                detail = ", ".join(f"{p}: {c} lines" for p, c in counts.items())
                raise ValueError(f"line counts differ between parallel files ({detail})")
            lines = counts[files[0]]
            for k in range(len(indexes[files[0]][0])):
                start, stop = k * partition_size, min((k + 1) * partition_size, lines)
                partitions.append(Partition(len(partitions), "lines", tuple(files), len(item["refs"]),
                                            item["context"] is not None, start, stop,
                                            tuple(int(indexes[p][0][k]) for p in files), rows=stop - start))
        return partitions


def _is_collection(data) -> bool:
    return _is_dataframe(data) or type(data).__module__.startswith("dask.bag")


def _is_dataframe(data) -> bool:
    module = type(data).__module__
    return module.startswith(("dask.dataframe", "dask_expr")) and hasattr(data, "to_delayed")


def _collection_name(collection) -> str:
    name = getattr(collection, "_name", None) or getattr(collection, "name", None)
    return str(name)


def _existing(path, where: str) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{where}: expected a file path, got {type(path).__name__}")
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{where}: {path}: no such file")
    return path


def _file_item(item, where: str) -> dict:
    if isinstance(item, (str, os.PathLike)):
        return {"jsonl": _existing(item, where)}
    if not isinstance(item, (list, tuple)) or len(item) not in (2, 3):
        raise TypeError(f"{where}: expected (hyp, refs) or (hyp, refs, context) paths, or a jsonl path; "
                        f"got {item!r}")
    hyp, refs = item[0], item[1]
    context = item[2] if len(item) == 3 else None
    refs = [] if refs is None else [refs] if isinstance(refs, (str, os.PathLike)) else list(refs)
    return {"hyp": _existing(hyp, f"{where} hyp"),
            "refs": [_existing(r, f"{where} refs[{k}]") for k, r in enumerate(refs)],
            "context": None if context is None else _existing(context, f"{where} context")}


def index_file(path: str, every: int) -> tuple:
    """(byte offsets of lines 0, every, 2*every, ..., number of lines): a worker task."""
    offsets, lines = _core.line_start_offsets(path, every)
    return offsets.tolist(), int(lines)
