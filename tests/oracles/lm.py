"""Readable Python versions of the language-model formulas, for the tests.

Written from the published descriptions (Chen & Goodman 1998 for modified
Kneser-Ney, with KenLM lmplz's conventions; Katz 1987 / Good 1953 with SRILM's
conventions; the ARPA backoff format), slow and obvious on purpose. Models are
dicts {ngram tuple: (log10 prob, log10 backoff)}.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict

MARKERS = {"<s>", "</s>", "<unk>"}


def count_ngrams(sentences, order, vocab=None):
    """Raw counts of every n-gram of <s> w1 .. wn </s>, orders 1..order."""
    counts = [Counter() for _ in range(order)]
    for sentence in sentences:
        words = [w for w in sentence.split() if w not in MARKERS]
        if vocab is not None:
            words = [w if w in vocab else "<unk>" for w in words]
        padded = ["<s>"] + words + ["</s>"]
        for n in range(1, order + 1):
            for i in range(len(padded) - n + 1):
                counts[n - 1][tuple(padded[i:i + n])] += 1
    for special in ("<unk>", "<s>", "</s>"):
        counts[0].setdefault((special,), 0)
    for word in vocab or ():
        counts[0].setdefault((word,), 0)
    return counts


def _log10(p):
    return math.log10(p) if p > 0 else -99.0


def _by_context(grams):
    groups = defaultdict(list)
    for gram in grams:
        groups[gram[:-1]].append(gram)
    return groups


# --- interpolated modified Kneser-Ney (lmplz) -------------------------------------
def kneser_ney_discounts(adjusted, fallback=(0.5, 1.0, 1.5)):
    t = Counter(a for a in adjusted.values() if 1 <= a <= 4)
    if t[1] and t[2] and t[3]:
        y = t[1] / (t[1] + 2 * t[2])
        d = [0.0] + [k - (k + 1) * y * t[k + 1] / t[k] for k in (1, 2, 3)]
        if all(0 <= d[k] <= k for k in (1, 2, 3)):
            return d
    return [0.0, *fallback]


def kneser_ney(sentences, order, fallback=(0.5, 1.0, 1.5)):
    counts = count_ngrams(sentences, order)
    # Adjusted counts: continuation counts below the highest order, except for
    # n-grams that start with <s>, which keep their counts (nothing precedes <s>).
    adjusted = [dict() for _ in range(order)]
    adjusted[order - 1] = dict(counts[order - 1])
    for n in range(order - 1):
        for gram, c in counts[n].items():
            adjusted[n][gram] = c if gram[0] == "<s>" and len(gram) > 1 else 0
        for longer in counts[n + 1]:
            if longer[1] != "<s>":
                adjusted[n][longer[1:]] += 1
    vocabulary = [g[0] for g in counts[0]]
    uniform = 1.0 / (len(vocabulary) - 1)  # every word but <s>
    prob, backoff = {}, {}
    for n in range(order):
        d = kneser_ney_discounts(adjusted[n], fallback)
        discount = lambda a: d[min(a, 3)] if a > 0 else 0.0  # noqa: E731
        for context, grams in _by_context(adjusted[n]).items():
            denominator = sum(adjusted[n][g] for g in grams)
            gamma = sum(discount(adjusted[n][g]) for g in grams) / denominator
            if n > 0:
                backoff[context] = gamma
            for g in grams:
                lower = uniform if n == 0 else prob[g[1:]]
                prob[g] = (adjusted[n][g] - discount(adjusted[n][g])) / denominator + gamma * lower
    prob[("<s>",)] = 1.0
    return {g: (_log10(p), math.log10(backoff.get(g, 1.0)) if len(g) < order else 0.0) for g, p in prob.items()}


# --- Katz backoff with Good-Turing discounts (SRILM) --------------------------------
def good_turing(counts_of_order, gtmin, gtmax, skip_bos=False):
    n = Counter(c for g, c in counts_of_order.items() if c >= 1 and not (skip_bos and g == ("<s>",)))
    k = gtmax if n[1] else 0
    while k > 0 and n[k + 1] == 0:
        k -= 1
    coeff = {}
    if k > 0:
        common = (k + 1) * n[k + 1] / n[1]
        for r in range(1, k + 1):
            coeff[r] = 1.0
            if n[r]:
                ratio = (r + 1) * n[r + 1] / (r * n[r])
                value = (ratio - common) / (1 - common)
                if math.isfinite(value) and value > 3e-6 and ratio <= 1:
                    coeff[r] = value

    def discount(c):
        if c < gtmin:
            return 0.0
        return coeff.get(c, 1.0) if c <= k else 1.0
    return discount


def katz(sentences, order, gtmin=None, gtmax=None):
    gtmin = gtmin or [1, 1] + [2] * (order - 2)
    gtmax = gtmax or [1] + [7] * (order - 1)
    counts = count_ngrams(sentences, order)
    discounts = [good_turing(counts[n], gtmin[n], gtmax[n], skip_bos=n == 0) for n in range(order)]
    prob, backoff = {}, {}
    # Unigrams: discounted relative frequencies; the left-over mass goes to the
    # words with zero probability, or to every word when there are none.
    events = [g for g in counts[0] if g != ("<s>",)]
    total = sum(counts[0][g] for g in events)
    for g in events:
        prob[g] = discounts[0](counts[0][g]) * counts[0][g] / total
    left = 1.0 - sum(prob.values())
    zeros = [g for g in events if prob[g] == 0]
    if left > 1e-12:  # below is rounding noise
        for g in zeros or events:
            prob[g] += left / len(zeros or events)
    for n in range(1, order):
        for context, grams in _by_context(counts[n]).items():
            total = sum(counts[n][g] for g in grams)
            kept = {g: discounts[n](counts[n][g]) * counts[n][g] / total for g in grams}
            if 1 - sum(kept.values()) <= 1e-12:  # nothing left to back off with
                total += 1
                kept = {g: discounts[n](counts[n][g]) * counts[n][g] / total for g in grams}
            kept = {g: p for g, p in kept.items() if p > 0}
            if not kept:
                continue
            lower = sum(prob[g[1:]] for g in kept)
            if 1 - lower < 3e-6:
                used = sum(kept.values())
                kept = {g: p / used for g, p in kept.items()}
                backoff[context] = 0.0
            else:
                backoff[context] = (1 - sum(kept.values())) / (1 - lower)
            prob.update(kept)
    model = {g: (_log10(p), _log10(backoff.get(g, 1.0)) if len(g) < order else 0.0) for g, p in prob.items()}
    model[("<s>",)] = (-99.0, _log10(backoff.get(("<s>",), 1.0)))
    return model


# --- ARPA files and backoff queries --------------------------------------------------
def read_arpa(path):
    """{ngram tuple: (log10 prob, log10 backoff)} of an ARPA file."""
    model = {}
    section = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("ngram ") or line in ("\\data\\", "\\end\\"):
                continue
            if line.startswith("\\") and line.endswith("-grams:"):
                section = int(line[1:line.index("-")])
                continue
            fields = line.split()
            gram = tuple(fields[1:1 + section])
            model[gram] = (float(fields[0]), float(fields[1 + section]) if len(fields) > 1 + section else 0.0)
    return model


class BackoffModel:
    """ARPA backoff semantics over a {ngram: (log10 prob, log10 backoff)} dict."""

    def __init__(self, entries):
        self.entries = entries
        self.order = max(len(g) for g in entries)

    def log10_prob(self, context, word):
        """log10 p(word | context); unknown words score as <unk>."""
        if (word,) not in self.entries:
            word = "<unk>"
        context = tuple(context)[max(0, len(context) - (self.order - 1)):] if self.order > 1 else ()
        total = 0.0
        while True:
            if context + (word,) in self.entries:
                return total + self.entries[context + (word,)][0]
            if context in self.entries:
                total += self.entries[context][1]
            context = context[1:]


def sentence_log10(model: BackoffModel, sentence, bos=True, eos=True):
    """kenlm.Model.score's definition: <s> as the first context, </s> scored last."""
    words = sentence.split() + (["</s>"] if eos else [])
    history = ["<s>"] if bos else []
    total = 0.0
    for w in words:
        total += model.log10_prob(history, w)
        history.append(w if (w,) in model.entries else "<unk>")
    return total


def context_sums(model: BackoffModel):
    """For the empty context and every n-gram that is a context in the model:
    the sum over the vocabulary (<s> excluded) of p(w | context)."""
    vocabulary = [g[0] for g in model.entries if len(g) == 1 and g[0] != "<s>"]
    contexts = {()} | {g[:-1] for g in model.entries if len(g) > 1}
    return {c: math.fsum(10 ** model.log10_prob(c, w) for w in vocabulary) for c in contexts}
