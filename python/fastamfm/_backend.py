"""The one place that decides between the CPU and the CUDA backend.

``HAS_CUDA`` is true only when the compiled ``fastamfm._cuda`` module imports *and*
a CUDA device answers. Asking for ``device="cuda"`` without one is an error, never
a silent fallback to the CPU.
"""
from __future__ import annotations

import importlib

_cuda_module = None
_cuda_problem = "fastamfm was built without CUDA (no CUDA toolkit at build time, or FASTAMFM_CUDA=OFF)"

try:
    _candidate = importlib.import_module("fastamfm._cuda")
except ImportError as exc:  # built without CUDA, or the CUDA runtime is missing
    if "No module named" not in str(exc):
        _cuda_problem = f"fastamfm._cuda failed to import: {exc}"
else:
    if _candidate.device_count() > 0:
        _cuda_module = _candidate
    else:
        _cuda_problem = "fastamfm._cuda is built but no CUDA device answered (no GPU or no driver)"

HAS_CUDA: bool = _cuda_module is not None

_DEVICES = ("cpu", "cuda", "auto")


def resolve_device(device: str) -> str:
    """Map a user's ``device=`` to "cpu" or "cuda"; "auto" picks CUDA when present."""
    if device not in _DEVICES:
        raise ValueError(f"device must be one of {_DEVICES}, got {device!r}")
    if device == "auto":
        return "cuda" if HAS_CUDA else "cpu"
    if device == "cuda" and not HAS_CUDA:
        raise RuntimeError(f"device='cuda' requested but CUDA is unavailable: {_cuda_problem}")
    return device


def cuda_module():
    """The loaded ``fastamfm._cuda`` module; raises the reason when unavailable."""
    resolve_device("cuda")
    return _cuda_module


def cuda_unavailable_reason() -> str | None:
    return None if HAS_CUDA else _cuda_problem
