"""One checked file of settings and arrays, for everything fastamfm writes in Python and
reads back later (learned scorers, a distributed run's reference statistics): numbers
and JSON only, never pickle, so a file from anyone loads without running anything.

    magic            16 bytes, the kind of file (e.g. b"FASTAMFM-LEARNED")
    format version   uint32, little-endian
    header length    uint64, little-endian
    header           UTF-8 JSON object: the caller's settings, and under "arrays" each
                     array's name, dtype (little-endian), shape, offset and size
    payload          the arrays' bytes, one after another in the header's order
    checksum         SHA-256 of every byte before it

Reading checks the magic, the version, the checksum, and that the arrays tile the
payload exactly; the caller then checks what the values mean. Written atomically, and
streamed (an array is never copied into one big buffer).
"""
from __future__ import annotations

import hashlib
import json
import os
import struct

import numpy as np

from ..errors import format_error

MAGIC_BYTES = 16
_PREFIX = struct.Struct("<16sIQ")
_CHECKSUM_BYTES = 32
DTYPES = ("<f8", "<i8", "<u8", "<u4", "<f4")


def write_checked_file(path, magic: bytes, version: int, header: dict, arrays: dict) -> None:
    """Write ``header`` (JSON-serialisable, without an "arrays" key) and ``arrays``
    ({name: ndarray of a dtype in ``DTYPES``, or any integer/float array, stored as
    int64/float64}) to ``path``, atomically."""
    from . import AtomicWriter

    if len(magic) != MAGIC_BYTES:
        raise ValueError(f"magic must be {MAGIC_BYTES} bytes, got {magic!r}")
    entries, data, offset = [], [], 0
    for name, array in arrays.items():
        array = np.asarray(array)
        dtype = array.dtype.newbyteorder("<").str
        if dtype not in DTYPES:
            dtype = "<i8" if np.issubdtype(array.dtype, np.integer) else "<f8"
        array = np.ascontiguousarray(array, dtype=dtype)
        entries.append({"name": name, "dtype": dtype, "shape": list(array.shape), "offset": offset,
                        "nbytes": array.nbytes})
        data.append(array)
        offset += array.nbytes
    header_bytes = json.dumps({**header, "arrays": entries}, sort_keys=True, allow_nan=False).encode("utf-8")
    digest = hashlib.sha256()
    with AtomicWriter(path, "wb") as f:
        pieces = [_PREFIX.pack(magic, version, len(header_bytes)), header_bytes]
        for piece in pieces + [a.reshape(-1).view(np.uint8) for a in data]:
            # ndarray has the buffer protocol; numpy's stubs declare its __buffer__ only on Python >= 3.12
            digest.update(piece)  # type: ignore[arg-type,unused-ignore]
            f.write(piece)
        f.write(digest.digest())


def read_checked_file(path, magic: bytes, version: int, what: str) -> tuple[dict, dict]:
    """-> (header, {name: read-only ndarray viewing the file's bytes}). A file that is not
    ``what`` (wrong magic), of another version, damaged, or whose arrays do not tile its
    payload is a ``FormatError`` naming the file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such {what} file")
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < _PREFIX.size + _CHECKSUM_BYTES or not data.startswith(magic):
        raise format_error(path, f"not a fastamfm {what} file (bad magic or too short)")
    body = memoryview(data)[:-_CHECKSUM_BYTES]
    if hashlib.sha256(body).digest() != data[-_CHECKSUM_BYTES:]:
        raise format_error(path, "checksum mismatch (the file is truncated or corrupt)")
    _, found, header_length = _PREFIX.unpack_from(data)
    if found != version:
        raise format_error(path, f"format version {found}; this fastamfm reads version {version}")
    start = _PREFIX.size + header_length
    if start > len(body):
        raise format_error(path, f"header length {header_length} runs past the end of the file")
    try:
        header = json.loads(bytes(body[_PREFIX.size:start]).decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise format_error(path, f"unreadable header ({type(exc).__name__}: {exc})") from None
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), list):
        raise format_error(path, "header is not an object with an 'arrays' list")
    payload = body[start:]
    arrays, offset = {}, 0
    for entry in header.pop("arrays"):
        name, dtype, shape = _array_entry(path, entry, offset)
        nbytes = entry["nbytes"]
        if offset + nbytes > len(payload):
            raise format_error(path, f"array {name!r} ({nbytes} bytes at {offset}) runs past the payload's "
                                     f"{len(payload)} bytes")
        if name in arrays:
            raise format_error(path, f"array {name!r} is listed twice")
        array = np.frombuffer(payload, dtype=dtype, count=nbytes // np.dtype(dtype).itemsize, offset=offset)
        # The header's length puts the payload at any byte: an array off its alignment is
        # copied, so that no reader (numpy or the C++ core) loads misaligned numbers.
        arrays[name] = (array if array.flags.aligned else array.copy()).reshape(shape)
        offset += nbytes
    if offset != len(payload):
        raise format_error(path, f"the arrays fill {offset} of the payload's {len(payload)} bytes")
    return header, arrays


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _array_entry(path: str, entry, offset: int) -> tuple:
    """(name, dtype, shape) of a header's array entry, each field checked."""
    if not isinstance(entry, dict):
        raise format_error(path, f"malformed array entry {entry!r}")
    name, dtype, shape, nbytes = entry.get("name"), entry.get("dtype"), entry.get("shape"), entry.get("nbytes")
    if not isinstance(name, str) or dtype not in DTYPES or not isinstance(shape, list) \
            or not all(type(s) is int and s >= 0 for s in shape) or type(nbytes) is not int \
            or entry.get("offset") != offset:
        raise format_error(path, f"malformed array entry {entry!r}")
    count = 1
    for s in shape:
        count *= s
    if count * np.dtype(dtype).itemsize != nbytes:
        raise format_error(path, f"array {name!r}: shape {shape} of {dtype} is not {nbytes} bytes")
    return name, dtype, tuple(shape)
