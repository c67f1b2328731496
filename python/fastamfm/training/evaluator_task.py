"""``EvaluatorTask``: the evaluator's objective as a ``fastamfm.training`` task.

- ``examples(dialogue)``: the ``NegativeSampler``'s positives and negatives of one
  dialogue (``negatives.py``);
- ``collate(examples)``: the head's inputs, looked up in ``TurnVectors`` (each distinct
  text encoded once by the frozen encoder: deterministic, so a resumed run collates the
  same tensors), and the labels;
  (``num_tokens`` counts the words of contexts and responses: the progress line's rate);
- ``loss``: binary cross-entropy of each sub-score's logit against its label
  (``Example.labels``), summed over the sub-scores.
"""
from __future__ import annotations

import numpy as np

from .turn_pool import dialogue_key


class EvaluatorTask:
    name = "evaluator"

    def __init__(self, head, vectors, sampler, *, decay: float):
        self.model = head
        self.vectors = vectors
        self.sampler = sampler
        self.decay = decay

    def examples(self, dialogue):
        return self.sampler.examples(dialogue_key(dialogue.turns), list(dialogue.turns))

    def collate(self, examples: list) -> dict:
        from ..runtime import import_torch

        torch = import_torch()
        contexts = [list(e.context) for e in examples]
        responses = [e.response for e in examples]
        context, last, response = self.vectors.triples(contexts, responses, decay=self.decay)
        labels = np.array([e.labels for e in examples], dtype=np.float32)
        words = sum(len(r.split()) + sum(len(t.split()) for t in c) for c, r in zip(contexts, responses))
        return {"context": torch.from_numpy(context), "last": torch.from_numpy(last),
                "response": torch.from_numpy(response), "labels": torch.from_numpy(labels),
                "num_tokens": words, "num_examples": len(examples)}

    def loss(self, model, batch: dict):
        from ..runtime import import_torch

        torch = import_torch()
        logits = model(batch["context"], batch["last"], batch["response"])
        per_score = torch.nn.functional.binary_cross_entropy_with_logits(logits, batch["labels"], reduction="none")
        return per_score.mean(0).sum()
