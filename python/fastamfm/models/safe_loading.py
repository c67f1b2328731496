"""Reading a model directory without trusting it: nothing in it runs, and a bad file is a
``fastamfm.FormatError`` naming the file (or directory) and the cause.

- Remote code: a ``config.json`` or ``tokenizer_config.json`` with an ``auto_map`` asks
  ``transformers`` to import the directory's own Python files. fastamfm refuses such a
  directory before ``transformers`` sees it (which, when not told ``trust_remote_code``,
  would ask "[y/N]" on a terminal: a hang in a batch job), and passes
  ``trust_remote_code=False`` to every loader anyway.
- Pickled weights (``pytorch_model.bin``, ``*.pt``, ``*.pth``, ``*.ckpt``) are refused:
  weights are read from safetensors only (``use_safetensors=True``).
- Everything else a loader raises about the files (``SafetensorError``, ``OSError``,
  ``UnicodeDecodeError``, JSON errors, a bare ``Exception`` from the Rust tokenizer) is
  a ``FormatError`` with the path and the original error as its cause.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import FormatError, format_error

# The files through which transformers can be asked to import a directory's own code.
_CODE_CONFIGS = ("config.json", "tokenizer_config.json", "processor_config.json", "preprocessor_config.json")
_PICKLED_WEIGHTS = ("*.bin", "*.pt", "*.pth", "*.ckpt", "*.pkl", "*.pickle")
_CODE_KEYS = ("auto_map", "custom_pipelines")


def read_json_object(path: Path) -> dict:
    """A JSON object from ``path`` ({} when the file does not exist)."""
    if not path.is_file():
        return {}
    try:
        value = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise format_error(path, f"unreadable JSON ({type(exc).__name__}: {exc})") from exc
    if not isinstance(value, dict):
        raise format_error(path, f"expected a JSON object, got {type(value).__name__}")
    return value


def refuse_remote_code(directory: Path) -> None:
    """A ``FormatError`` naming the file when the directory asks to run its own code."""
    for name in _CODE_CONFIGS:
        config = read_json_object(directory / name)
        for key in _CODE_KEYS:
            if key in config:
                raise format_error(directory / name, f"the model asks to run Python code from its directory "
                                   f"({key}: {json.dumps(config[key])[:200]}); fastamfm never runs code from a "
                                   f"model directory (trust_remote_code=False): use a model that transformers "
                                   f"supports natively")


def refuse_pickled_weights(directory: Path) -> None:
    """A ``FormatError`` when the directory's weights are pickles rather than safetensors."""
    if any(directory.glob("*.safetensors")):
        return
    pickled = sorted(p.name for pattern in _PICKLED_WEIGHTS for p in directory.glob(pattern))
    if pickled:
        raise format_error(directory / pickled[0], "pickled weights; fastamfm reads safetensors weights only "
                           "(unpickling can run code). Convert them where you trust the file, e.g. "
                           "transformers' model.save_pretrained(DIR, safe_serialization=True)")


def checked_directory(directory: Path, *, weights: bool) -> Path:
    """``directory`` after the checks above (``weights``: it must hold safetensors weights)."""
    directory = Path(directory)
    refuse_remote_code(directory)
    if weights:
        refuse_pickled_weights(directory)
    return directory


def from_pretrained(loader, directory: Path, what: str, *, weights: bool, **options):
    """``loader.from_pretrained(directory, **options)`` (a transformers Auto class) with
    no remote code and no pickled weights; any error about the files becomes a
    ``FormatError`` naming ``directory``."""
    directory = checked_directory(directory, weights=weights)
    if weights:
        options["use_safetensors"] = True
    # local_files_only=True: a local directory, never the Hub, passed to the call rather than
    # set as HF_HUB_OFFLINE in os.environ (that would leak into child processes, and
    # huggingface_hub reads it only at its own import). fastamfm never writes os.environ.
    return load_or_format_error(lambda: loader.from_pretrained(str(directory), trust_remote_code=False,
                                                               local_files_only=True, **options),
                                directory, what)


def load_or_format_error(load, path: Path, what: str):
    """``load()``, with what it raises about the files at ``path`` as a ``FormatError``
    (missing dependencies, memory and interrupts stay what they are)."""
    from ..runtime import quiet_transformers

    try:
        with quiet_transformers():
            return load()
    except (FormatError, ImportError, MemoryError):
        raise
    except Exception as exc:  # SafetensorError, OSError, struct.error, UnicodeDecodeError, tokenizers' Exception...
        raise format_error(path, f"cannot load the {what}: {type(exc).__name__}: {exc}") from exc


def refuse_non_finite(values, path: Path, what: str) -> None:
    """A ``FormatError`` naming the model at ``path`` when ``values`` (a torch tensor or an
    ndarray of what the model computed) holds NaN or infinity: damaged weights must not
    become a score."""
    import numpy as np

    if isinstance(values, np.ndarray):
        finite = bool(np.isfinite(values).all())
    else:
        from ..runtime import import_torch

        finite = bool(import_torch().isfinite(values).all())
    if not finite:
        raise format_error(path, f"the model gives non-finite {what} (NaN or infinity): its weights are damaged")


def refuse_non_finite_weights(model, path: Path) -> None:
    """A ``FormatError`` naming the model at ``path`` and the first tensor of ``model`` (a
    torch module) that holds NaN or infinity. Checked at load, not only on outputs: some
    attention kernels turn a NaN score row into zeros (torch's CPU scaled-dot-product
    attention does), so damaged weights can give finite, wrong numbers."""
    from ..runtime import import_torch

    torch = import_torch()
    with torch.inference_mode():
        for name, tensor in model.state_dict().items():
            if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
                raise format_error(path, f"the model's weights hold NaN or infinity ({name}): its weights are damaged")
