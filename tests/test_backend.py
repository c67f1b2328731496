"""One module decides the backend; asking for CUDA without a device is a clear error."""
from __future__ import annotations

import pytest

import fastamfm
from fastamfm import _backend


def test_resolve_device():
    assert _backend.resolve_device("cpu") == "cpu"
    assert _backend.resolve_device("auto") == ("cuda" if fastamfm.HAS_CUDA else "cpu")
    with pytest.raises(ValueError, match="device must be one of"):
        _backend.resolve_device("tpu")


@pytest.mark.skipif(fastamfm.HAS_CUDA, reason="a CUDA device is present")
def test_cuda_without_device_is_a_clear_error():
    with pytest.raises(RuntimeError, match="device='cuda' requested but CUDA is unavailable"):
        _backend.resolve_device("cuda")
    assert _backend.cuda_unavailable_reason()


@pytest.mark.gpu
@pytest.mark.skipif(not fastamfm.HAS_CUDA, reason="needs a CUDA device")
def test_cuda_device_answers():
    mod = _backend.cuda_module()
    assert mod.device_count() >= 1
    assert "sm_" in mod.device_description(0)


def test_version_and_exports():
    assert fastamfm.__version__
    assert issubclass(fastamfm.FormatError, ValueError)
