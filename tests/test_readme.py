"""Every code block of the README runs as written, and prints what the README shows; the
README stays a landing page (issue 43).

The blocks are read and run as ``tests/doc_examples.py`` says (python blocks in one session
in a folder holding a copy of ``examples/``, bash blocks line by line with the package's
``fastamfm`` command, the text block after a block is its output). The set-up block must be
exactly ``SETUP``, the test command exactly what ``.ci/run`` runs (the fresh-clone measurement
runs them). The guides that were sections of this README run the same way from their pages on
the documentation site: tests/test_docs.py.
"""
from __future__ import annotations

import importlib.util
import sys

import pytest
from doc_examples import REPO, Session, blocks, runnable

README = REPO / "README.md"
SETUP = ("python3 -m pip install scikit-build-core pybind11 cmake ninja setuptools wheel && python3 -m pip install "
         "--no-build-isolation . && fastamfm score --hyp examples/hyp.txt --ref examples/ref1.txt --ref "
         "examples/ref2.txt")
# The README's sections whose blocks run, in order (nothing beyond the core is needed).
SECTIONS = ("Set up and run", "Using it")


def readme_blocks() -> list:
    return blocks(README)


def test_every_block_is_run():
    """Each python and bash block is in a section this test runs; every block has a language."""
    for block in readme_blocks():
        assert block.language in ("python", "bash", "text", "toml"), f"{block.where}: untagged block"
        if block.language in ("python", "bash"):
            assert block.section in SECTIONS and block.skip is None, f"{block.where} ({block.section}) is not run"


def test_setup_commands_are_the_documented_ones():
    all_blocks = readme_blocks()
    setup = [b for b in all_blocks if b.section == "Set up and run" and b.language == "bash"]
    assert setup[0].code.strip() == SETUP
    ci = (REPO / ".ci" / "run").read_text()
    readme_test = setup[1].code.strip()
    assert readme_test.startswith("FASTAMFM_TEST_HOOKS=ON python3 -m pip install --no-build-isolation")
    assert "\n" + readme_test + "\n" in ci, ".ci/run must run exactly the README's test command"
    assert "-n 2 --dist loadgroup" in readme_test
    assert setup[0].output is not None and setup[1].output is None


def test_the_readme_is_a_landing_page():
    """At most 200 lines; a python example of at most ten lines within the first 60; the set-up
    commands; a metric table generated from the registry (current); where the site is and how
    to build it."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    example = next(b for b in readme_blocks() if b.language == "python")
    assert example.line + len(example.code.splitlines()) <= 60 and len(example.code.strip().splitlines()) <= 10
    assert "mkdocs build --strict" in text and "docs/" in text
    spec = importlib.util.spec_from_file_location("fastamfm_docs_generate", REPO / "docs" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generate
    spec.loader.exec_module(generate)
    start, end = text.index(generate.README_BEGIN), text.index(generate.README_END) + len(generate.README_END)
    assert text[start:end] == generate.readme_table(generate.metric_rows()), \
        "README.md's metric table is stale: run python3 docs/generate.py --readme"
    for name in generate.metric_rows():
        assert f"| `{name['name']}` |" in text[start:end]


def test_toml_blocks_parse():
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    for block in readme_blocks():
        if block.language == "toml":
            tomllib.loads(block.code)


@pytest.mark.xdist_group("readme_core")
def test_readme_session(tmp_path, monkeypatch):
    """Set-up's score command and "Using it", as written, with the outputs shown."""
    monkeypatch.setenv("FASTAMFM_BLOCKLIST", "")
    session = Session(tmp_path)
    chosen = [b for b in runnable(readme_blocks()) if b.section in SECTIONS]
    assert [b.section for b in chosen][:1] == ["Set up and run"] and chosen[-1].section == "Using it"
    for block in chosen:
        session.run(block)
    assert "res" in session.namespace

