"""The generation metrics' workloads and peers, shared by bench.py, compare.py and
exactness.py. Each peer function and its fastamfm counterpart compute the same numbers
(``check_*`` asserts it); peers that are not installed are reported as absent.

Peers: sacrebleu (BLEU, chrF; references prepared once per run with its ``references=``
cache, the way it scores many systems), bleuscore (Rust BLEU, sacrebleu's corpus BLEU
with ``ref_len_method="closest"``), fastchrf (Rust pairwise chrF), rouge-score
(``RougeScorer.score_multi``), fast-bleu (C++ SelfBLEU), NLTK (the literature's Self-BLEU
loop), TensorBLEU (rxlm's ``tensor_sentence_bleu``, CPU tensors).
"""
from __future__ import annotations

import importlib.util

import numpy as np

import fastamfm
from benchmarks.shared_data import dstc6_references, dstc6_systems

ROUGE_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def streams(refs):
    """sacrebleu's reference streams (None where a segment has fewer references)."""
    k = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(k)]


def dstc6():
    """({system: responses}, references): the 20 DSTC-6 systems and their 11 references."""
    return dstc6_systems(), dstc6_references()


# --- sacreBLEU: corpus + sentence scores of every system ------------------------------
def sacrebleu_systems(systems: dict, refs) -> list:
    """(corpus BLEU, sentence BLEUs) per system: BLEU(references=...) prepares the
    references once; sentence scores with effective order (sacrebleu's sentence_bleu)."""
    from sacrebleu.metrics import BLEU

    corpus_metric = BLEU(references=streams(refs), force=True)  # force: no tokenized-period warning
    sentence_metric = BLEU(effective_order=True, force=True)
    sentence_metric._ref_cache = corpus_metric._ref_cache
    out = []
    for hyps in systems.values():
        corpus = corpus_metric.corpus_score(hyps, None).score
        stats = sentence_metric._extract_corpus_statistics(hyps, None)
        out.append((corpus, np.array([sentence_metric._compute_score_from_stats(s).score for s in stats])))
    return out


def fastamfm_sacrebleu_systems(systems: dict, refs, workers: int = -1) -> list:
    shared = fastamfm.References(refs, workers=workers)
    results = [fastamfm.sacrebleu(hyps, shared, workers=workers) for hyps in systems.values()]
    return [(r.corpus["sacreBLEU"], r.sentences["sacreBLEU"]) for r in results]


def bleuscore_systems(systems: dict, refs) -> list:
    """bleuscore's corpus BLEU (13a, closest reference length) per system, 0..100."""
    import bleuscore

    return [bleuscore.compute(refs, hyps, 4, False, "closest")["bleu"] * 100 for hyps in systems.values()]


def check_sacrebleu(ours, theirs) -> None:
    for (c1, s1), (c2, s2) in zip(ours, theirs):
        assert abs(c1 - c2) <= 1e-9 and np.abs(s1 - s2).max() <= 1e-9


def check_corpus(ours, theirs) -> None:
    for (corpus, _), other in zip(ours, theirs):
        assert abs(corpus - other) <= 1e-9, (corpus, other)


# --- chrF ----------------------------------------------------------------------------
def sacrebleu_chrf_systems(systems: dict, refs) -> list:
    from sacrebleu.metrics import CHRF

    metric = CHRF(references=streams(refs))
    out = []
    for hyps in systems.values():
        stats = metric._extract_corpus_statistics(hyps, None)
        out.append((metric._aggregate_and_compute(stats).score,
                    np.array([metric._compute_score_from_stats(s).score for s in stats])))
    return out


def fastamfm_chrf_systems(systems: dict, refs, workers: int = -1) -> list:
    shared = fastamfm.References(refs, workers=workers)
    results = [fastamfm.chrf(hyps, shared, workers=workers) for hyps in systems.values()]
    return [(r.corpus["chrF"], r.sentences["chrF"]) for r in results]


def pairwise_texts(n: int = 1024):
    """n DSTC-6 responses (systems 1..) as candidates, n references as pseudo-references."""
    systems, refs = dstc6()
    candidates = [h for hyps in systems.values() for h in hyps][:n]
    references = [r[0] for r in refs][:n]
    return candidates, references


