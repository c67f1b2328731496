"""The reference statistics a distributed run keeps on disk (``distributed/statistics.py``):
a checked file of arrays and JSON that names no code. The pickles that ran a shell
command through the old loader (issue 29) fail loudly and run nothing."""
from __future__ import annotations

import hashlib
import json
import struct

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_pairs
from fastamfm.distributed.statistics import (
    FILE_MAGIC,
    FILE_VERSION,
    read_statistics_file,
    write_statistics_file,
)
from fastamfm.io.checked_file import read_checked_file, write_checked_file


def pickle_calling(module: str, name: str, argument: str) -> bytes:
    """A protocol-4 pickle calling ``module``'s attribute ``name`` (dotted names resolved
    by STACK_GLOBAL) with one string argument."""
    def text(t: str) -> bytes:
        data = t.encode()
        return b"\x8c" + bytes([len(data)]) + data

    return b"\x80\x04" + text(module) + text(name) + b"\x93" + text(argument) + b"\x85R."


# The payloads of issue 29: os.system reached through fastamfm.io's and numpy's imports.
EXPLOITS = [("fastamfm.io", "os.system"), ("numpy", "testing._private.utils.os.system"),
            ("fastamfm.distributed.statistics", "copyreg.os.system")]


def statistics():
    hyps, refs = tiny_pairs(30)
    result = fastamfm.Pipeline.from_names(["cider", "bleu", "distinct"]).score(hyps, refs)
    return {**result.extra["statistics"], "df": fastamfm.DocumentFrequencies().update(refs)}


def test_round_trip_is_exact(tmp_path):
    original = statistics()
    write_statistics_file(tmp_path / "s.bin", original, "run1")
    loaded = read_statistics_file(tmp_path / "s.bin", "run1")
    assert {k: v.to_json() for k, v in loaded.items()} == {k: v.to_json() for k, v in original.items()}
    with pytest.raises(fastamfm.FormatError, match="s.bin: written by another run"):
        read_statistics_file(tmp_path / "s.bin", "run2")


@pytest.mark.parametrize("module, name", EXPLOITS)
def test_pickle_payloads_fail_loudly_and_run_nothing(tmp_path, module, name):
    marker = tmp_path / "PWNED"
    path = tmp_path / "reference-statistics.bin"
    path.write_bytes(pickle_calling(module, name, f"touch {marker}"))
    with pytest.raises(fastamfm.FormatError, match="not a fastamfm reference statistics file"):
        read_statistics_file(path, "run")
    assert not marker.exists()


def _rewrite(path, edit) -> None:
    """Apply ``edit`` to the header of a checked file and fix its checksum (a crafted file)."""
    data = path.read_bytes()
    _, version, length = struct.unpack_from("<16sIQ", data)
    header = json.loads(data[28:28 + length])
    edit(header)
    raw = json.dumps(header).encode()
    body = data[:16] + struct.pack("<IQ", version, len(raw)) + raw + data[28 + length:-32]
    path.write_bytes(body + hashlib.sha256(body).digest())


@pytest.mark.parametrize("edit, message", [
    (lambda h: h["metrics"]["bleu"].update({"class": "os:system"}), "unknown kind of statistics"),
    (lambda h: h["metrics"]["bleu"].update({"class": "posix:system", "kind": "pickle"}), "unknown kind"),
    (lambda h: h["metrics"]["df"].update({"max_order": 10 ** 9}), "out of range"),
    (lambda h: h["metrics"]["df"].update({"segments": 1}), "document frequency outside 1..1"),
    (lambda h: h["metrics"]["df"].update({"tokenizer": ["os.system", False]}), "tokenize must be one of"),
    (lambda h: h["metrics"]["bleu"].update({"data": {"x": 1}}), "statistics of 'bleu'"),
    (lambda h: h["metrics"].pop("df"), "do not match its arrays"),
    (lambda h: h["arrays"][0].update({"shape": [-1]}), "malformed array entry"),
    (lambda h: h["arrays"][0].update({"dtype": "|O"}), "malformed array entry"),
    (lambda h: h["arrays"][0].update({"shape": [2 ** 62], "nbytes": 2 ** 65}), "runs past the payload"),
])
def test_crafted_files_with_a_valid_checksum_are_format_errors(tmp_path, edit, message):
    path = tmp_path / "s.bin"
    write_statistics_file(path, statistics(), "run")
    _rewrite(path, edit)
    with pytest.raises(fastamfm.FormatError, match=message) as info:
        read_statistics_file(path, "run")
    assert info.value.path == str(path)


def test_damage_is_caught_by_the_checksum(tmp_path):
    path = tmp_path / "s.bin"
    write_statistics_file(path, statistics(), "run")
    data = bytearray(path.read_bytes())
    for position in (20, len(data) // 2, len(data) - 1):
        bad = bytearray(data)
        bad[position] ^= 1
        path.write_bytes(bytes(bad))
        with pytest.raises(fastamfm.FormatError, match="checksum mismatch"):
            read_statistics_file(path, "run")
    path.write_bytes(bytes(data[:len(data) // 2]))
    with pytest.raises(fastamfm.FormatError, match="checksum mismatch"):
        read_statistics_file(path, "run")


def test_checked_file_arrays_must_tile_the_payload(tmp_path):
    import numpy as np

    path = tmp_path / "c.bin"
    write_checked_file(path, FILE_MAGIC, FILE_VERSION, {"k": 1}, {"a": np.arange(3), "b": np.ones(2)})
    header, arrays = read_checked_file(path, FILE_MAGIC, FILE_VERSION, "test")
    assert header == {"k": 1} and arrays["a"].tolist() == [0, 1, 2] and arrays["b"].tolist() == [1.0, 1.0]
    _rewrite(path, lambda h: h["arrays"].pop())
    with pytest.raises(fastamfm.FormatError, match="the arrays fill 24 of the payload's 40 bytes"):
        read_checked_file(path, FILE_MAGIC, FILE_VERSION, "test")
    with pytest.raises(fastamfm.FormatError, match="format version 1; this fastamfm reads version 2"):
        read_checked_file(path, FILE_MAGIC, 2, "test")


def test_arrays_read_back_are_aligned_whatever_the_header_length(tmp_path):
    """The payload starts wherever the JSON header ends: an int64 array read back must still
    be aligned (the C++ core loads its numbers; a misaligned load is undefined behaviour, and
    UBSan stops the sanitizer job on it)."""
    for padding in range(8):
        path = tmp_path / f"f{padding}.bin"
        write_checked_file(path, b"FASTAMFM-TESTING", 1, {"pad": "x" * padding},
                           {"keys": np.arange(5, dtype="<u8"), "counts": np.arange(5, dtype="<i8")})
        _, arrays = read_checked_file(path, b"FASTAMFM-TESTING", 1, "test")
        assert all(a.flags.aligned for a in arrays.values()), padding
        assert arrays["keys"].tolist() == list(range(5))
