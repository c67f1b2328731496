"""Readable reference versions of LSI training and AM scoring, built from
scikit-learn / numpy pieces, for the tests and benchmarks to compare against."""
from __future__ import annotations

import bz2
import csv
import re
import string
import unicodedata

import numpy as np
import scipy.sparse
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.preprocessing import normalize

_KEPT_PUNCTUATION = "'-%"


def amfm_tokenize(text: str) -> list[str]:
    """The AM-FM toolkit normalisation, written out plainly: NFKC, lowercase, punctuation
    removed except apostrophe, hyphen and %, which become tokens of their own."""
    text = unicodedata.normalize("NFKC", text).lower()
    out = []
    for ch in text:
        if ch in _KEPT_PUNCTUATION:
            out.append(f" {ch} ")
        elif ch in string.punctuation or (ord(ch) > 127 and unicodedata.category(ch).startswith("P")):
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out).split()


def count_vectorizer(vocabulary) -> CountVectorizer:
    return CountVectorizer(vocabulary=list(vocabulary), tokenizer=amfm_tokenize, lowercase=False, token_pattern=None)


def fitted_vocabulary(corpus, min_count: int = 1) -> list[str]:
    """Words occurring at least min_count times in the corpus, sorted (as LsiModel sorts them)."""
    cv = CountVectorizer(tokenizer=amfm_tokenize, lowercase=False, token_pattern=None)
    counts = np.asarray(cv.fit_transform(corpus).sum(axis=0)).ravel()
    words = cv.get_feature_names_out()
    return sorted(w for w, c in zip(words, counts) if c >= min_count)


def weighted_matrix(corpus, vocabulary, weighting: str) -> scipy.sparse.csr_matrix:
    """Documents x terms, weighted as LsiModel documents its weightings."""
    if weighting == "tfidf":
        return TfidfVectorizer(vocabulary=list(vocabulary), tokenizer=amfm_tokenize, lowercase=False,
                               token_pattern=None).fit_transform(corpus).tocsr()
    counts = count_vectorizer(vocabulary).transform(corpus).astype(np.float64).tocsr()
    if weighting == "counts":
        return counts
    # log-entropy: ln(1 + tf) * (1 + sum_j p ln p / ln N)
    n_docs = counts.shape[0]
    dense = counts.toarray()
    gf = dense.sum(axis=0)
    p = np.divide(dense, gf, out=np.zeros_like(dense), where=gf > 0)
    plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=0)
    g = 1.0 + plogp / np.log(n_docs) if n_docs > 1 else np.ones_like(gf)
    return scipy.sparse.csr_matrix(np.log1p(dense) * g)


def exact_lsi(corpus, vocabulary, weighting: str, k: int):
    """Exact top-k singular values and left singular vectors (terms x k) by dense SVD."""
    x = weighted_matrix(corpus, vocabulary, weighting).toarray()
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    return s[:k], vt[:k].T


def subspace_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosines of the principal angles between the column spaces of a and b (orthonormal)."""
    return np.linalg.svd(a.T @ b, compute_uv=False)


def unit_rows(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def project(sentences, vocabulary, components, dims: int, weighting: str = "counts", global_weights=None):
    """Weighted bag of words x U[:, :dims] (tf-idf bags L2-normalised) with scikit-learn counts."""
    counts = count_vectorizer(vocabulary).transform(sentences).astype(np.float64).tocsr()
    g = np.ones(len(vocabulary)) if global_weights is None else np.asarray(global_weights)
    local = counts.log1p() if weighting == "log-entropy" else counts
    x = local @ scipy.sparse.diags(g)
    if weighting == "tfidf":
        x = normalize(x)
    return np.asarray(x @ np.asarray(components, dtype=np.float64)[:, :dims])


def am_scores(hyps, refs, vocabulary, components, dims: int, combine: str = "max", weighting: str = "counts",
              global_weights=None) -> np.ndarray:
    """AM per response: cosine in the LSI space, negatives clipped to 0, combined over references."""
    h = unit_rows(project(hyps, vocabulary, components, dims, weighting, global_weights))
    flat = [r for group in refs for r in group]
    r = unit_rows(project(flat, vocabulary, components, dims, weighting, global_weights))
    scores = np.zeros(len(hyps))
    start = 0
    for i, group in enumerate(refs):
        block = r[start:start + len(group)]
        start += len(group)
        if combine == "centroid":
            c = block.sum(axis=0)
            norm = np.linalg.norm(c)
            scores[i] = max(0.0, float(h[i] @ c) / norm) if norm > 0 else 0.0
            continue
        cosines = np.maximum(block @ h[i], 0.0)
        scores[i] = cosines.max() if combine == "max" else cosines.mean()
    return scores


_AGENT_TURN = re.compile(r"<rep__ (.*?) __rep>")


def twcs_agent_turns(twcs_dir, limit: int | None = None) -> list[str]:
    """The agent (``<rep__ ... __rep>``) turns of the processed TWCS airline conversations."""
    turns: list[str] = []
    with bz2.open(twcs_dir / "airlines_processed.csv.bz2", "rt", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            turns.extend(_AGENT_TURN.findall(row["context"]))
            if limit is not None and len(turns) >= limit:
                return turns[:limit]
    return turns
