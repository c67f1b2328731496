"""A bounded fuzz run of every target (tests/fuzz/harnesses.py) under atheris, each in its
own process for FASTAMFM_FUZZ_SECONDS (default 3: the committed corpus replayed, then
mutations of it; sixteen targets, so the suite's share stays small) from a copy of the
committed corpus: no input may crash a reader or make it raise anything but a ValueError. Skips when
atheris is not installed (pip install atheris; it is in the test extra). The long
local run is documented in tests/fuzz/run.py."""
from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import fastamfm
import pytest

pytest.importorskip("atheris", reason="atheris is not installed (pip install atheris)")
pytest.importorskip("fastamfm._testing", reason="fastamfm was built without its test hooks (FASTAMFM_TEST_HOOKS=ON; the README's test command builds them)")

from fuzz.harnesses import HARNESSES  # noqa: E402

HERE = Path(__file__).resolve().parent
PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]
SECONDS = int(os.environ.get("FASTAMFM_FUZZ_SECONDS", "3"))
# What one input may take. libFuzzer checks the peak RSS (getrusage), which Linux carries
# across exec from the process that started it: a pytest process that has grown to 2 GB
# hands every fuzz run a 2 GB peak before its first input. The limit is therefore this
# budget above the peak the run inherits; single allocations keep the plain budget.
RSS_BUDGET_MB = 2048


def _rss_limit_mb() -> int:
    return RSS_BUDGET_MB + resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(HARNESSES))
def test_fuzz_target(target, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(HERE / "fuzz" / "corpus" / target, corpus)
    proc = subprocess.run(
        [sys.executable, str(HERE / "fuzz" / "run.py"), target, f"-max_total_time={SECONDS}",
         f"-rss_limit_mb={_rss_limit_mb()}", f"-malloc_limit_mb={RSS_BUDGET_MB}",
         "-timeout=20", "-print_final_stats=1", str(corpus)],
        # libFuzzer ends the process with exit(), past Python's atexit: the harnesses'
        # temporary directory is made under tmp_path so that it goes with it.
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR), TMPDIR=str(tmp_path)), capture_output=True,
        text=True,
        timeout=SECONDS + 300)
    crashes = sorted(p.name for p in tmp_path.iterdir() if re.match(r"(crash|timeout|oom|leak)-", p.name))
    assert proc.returncode == 0 and not crashes, f"{target}: {crashes}\n{proc.stderr[-3000:]}"
    runs = re.search(r"Done (\d+) runs in (\d+) second", proc.stderr)
    assert runs, proc.stderr[-2000:]
    print(f"{target}: {runs[1]} inputs in {runs[2]} s, 0 crashes")
