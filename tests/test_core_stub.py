"""The typed map of the compiled core (``python/fastamfm/_core.pyi``) agrees with the built
``fastamfm._core``: the same module names and classes, the same members per class, and for
every function and method the same parameter names (in order) as the bindings declare; and
every ``_core.<name>`` the package uses is in the map. A binding added, renamed or changed
without its stub fails here.

Regenerate the stub after changing a binding (needs ``pip install pybind11-stubgen``):

    python3 tests/test_core_stub.py --write
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import fastamfm
from fastamfm import _core

SOURCE = Path(__file__).resolve().parents[1] / "python" / "fastamfm"
STUB = SOURCE / "_core.pyi"
_SIGNATURE = re.compile(r"^(?:\d+\. )?(\w+)\((.*)\) -> ", re.M)


def _parameters(text: str) -> list:
    """Parameter names of a signature's parameter list (commas inside brackets ignored)."""
    names, depth, current = [], 0, ""
    for char in text + ",":
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            if current.strip():
                names.append(current.strip().split(":")[0].split("=")[0].strip().lstrip("*"))
            current = ""
        else:
            current += char
    return [n for n in names if n not in ("self", "/")]


def _binding_signatures(obj, name: str) -> list:
    """Every overload's parameter names, from the pybind11 docstring."""
    doc = getattr(obj, "__doc__", None) or ""
    return [_parameters(params) for fn, params in _SIGNATURE.findall(doc) if fn == name]


def _public(names) -> set:
    return {n for n in names if not n.startswith("_")}


def _stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def _stub_functions(body) -> dict:
    """{name: [parameter names of each overload]} of the functions in a stub body."""
    out: dict = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            args = node.args
            names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
            if args.vararg:
                names.append(args.vararg.arg)
            out.setdefault(node.name, []).append([n for n in names if n not in ("self", "cls")])
    return out


def _stub_names(body) -> set:
    names = {node.name for node in body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    return names | {node.target.id for node in body if isinstance(node, ast.AnnAssign)
                    and isinstance(node.target, ast.Name)}


def test_the_stub_lists_every_binding_and_no_other():
    assert _stub_names(_stub_tree().body) - {"__all__"} == _public(dir(_core))


def test_functions_take_the_parameters_the_stub_says():
    tree = _stub_tree()
    for name, overloads in _stub_functions(tree.body).items():
        assert sorted(overloads) == sorted(_binding_signatures(getattr(_core, name), name)), name


def test_classes_have_the_members_and_parameters_the_stub_says():
    for node in _stub_tree().body:
        if not isinstance(node, ast.ClassDef) or node.name == "FormatError":
            continue
        cls = getattr(_core, node.name)
        members = {name for name in _stub_names(node.body) if not name.startswith("__") or name == "__init__"}
        # a class bound without a constructor still has pybind11's refusing __init__: no signature
        constructible = bool(_binding_signatures(vars(cls).get("__init__"), "__init__"))
        bound = _public(vars(cls)) | ({"__init__"} if constructible else set())
        assert members == bound, (node.name, members ^ bound)
        for method, overloads in _stub_functions(node.body).items():
            if method.startswith("__") and method != "__init__":
                continue
            if isinstance(vars(cls).get(method), property):
                continue
            expected = _binding_signatures(getattr(cls, method), method)
            assert sorted(overloads) == sorted(expected), f"{node.name}.{method}"


def test_every_core_name_the_package_uses_is_in_the_stub():
    stubbed = _stub_names(_stub_tree().body)
    used = set()
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "_core":
                used.add((node.attr, path.relative_to(SOURCE).as_posix()))
    missing = sorted((name, where) for name, where in used if name not in stubbed)
    assert not missing
    assert len({name for name, _ in used}) > 40      # the check sees the package's uses


def test_the_check_can_fail():
    """A parameter renamed in a binding, or a member the stub does not list, is caught."""
    assert _binding_signatures(_core.cider, "cider") == [["hyps", "model", "sigma", "workers"]]
    assert _parameters("a: int, b: dict[str, int] = {}, *args") == ["a", "b", "args"]
    assert sorted([["hyps", "model"]]) != sorted(_binding_signatures(_core.cider, "cider"))


def _write() -> None:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "-m", "pybind11_stubgen", "fastamfm._core", "-o", out,
                        "--numpy-array-remove-parameters"], check=True)
        generated = (Path(out) / "fastamfm" / "_core.pyi").read_text().split("\n")
    header = STUB.read_text().split('"""')[1]
    body = "\n".join(generated[3:])          # pybind11-stubgen's docstring (the module's m.doc()) replaced
    # a binding's `py::arg(...) = nullptr` is None: pybind11-stubgen types it without "| None",
    # which mypy refuses (no implicit Optional); tests/test_typing.py checks the stub
    body = re.sub(r"(\w+: )([^=(),]+(?:\[[^=]*?\])?)(?<!None) = None\b", r"\1\2 | None = None", body)
    # FormatError's attributes (csrc/convert.cpp): None until the core sets them
    for name, kind in (("column", "int"), ("line", "int"), ("path", "str"), ("record", "int")):
        body = body.replace(f"\n    {name} = None\n", f"\n    {name}: {kind} | None = None\n", 1)
    STUB.write_text(f'"""{header}"""\n{body}')
    print(f"wrote {STUB} from fastamfm._core at {Path(fastamfm.__file__).parent}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        _write()
    else:
        sys.exit("usage: python3 tests/test_core_stub.py --write")
