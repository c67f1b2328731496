"""How token states become one sentence vector: shared by scoring and fine-tuning, so a
fine-tuned encoder is trained on exactly the vectors it is scored with."""
from __future__ import annotations

from ..runtime import import_torch


def pool_sentences(hidden, mask, pooling: str, normalize: bool):
    """Sentence vectors [b, d] from token states [b, t, d] and the mask [b, t] of real
    tokens: "cls" (the first token), "sum" or "mean" over the real tokens, then L2
    normalisation. The one pooling of scoring (``encoder``) and of fine-tuning (``encoder_training``)."""
    torch = import_torch()
    if pooling == "cls":
        pooled = hidden[:, 0]
    else:
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * weights).sum(1)
        if pooling == "mean":
            pooled = pooled / weights.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, dim=-1) if normalize else pooled
