"""fastamfm's benchmarks, one folder per area (``run.py`` lists them and runs any of them).

Every benchmark module is inside this package, so this file runs before any of them, under
pytest and as ``python -m benchmarks.AREA.SCRIPT`` alike: it puts this checkout's
``python/`` (fastamfm) and ``tests/`` (the oracles and corpus helpers the benchmarks compare
against) at the front of ``sys.path``, so a benchmark always measures the worktree it lives
in, never a site-packages copy. Shared by every area: ``measure.py`` (timing, tables),
``shared_data.py`` (the data and its readers), ``conftest.py`` (the suites' fixtures)."""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for _path in (REPO / "tests", REPO / "python"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
if "fastamfm" in sys.modules and not sys.modules["fastamfm"].__file__.startswith(str(REPO / "python")):
    raise ImportError(f"fastamfm was imported from {sys.modules['fastamfm'].__file__} before {__file__} "
                      f"put {REPO / 'python'} on sys.path: import benchmarks first")
