"""The package and the examples users copy type-check: ``mypy -p fastamfm`` at its default
settings (plus pyproject.toml's list of untyped optional modules) reports no error, and neither
does any python block of README.md or the documentation pages, read as one module per page (the
blocks of a page run as one session, tests/doc_examples.py). A user who copies
``res.corpus["Bleu_4"]`` into typed code gets a float, not an error.

mypy reads the checkout's sources, python/fastamfm (with the compiled core's stub, _core.pyi),
from python/ as its working folder: run from site-packages, where CI installs this checkout,
every installed package there would be read as the user's own code. Both checks share one mypy
cache, so they run on one worker.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from doc_examples import REPO, blocks

pytestmark = pytest.mark.xdist_group("mypy")

if importlib.util.find_spec("mypy") is None:
    pytest.skip("mypy is not installed (the test-core extra has it)", allow_module_level=True)
if sys.version_info < (3, 11):
    # scipy-stubs and pandas-stubs support 3.11 and later only; without them mypy reads
    # scipy and pandas as untyped and the run would say nothing about their use.
    pytest.skip("the type check needs Python 3.11+ (the stubs it uses)", allow_module_level=True)

CACHE = REPO / ".mypy_cache"
PAGES = [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))


PACKAGE_ROOT = REPO / "python"


def _mypy(*args: str) -> tuple[int, str]:
    """mypy run from python/, so that ``fastamfm`` is the checkout's sources and every other
    package the installed one."""
    import os

    from mypy import api

    before = os.getcwd()
    os.chdir(PACKAGE_ROOT)
    try:
        out, err, status = api.run(["--config-file", str(REPO / "pyproject.toml"), "--cache-dir", str(CACHE),
                                    "--no-error-summary", *args])
    finally:
        os.chdir(before)
    return status, out + err


def test_the_package_type_checks():
    status, report = _mypy("-p", "fastamfm")
    assert status == 0 and not report.strip(), f"mypy -p fastamfm ({PACKAGE_ROOT}):\n{report}"


def _page_module(page: Path, folder: Path) -> tuple[Path, dict[int, str]] | None:
    """The page's python blocks as one module, and where each of its lines came from."""
    lines: list[str] = []
    origin: dict[int, str] = {}
    for block in blocks(page):
        if block.language != "python":
            continue
        for k, line in enumerate(block.code.splitlines()):
            lines.append(line)
            origin[len(lines)] = f"{block.path.relative_to(REPO)}:{block.line + 1 + k}"
    if not lines:
        return None
    name = "_".join(page.relative_to(REPO).with_suffix("").parts).replace("-", "_")
    module = folder / f"page_{name}.py"
    module.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return module, origin


def test_every_example_on_the_site_and_the_readme_type_checks(tmp_path):
    modules, origins = [], {}
    for page in PAGES:
        made = _page_module(page, tmp_path)
        if made is not None:
            modules.append(str(made[0]))
            origins[made[0].name] = made[1]
    assert len(modules) >= 5, f"only {len(modules)} pages with python examples found"
    status, report = _mypy(*modules)
    # Each error at the page line it came from.
    errors = []
    for line in report.splitlines():
        path, _, rest = line.partition(":")
        number, _, message = rest.partition(":")
        origin = origins.get(Path(path).name, {}).get(int(number)) if number.isdigit() else None
        errors.append(f"{origin}:{message}" if origin else line)
    assert status == 0 and not errors, "the examples do not type-check:\n" + "\n".join(errors)
