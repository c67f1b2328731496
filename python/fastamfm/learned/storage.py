"""The one-file format of a fitted learned scorer: portable, versioned, checksummed.

    magic            16 bytes  b"FASTAMFM-LEARNED"
    format version   uint32, little-endian
    header length    uint64, little-endian
    header           UTF-8 JSON: what the scorer is, its settings, and for each array its
                     name, dtype (little-endian), shape, offset and size in the payload
    payload          the arrays' bytes, one after another
    checksum         SHA-256 of every byte before it

Only numbers and JSON are stored (no pickle), so a file is safe to load from anyone
and reads the same on any platform. Files are written atomically.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct

import numpy as np

MAGIC = b"FASTAMFM-LEARNED"
FORMAT_VERSION = 1
_PREFIX = struct.Struct("<16sIQ")
_CHECKSUM_BYTES = 32
_DTYPES = ("<f8", "<i8")


def _format_error(path, problem: str) -> Exception:
    from ..errors import FormatError

    return FormatError(f"{os.fspath(path)}: {problem}")


def write_scorer_file(path, header: dict, arrays: dict) -> None:
    """Write ``header`` (JSON-serialisable) and ``arrays`` ({name: float64/int64 ndarray})."""
    from ..io import write_text_atomic

    entries, payload, offset = [], [], 0
    for name, array in arrays.items():
        array = np.asarray(array)
        dtype = "<i8" if np.issubdtype(array.dtype, np.integer) else "<f8"
        data = np.ascontiguousarray(array, dtype=dtype).tobytes()
        entries.append({"name": name, "dtype": dtype, "shape": list(array.shape), "offset": offset,
                        "nbytes": len(data)})
        payload.append(data)
        offset += len(data)
    header_bytes = json.dumps({**header, "arrays": entries}, sort_keys=True).encode("utf-8")
    body = _PREFIX.pack(MAGIC, FORMAT_VERSION, len(header_bytes)) + header_bytes + b"".join(payload)
    write_text_atomic(path, body + hashlib.sha256(body).digest())


def read_scorer_file(path) -> tuple[dict, dict]:
    """-> (header, {name: ndarray}); a damaged or foreign file is a ``FormatError``
    naming the file and the problem."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such learned-scorer file")
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < _PREFIX.size + _CHECKSUM_BYTES or not data.startswith(MAGIC):
        raise _format_error(path, "not a fastamfm learned-scorer file (bad magic or too short)")
    body, checksum = data[:-_CHECKSUM_BYTES], data[-_CHECKSUM_BYTES:]
    if hashlib.sha256(body).digest() != checksum:
        raise _format_error(path, "checksum mismatch (the file is truncated or corrupt)")
    _, version, header_length = _PREFIX.unpack_from(body)
    if version != FORMAT_VERSION:
        raise _format_error(path, f"format version {version}; this fastamfm reads version {FORMAT_VERSION}")
    start = _PREFIX.size + header_length
    if start > len(body):
        raise _format_error(path, f"header length {header_length} runs past the end of the file")
    try:
        header = json.loads(body[_PREFIX.size:start].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _format_error(path, f"unreadable header ({exc})") from None
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), list):
        raise _format_error(path, "header is not an object with an 'arrays' list")
    payload = body[start:]
    arrays = {}
    for entry in header.pop("arrays"):
        try:
            name, dtype, shape = entry["name"], entry["dtype"], tuple(int(s) for s in entry["shape"])
            offset, nbytes = int(entry["offset"]), int(entry["nbytes"])
        except (KeyError, TypeError, ValueError):
            raise _format_error(path, f"malformed array entry {entry!r}") from None
        if dtype not in _DTYPES or offset < 0 or offset + nbytes > len(payload) \
                or nbytes != int(np.prod(shape)) * 8:
            raise _format_error(path, f"array {name!r} does not fit the payload ({dtype}, shape {shape}, "
                                      f"{nbytes} bytes at {offset})")
        arrays[name] = np.frombuffer(payload, dtype=dtype, count=nbytes // 8, offset=offset).reshape(shape).copy()
    return header, arrays
