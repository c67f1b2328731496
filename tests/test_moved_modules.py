"""Modules that moved homes (the package-by-concept move) still import under their old
names, as the same module object, with a DeprecationWarning naming the new home; names
that moved out of a package answer there with a warning too. No user code breaks."""
from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import fastamfm
import pytest
from fastamfm import _deprecated

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]


@pytest.mark.parametrize("old, new", sorted(_deprecated.MOVED.items()))
def test_an_old_module_path_is_the_new_module_with_a_warning(old, new):
    # a fresh interpreter: an old name imported once stays in sys.modules (warned only the first time)
    code = (f"import warnings, importlib\n"
            f"warnings.simplefilter('error', DeprecationWarning)\n"
            f"new = importlib.import_module({new!r})\n"
            f"try:\n    importlib.import_module({old!r})\nexcept DeprecationWarning as w:\n    print(w)\n"
            f"warnings.simplefilter('ignore', DeprecationWarning)\n"
            f"print(importlib.import_module({old!r}) is new)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(PYTHON_DIR), "PATH": ""}).stdout.splitlines()
    assert out[0] == f"{old} moved to {new}; import it from there (the old name will be removed in a later release)"
    assert out[1] == "True"


def test_every_new_home_exists():
    for new in set(_deprecated.MOVED.values()):
        importlib.import_module(new)


def test_no_old_name_shadows_a_real_module():
    """The finder only answers names no module has: a real module of an old name would be
    ambiguous."""
    for old in _deprecated.MOVED:
        parent, _, leaf = old.rpartition(".")
        spec = importlib.util.find_spec(parent)
        assert not (Path(spec.origin).parent / f"{leaf}.py").exists(), old


def test_names_that_left_the_evaluator_package_answer_with_a_warning():
    import fastamfm.evaluator
    from fastamfm.training.negatives import NEGATIVE_KINDS

    with pytest.warns(DeprecationWarning, match="fastamfm.evaluator.NEGATIVE_KINDS moved to "
                                                "fastamfm.training.negatives.NEGATIVE_KINDS"):
        assert fastamfm.evaluator.NEGATIVE_KINDS == NEGATIVE_KINDS
    with pytest.raises(AttributeError):
        fastamfm.evaluator.no_such_name  # noqa: B018
