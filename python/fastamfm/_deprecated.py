"""Old import paths that still work: modules that moved to another home keep answering
under their old name, with a ``DeprecationWarning`` naming the new one.

``import fastamfm`` installs ``MovedModules`` at the end of ``sys.meta_path``: it is asked
only for names no real module has, and hands back the module under its new name (one
module object, so ``isinstance`` and monkeypatching agree across both names).

Before 0.2 a module and a function shared some dotted paths (``fastamfm.metrics.bleu`` was
the function, shadowing its module; ``fastamfm.tokenize`` the function, shadowing the
tokenizer module). Since then the dotted path names one thing: the metric modules keep
their names and answer a call the way the function did (``FunctionModule``), and the
tokenizer module is ``fastamfm.tokenization``, reachable by ``import fastamfm.tokenize``
(``FormerModule``), both with a ``DeprecationWarning``, until 0.3.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
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


# module -> (module, function) that a call of the module's dotted path meant before 0.2
FORMER_FUNCTIONS = {
    **{f"fastamfm.metrics.{name}": (f"fastamfm.metrics.{name}", name) for name in (
        "bleu", "chrf", "cider", "distinct", "meteor", "pairwise", "self_similarity", "sacrebleu", "self_bleu")},
    # ``fastamfm.metrics.rouge`` (ROUGE-L's module) was rouge-score's ``rouge`` function
    "fastamfm.metrics.rouge": ("fastamfm.metrics.rouge_score", "rouge"),
    "fastamfm.amfm.adequacy": ("fastamfm.amfm.adequacy", "adequacy"),
    "fastamfm.amfm.fluency": ("fastamfm.amfm.fluency", "fluency"),
    "fastamfm.training.provenance": ("fastamfm.training.provenance", "provenance"),
}
# dotted path that was a module before 0.2 and is a function's since -> the module's home
FORMER_MODULES = {"fastamfm.tokenize": "fastamfm.tokenization"}
REMOVED_IN = "0.3"


class FunctionModule(types.ModuleType):
    """A metric module that a call still reaches as the function its path named before 0.2."""

    def __call__(self, *args, **kwargs):
        home, function = FORMER_FUNCTIONS[self.__name__]
        warnings.warn(f"calling the module {self.__name__} is calling {home}.{function} as before 0.2, when the "
                      f"module's path was the function's; call {home}.{function} (fastamfm.{function} for a metric; removed in {REMOVED_IN})",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(home), function)(*args, **kwargs)


class FormerModule(types.ModuleType):
    """The module path a function has taken over, still importable: every attribute is the
    module's new home's, with a warning."""

    def __getattr__(self, name: str):
        new = FORMER_MODULES[self.__name__]
        if name.startswith("__"):
            raise AttributeError(name)
        warn_moved(self.__name__, new, stacklevel=3)
        return getattr(importlib.import_module(new), name)


def install_former_paths() -> None:
    """Make the metric modules callable and ``fastamfm.tokenize`` importable as a module
    (see the module docstring); only modules already imported are touched."""
    for name in FORMER_FUNCTIONS:
        module = sys.modules.get(name)
        if module is not None and not isinstance(module, FunctionModule):
            module.__class__ = FunctionModule
    for old in FORMER_MODULES:
        # In sys.modules only, not set on the package: the package's attribute is the function.
        sys.modules.setdefault(old, FormerModule(old))
