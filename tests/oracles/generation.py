"""Plain Python versions of the generation metrics, written from the tools' documented
behaviour step by step (no speed tricks): sacrebleu's BLEU formula and chrF, rouge-score's
ROUGE-N/L/Lsum on given tokens, NLTK-method1 Self-BLEU. The outside tools themselves
(sacrebleu, rouge-score, nltk, fast-bleu, rxlm) are compared in the tests separately.
"""
from __future__ import annotations

import math
from collections import Counter

PUNCTUATION = set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')


def ngrams(items, n: int) -> Counter:
    return Counter(tuple(items[i:i + n]) for i in range(len(items) - n + 1))


# --- sacrebleu's BLEU ---------------------------------------------------------------
def bleu_statistics(hyp: list, refs: list, max_order: int = 4) -> tuple:
    """(hyp_len, closest ref_len (ties: shorter), correct per order, total per order)."""
    ref_len = min((abs(len(r) - len(hyp)), len(r)) for r in refs)[1]
    correct, total = [], []
    for n in range(1, max_order + 1):
        h = ngrams(hyp, n)
        limit = Counter()
        for r in refs:
            for g, c in ngrams(r, n).items():
                limit[g] = max(limit[g], c)
        correct.append(sum(min(c, limit[g]) for g, c in h.items()))
        total.append(sum(h.values()))
    return len(hyp), ref_len, correct, total


def sacrebleu_score(sys_len, ref_len, correct, total, smooth="exp", smooth_value=None, effective_order=False):
    """BLEU on 0..100 from statistics, as sacrebleu's compute_bleu defines it."""
    if smooth_value is None:
        smooth_value = {"floor": 0.1, "add-k": 1}.get(smooth)
    correct, total = list(correct), list(total)
    bp = 1.0 if sys_len >= ref_len else (math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0)
    if not any(correct):
        return 0.0
    precisions = [0.0] * len(correct)
    divisor, used = 1.0, len(correct)
    for n in range(1, len(correct) + 1):
        if smooth == "add-k" and n > 1:
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if effective_order:
            used = n
        if correct[n - 1] == 0:
            if smooth == "exp":
                divisor *= 2
                precisions[n - 1] = 100.0 / (divisor * total[n - 1])
            elif smooth == "floor":
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    logs = [math.log(p) if p > 0 else -9999999999 for p in precisions[:used]]
    return bp * math.exp(sum(logs) / used)


# --- chrF ------------------------------------------------------------------------------
def chrf_words(text: str) -> list:
    words = []
    for w in text.split():
        if len(w) == 1:
            words.append(w)
        elif w[-1] in PUNCTUATION:
            words += [w[:-1], w[-1]]
        elif w[0] in PUNCTUATION:
            words += [w[0], w[1:]]
        else:
            words.append(w)
    return words


def chrf_pair(hyp: str, ref: str, char_order=6, word_order=0, whitespace=False) -> list:
    """[hyp, ref, match] per order (characters, then words) of one pair."""
    out = []
    h_chars = hyp if whitespace else "".join(hyp.split())
    r_chars = ref if whitespace else "".join(ref.split())
    sides = [(ngrams(h_chars, n), ngrams(r_chars, n)) for n in range(1, char_order + 1)]
    hw, rw = chrf_words(hyp), chrf_words(ref)
    sides += [(ngrams(hw, n), ngrams(rw, n)) for n in range(1, word_order + 1)]
    for h, r in sides:
        match = sum(min(c, r[g]) for g, c in h.items())
        out += [sum(h.values()) if r else 0, sum(r.values()), match]
    return out


def chrf_score(stats: list, beta=2, eps_smoothing=False) -> float:
    factor = beta ** 2
    orders = len(stats) // 3
    score, eff, avg_p, avg_r = 0.0, 0, 0.0, 0.0
    for k in range(orders):
        n_hyp, n_ref, n_match = stats[3 * k:3 * k + 3]
        p = n_match / n_hyp if n_hyp > 0 else 1e-16
        r = n_match / n_ref if n_ref > 0 else 1e-16
        denom = factor * p + r
        score += (1 + factor) * p * r / denom if denom > 0 else 1e-16
        if n_hyp > 0 and n_ref > 0:
            avg_p, avg_r, eff = avg_p + p, avg_r + r, eff + 1
    if eps_smoothing:
        return 100 * score / orders
    if eff == 0:
        return 0.0
    avg_p, avg_r = avg_p / eff, avg_r / eff
    if avg_p + avg_r == 0:
        return 0.0
    return 100 * (1 + factor) * avg_p * avg_r / (factor * avg_p + avg_r)


