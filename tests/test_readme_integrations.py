"""The README's integration examples run as written (the GRPO one with its one placeholder,
the policy's directory, pointed at a tiny random causal LM built here)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
POLICY_PLACEHOLDER = '"path/to/a/causal-lm"'


def readme_block(marker: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, f"one README python block with {marker!r}"
    return found[0]


def test_readme_grpo_example(tmp_path, monkeypatch):
    pytest.importorskip("trl", reason="the GRPO example needs trl (pip install 'fastamfm[trl]')")
    from causal_models import make_model

    code = readme_block("fastamfm.integrations.trl")
    assert code.count(POLICY_PLACEHOLDER) == 1 and len(code.strip().splitlines()) <= 10
    policy = make_model(tmp_path / "policy", "llama")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(code.replace(POLICY_PLACEHOLDER, repr(str(policy))), namespace)
    assert "rewards/fastamfm_amfm/mean" in namespace["trainer"].state.log_history[0]


def test_readme_torchmetrics_example():
    pytest.importorskip("torchmetrics", reason="the example needs torchmetrics (pip install 'fastamfm[torchmetrics]')")
    import fastamfm

    namespace = {}
    exec(readme_block("fastamfm.integrations.torchmetrics"), namespace)
    hyps = ["i can check the flight for you", "sorry about your bag"]
    refs = [["let me check that flight", "i will look into it"], ["we are tracing your bag"]]
    assert {c: v.item() for c, v in namespace["scores"].items()} == fastamfm.evaluate(hyps, refs, ["bleu", "amfm"]).corpus
