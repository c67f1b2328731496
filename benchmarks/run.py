"""The one way to run a benchmark area: its pytest-benchmark suite or any of its scripts.

    python3 benchmarks/run.py                          # the areas, what each measures, its scripts
    python3 benchmarks/run.py nlg [PYTEST ARGS]        # the area's suite: pytest benchmarks/nlg/bench.py
    python3 benchmarks/run.py nlg compare [ARGS]       # the side-by-side table: python -m benchmarks.nlg.compare
    python3 benchmarks/run.py deep correlation [ARGS]  # any other script of the area

An area is a folder of benchmarks/ with ``__init__.py`` (its docstring: what it measures,
against which peers), ``bench.py`` (the pytest-benchmark suite), ``compare.py`` (the
side-by-side table script) and, where they share workloads, ``workloads.py``. Adding a
folder of that shape adds an area here (and list it in docs/benchmarks.md's table).
Everything runs from this checkout: ``benchmarks/__init__.py`` puts its python/ and tests/
first on the path, whatever the current directory or an installed fastamfm.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def areas() -> dict:
    """{area: folder} for every folder of benchmarks/ that is a package with a suite or scripts."""
    return {p.name: p for p in sorted(HERE.iterdir())
            if (p / "__init__.py").is_file() and any(p.glob("*.py")) and not p.name.startswith(("_", "."))}


def scripts(folder: Path) -> list:
    """The area's scripts: modules with a ``__main__`` block (compare first)."""
    found = [p.stem for p in sorted(folder.glob("*.py")) if 'if __name__ == "__main__":' in p.read_text()]
    return sorted(found, key=lambda name: (name != "compare", name))


def summary(folder: Path) -> str:
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def describe() -> None:
    print("benchmark areas (python3 benchmarks/run.py AREA [SCRIPT] [ARGS]):\n")
    for name, folder in areas().items():
        suite = "bench.py" if (folder / "bench.py").is_file() else "no suite"
        print(textwrap.fill(summary(folder), 100, initial_indent=f"  {name:<12} ", subsequent_indent=" " * 15))
        print(f"  {'':<12} suite: {suite}; scripts: {', '.join(scripts(folder)) or 'none'}\n")


def main(argv: list) -> int:
    known = areas()
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[0] + "\n")
        describe()
        return 0
    area, rest = argv[0], argv[1:]
    if area not in known:
        print(f"unknown benchmark area {area!r}; choose from {', '.join(known)}", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    if rest and not rest[0].startswith("-"):
        script, args = rest[0], rest[1:]
        if script not in scripts(known[area]):
            print(f"area {area!r} has no script {script!r}; its scripts: {', '.join(scripts(known[area]))}",
                  file=sys.stderr)
            return 2
        command = [sys.executable, "-m", f"benchmarks.{area}.{script}", *args]
    else:
        command = [sys.executable, "-m", "pytest", str(Path("benchmarks") / area / "bench.py"), *rest]
    return subprocess.call(command, cwd=REPO, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
