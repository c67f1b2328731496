"""Old import paths that still work: modules that moved to another home keep answering
under their old name, with a ``DeprecationWarning`` naming the new one.

``import fastamfm`` installs ``MovedModules`` at the end of ``sys.meta_path``: it is asked
only for names no real module has, and hands back the module under its new name (one
module object, so ``isinstance`` and monkeypatching agree across both names).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

# old module -> its home since 0.2 (the package-by-concept move: engines in ``neural``,
# on-disk models in ``models``, every trainer and recipe in ``training``).
MOVED = {
    **{f"fastamfm.deep.{name}": f"fastamfm.neural.{name}" for name in (
        "encoder", "neural_lm", "transformers_engine", "llama_cpp_engine", "onnx_backend", "fused_layers",
        "pooling", "tokenization", "hf_tokenizer", "token_trie", "dialogue_format", "bounded_template",
        "gguf_conversion", "batching")},
    "fastamfm.deep.model_files": "fastamfm.models.safe_loading",
    "fastamfm.deep.model_location": "fastamfm.models.location",
    "fastamfm.deep.derived_cache": "fastamfm.models.derived_cache",
    "fastamfm.file_digest": "fastamfm.models.file_digest",
    "fastamfm.training.checksummed_directory": "fastamfm.models.directory",
    "fastamfm.training.manifest": "fastamfm.models.directory",
    "fastamfm.deep.runtime": "fastamfm.runtime",
    "fastamfm._backend": "fastamfm.runtime",
    "fastamfm.cache_dir": "fastamfm.io.cache_dir",
    "fastamfm.checked_file": "fastamfm.io.checked_file",
    "fastamfm.plugins": "fastamfm.registry.plugins",
    "fastamfm.deep.deep_training": "fastamfm.training.deep_amfm",
    "fastamfm.deep.encoder_training": "fastamfm.training.contrastive_task",
    "fastamfm.deep.lm_training": "fastamfm.training.causal_lm_task",
    "fastamfm.deep.fine_tuning": "fastamfm.training.fine_tuning",
    "fastamfm.deep.train_command": "fastamfm.training.command",
    "fastamfm.evaluator.training": "fastamfm.training.evaluator",
    "fastamfm.evaluator.task": "fastamfm.training.evaluator_task",
    "fastamfm.evaluator.negatives": "fastamfm.training.negatives",
    "fastamfm.evaluator.corruption": "fastamfm.training.corruption",
    "fastamfm.evaluator.turn_pool": "fastamfm.training.turn_pool",
    "fastamfm.evaluator.calibration": "fastamfm.training.calibration",
    "fastamfm.evaluator.command": "fastamfm.training.command",
    "fastamfm.learned.storage": "fastamfm.learned.scorer_file",
    "fastamfm.learned.file_checks": "fastamfm.learned.scorer_file",
}


def warn_moved(old: str, new: str, stacklevel: int = 3) -> None:
    warnings.warn(f"{old} moved to {new}; import it from there (the old name will be removed in a later "
                  f"release)", DeprecationWarning, stacklevel=stacklevel)


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        return importlib.import_module(self.new)

    def exec_module(self, module):
        pass   # the module under its new name is already executed


class MovedModules(importlib.abc.MetaPathFinder):
    """Finds a moved module under its old name (see the module docstring)."""

    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        warn_moved(fullname, new, stacklevel=4)
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def install() -> None:
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
