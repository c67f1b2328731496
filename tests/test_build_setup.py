"""The set-up (issue 37): the README's two install commands share one build, the CUDA module is
compiled only where a GPU build is plausible (or when asked), and the CUDA sources still
compile wherever nvcc is: here, GPU or not."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python >= 3.11")

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def _cmake() -> str:
    cmake = shutil.which("cmake")
    if cmake is None or shutil.which("ninja") is None:
        pytest.skip("cmake and ninja are needed (pip install cmake ninja)")
    return cmake


def _pybind11_dir() -> str:
    pybind11 = pytest.importorskip("pybind11", reason="pybind11 is needed to configure the build")
    return pybind11.get_cmake_dir()


def _configure(build: Path, *options: str) -> str:
    proc = subprocess.run([_cmake(), "-S", str(REPO), "-B", str(build), "-G", "Ninja",
                           f"-Dpybind11_DIR={_pybind11_dir()}", f"-DPython_EXECUTABLE={sys.executable}",
                           f"-DFASTAMFM_MODULE_DIR={build / 'modules'}", *options],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


def test_the_readme_installs_share_one_build_folder():
    """pip's isolated builds get new paths each time, and scikit-build-core then clears the
    CMake cache and CMakeFiles/ (every object file): the README installs without isolation,
    with the build tools installed first, into one persistent build folder."""
    settings = PYPROJECT["tool"]["scikit-build"]
    assert settings["build-dir"] == "build/{wheel_tag}"
    readme = (REPO / "README.md").read_text()
    setup = re.search(r"python3 -m pip install ([\w .-]+?) && python3 -m pip install --no-build-isolation \. &&",
                      readme)
    assert setup, "the README's set-up command installs the build tools, then builds without isolation"
    tools = set(setup.group(1).split())
    required = {re.split(r"[<>=!~ ]", r)[0] for r in PYPROJECT["build-system"]["requires"]}
    assert required <= tools and {"cmake", "ninja"} <= tools
    assert 'FASTAMFM_TEST_HOOKS=ON python3 -m pip install --no-build-isolation ".[test]"' in readme
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert "fastamfm[test-core]" in extras["test"]  # the test extra is test-core and the neural stack
    assert any(r.startswith("pytest-xdist") for r in extras["test-core"])


def test_cuda_module_needs_a_driver_unless_asked(tmp_path):
    """FASTAMFM_CUDA=AUTO without an NVIDIA driver: the CPU module only, whatever toolkit is
    installed; OFF: never."""
    out = _configure(tmp_path / "auto", "-DFASTAMFM_CUDA=AUTO",
                     f"-DFASTAMFM_NVIDIA_DRIVER_FILES={tmp_path / 'no-such-driver'}")
    assert "fastamfm: no NVIDIA driver found, building the CPU module only" in out
    assert "building the CUDA module" not in out
    out = _configure(tmp_path / "off", "-DFASTAMFM_CUDA=OFF")
    assert "CUDA" not in out.replace("FASTAMFM_CUDA", "")


@pytest.mark.slow
def test_cuda_sources_compile_with_nvcc(tmp_path):
    """Wherever nvcc is on PATH (GPU or not), the CUDA kernels and the _cuda bindings compile
    (one architecture, objects only: linking needs the whole core, which the other builds
    cover). The CUDA module itself is built and run on a GPU machine (FASTAMFM_CUDA=ON)."""
    if shutil.which("nvcc") is None:
        pytest.skip("no nvcc on PATH: the CUDA sources are compiled where the toolkit is")
    driver = tmp_path / "driver"
    driver.write_text("a stand-in for /proc/driver/nvidia/version\n")
    build = tmp_path / "cuda"
    out = _configure(build, "-DFASTAMFM_CUDA=AUTO", f"-DFASTAMFM_NVIDIA_DRIVER_FILES={driver}",
                     "-DCMAKE_CUDA_ARCHITECTURES=80-real", "-DFASTAMFM_PCH=OFF")
    assert "fastamfm: building the CUDA module for architectures 80-real" in out
    targets = subprocess.run(["ninja", "-C", str(build), "-t", "targets", "all"], capture_output=True, text=True,
                             check=True).stdout
    objects = sorted({line.split(":")[0] for line in targets.splitlines()
                      if line.split(":")[0].endswith(".o") and ("fastamfm_cuda_kernels.dir" in line or
                                                                 "_cuda.dir" in line)})
    sources = sorted(p.name for p in (REPO / "csrc" / "cuda").iterdir() if p.suffix in (".cu", ".cpp"))
    assert len(objects) == len(sources), (objects, sources)
    proc = subprocess.run(["ninja", "-C", str(build), f"-j{max(1, min(2, os.cpu_count() or 1))}", *objects],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert all((build / o).is_file() for o in objects)


def test_the_classifiers_name_the_pythons_ci_tests():
    """requires-python and the classifiers say what is tested: the main job's Python and
    those .ci/pythons tests from their wheels (the suite on the oldest and newest, an install
    with no compiler and a score between), and .ci/wheel builds a wheel for each."""
    classifiers = PYPROJECT["project"]["classifiers"]
    named = sorted((int(c.rsplit(".", 1)[1]) for c in classifiers
                    if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)))
    matrix = [v for loop in re.findall(r"for minor in ([\d. ]+); do", (REPO / ".ci" / "pythons").read_text())
              for v in loop.split()]
    wheels = re.search(r"for minor in ([\d. ]+); do", (REPO / ".ci" / "wheel").read_text()).group(1).split()
    tested = sorted(int(v.split(".")[1]) for v in {*matrix, "3.11"})
    assert named == tested == sorted(int(v.split(".")[1]) for v in wheels)
    assert PYPROJECT["project"]["requires-python"] == f">=3.{tested[0]}"
