"""What this process can run on: the one device rule, the CUDA module of fastamfm's own
kernels, the optional torch stack, and threads.

Devices: every ``device=`` of the package follows one rule (``parse_device``):
``"cpu"``, ``"cuda"`` (the first GPU), ``"cuda:N"`` (GPU N) or ``"auto"`` (a GPU when
one answers, else the CPU). Asking for a GPU that is not there is an error naming why,
never a silent fallback to the CPU. Two backends read it:

- fastamfm's CUDA kernels (``resolve_device``, ``cuda_module``): ``HAS_CUDA`` is true
  only when the compiled ``fastamfm._cuda`` module imports *and* a CUDA device answers.
  Nothing touches CUDA at import: the module is imported and the devices counted on the
  first call that needs to know (``has_cuda()``, reading ``HAS_CUDA``, a ``device=`` other
  than "cpu"), so ``import fastamfm`` then ``fork`` stays safe;
- torch (``resolve_torch_device``), for the neural metrics and training: a GPU is there
  when torch sees one.

The optional torch stack (the ``deep`` extra) is imported through ``import_torch`` /
``import_transformers``: a missing extra is an ImportError that says what to install,
and nothing ever reaches for the network (models come from local directories or
installed packages, loaded with ``local_files_only=True``). fastamfm never writes
``os.environ``: settings are passed to the call that needs them, never left for child
processes to inherit (and torch's own import-time write is taken back, see
``_import_dynamo_keeping_the_environment``).
"""
from __future__ import annotations

import importlib
import os
import re
import sys
import threading
from contextlib import contextmanager

INSTALL_HINT = ('pip install ".[deep]" in the fastamfm checkout (on a machine without a GPU, install the CPU '
                'build of torch first: pip install torch --index-url https://download.pytorch.org/whl/cpu)')
DEVICE_RULE = "'cpu', 'cuda', 'cuda:N' or 'auto'"
_CUDA_INDEX = re.compile(r"cuda:(\d+)")


def parse_device(device) -> tuple:
    """``device`` -> (kind, index): ("cpu", None), ("auto", None), ("cuda", None) or ("cuda", N);
    anything else is a ValueError stating the rule."""
    if device in ("cpu", "cuda", "auto"):
        return device, None
    match = _CUDA_INDEX.fullmatch(device) if isinstance(device, str) else None
    if match is None:
        raise ValueError(f"device must be {DEVICE_RULE}, got {device!r}")
    return "cuda", int(match[1])


# --- fastamfm's own CUDA kernels -------------------------------------------------------

_CUDA_LOCK = threading.Lock()
_cuda_probe: tuple | None = None   # (module or None, why not), once probed


def _probe_cuda() -> tuple:
    """(``fastamfm._cuda`` or None, the reason it is unavailable), imported and queried once,
    on first use: at import time it would initialise the CUDA driver in every process that
    imports fastamfm, and a CUDA context does not survive ``fork`` (fork-based workers)."""
    global _cuda_probe
    if _cuda_probe is not None:
        return _cuda_probe
    with _CUDA_LOCK:
        if _cuda_probe is None:
            module = None
            problem: str | None = "fastamfm was built without CUDA (no CUDA toolkit at build time, or FASTAMFM_CUDA=OFF)"
            try:
                candidate = importlib.import_module("fastamfm._cuda")
            except ImportError as exc:  # built without CUDA, or the CUDA runtime is missing
                if "No module named" not in str(exc):
                    problem = f"fastamfm._cuda failed to import: {exc}"
            else:
                if candidate.device_count() > 0:
                    module, problem = candidate, None
                else:
                    problem = "fastamfm._cuda is built but no CUDA device answered (no GPU or no driver)"
            _cuda_probe = (module, problem)
    return _cuda_probe


def has_cuda() -> bool:
    """Whether fastamfm's CUDA kernels can run here (probes CUDA on the first call)."""
    return _probe_cuda()[0] is not None


def cuda_probed() -> bool:
    """Whether this process has imported ``fastamfm._cuda`` and asked it for devices yet."""
    return _cuda_probe is not None


def __getattr__(name: str):
    # ``runtime.HAS_CUDA`` (and ``fastamfm.HAS_CUDA``) stay readable, computed on first read.
    if name == "HAS_CUDA":
        return has_cuda()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolve_device(device: str) -> str:
    """A user's ``device=`` for fastamfm's CUDA kernels -> ``"cpu"``, ``"cuda"`` (GPU 0) or
    ``"cuda:N"``; "auto" picks the GPU when ``HAS_CUDA``. "cpu" never touches CUDA.

    Parameters
    ----------
    device : str
        "cpu", "cuda", "cuda:N" or "auto".

    Returns
    -------
    str
        "cpu", "cuda" (for "cuda" and "cuda:0") or "cuda:N".

    Raises
    ------
    ValueError
        Anything else than those four forms.
    RuntimeError
        A CUDA device asked for where CUDA is unavailable (the message says why), or an
        index beyond the devices that answer.

    Examples
    --------
    >>> import fastamfm
    >>> fastamfm.resolve_device("cpu")
    'cpu'
    >>> fastamfm.resolve_device("gpu")
    Traceback (most recent call last):
        ...
    ValueError: device must be 'cpu', 'cuda', 'cuda:N' or 'auto', got 'gpu'
    """
    kind, index = parse_device(device)
    if kind == "cpu":
        return "cpu"
    module, problem = _probe_cuda()
    if kind == "auto":
        return "cuda" if module is not None else "cpu"
    if module is None:
        raise RuntimeError(f"device={device!r} requested but CUDA is unavailable: {problem}")
    count = module.device_count()
    if index is not None and index >= count:
        raise RuntimeError(f"device={device!r} requested but only {count} CUDA device(s) answer")
    return "cuda" if not index else f"cuda:{index}"


