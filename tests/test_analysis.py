"""The metric-consistency analysis on real data: the DSTC-6 report (20 systems) end to end."""
from __future__ import annotations

import re

import pytest
from conftest import REFERENCE_FILES
from fastamfm.cli import main

pytest.importorskip("matplotlib")
pytest.importorskip("scipy")


@pytest.mark.shared_data
@pytest.mark.slow
def test_dstc6_report(dstc6_dir, dstc6_objective, tmp_path, capsys):
    out = tmp_path / "dstc6.html"
    refs = [arg for f in REFERENCE_FILES for arg in ("--ref", str(dstc6_dir / "references" / f))]
    assert main(["report", "--human", str(dstc6_dir / "human_evaluation_results.txt"), *refs,
                 "--hyp-dir", str(dstc6_dir / "hypotheses"), "--rated-only", "--metrics",
                 "bleu,rouge_l,cider,am,fm,amfm,distinct", "--dims", "5,20", "--lams", "0.5,0.8",
                 "--out", str(out)]) == 0
    text = out.read_text()
    # every system, with the organisers' nlg-eval numbers
    for system, published in dstc6_objective.items():
        row = re.search(rf"<tr><td>{system}</td>(.*?)</tr>", text).group(1)
        for metric in ("Bleu_4", "ROUGE_L", "CIDEr"):
            assert f"<td>{published[metric]:.4f}</td>" in row, (system, metric)
    # the AM-FM paper's Table 1 correlations of BLEU-4 (Pearson -0.5108, Spearman -0.1880)
    bleu4 = re.search(r"<tr><td>Bleu_4</td><td>([-0-9.]+)</td><td>[^<]+</td><td>([-0-9.]+)</td>", text)
    assert float(bleu4.group(1)) == pytest.approx(-0.5108, abs=1e-4)
    assert float(bleu4.group(2)) == pytest.approx(-0.1880, abs=1e-4)
    # BLEU-1..4 say the same thing: one cluster
    groups = re.findall(r"<li>([^<]+)</li>", text[text.index("Groups of metrics"):])
    assert "Bleu_1, Bleu_2, Bleu_3, Bleu_4" in groups
    # scatter, clustered heatmap, metric significance matrix, forest plot, Distinct-n, curves
    assert text.count("data:image/png;base64,") == 6
