"""The one-file format of a fitted learned scorer: portable, versioned, checksummed.

A ``checked_file`` (magic ``FASTAMFM-LEARNED``, format version 1): a JSON header saying
what the scorer is and its settings, float64/int64 arrays, and a SHA-256 of everything.
Only numbers and JSON are stored (no pickle), so a file is safe to load from anyone
and reads the same on any platform. Files are written atomically. What the values mean
(finite, shapes that agree) is checked by the scorer that reads them (``scorer.py``).
"""
from __future__ import annotations

from ..io.checked_file import read_checked_file, write_checked_file

MAGIC = b"FASTAMFM-LEARNED"
FORMAT_VERSION = 1


def write_scorer_file(path, header: dict, arrays: dict) -> None:
    """Write ``header`` (JSON-serialisable) and ``arrays`` ({name: float64/int64 ndarray})."""
    write_checked_file(path, MAGIC, FORMAT_VERSION, header,
                       {name: _float_or_int(array) for name, array in arrays.items()})


def _float_or_int(array):
    import numpy as np

    array = np.asarray(array)
    return array.astype("<i8" if np.issubdtype(array.dtype, np.integer) else "<f8", copy=False)


def read_scorer_file(path) -> tuple[dict, dict]:
    """-> (header, {name: ndarray}); a damaged or foreign file is a ``FormatError``
    naming the file and the problem."""
    header, arrays = read_checked_file(path, MAGIC, FORMAT_VERSION, "learned-scorer")
    return header, {name: array.copy() for name, array in arrays.items()}
