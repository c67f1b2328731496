"""Small, deliberately plain Python versions of the overlap metrics.

They follow the formulas of docs/metric-conventions.md step by step (no speed
tricks) so the C++ results can be checked on generated data; the outside reference
tools (pycocoevalcap, sacrebleu, rouge-score) are checked separately.
"""
from __future__ import annotations

import math
from collections import Counter


def ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def bleu_statistics(hyp: str, refs: list[str], max_order: int = 4) -> dict:
    """One segment: lengths, guessed and clipped-correct n-grams per order."""
    h = hyp.split()
    rs = [r.split() for r in refs]
    # The reference length closest to the hypothesis; ties go to the shorter one.
    ref_len = min((abs(len(r) - len(h)), len(r)) for r in rs)[1]
    guess, correct = [], []
    for n in range(1, max_order + 1):
        hyp_counts = ngrams(h, n)
        max_ref = Counter()
        for r in rs:
            for g, c in ngrams(r, n).items():
                max_ref[g] = max(max_ref[g], c)
        guess.append(max(0, len(h) - n + 1))
        correct.append(sum(min(c, max_ref[g]) for g, c in hyp_counts.items()))
    return {"hyp_len": len(h), "ref_len": ref_len, "guess": guess, "correct": correct}


def bleu_from_statistics(hyp_len, ref_len, guess, correct) -> list[float]:
    scores, product = [], 1.0
    for k in range(len(guess)):
        product *= (correct[k] + 1e-15) / (guess[k] + 1e-9)
        scores.append(product ** (1.0 / (k + 1)))
    ratio = (hyp_len + 1e-15) / (ref_len + 1e-9)
    if ratio < 1:
        scores = [s * math.exp(1 - 1 / ratio) for s in scores]
    return scores


def bleu(hyps: list[str], refs: list[list[str]], max_order: int = 4) -> tuple[list[float], list[list[float]]]:
    """(corpus BLEU-1..max_order, per-segment BLEU-1..max_order)."""
    stats = [bleu_statistics(h, r, max_order) for h, r in zip(hyps, refs)]
    sentences = [bleu_from_statistics(s["hyp_len"], s["ref_len"], s["guess"], s["correct"]) for s in stats]
    corpus = bleu_from_statistics(
        sum(s["hyp_len"] for s in stats), sum(s["ref_len"] for s in stats),
        [sum(s["guess"][k] for s in stats) for k in range(max_order)],
        [sum(s["correct"][k] for s in stats) for k in range(max_order)])
    return corpus, sentences


def lcs_length(a: list, b: list) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


def rouge_l(hyp: str, refs: list[str], beta: float = 1.2) -> float:
    """pycocoevalcap's ROUGE-L on nlg-eval's stripped lines split on single spaces."""
    h = hyp.strip().split(" ")
    precisions, recalls = [], []
    for ref in refs:
        r = ref.strip().split(" ")
        common = lcs_length(h, r)
        precisions.append(common / len(h))
        recalls.append(common / len(r))
    p, r = max(precisions), max(recalls)
    if p == 0 or r == 0:
        return 0.0
    return (1 + beta ** 2) * p * r / (r + beta ** 2 * p)


def rouge_l_max_f(hyp: str, refs: list[str], beta: float = 1.0) -> float:
    """rouge-score's rule: the best F over the references; an empty side scores 0."""
    best = 0.0
    h = hyp.split()
    for ref in refs:
        r = ref.split()
        if not h or not r:
            continue
        common = lcs_length(h, r)
        p, rec = common / len(h), common / len(r)
        if p > 0 and rec > 0:
            best = max(best, (1 + beta ** 2) * p * rec / (rec + beta ** 2 * p))
    return best


def document_frequency(refs: list[list[str]], max_order: int = 4) -> Counter:
    df = Counter()
    for segment in refs:
        seen = set()
        for ref in segment:
            for n in range(1, max_order + 1):
                seen.update(ngrams(ref.split(), n))
        df.update(seen)
    return df


