"""Import first (its name sorts first): puts ``benchmarks/`` on ``sys.path`` so this
folder's scripts share the helpers there (``_paths``: this checkout's ``python/`` and
``tests/`` first; ``measure``; ``shared_data``), whether run under pytest or as scripts."""
from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1]
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import _paths  # noqa: E402,F401
