"""benchmarks/ by area: every area folder has the shape benchmarks/run.py runs (a package
whose docstring says what it measures, a pytest-benchmark suite) and a row in the benchmark table
of docs/benchmarks.md (the site's Benchmarks page; it was the README's), so a new area is found
by the runner and shown to readers."""
from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("benchmarks_run", REPO / "benchmarks" / "run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)


def test_every_area_has_a_docstring_a_suite_and_a_readme_row():
    areas = run.areas()
    assert {"nlg", "meteor", "lsi", "lm", "embedding", "amfm", "gpu", "streaming", "deep", "learned",
            "distributed"} <= set(areas)
    page = (REPO / "docs" / "benchmarks.md").read_text()
    table = page[page.index("# Benchmarks"):]
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M))
    for name, folder in areas.items():
        assert ast.get_docstring(ast.parse((folder / "__init__.py").read_text())), name
        assert (folder / "bench.py").is_file(), name
        assert run.scripts(folder), name
    assert listed == set(areas)


def test_the_runner_refuses_an_unknown_area_or_script(capsys):
    assert run.main(["no_such_area"]) == 2
    assert "choose from" in capsys.readouterr().err
    assert run.main(["nlg", "no_such_script"]) == 2
    assert "its scripts: compare" in capsys.readouterr().err
