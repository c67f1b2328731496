"""Readable oracles of the neural metrics: one sentence at a time through a plain
``transformers`` forward (no batching, no padding), pooling and cosines in numpy,
BERTScore's greedy matching as loops."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np


def load_plain(directory):
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(directory))
    model = transformers.AutoModel.from_pretrained(str(directory), attn_implementation="eager").eval().float()
    return tokenizer, model


def hidden_states(tokenizer, model, sentence: str, layer: int, max_length: int) -> np.ndarray:
    """[tokens, d] hidden state of one sentence at ``layer`` (0 = embeddings)."""
    import torch

    ids = tokenizer(sentence, truncation=True, max_length=max_length, return_tensors="pt")
    with torch.no_grad():
        out = model(input_ids=ids["input_ids"], attention_mask=ids["attention_mask"], output_hidden_states=True)
    return out.hidden_states[layer][0].double().numpy()


def sentence_vector(hidden: np.ndarray, pooling: str, normalize: bool) -> np.ndarray:
    if pooling == "cls":
        v = hidden[0]
    elif pooling == "sum":
        v = hidden.sum(0)
    else:
        v = hidden.mean(0)
    return v / np.linalg.norm(v) if normalize else v


def sentence_vectors(tokenizer, model, sentences, *, pooling="mean", layer=-1, normalize=True, max_length=256):
    return np.array([sentence_vector(hidden_states(tokenizer, model, s, layer, max_length), pooling, normalize)
                     for s in sentences])


def cosine(a, b) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def deep_am_references(hyp_vectors, ref_vectors_per_segment, combine="max"):
    out = []
    for h, refs in zip(hyp_vectors, ref_vectors_per_segment):
        cosines = [cosine(h, r) for r in refs]
        if combine == "max":
            out.append(max(cosines))
        elif combine == "mean":
            out.append(sum(cosines) / len(cosines))
        else:
            out.append(cosine(h, sum(r / np.linalg.norm(r) for r in refs)))
    return np.array(out)


def deep_am_context(hyp_vector, turn_vectors, mode, recency=0.5):
    """``turn_vectors``: the context's turns, oldest first (for "joined": one vector)."""
    if mode in ("last", "joined"):
        return cosine(hyp_vector, turn_vectors[-1])
    weights = [recency ** (len(turn_vectors) - 1 - k) for k in range(len(turn_vectors))]
    return cosine(hyp_vector, sum(w * t / np.linalg.norm(t) for w, t in zip(weights, turn_vectors)))


# --- BERTScore -------------------------------------------------------------------------
def idf_weights(ref_token_ids: list) -> tuple:
    """bert-score's idf over the flattened references: ({id: idf}, weight of unseen ids)."""
    m = len(ref_token_ids)
    df = Counter(t for ids in ref_token_ids for t in set(ids))
    return {t: math.log((m + 1) / (c + 1)) for t, c in df.items()}, math.log(m + 1)


def bertscore_pair(hyp_vectors, hyp_weights, ref_vectors, ref_weights):
    """(P, R, F) of one pair from token vectors and weights (loops over tokens)."""
    if sum(hyp_weights) == 0 or sum(ref_weights) == 0:
        return 0.0, 0.0, 0.0
    unit = lambda v: v / np.linalg.norm(v)  # noqa: E731
    hyp = [unit(v) for v in hyp_vectors]
    ref = [unit(v) for v in ref_vectors]
    p = sum(w * max(float(h @ r) for r in ref) for h, w in zip(hyp, hyp_weights)) / sum(hyp_weights)
    r = sum(w * max(float(h @ rv) for h in hyp) for rv, w in zip(ref, ref_weights)) / sum(ref_weights)
    f = 2 * p * r / (p + r) if p + r != 0 else 0.0
    return p, r, f


def bertscore(tokenizer, model, hyps, refs, *, layer, idf=False, max_length=512, baseline=None):
    """[n, 3] P/R/F: each column the max over the references; optional (P, R, F) baseline."""
    def tokens(text):
        ids = tokenizer(text.strip(), truncation=True, max_length=max_length)["input_ids"]
        return ids, hidden_states(tokenizer, model, text.strip(), layer, max_length)

    special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
    flat_refs = [r for rs in refs for r in rs]
    if idf:
        table, unseen = idf_weights([tokens(r)[0] for r in flat_refs])
        weight = lambda t: table.get(t, unseen)  # noqa: E731
    else:
        weight = lambda t: 0.0 if t in special else 1.0  # noqa: E731
    out = []
    for h, rs in zip(hyps, refs):
        h_ids, h_vec = tokens(h)
        pairs = []
        for r in rs:
            r_ids, r_vec = tokens(r)
            pairs.append(bertscore_pair(h_vec, [weight(t) for t in h_ids], r_vec, [weight(t) for t in r_ids]))
        out.append([max(p[c] for p in pairs) for c in range(3)])
    out = np.array(out)
    if baseline is not None:
        out = (out - np.asarray(baseline)) / (1 - np.asarray(baseline))
    return out