def cider_d(hyps: list[str], refs: list[list[str]], sigma: float = 6.0, max_order: int = 4,
            df: Counter | None = None, num_segments: int | None = None) -> list[float]:
    """Per-segment CIDEr-D (pycocoevalcap's Cider)."""
    df = document_frequency(refs, max_order) if df is None else df
    log_n = math.log(len(refs) if num_segments is None else num_segments)

    def vectors(text: str):
        tokens = text.split()
        vecs = [{g: c * (log_n - math.log(max(1.0, df[g]))) for g, c in ngrams(tokens, n).items()}
                for n in range(1, max_order + 1)]
        norms = [math.sqrt(sum(w * w for w in v.values())) for v in vecs]
        bigrams = max(0, len(tokens) - 1) if max_order >= 2 else 0
        return vecs, norms, bigrams

    scores = []
    for hyp, segment in zip(hyps, refs):
        hv, hn, hl = vectors(hyp)
        per_order = [0.0] * max_order
        for ref in segment:
            rv, rn, rl = vectors(ref)
            for k in range(max_order):
                value = sum(min(w, rv[k].get(g, 0.0)) * rv[k].get(g, 0.0) for g, w in hv[k].items())
                if hn[k] != 0 and rn[k] != 0:
                    value /= hn[k] * rn[k]
                per_order[k] += value * math.e ** (-((hl - rl) ** 2) / (2 * sigma ** 2))
        scores.append(sum(per_order) / max_order / len(segment) * 10.0)
    return scores


def distinct(hyps: list[str], n: int) -> tuple[float, list[float]]:
    """(corpus distinct-n, per-response distinct-n)."""
    all_ngrams, per_response = [], []
    for h in hyps:
        grams = [tuple(h.split()[i:i + n]) for i in range(len(h.split()) - n + 1)]
        all_ngrams.extend(grams)
        per_response.append(len(set(grams)) / len(grams) if grams else 0.0)
    corpus = len(set(all_ngrams)) / len(all_ngrams) if all_ngrams else 0.0
    return corpus, per_response


# --- the reference tool, called the way nlg-eval calls it --------------------------

def pycoco_inputs(hyps: list[str], refs: list[list[str]]) -> tuple[dict, dict]:
    gts = {i: [r.strip() for r in rs] for i, rs in enumerate(refs)}
    res = {i: [h.strip()] for i, h in enumerate(hyps)}
    return gts, res


def pycoco_bleu(hyps, refs):
    from pycocoevalcap.bleu.bleu import Bleu

    return Bleu(4).compute_score(*pycoco_inputs(hyps, refs), verbose=0)


def pycoco_rouge_l(hyps, refs):
    from pycocoevalcap.rouge.rouge import Rouge

    return Rouge().compute_score(*pycoco_inputs(hyps, refs))


def pycoco_cider(hyps, refs):
    from pycocoevalcap.cider.cider import Cider

    return Cider().compute_score(*pycoco_inputs(hyps, refs))


# --- generated data -----------------------------------------------------------------

def text_strategies():
    """(texts, segments): hypothesis strategies for responses and ragged references.

    A small vocabulary (so n-grams repeat and match), unicode tokens, and lengths from
    0 (empty text) and 1 (one token) up; tokens joined by single spaces.
    """
    from hypothesis import strategies as st

    vocab = ["the", "a", "flight", "is", "late", "gate", "12", "<URL>", "!", "café", "日本", "naïve", "ok", "ok"]
    token = st.sampled_from(vocab)
    text = st.lists(token, min_size=0, max_size=12).map(" ".join)
    short = st.one_of(st.just(""), token, text)

    def corpus(min_size=1, max_size=8):
        return st.integers(min_size, max_size).flatmap(
            lambda n: st.tuples(st.lists(short, min_size=n, max_size=n),
                                st.lists(st.lists(short, min_size=1, max_size=4), min_size=n, max_size=n)))

    return corpus
