"""The package's import graph: no import circle (every import statement counted, those
inside functions too), none between folders either (a folder -- ``training/``, ``deep/``...
-- is one room: its modules' imports are its imports), the training machinery above the
models it trains, the registry importing no metric module, and ``import fastamfm``
importing neither torch nor any plugin machinery.

The same check from the command line, for anyone changing imports:

    python3 tests/test_import_graph.py        # prints each circle, exits 1 if there is one
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "fastamfm"


def _extension_modules() -> list:
    """The compiled modules the build puts in the package, named by csrc's PYBIND11_MODULE
    lines: a checkout that was installed rather than built in place has no .so beside the
    sources, and ``from . import _core`` must still count as an edge to ``_core``, not to the package."""
    names = set()
    for path in (ROOT / "csrc").rglob("*.cpp"):
        names.update(re.findall(r"PYBIND11_MODULE\(\s*(\w+)", path.read_text()))
    return sorted(names)


def _module_names(root: Path) -> dict:
    """{dotted module name: (path or None for an extension module, is a package)}"""
    modules = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    for name in _extension_modules():
        modules[f"{root.name}.{name}"] = (None, False)
    return modules


def import_graph(root: Path = PACKAGE) -> dict:
    """{module: {modules of the package it imports}}, from every import statement in the
    module (``from . import x`` counts x when x is a module, else the package)."""
    modules = _module_names(root)
    graph = {name: set() for name in modules}
    for name, (path, is_package) in modules.items():
        if path is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = (name if is_package else name.rpartition(".")[0]).split(".")
                    base = base[:len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    if f"{target}.{alias.name}" in modules:
                        graph[name].add(f"{target}.{alias.name}")
                    elif target in modules:
                        graph[name].add(target)
    return graph


def room(module: str) -> str:
    """The folder a module lives in (``fastamfm.training.trainer`` -> ``fastamfm.training``);
    a top-level module is a room of its own."""
    parts = module.split(".")
    return ".".join(parts[:2])


def folder_graph(graph: dict) -> dict:
    """{room: {rooms it imports}}: the module graph with each folder drawn as one node."""
    rooms: dict = {}
    for module, targets in graph.items():
        rooms.setdefault(room(module), set()).update(room(t) for t in targets if room(t) != room(module))
    return rooms


def import_circles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan), and modules
    importing themselves."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                circles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph)))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def test_no_import_circle():
    assert import_circles(import_graph()) == []


def test_no_circle_between_folders():
    assert import_circles(folder_graph(import_graph())) == []


# What training code trains and what it is built on: models, engines, metrics, storage.
# None of them may import training (DeepAMFM.train, SentenceEncoder.fine_tune, NeuralLM.fine_tune
# reach their recipes through the registry's entry points, as metrics are reached).
BELOW_TRAINING = ("fastamfm.deep", "fastamfm.neural", "fastamfm.evaluator", "fastamfm.models", "fastamfm.registry",
                  "fastamfm.io", "fastamfm.runtime", "fastamfm.amfm", "fastamfm.metrics", "fastamfm.learned")


def test_training_sits_above_the_models_it_trains():
    rooms = folder_graph(import_graph())
    for name in BELOW_TRAINING:
        assert "fastamfm.training" not in rooms[name], f"{name} imports fastamfm.training"
    # the check can fail: deep/ importing training/ closes a folder circle with the recipes' imports
    assert "fastamfm.deep" in rooms["fastamfm.training"]
    assert import_circles({**rooms, "fastamfm.deep": rooms["fastamfm.deep"] | {"fastamfm.training"}})


def test_the_graph_sees_imports_inside_functions():
    """The check can fail: a function-level import is an edge like any other."""
    graph = import_graph()
    assert "fastamfm.amfm.scorer" in graph["fastamfm.amfm.model_option"]   # resolve_model, imported when called
    assert import_circles({**graph, "fastamfm.registry": graph["fastamfm.registry"] | {"fastamfm.metrics.bleu"}})


def test_the_registry_imports_no_metric_module():
    graph = import_graph()
    metric_packages = ("fastamfm.metrics", "fastamfm.amfm", "fastamfm.deep", "fastamfm.learned")
    for module in ("fastamfm.registry", "fastamfm.registry.table", "fastamfm.registry.metric",
                   "fastamfm.registry.statistics", "fastamfm.registry.plugins", "fastamfm.batch", "fastamfm.pipeline"):
        assert not [m for m in graph[module] if m.startswith(metric_packages)], module


def test_the_extension_modules_are_known_without_a_build():
    assert {"_core", "_cuda"} <= set(_extension_modules())


def test_import_fastamfm_loads_no_torch_and_no_plugin_metadata():
    import fastamfm

    installed = Path(fastamfm.__file__).resolve().parents[1]   # the tested install, not the source tree
    code = ("import sys, fastamfm; print(sorted(m for m in ('torch', 'importlib.metadata', 'fastamfm.deep.metrics') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(installed), "PATH": ""}).stdout
    assert out.strip() == "[]"


if __name__ == "__main__":
    found = import_circles(import_graph())
    for circle in found:
        print(f"import circle of {len(circle)} modules: {' '.join(circle)}")
    folders = import_circles(folder_graph(import_graph()))
    for circle in folders:
        print(f"import circle of {len(circle)} folders: {' '.join(circle)}")
    print(f"{len(found)} import circles of modules, {len(folders)} of folders in {PACKAGE}")
    sys.exit(1 if found or folders else 0)
