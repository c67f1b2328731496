"""The overlap metrics' workloads and peers, shared by bench.py and compare.py.

Peers: pycocoevalcap (what nlg-eval runs for BLEU-1..4, ROUGE-L and CIDEr), sacrebleu
(sentence BLEU, exponential smoothing) and rouge-score (ROUGE-L F1 with the best
reference). Each pair of functions computes the same numbers (``check_*`` asserts it).
"""
from __future__ import annotations

import fastamfm
import numpy as np
from fastamfm.io import read_lines

from benchmarks.shared_data import REFERENCE_FILES, SYSTEM_FILES

# What pycocoevalcap computes here (nlg-eval's overlap metrics less METEOR).
OVERLAP_METRICS = ["bleu", "rouge_l", "cider"]
OVERLAP_KEYS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]


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


# --- DSTC-6: 20 systems x 2000 responses x 11 references, from files -------------------
def pycoco_system(hyp_file, ref_files=REFERENCE_FILES) -> dict:
    """What nlg-eval's compute_metrics does for the overlap metrics (minus METEOR): read
    the files, score BLEU-1..4, ROUGE-L and CIDEr with pycocoevalcap."""
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


def pycoco_systems(system_files=SYSTEM_FILES) -> list[dict]:
    return [pycoco_system(path) for path in system_files]


def fastamfm_evaluate_systems(system_files=SYSTEM_FILES, workers: int = -1) -> list[dict]:
    """``fastamfm.evaluate`` on every system file, the references read and prepared once
    (``References.from_files``)."""
    refs = fastamfm.References.from_files(REFERENCE_FILES, workers=workers)
    return [dict(fastamfm.evaluate(read_lines(path), refs, metrics=OVERLAP_METRICS, workers=workers).corpus)
            for path in system_files]


def fastamfm_compute_metrics_systems(system_files=SYSTEM_FILES, workers: int = -1) -> list[dict]:
    """The nlg-eval drop-in: ``compute_metrics(hyp_file, refs)`` per system, with one
    ``References`` read from the files and shared."""
    refs = fastamfm.References.from_files(REFERENCE_FILES, workers=workers)
    return [fastamfm.compute_metrics(str(path), refs, metrics=OVERLAP_KEYS, workers=workers) for path in system_files]


def check_systems(ours: list, theirs: list) -> None:
    """Every key of every system equal to pycocoevalcap's within 1e-12 (relative)."""
    for mine, expected in zip(ours, theirs):
        for key, value in expected.items():
            assert abs(mine[key] - value) <= 1e-12 * max(1.0, abs(value)), (key, mine[key], value)


# --- sentence-level peers on synthetic data -------------------------------------------
def sacrebleu_sentence_bleu(hyps, refs) -> list[float]:
    from sacrebleu.metrics import BLEU

    scorer = BLEU(tokenize="none", effective_order=True)
    return [scorer.sentence_score(h, r).score / 100 for h, r in zip(hyps, refs)]


def fastamfm_sentence_bleu(hyps, refs, workers: int = -1) -> np.ndarray:
    """Sentence BLEU-4 with sacrebleu's exponential smoothing."""
    return fastamfm.bleu(hyps, refs, smooth="exp", workers=workers).sentences["Bleu_4"]


def check_sentence_bleu(ours, theirs) -> None:
    np.testing.assert_allclose(np.asarray(ours)[:len(theirs)], theirs, rtol=1e-12, atol=1e-15)


def rouge_score_rouge_l(hyps, refs) -> list[float]:
    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(["rougeL"])
    return [scorer.score_multi(r, h)["rougeL"].fmeasure for h, r in zip(hyps, refs)]


def fastamfm_rouge_l(hyps, refs, workers: int = -1) -> np.ndarray:
    """ROUGE-L F1 with the best reference (rouge-score's rule)."""
    return fastamfm.rouge_l(hyps, refs, beta=1.0, multi_ref="max-f", workers=workers).sentences["ROUGE_L"]


def check_rouge_l(ours, theirs) -> None:
    assert np.asarray(ours)[:len(theirs)].tolist() == list(theirs)
