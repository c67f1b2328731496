"""What the neural suite (bench.py) and the side-by-side script (compare.py) share: the
peer a user would write with sentence-transformers, and how far two encodings are apart."""
from __future__ import annotations

import numpy as np


def cosine_gap(a, b) -> float:
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(np.max(np.abs(1 - cos)))


def peer_system_scores(peer, hyps, flat_refs, offsets):
    """The per-system script a user writes with sentence-transformers."""
    h = peer.encode(hyps, batch_size=32, normalize_embeddings=True)
    r = peer.encode(flat_refs, batch_size=32, normalize_embeddings=True)
    cos = np.einsum("id,id->i", np.repeat(h, np.diff(offsets), axis=0), r)
    return np.maximum.reduceat(cos, offsets[:-1])
