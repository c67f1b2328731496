"""The generation examples (MBR selection and Self-BLEU) run as written. They moved from the README
to the scoring guide of the documentation site (issue 43), which tests/test_docs.py also runs whole."""
from __future__ import annotations

import re
from pathlib import Path

import fastamfm

README = Path(__file__).resolve().parents[1] / "docs" / "guides" / "score.md"


def readme_block(marker: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, f"one python block of docs/guides/score.md with {marker!r}"
    return found[0]


def test_readme_mbr_example_in_five_lines():
    code = readme_block("# mbr example")
    assert len(code.strip().splitlines()) <= 5
    namespace = {}
    exec(code, namespace)
    assert namespace["chosen"].text == ["the flight leaves at noon", "your bag is in paris"]


def test_readme_self_bleu_example():
    namespace = {}
    exec(readme_block("# self-bleu example"), namespace)
    responses = namespace["responses"]
    assert namespace["diversity"].corpus["Self-BLEU"] == \
        fastamfm.evaluate(responses, metrics=["self_bleu"]).corpus["Self-BLEU"]
