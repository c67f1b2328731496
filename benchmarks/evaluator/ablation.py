"""Which negatives and which sub-scores carry the correlation: evaluator heads trained with
different negative kinds, the same number of steps each, over one frozen encoder (its
vectors shared by every variant, so each corpus turn is encoded once), scored on the
shared DSTC-10 development sets.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py evaluator ablation \
        --corpus ../shared/data/dialogues/dailydialog_train.jsonl.bz2 --corpus ... \
        --work /tmp/ablation [--steps 300] [--device auto] [--variants all,random,...] [--data ../shared/data]

Variants (``VARIANTS``): the shipped mix, single kinds and mixes with one kind left out.
Rows per variant: the ``evaluator`` score (the shipped zscore combination, its scales
measured on the corpus's held-out replies as training does), the product relevance x
validity (the previous default), and each sub-score alone (relevance, validity,
coherence: the frozen encoder's cosine with the context, the same for every variant),
Spearman x100 on the four target sets and their mean. No rating is used in training.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from fastamfm.evaluator.combination import Combination
from fastamfm.evaluator.evaluator import Evaluator
from fastamfm.evaluator.head import build_head, head_settings
from fastamfm.evaluator.turn_vectors import TurnVectors
from fastamfm.neural.encoder import SentenceEncoder
from fastamfm.training import DialogueCorpus, TrainingSettings, set_seed, train
from fastamfm.training.evaluator import DEFAULT_BASE, DEFAULTS, zscore_combination
from fastamfm.training.evaluator_task import EvaluatorTask
from fastamfm.training.negatives import DEFAULT_NEGATIVES, NegativeSampler
from fastamfm.training.turn_pool import TurnPool, dialogue_key

from benchmarks.deep.correlation_tables import correlations
from benchmarks.evaluator.workloads import FOUR, dstc10_sets
from benchmarks.shared_data import SHARED_DATA

CORRUPTED = {"shuffle": 0.25, "truncate": 0.25, "repeat": 0.25, "drop": 0.25}
VARIANTS = {
    "shipped mix": dict(DEFAULT_NEGATIVES),
    "random only": {"random": 1.0},
    "same_dialogue only": {"same_dialogue": 1.0},
    "retrieval only": {"retrieval": 1.0},
    "random + same_dialogue": {"random": 1.0, "same_dialogue": 1.0},
    "random + same + retrieval": {"random": 1.0, "same_dialogue": 1.0, "retrieval": 1.0},
    "mix without corruptions": {k: v for k, v in DEFAULT_NEGATIVES.items() if k not in CORRUPTED},
    "mix without generic": {k: v for k, v in DEFAULT_NEGATIVES.items() if k != "generic"},
    "mix without retrieval": {k: v for k, v in DEFAULT_NEGATIVES.items() if k != "retrieval"},
    "mix without same_dialogue": {k: v for k, v in DEFAULT_NEGATIVES.items() if k != "same_dialogue"},
    "random + corruptions": {"random": 1.0, **CORRUPTED},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", required=True)
    parser.add_argument("--work", type=Path, required=True, help="checkpoints of the variants go here")
    parser.add_argument("--steps", type=int, default=300, help="optimizer steps of each variant")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--variants", help="comma-separated names (default: all)")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    args = parser.parse_args()
    names = list(VARIANTS) if args.variants is None else [v.strip() for v in args.variants.split(",")]
    sets = dstc10_sets(args.data)
    corpus = DialogueCorpus(args.corpus)
    print(corpus.scan().describe(), flush=True)
    encoder = SentenceEncoder.load(DEFAULT_BASE, device=args.device)
    vectors = TurnVectors(encoder, capacity=1_000_000)
    pool = TurnPool.build((dialogue_key(d.turns), d.turns) for d in corpus.training())
    rows = {}
    for name in names:
        started = time.perf_counter()
        sampler = NegativeSampler(pool, VARIANTS[name], context_turns=DEFAULTS["context_turns"], seed=0)
        set_seed(0)
        head = build_head(encoder.dim, projection=DEFAULTS["projection"], hidden=DEFAULTS["hidden"])
        task = EvaluatorTask(head, vectors, sampler, decay=DEFAULTS["decay"])
        run = train(task, corpus, TrainingSettings(max_steps=args.steps, batch_size=DEFAULTS["batch_size"],
                                                   learning_rate=DEFAULTS["learning_rate"], weight_decay=0.01,
                                                   warmup_steps=20, device=args.device, progress=False),
                    directory=args.work / name.replace(" ", "_"))
        head.eval()
        manifest = {"scoring": {"context_turns": DEFAULTS["context_turns"], "decay": DEFAULTS["decay"]},
                    "combination": Combination("product").to_json(), "head": head_settings(head)}
        evaluator = Evaluator(directory=args.work, encoder=encoder, head=head, manifest=manifest,
                              fingerprint=name, vectors=vectors)
        shipped, _ = zscore_combination(evaluator, corpus, reference_weight=DEFAULTS["reference_weight"])
        cells = {}
        for n in FOUR:
            found = evaluator.components(sets[n].hyps, contexts=sets[n].contexts)
            found["product"], found["evaluator"] = found["evaluator"], shipped(found)
            for column in ("evaluator", "product", "relevance", "validity", "coherence"):
                cells.setdefault(column, {})[n] = correlations(found[column], sets[n].ratings)[0]
        rows[name] = cells
        print(f"{name}: {run.steps} steps, {run.examples} examples in {time.perf_counter() - started:.0f} s "
              f"(loss {run.loss:.3f}); evaluator mean {np.mean(list(cells['evaluator'].values())):.1f}", flush=True)
    print(f"\nNegatives ablation: {args.steps} steps x {DEFAULTS['batch_size']} examples per variant, Spearman x100"
          f" (evaluator: the zscore combination of relevance, validity, coherence)\n")
    print("| variant | sub-score | " + " | ".join(FOUR) + " | mean |")
    print("|---|---|" + "---|" * (len(FOUR) + 1))
    for name, cells in rows.items():
        for column, values in cells.items():
            print(f"| {name} | {column} | " + " | ".join(f"{values[n]:.1f}" for n in FOUR)
                  + f" | {np.mean(list(values.values())):.1f} |")


if __name__ == "__main__":
    main()
