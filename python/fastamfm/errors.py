"""The error of a bad file, and the one way fastamfm names the place in it.

``fastamfm.FormatError`` (a ``ValueError``) is raised by every reader, in C++ and in
Python, for a file whose content is not what its format promises. Its message starts
with the place (``path:line:column: what`` or ``path: record N: what``) and the place
is also in attributes: ``path``, ``line``, ``column`` and ``record`` (1-based; None
where the format has no such notion, e.g. ``line`` in a binary file).

``fastamfm.AmbiguousReferencesWarning`` is the warning of input that fastamfm reads one
way although it fits another as well (references that read per response and as
sacrebleu streams): it says which reading was used and how to say the other.
"""
from __future__ import annotations

import os

from ._core import FormatError


class AmbiguousReferencesWarning(UserWarning):
    """``refs`` fits both per-response lists and sacrebleu/nlg-eval reference streams;
    scored per response. Say which: ``References.from_streams(refs)`` / ``layout="streams"``,
    or ``layout="responses"`` / ``References(refs)``.

    Examples
    --------
    Two responses with two references each read two ways:

    >>> import warnings
    >>> import fastamfm
    >>> refs = [["a b", "x y"], ["c d", "z w"]]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = fastamfm.bleu(["a b", "c d"], refs, max_order=2)
    ...     _ = fastamfm.bleu(["a b", "c d"], refs, max_order=2, layout="responses")  # said: no warning
    >>> [warning.category.__name__ for warning in caught]
    ['AmbiguousReferencesWarning']
    """


def format_error(path, what: str, *, line: int | None = None, column: int | None = None,
                 record: int | None = None) -> FormatError:
    """A FormatError for ``what`` at ``path`` (and line/column or JSON record)."""
    path = os.fspath(path)
    place = str(path)
    if line is not None:
        place += f":{line}" + (f":{column}" if column is not None else "")
    if record is not None:
        place += f": record {record}"
    error = FormatError(f"{place}: {what}")
    error.path, error.line, error.column, error.record = str(path), line, column, record
    return error


__all__ = ["AmbiguousReferencesWarning", "FormatError", "format_error"]
