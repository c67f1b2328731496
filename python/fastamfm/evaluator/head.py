"""``EvaluatorHead``: the trained part of the evaluator, over sentence vectors of a frozen
packaged encoder.

Inputs per example: the context vector ``c`` (the context turns' unit vectors averaged
with weight decay**k for the turn k places before the last, re-normalised, as Deep AM
does), the last turn's vector ``l`` and the response's vector ``r``. Outputs: one logit
per sub-score (``SUB_SCORES``, in that order):

- ``relevance``: an MLP over the interaction of the projected vectors
  (``P c ⊙ P r``, ``P l ⊙ P r``, ``|P c − P r|``) and the raw cosines cos(c, r), cos(l, r)
  (the frozen encoder's own similarity, which already tracks relevance: the head starts
  from it and learns what it misses);
- ``validity``: an MLP over the projected response alone (is it a well-formed, specific
  utterance at all).

``P`` (``projection``) is the dialogue projection learned with the heads: the
"pre-trained dialogue encoder" of ADEM, whose vectors ``Evaluator.encoder`` hands to
``LearnedScorer``.

Why a head on a frozen encoder, and not the whole transformer fine-tuned as a
cross-encoder: measured in benchmarks/evaluator/ (README there), a MiniLM cross-encoder
needs far more examples than two CPU cores give in an hour before it reaches the frozen
encoder's cosine; the head trains on every pair of the corpus in that time, because
each turn is encoded once (forward only) and the head's steps cost next to nothing.
"""
from __future__ import annotations

# The head's outputs, in order; training labels each example with one value per sub-score.
SUB_SCORES = ("relevance", "validity")


def build_head(dim: int, *, projection: int = 128, hidden: int = 256):
    """A freshly initialised ``EvaluatorHead`` for ``dim``-dimensional sentence vectors
    (seed torch before calling for a reproducible initialisation)."""
    from ..runtime import import_torch

    import_torch()   # an ImportError naming the extra when torch is missing
    import torch
    from torch import nn

    class EvaluatorHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.dim, self.projection_size, self.hidden = dim, projection, hidden
            self.projection = nn.Linear(dim, projection)
            self.relevance = nn.Sequential(nn.Linear(3 * projection + 2, hidden), nn.GELU(), nn.Linear(hidden, 1))
            self.validity = nn.Sequential(nn.Linear(projection, hidden), nn.GELU(), nn.Linear(hidden, 1))

        def project(self, vectors):
            """The dialogue vectors (unit length) of sentence vectors [n, dim]."""
            return nn.functional.normalize(self.projection(vectors), dim=-1)

        def forward(self, context, last, response):
            """Logits [n, 2] (``SUB_SCORES`` in order) from unit vectors [n, dim] each."""
            pc, pl, pr = self.projection(context), self.projection(last), self.projection(response)
            cosines = torch.stack([(context * response).sum(-1), (last * response).sum(-1)], dim=-1)
            features = torch.cat([pc * pr, pl * pr, (pc - pr).abs(), cosines], dim=-1)
            return torch.cat([self.relevance(features), self.validity(pr)], dim=-1)

    return EvaluatorHead()


def head_settings(head) -> dict:
    return {"dim": head.dim, "projection": head.projection_size, "hidden": head.hidden}
