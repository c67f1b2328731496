"""The plain ``transformers`` loop the neural LM engines are tested against: one
sequence at a time, the model's full output logits, a log-softmax, and the log-probability
of each response token read at the position that predicts it. No batching, padding,
caching or projection shortcut."""
from __future__ import annotations

import numpy as np


def token_log_probs(model, prefix: list, target: list) -> np.ndarray:
    """ln p(target[j] | prefix + target[:j]) for every j, float64."""
    import torch

    ids = torch.tensor([list(prefix) + list(target)], dtype=torch.long)
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0].double()
    log_probs = torch.log_softmax(logits, dim=-1)
    start = len(prefix) - 1
    return np.array([log_probs[start + j, t].item() for j, t in enumerate(target)], dtype=np.float64)


def mean_log_prob(model, prefix: list, target: list) -> float:
    scores = token_log_probs(model, prefix, target)
    return float(scores.mean()) if len(scores) else float("nan")
