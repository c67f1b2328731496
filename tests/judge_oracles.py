"""The plain transformers loop the judges are tested against: one forward per follow-up
or prompt, no cache, no prefix shared (``oracles/neural_lm.py``), over the token ids the
library's formatting builds, and the judges' formulas written out readably."""
from __future__ import annotations

import numpy as np
from oracles.neural_lm import token_log_probs


def followup_log_probs(model, requests) -> np.ndarray:
    """Mean ln p of each continuation, one forward each: [n, K]."""
    return np.array([[token_log_probs(model, r.prefix, c).mean() for c in r.continuations] for r in requests])


def answer_log_probs(model, requests, answers) -> np.ndarray:
    """ln p of each answer token after each continuation, one forward each: [n, K, C]."""
    import torch

    out = []
    for r in requests:
        per = []
        for c in r.continuations:
            ids = torch.tensor([list(r.prefix) + list(c)])
            with torch.no_grad():
                log_probs = torch.log_softmax(model(input_ids=ids).logits[0, -1].double(), dim=-1)
            per.append([log_probs[a].item() for a in answers])
        out.append(per)
    return np.array(out)


def expected_rating(log_probs) -> float:
    """sum_k k p(k) / sum_k p(k) over the ratings 1..len(log_probs)."""
    p = [np.exp(v) for v in log_probs]
    return sum((k + 1) * pk for k, pk in enumerate(p)) / sum(p)
