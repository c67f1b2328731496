"""One module decides what runs where: one device rule for fastamfm's CUDA kernels and for
torch, and asking for a GPU that is not there is a clear error."""
from __future__ import annotations

import fastamfm
import pytest
from fastamfm import runtime

RULE = r"device must be 'cpu', 'cuda', 'cuda:N' or 'auto'"


def test_the_device_rule_accepts_cuda_n_and_refuses_the_rest():
    assert runtime.parse_device("cpu") == ("cpu", None)
    assert runtime.parse_device("auto") == ("auto", None)
    assert runtime.parse_device("cuda") == ("cuda", None)
    assert runtime.parse_device("cuda:3") == ("cuda", 3)
    for bad in ("tpu", "cuda:", "cuda:-1", "cuda:x", "CUDA", "", None, 0):
        with pytest.raises(ValueError, match=RULE):
            runtime.parse_device(bad)


def test_resolve_device():
    assert runtime.resolve_device("cpu") == "cpu"
    assert runtime.resolve_device("auto") == ("cuda" if fastamfm.HAS_CUDA else "cpu")
    with pytest.raises(ValueError, match=RULE):
        runtime.resolve_device("tpu")


def test_kernels_and_torch_read_the_same_rule():
    pytest.importorskip("torch")
    for bad in ("tpu", "gpu", "cuda:a"):
        with pytest.raises(ValueError, match=RULE):
            runtime.resolve_device(bad)
        with pytest.raises(ValueError, match=RULE):
            runtime.resolve_torch_device(bad)
    assert runtime.resolve_torch_device("cpu") == "cpu"


@pytest.mark.skipif(fastamfm.HAS_CUDA, reason="a CUDA device is present")
def test_cuda_without_device_is_a_clear_error():
    for device in ("cuda", "cuda:1"):
        with pytest.raises(RuntimeError, match=f"device='{device}' requested but CUDA is unavailable"):
            runtime.resolve_device(device)
    assert runtime.cuda_unavailable_reason()


def test_a_metric_refuses_a_gpu_it_cannot_have():
    """The rule reaches the metrics: ``cuda:N`` is a device name, a missing GPU an error."""
    if fastamfm.HAS_CUDA:
        pytest.skip("a CUDA device is present")
    model = fastamfm.AMFM.default()
    with pytest.raises(RuntimeError, match="cuda:1"):
        fastamfm.adequacy(["a b"], [["a b"]], model.lsi, device="cuda:1")


@pytest.mark.gpu
@pytest.mark.skipif(not fastamfm.HAS_CUDA, reason="needs a CUDA device")
def test_cuda_device_answers():
    mod = runtime.cuda_module("cuda:0")
    assert mod.device_count() >= 1
    assert "sm_" in mod.device_description(0)
    with pytest.raises(RuntimeError, match="only"):
        runtime.resolve_device(f"cuda:{mod.device_count()}")


def test_version_and_exports():
    assert fastamfm.__version__
    assert issubclass(fastamfm.FormatError, ValueError)