def is_cuda(device: str) -> bool:
    """Whether a resolved device names a GPU."""
    return device.startswith("cuda")


def cuda_module(device: str | None = None):
    """The loaded ``fastamfm._cuda`` module; raises the reason when unavailable. With a
    ``device`` ("cuda", "cuda:N"), that GPU is made current in this thread first (kernels
    then run there); without one, the thread's current GPU stays."""
    resolved = resolve_device("cuda" if device is None else device)
    module = _probe_cuda()[0]
    if device is not None:
        if not is_cuda(resolved):
            raise ValueError(f"cuda_module: {device!r} is not a CUDA device")
        module.set_device(parse_device(resolved)[1] or 0)
    return module


def cuda_unavailable_reason() -> str | None:
    return _probe_cuda()[1]


# --- the optional torch stack -------------------------------------------------------------

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
    # No HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE here: writing them into os.environ would leak
    # into every child process, and huggingface_hub reads them once, at its own import, so
    # they do nothing once it is loaded. Every load passes local_files_only=True instead
    # (models.safe_loading.from_pretrained).
    return transformers


def _import_dynamo_keeping_the_environment() -> None:
    """Import ``torch._dynamo`` once, taking back the environment write of its import.

    transformers' model modules import ``torch._dynamo``, whose import asks torch for its
    inductor cache directory (``torch._inductor.runtime.cache_dir_utils.cache_dir``), and
    that call stores the default it computes in ``os.environ["TORCHINDUCTOR_CACHE_DIR"]``,
    to be inherited by every child process. torch has no config setting for that directory
    (``torch._inductor.config`` has none), so the variable is removed again when it was not
    set before: torch recomputes the same default (``/tmp/torchinductor_<user>``) on each
    call, so nothing in this process or its children changes, and fastamfm compiles nothing.
    A user's own ``TORCHINDUCTOR_CACHE_DIR`` stays as it was."""
    if "torch._dynamo" in sys.modules:
        return
    name = "TORCHINDUCTOR_CACHE_DIR"
    had = name in os.environ
    try:
        importlib.import_module("torch._dynamo")
    except Exception:  # a broken torch shows itself where the model is built
        pass
    finally:
        if not had:
            os.environ.pop(name, None)


_QUIET_LOCK = threading.Lock()
_quiet = {"depth": 0, "restore": None}


@contextmanager
def quiet_transformers():
    """Load a model without transformers' own output: its progress bars ("Loading weights",
    the GGUF "Converting and de-quantizing" bar) and its info/warning log lines are off inside
    the block (fastamfm says in one log line what it loads), then as they were. Nested and
    concurrent blocks share one switch."""
    transformers = import_transformers()
    logging_utils = transformers.utils.logging
    with _QUIET_LOCK:
        if _quiet["depth"] == 0:
            _import_dynamo_keeping_the_environment()    # every fastamfm model load passes here
            bars, verbosity = logging_utils.is_progress_bar_enabled(), logging_utils.get_verbosity()
            logging_utils.disable_progress_bar()
            logging_utils.set_verbosity_error()
            # The GGUF reader draws its bar with tqdm itself, not through transformers' switch.
            try:
                gguf = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
            except ImportError:
                gguf = None
            gguf_bar = getattr(gguf, "tqdm", None)
            if gguf_bar is not None:
                gguf.tqdm = lambda iterable=None, *args, **kwargs: iterable

            def restore():
                if gguf_bar is not None:
                    gguf.tqdm = gguf_bar
                logging_utils.set_verbosity(verbosity)
                if bars:
                    logging_utils.enable_progress_bar()

            _quiet["restore"] = restore
        _quiet["depth"] += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _quiet["depth"] -= 1
            if _quiet["depth"] == 0:
                _quiet["restore"]()
                _quiet["restore"] = None


def missing_reason() -> str | None:
    """Why the neural metrics cannot run here (for ``Metric.missing``), or None."""
    try:
        import_transformers()
    except ImportError as exc:
        return str(exc)
    return None


def resolve_torch_device(device: str) -> str:
    """A user's ``device=`` for torch -> "cpu", "cuda" or "cuda:N"; "auto" takes the GPU
    when torch sees one."""
    kind, index = parse_device(device)
    torch = import_torch()
    if kind == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if kind == "cpu":
        return "cpu"
    if not torch.cuda.is_available():
        raise RuntimeError(f"device={device!r} requested but torch sees no CUDA device "
                           f"(torch {torch.__version__}, built for CUDA: {torch.version.cuda})")
    if index is not None and index >= torch.cuda.device_count():
        raise RuntimeError(f"device={device!r} requested but torch sees {torch.cuda.device_count()} CUDA device(s)")
    return device


# --- threads ----------------------------------------------------------------------------

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
