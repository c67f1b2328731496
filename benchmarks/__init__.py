"""fastamfm's benchmarks, one folder per area (``run.py`` lists them and runs any of them).

Every benchmark module is inside this package, so this file runs before any of them, under
pytest and as ``python -m benchmarks.AREA.SCRIPT`` alike: it puts this checkout's
``python/`` (fastamfm) and ``tests/`` (the oracles and corpus helpers the benchmarks compare
against) at the front of ``sys.path``, so a benchmark always measures the worktree it lives
in, never a site-packages copy. Shared by every area: ``measure.py`` (timing, tables),
``shared_data.py`` (the data and its readers), ``conftest.py`` (the suites' fixtures).

``FASTAMFM_BENCHMARK_PACKAGE=DIR`` measures another build of this checkout instead (a folder
holding ``fastamfm/``, such as the package copy ``.ci/variant`` builds for another Python or
compiler); ``FASTAMFM_BENCHMARK_PACKAGE=installed`` measures the installed fastamfm (CI,
where ``pip install .`` built it and ``python/`` holds no compiled module)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_PACKAGE = os.environ.get("FASTAMFM_BENCHMARK_PACKAGE", "")
PACKAGE_DIR = None if _PACKAGE == "installed" else Path(_PACKAGE).resolve() if _PACKAGE else REPO / "python"
for _path in (REPO / "tests", PACKAGE_DIR):
    if _path is not None and str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
if PACKAGE_DIR is not None and "fastamfm" in sys.modules and \
        not sys.modules["fastamfm"].__file__.startswith(str(PACKAGE_DIR)):
    raise ImportError(f"fastamfm was imported from {sys.modules['fastamfm'].__file__} before {__file__} "
                      f"put {PACKAGE_DIR} on sys.path: import benchmarks first")
