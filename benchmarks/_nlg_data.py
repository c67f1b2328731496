"""Data the NLG benchmarks share: DSTC-6 paths and synthetic responses x references."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("FASTAMFM_SHARED_DATA", REPO.parent / "shared" / "data"))
DSTC6 = SHARED_DATA / "dstc6_t2_evaluation"
REFERENCE_FILES = [DSTC6 / "references" / "original_refs.txt"] + [
    DSTC6 / "references" / f"refgen_result{i}.txt" for i in range(1, 11)]
SYSTEM_FILES = [DSTC6 / "hypotheses" / f"S_{i}.txt" for i in range(1, 21)]


def synthetic(n: int, n_refs: int = 4, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """n responses of 4..20 words from a Zipf-like 5000-word vocabulary, n_refs references each.

    Words are lowercase letters and digits so every tool tokenizes them alike.
    """
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(5000)])
    weights = 1.0 / np.arange(1, 5001)
    lengths = rng.integers(4, 21, size=n * (1 + n_refs))
    words = vocab[rng.choice(5000, size=int(lengths.sum()), p=weights / weights.sum())]
    ends = np.cumsum(lengths)
    texts = [" ".join(words[end - length:end]) for end, length in zip(ends, lengths)]
    hyps = texts[:n]
    refs = [texts[n + i * n_refs:n + (i + 1) * n_refs] for i in range(n)]
    return hyps, refs


def pycoco_score_system(hyp_file, ref_files) -> dict:
    """What nlg-eval's compute_metrics does for the overlap metrics (minus METEOR)."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    with open(hyp_file) as f:
        hyp_list = f.readlines()
    columns = []
    for path in ref_files:
        with open(path) as f:
            columns.append(f.readlines())
    refs = {i: [r.strip() for r in rs] for i, rs in enumerate(zip(*columns))}
    hyps = {i: [h.strip()] for i, h in enumerate(hyp_list)}
    bleu, _ = Bleu(4).compute_score(refs, hyps, verbose=0)
    scores = {f"Bleu_{k + 1}": b for k, b in enumerate(bleu)}
    scores["ROUGE_L"] = Rouge().compute_score(refs, hyps)[0]
    scores["CIDEr"] = Cider().compute_score(refs, hyps)[0]
    return scores
