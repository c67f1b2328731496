"""MkDocs hooks: the generated pages (docs/generate.py) join the site on every build.

- ``on_config``: the nav's "Metrics" and "API reference" sections are filled with the
  generated pages (one per registered metric, one per API group and public subpackage);
- ``on_files``: those pages, and the checkout's CHANGELOG.md, are added as in-memory files
  (nothing generated is written into docs/, so nothing there goes stale);
- ``on_page_markdown``: ``<!-- generated: NAME -->`` markers in hand-written pages are replaced
  by generated text (the deprecation shims in versioning.md).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("fastamfm_docs_generate", HERE / "generate.py")
generate = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = generate     # dataclasses look their module up there
_spec.loader.exec_module(generate)

_pages: dict = {}


def on_config(config):
    _pages.clear()
    _pages.update(generate.generated_pages())
    # CHANGELOG.md lives beside README.md: its links into docs/ are relative to the checkout
    _pages["changelog.md"] = (generate.REPO / "CHANGELOG.md").read_text(encoding="utf-8").replace("](docs/", "](")
    metrics, api = generate.nav_sections(_pages)
    for entry in config["nav"]:
        if isinstance(entry, dict) and "Metrics" in entry:
            entry["Metrics"] = metrics
        if isinstance(entry, dict) and "API reference" in entry:
            entry["API reference"] = api
    return config


def on_files(files, config):
    for path, text in _pages.items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown, page, config, files):
    marker = "<!-- generated: deprecations -->"
    if marker in markdown:
        markdown = markdown.replace(marker, generate.deprecations_table())
    return markdown
