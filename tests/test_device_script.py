"""The prepared GPU run (benchmarks/device/run_all.py) dry-run on this CPU machine: the
same stages and code paths at tiny sizes, the JSON it writes, resuming, the crash
instrumentation of the LM stage, and the figures' "unavailable: reason" without a device.

It runs against this checkout's developer build (python/fastamfm) where one imports, else
against the installed fastamfm (CI installs the checkout with pip)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "device" / "run_all.py"
FAST = "probe,build,lm_tests,gpu_tests,bandwidth,embedding,amfm,reference_index"
NEURAL = "probe,build,neural,reward,training"
OK = {"ok", "unavailable"}


def _build_mode() -> str:
    probe = subprocess.run([sys.executable, "-c", "import fastamfm._core"], cwd=REPO / "python",
                           capture_output=True)
    return "none" if probe.returncode == 0 else "installed"


def run_all(out: Path, *args, env=None) -> tuple[int, dict, str]:
    command = [sys.executable, str(SCRIPT), "--out", str(out), "--build", _build_mode(), "--size", "tiny", *args]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, **(env or {})))
    results = out / "device_results.json"
    return done.returncode, json.loads(results.read_text()) if results.is_file() else {}, done.stdout + done.stderr


def _check_section(name: str, record: dict) -> None:
    assert record["status"] in OK, (name, record)
    if record["status"] == "unavailable":
        assert record["reason"], name
        return
    assert record["size"] == "tiny" and record["device"] and record["seconds"] > 0, name
    assert isinstance(record["figures"], dict) and record["figures"], name
    for key, value in record["figures"].items():
        if isinstance(value, str) and value.startswith("unavailable"):
            assert value.startswith("unavailable: ") and len(value) > len("unavailable: "), (name, key)


def test_dry_run_writes_every_stage_and_resumes(tmp_path):
    if subprocess.run([sys.executable, "-c", "import fastamfm"], cwd=tmp_path, capture_output=True).returncode and \
            _build_mode() == "installed":
        pytest.skip("fastamfm is neither built in python/ nor installed")
    code, data, output = run_all(tmp_path, "--only", FAST)
    assert code == 0, output[-4000:]
    stages = data["stages"]
    assert list(stages) == FAST.split(","), output[-2000:]
    assert data["machine"]["python"] == sys.version.split()[0] and "packages" in data["machine"]
    build = stages["build"]
    assert build["status"] == "ok" and build["imports"] and build["has_cuda"] is False and build["reason"]
    lm = stages["lm_tests"]
    assert lm["status"] == "ok" and lm["passed"] >= 1 and lm["failed"] == 0, lm
    assert "0 failures" in lm["crash_hunt_summary"] and lm["native_backtrace"]
    gpu = stages["gpu_tests"]
    # no device here: every CUDA test skips with its reason (on a GPU machine that is a failure)
    assert gpu["status"] == "ok" and gpu["skipped"] > 0 and gpu["failed"] == 0 and gpu["skip_reasons"], gpu
    for name in ("bandwidth", "embedding", "amfm", "reference_index"):
        _check_section(name, stages[name])
    assert stages["bandwidth"]["figures"]["cosine_max_dims_10"]["cpu_core_seconds"] > 0
    assert stages["bandwidth"]["figures"]["peak_copy_bytes_per_s"].startswith("unavailable: ")
    assert stages["amfm"]["figures"]["max_abs_diff_vs_AMFM_score"] < 1e-6
    assert (tmp_path / "device_run.log").stat().st_size > 0

    # resumed: what is recorded is not measured again (the probe and the build are re-checked)
    before = {name: stages[name]["seconds"] for name in stages}
    code, again, output = run_all(tmp_path, "--only", FAST, "--redo", "amfm")
    assert code == 0, output[-4000:]
    for name in ("lm_tests", "gpu_tests", "bandwidth", "embedding", "reference_index"):
        assert again["stages"][name]["seconds"] == before[name], name
        assert f"{name}: ok (recorded" in output
    assert again["stages"]["amfm"]["attempts"] == 2 and len(again["calls"]) == 2

    # a stage a killed run left started is retried once, then abandoned
    again["stages"]["embedding"] = {"status": "started", "attempts": 2}
    (tmp_path / "device_results.json").write_text(json.dumps(again))
    code, third, output = run_all(tmp_path, "--only", "embedding")
    assert third["stages"]["embedding"]["status"] == "abandoned" and code == 1, output[-2000:]


def test_a_crash_in_the_lm_stage_is_recorded_with_its_backtraces(tmp_path):
    code, data, output = run_all(tmp_path, "--only", "probe,build,lm_tests",
                                 env={"FASTAMFM_DEVICE_SELFTEST_CRASH": "1"})
    assert code == 1, output[-3000:]
    lm = data["stages"]["lm_tests"]
    assert lm["status"] == "crashed", lm
    crash = lm["crash"]
    assert "lm_crash_hunt" in crash["command"] and crash["returncode"] != 0
    tail = crash["output_tail"]
    assert "Fatal Python error: Segmentation fault" in tail  # faulthandler: the Python frames
    assert "native backtrace (segv_backtrace)" in tail and "_core" in tail  # the native frames, the module map
    assert crash["debugger"]  # gdb's backtrace here; "unavailable: ..." on a machine without one
    assert "CRASH in lm_tests" in output


@pytest.mark.slow
def test_dry_run_of_the_neural_sections(tmp_path):
    """The sections that import torch (about a minute on two cores: one process for all three)."""
    pytest.importorskip("torch")
    code, data, output = run_all(tmp_path, "--only", NEURAL)
    assert code == 0, output[-4000:]
    for name in ("neural", "reward", "training"):
        _check_section(name, data["stages"][name])
    neural = data["stages"]["neural"]["figures"]
    if isinstance(neural.get("bertscore", {}).get("max_abs_diff_f1"), float):
        assert neural["bertscore"]["max_abs_diff_f1"] < 1e-4
    if isinstance(neural.get("deep_am", {}).get("max_abs_diff"), float):
        assert neural["deep_am"]["max_abs_diff"] < 1e-5
    assert neural["neural_lm"]["max_abs_diff_ln_p"] < 1e-4
    training = data["stages"]["training"]["figures"]
    assert training["fastamfm_encoder"]["tokens_per_s"] > 0 and training["fastamfm_evaluator"]["examples_per_s"] > 0
