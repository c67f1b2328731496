"""Where the training defaults come from: settings of one stage, each trained for the same
budget on the same corpus, judged only where the charter lets defaults be chosen.

``--stage encoder``: ``SentenceEncoder.fine_tune`` per setting, then Deep AM on the DSTC-10
development sets (``../shared/data/dstc10_dev``), turn-level Spearman x100 per set: with
references (the max cosine, the sets that have them) and reference-free (the recency-weighted
context), beside the frozen encoder. ``--stage lm``: ``NeuralLM.fine_tune`` per setting (LoRA
at the default rank), then the mean ln p per token of held-out replies given their context,
in the scorer's chat format (one reply per held-out dialogue of the corpus: the corpus's own
held-out slice, never rated data), beside the frozen LM. Both print each run's steps,
examples and minutes, and the load average.

Usage:
  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py training defaults --stage encoder \\
      --corpus ../shared/data/dialogues/dailydialog_train.jsonl.bz2 --max-steps 60 \\
      --setting learning_rate=2e-5,warmup_steps=20 --setting learning_rate=1e-4,warmup_steps=5 --out /tmp/defaults
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.deep.correlation_tables import print_table
from benchmarks.shared_data import SHARED_DATA


def parse_setting(text: str) -> dict:
    """"learning_rate=1e-4,warmup_steps=5" -> {"learning_rate": 1e-4, "warmup_steps": 5}."""
    out = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        out[key.strip()] = int(value) if value.strip().lstrip("-").isdigit() else float(value)
    return out


def encoder_rows(encoder, sets: dict) -> dict:
    """{row: {set: (Spearman, Pearson) x100}} of Deep AM with references and reference-free."""
    import fastamfm

    from benchmarks.deep.correlation_tables import correlations

    rows: dict = {}
    for name, rated in sets.items():
        if rated.refs is not None:
            scores = fastamfm.deep_am(rated.hyps, rated.refs, encoder=encoder).sentences["deep_am"]
            rows.setdefault("Deep AM refs", {})[name] = correlations(scores, rated.ratings)
        scores = fastamfm.deep_am(rated.hyps, contexts=rated.contexts, encoder=encoder).sentences["deep_am"]
        rows.setdefault("Deep AM ref-free", {})[name] = correlations(scores, rated.ratings)
    return rows


def reload(base, out: Path):
    """The trained model read back with the base model's scoring settings (as DeepAMFM.train does)."""
    from fastamfm.neural.encoder import SentenceEncoder
    from fastamfm.neural.neural_lm import NeuralLM

    if isinstance(base, SentenceEncoder):
        return SentenceEncoder.load(out, pooling=base.pooling, layer=base.layer, normalize=base.normalize,
                                    max_length=base.max_length, device="cpu")
    s = base.settings
    return NeuralLM.load(out, device="cpu", style=s.style, context_turns=s.context_turns,
                         max_context_tokens=s.max_context_tokens, end_token=s.end_token, system_prompt=s.system_prompt)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stage", choices=("encoder", "lm"), required=True)
    parser.add_argument("--corpus", action="append", required=True)
    parser.add_argument("--setting", action="append", default=[], help="TrainingSettings fields, k=v,k=v")
    parser.add_argument("--max-steps", type=int)
    parser.add_argument("--max-minutes", type=float)
    parser.add_argument("--out", type=Path, required=True, help="folder for the trained models")
    parser.add_argument("--samples", type=int, default=300, help="held-out replies (--stage lm)")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    args = parser.parse_args()
    from fastamfm.analysis.ratings import load_dstc10_dev
    from fastamfm.neural.encoder import SentenceEncoder
    from fastamfm.neural.neural_lm import NeuralLM
    from fastamfm.training.deep_amfm import held_out_replies
    from fastamfm.training.fine_tuning import as_corpus

    corpus = as_corpus(args.corpus)
    print(f"corpus: {corpus.scan().describe()}", file=sys.stderr, flush=True)
    budget = {k: v for k, v in (("max_steps", args.max_steps), ("max_minutes", args.max_minutes)) if v is not None}
    if args.stage == "encoder":
        sets = load_dstc10_dev(args.data / "dstc10_dev")
        base = SentenceEncoder.load(device="cpu")
        evaluate = lambda model: encoder_rows(model, sets)     # noqa: E731
    else:
        base = NeuralLM.load(device="cpu")
        contexts, replies = held_out_replies(corpus, args.samples)
        evaluate = lambda model: float(np.mean(model.score(replies, contexts=contexts)))     # noqa: E731
    results = {"frozen": evaluate(base)}
    runs = {}
    for i, text in enumerate(args.setting):
        setting = parse_setting(text)
        if setting.get("lora_rank") == 0:
            setting["lora_rank"] = None      # full fine-tuning, as DeepAMFM.train(lora_rank=0)
        out = args.out / f"{args.stage}-{i}"
        start = time.perf_counter()
        run = base.fine_tune(corpus, out, device="cpu", progress=False, **budget, **setting)
        minutes = (time.perf_counter() - start) / 60
        label = f"{text} ({run.steps} steps, {run.examples} examples, {minutes:.1f} min)"
        model = reload(base, out)
        results[label] = evaluate(model)
        runs[label] = run
        print(f"{label}: final loss {run.loss:.4f}, load average {os.getloadavg()[0]:.1f}", file=sys.stderr,
              flush=True)
    title = f"{args.stage}, budget {budget}, corpus {', '.join(Path(c).name for c in args.corpus)}; " \
            f"load average {os.getloadavg()[0]:.1f}"
    if args.stage == "encoder":
        table = {f"{label}: {row}": cells for label, rows in results.items() for row, cells in rows.items()}
        print_table(table, list(sets), f"{title}: turn-level Spearman / Pearson x100, dstc10_dev")
    else:
        print(f"\n{title}: mean ln p per token of {len(replies)} held-out replies given their context\n")
        print("| LM | held-out mean ln p | training loss (last 50 steps) |")
        print("|---|---|---|")
        for label, value in results.items():
            loss = f"{runs[label].loss:.4f}" if label in runs else "-"
            print(f"| {label} | {value:.4f} | {loss} |")


if __name__ == "__main__":
    main()