def sacrebleu_chrf_pairwise(candidates, references) -> np.ndarray:
    from sacrebleu.metrics import CHRF

    metric = CHRF()
    return np.array([[metric.sentence_score(c, [r]).score for r in references] for c in candidates])


def fastchrf_pairwise(candidates, references) -> np.ndarray:
    import fastchrf

    return np.array(fastchrf.pairwise_chrf([candidates], [references])[0])


def fastamfm_chrf_pairwise(candidates, references, workers: int = -1) -> np.ndarray:
    return fastamfm.pairwise(candidates, references, metric="chrf", workers=workers)


def check_pairwise(ours, theirs) -> None:
    ours = np.asarray(ours)[:len(theirs)]
    assert np.abs(ours - theirs).max() <= 1e-4   # fastamfm returns float32 (sacrebleu's value rounded)


# --- rouge-score ------------------------------------------------------------------------
def rouge_score_systems(systems: dict, refs) -> list:
    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(ROUGE_TYPES)
    return [[scorer.score_multi(r, h) for h, r in zip(hyps, refs)] for hyps in systems.values()]


def fastamfm_rouge_systems(systems: dict, refs, workers: int = -1) -> list:
    shared = fastamfm.References(refs, workers=workers)
    return [fastamfm.rouge(hyps, shared, workers=workers) for hyps in systems.values()]


def check_rouge(ours, theirs) -> None:
    for mine, expected in zip(ours, theirs):
        for t in ROUGE_TYPES:
            got = mine[t][:len(expected)]
            assert np.abs(got - np.array([e[t].fmeasure for e in expected])).max() <= 1e-9


# --- Self-BLEU ----------------------------------------------------------------------------
def fast_bleu_self_bleu(systems: dict) -> list:
    from fast_bleu import SelfBLEU

    return [np.array(SelfBLEU([h.split() for h in hyps], {"4": (0.25,) * 4}).get_score()["4"])
            for hyps in systems.values()]


def nltk_self_bleu(systems: dict) -> list:
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    method1 = SmoothingFunction().method1
    out = []
    for hyps in systems.values():
        toks = [h.split() for h in hyps]
        out.append(np.array([sentence_bleu(toks[:i] + toks[i + 1:], toks[i], (0.25,) * 4,
                                           smoothing_function=method1) for i in range(len(toks))]))
    return out


def fastamfm_self_bleu(systems: dict, workers: int = -1) -> list:
    return [fastamfm.self_bleu(hyps, workers=workers).sentences["Self-BLEU"] for hyps in systems.values()]


def check_self_bleu(ours, theirs) -> None:
    for mine, expected in zip(ours, theirs):
        assert np.abs(mine - expected).max() <= 1e-12


# --- token-id BLEU (RL rewards) ------------------------------------------------------------
def token_batch(n: int = 256, length: int = 64, n_refs: int = 4, vocab: int = 32000, seed: int = 0):
    """n completions of up to `length` ids (right-padded with 0), n_refs references each;
    ids from a Zipf-like distribution over `vocab` so that n-grams repeat as in text."""
    import torch

    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, 301)
    common = rng.choice(vocab - 1, 300, replace=False) + 1

    def ids(shape):
        return common[rng.choice(300, size=shape, p=weights / weights.sum())]

    hyps, refs = ids((n, length)), ids((n, n_refs, length))
    hyp_len = rng.integers(length // 2, length + 1, n)
    ref_len = rng.integers(length // 2, length + 1, (n, n_refs))
    hyps[np.arange(length)[None] >= hyp_len[:, None]] = 0
    refs[np.arange(length)[None, None] >= ref_len[:, :, None]] = 0
    return torch.tensor(hyps), torch.tensor(refs)


def tensorbleu_sentence_bleu(hyps, refs):
    from rxlm.metrics.tensorbleu import tensor_sentence_bleu

    return tensor_sentence_bleu(hyps, refs, pad_token_id=0, smoothing_method="floor")


def fastamfm_token_bleu(hyps, refs, workers: int = -1):
    return fastamfm.token_bleu(hyps, refs, pad_id=0, smooth="floor", convention="tensorbleu", workers=workers)


def check_token_bleu(ours, theirs) -> None:
    assert (ours.double() - theirs.double()).abs().max().item() < 1e-6
