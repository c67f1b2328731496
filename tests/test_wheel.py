"""The release artifacts that ``.ci/wheel OUTDIR`` builds, tested when FASTAMFM_WHEELHOUSE
names that folder (``.ci/run`` does, after building them): the sdist, one manylinux wheel
per supported Python, none with the test hooks; and this Python's wheel installed into a
fresh virtual environment where no compiler can run (CC=false CXX=false, binaries only),
scoring the README's example exactly as the README shows."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HOUSE = os.environ.get("FASTAMFM_WHEELHOUSE")
SUPPORTED = ("cp39", "cp310", "cp311", "cp312", "cp313")

pytestmark = pytest.mark.skipif(
    not HOUSE, reason="no wheels to test: .ci/wheel OUTDIR builds them, FASTAMFM_WHEELHOUSE=OUTDIR tests them (.ci/run)")


def _wheels() -> dict:
    found = {}
    for path in sorted(Path(HOUSE).glob("fastamfm-*.whl")):
        _, _, python, abi, platform = path.stem.split("-")
        found[python] = (path, abi, platform)
    return found


def test_a_manylinux_wheel_per_supported_python_and_the_sdist():
    wheels = _wheels()
    assert set(wheels) == set(SUPPORTED)
    for python, (path, abi, platform) in wheels.items():
        assert abi == python and re.fullmatch(r"manylinux_2_\d+_x86_64(\.manylinux_2_\d+_x86_64)*", platform), path.name
        names = zipfile.ZipFile(path).namelist()
        assert any(re.fullmatch(rf"fastamfm/_core\.cpython-{python[2:]}-x86_64-linux-gnu\.so", n) for n in names)
        assert not any(n.startswith("fastamfm/_testing") for n in names), f"{path.name} carries the test hooks"
        assert "fastamfm/data/default_model/lm.model" in names  # the default model travels with the package
    sdists = list(Path(HOUSE).glob("fastamfm-*.tar.gz"))
    assert len(sdists) == 1
    members = {m.split("/", 1)[1] for m in tarfile.open(sdists[0]).getnames() if "/" in m}
    assert {"pyproject.toml", "CMakeLists.txt", "README.md", "LICENSE", "src/overlap/bleu.cpp",
            "csrc/module.cpp"} <= members


def _readme_score_output() -> tuple:
    """The README's set-up command's fastamfm line and the output it shows."""
    readme = (REPO / "README.md").read_text()
    block = re.search(r"```bash\n(python3 -m pip install [^\n]*?&& (fastamfm score [^\n]+))\n```\n.*?```text\n(.*?)```",
                      readme, re.S)
    assert block, "the README's set-up block and the output it shows"
    return block.group(2).split(), block.group(3)


def test_the_wheel_installs_and_scores_without_a_compiler(tmp_path):
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    wheel = _wheels()[tag][0]
    command, shown = _readme_score_output()
    venv = tmp_path / "venv"
    env = dict(os.environ, CC="false", CXX="false", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    install = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--only-binary=:all:", str(wheel)],
                             env=env, capture_output=True, text=True)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    installed = time.perf_counter() - start
    score = subprocess.run([str(venv / "bin" / command[0]), *command[1:]], cwd=REPO, env=env, capture_output=True,
                           text=True)
    total = time.perf_counter() - start
    assert score.returncode == 0, score.stderr[-2000:]
    assert score.stdout == shown
    print(f"{wheel.name}: fresh venv + install {installed:.1f} s, + the README's score command {total:.1f} s")
