"""The torch side of the neural metrics: importing it with a clear error, choosing the
device, and thread settings. The one place the ``deep`` modules get torch from."""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager

INSTALL_HINT = 'pip install "fastamfm[deep]"  (CPU-only torch: pip install torch==2.13.0 first)'
DEVICES = ("cpu", "cuda", "auto")


def import_torch():
    """``torch``, or an ImportError naming the extra to install."""
    try:
        import torch
    except ImportError:
        raise ImportError(f"the neural metrics need PyTorch and transformers: {INSTALL_HINT}") from None
    return torch


def import_transformers():
    """``transformers``, or an ImportError naming the extra to install."""
    import_torch()
    try:
        import transformers
    except ImportError:
        raise ImportError(f"the neural metrics need the transformers package: {INSTALL_HINT}") from None
    # Never reach for the network: models come from local directories or installed packages.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    return transformers


def missing_reason() -> str | None:
    """Why the neural metrics cannot run here (for ``Metric.missing``), or None."""
    try:
        import_transformers()
    except ImportError as exc:
        return str(exc)
    return None


def resolve_torch_device(device: str) -> str:
    """``device=`` -> "cpu" or "cuda"; "auto" takes CUDA when torch sees a GPU. Asking for
    "cuda" without one is an error, never a silent fallback to the CPU."""
    if device not in DEVICES and not (isinstance(device, str) and device.startswith("cuda:")):
        raise ValueError(f"device must be one of {DEVICES} (or 'cuda:N'), got {device!r}")
    torch = import_torch()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError(f"device={device!r} requested but torch sees no CUDA device "
                           f"(torch {torch.__version__}, built for CUDA: {torch.version.cuda})")
    return device


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_THREADS_LOCK = threading.Lock()


@contextmanager
def torch_threads(count: int):
    """Run a block with torch's intra-op thread count set to ``count``, then restore it.
    The count is process-wide, so concurrent blocks take turns (a lock) instead of
    resetting each other's setting."""
    torch = import_torch()
    with _THREADS_LOCK:
        before = torch.get_num_threads()
        if count != before:
            torch.set_num_threads(count)
        try:
            yield
        finally:
            if count != before:
                torch.set_num_threads(before)