def chrf_sentence(hyp: str, refs: list, **options) -> tuple:
    """(sentence chrF, statistics of the best reference: the first with the highest chrF)."""
    beta, eps = options.pop("beta", 2), options.pop("eps_smoothing", False)
    best, best_stats = -1.0, None
    for ref in refs:
        stats = chrf_pair(hyp, ref, **options)
        f = chrf_score(stats, beta, eps)
        if f > best:
            best, best_stats = f, stats
    return best, best_stats


# --- rouge-score on tokens ---------------------------------------------------------
def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def rouge_n(hyp: list, ref: list, n: int) -> tuple:
    h, r = ngrams(hyp, n), ngrams(ref, n)
    overlap = sum(min(c, h[g]) for g, c in r.items())
    p, rc = overlap / max(sum(h.values()), 1), overlap / max(sum(r.values()), 1)
    return p, rc, f1(p, rc)


def lcs_table(a: list, b: list) -> list:
    t = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            t[i][j] = t[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(t[i - 1][j], t[i][j - 1])
    return t


def rouge_l(hyp: list, ref: list) -> tuple:
    if not hyp or not ref:
        return 0.0, 0.0, 0.0
    lcs = lcs_table(ref, hyp)[-1][-1]
    p, r = lcs / len(hyp), lcs / len(ref)
    return p, r, f1(p, r)


def lcs_positions(ref: list, can: list) -> set:
    """Positions in ref of one LCS, backtracked from the end (left move on a strict gain)."""
    t = lcs_table(ref, can)
    i, j, out = len(ref), len(can), set()
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.add(i - 1)
            i, j = i - 1, j - 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out


def rouge_lsum(hyp_lines: list, ref_lines: list) -> tuple:
    """Summary-level LCS over lists of token lines."""
    m, n = sum(map(len, ref_lines)), sum(map(len, hyp_lines))
    if not m or not n:
        return 0.0, 0.0, 0.0
    left_r = Counter(t for line in ref_lines for t in line)
    left_h = Counter(t for line in hyp_lines for t in line)
    hits = 0
    for r in ref_lines:
        union = set()
        for c in hyp_lines:
            union |= lcs_positions(r, c)
        for k in sorted(union):
            token = r[k]
            if left_h[token] > 0 and left_r[token] > 0:
                hits += 1
                left_h[token] -= 1
                left_r[token] -= 1
    p, r = hits / n, hits / m
    return p, r, f1(p, r)


# --- Self-BLEU (NLTK sentence_bleu, SmoothingFunction().method1) -----------------------
def nltk_bleu(hyp: list, refs: list, max_order: int = 4, epsilon: float = 0.1) -> float:
    correct, total = [], []
    for n in range(1, max_order + 1):
        h = ngrams(hyp, n)
        limit = Counter()
        for r in refs:
            for g, c in ngrams(r, n).items():
                limit[g] = max(limit[g], c)
        correct.append(sum(min(c, limit[g]) for g, c in h.items()))
        total.append(max(1, sum(h.values())))
    if correct[0] == 0:
        return 0.0
    ref_len = min((abs(len(r) - len(hyp)), len(r)) for r in refs)[1]
    c = len(hyp)
    bp = 1.0 if c > ref_len else (0.0 if c == 0 else math.exp(1 - ref_len / c))
    logs = [(1 / max_order) * math.log((k if k else epsilon) / t) for k, t in zip(correct, total)]
    return bp * math.exp(math.fsum(logs))


def self_bleu(responses: list, max_order: int = 4) -> list:
    toks = [r.split() for r in responses]
    return [nltk_bleu(toks[i], toks[:i] + toks[i + 1:], max_order) for i in range(len(toks))]
