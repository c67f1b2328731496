"""The ``transformers`` engine of ``NeuralLM``: log-probabilities of response tokens
with PyTorch, on the CPU or a GPU.

What makes it faster than a plain loop over padded batches, without changing a number
beyond float rounding:
- every distinct token prefix is evaluated once: the requests form a prefix tree
  (``token_trie``), packed into rows of at most ``row_tokens`` nodes and run with an
  ancestor attention mask and depth position ids (tree attention). A context shared by
  candidate responses, or a generic reply given by many systems, costs one evaluation;
- rows hold many short sequences back to back, so there is almost no padding, and rows
  of similar length form a batch of at most ``batch_tokens`` tokens;
- the output projection (the vocabulary-sized matrix, a fifth of a small model's cost per
  token) runs only at the nodes that predict a response token, once per distinct node.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..models.safe_loading import (
    from_pretrained,
    refuse_non_finite,
    refuse_non_finite_weights,
)
from ..runtime import import_torch, import_transformers, resolve_torch_device
from .token_trie import TokenTrie

DTYPES = ("float32", "bfloat16", "float16")
# States projected onto the vocabulary at once (bounds the [rows, vocab] logits).
_HEAD_ROWS = 256


class TransformersEngine:
    name = "transformers"

    def __init__(self, model, tokenizer, *, device: str, dtype: str, batch_tokens: int = 4096,
                 row_tokens: int = 512, share_prefixes: bool = True, source: Path | None = None):
        torch = import_torch()
        self.tokenizer = tokenizer
        self.device = device
        self.dtype = dtype
        self.batch_tokens = batch_tokens
        self.row_tokens = row_tokens
        self.share_prefixes = share_prefixes
        self.source = Path(source or model.name_or_path)  # the model file or directory errors name
        self._model = model
        self._body = model.base_model
        self._head = model.get_output_embeddings()
        if not isinstance(self._head, torch.nn.Linear):
            raise ValueError(f"NeuralLM: the transformers engine needs a linear output projection; "
                             f"{type(model).__name__} has {type(self._head).__name__}")
        self.max_length = getattr(model.config, "max_position_embeddings", None) or getattr(model.config, "n_positions",
                                                                                               None)
        refuse_non_finite_weights(model, self.source)
        self._check_head()

    @classmethod
    def load(cls, directory: Path, tokenizer, *, device: str = "auto", dtype: str = "float32",
             batch_tokens: int = 4096, source: Path | None = None) -> "TransformersEngine":
        """``directory``'s model; ``source``: what errors name (the GGUF file it was converted from)."""
        if dtype not in DTYPES:
            raise ValueError(f"NeuralLM: dtype must be one of {DTYPES}, got {dtype!r}")
        torch = import_torch()
        transformers = import_transformers()
        device = resolve_torch_device(device)
        model = from_pretrained(transformers.AutoModelForCausalLM, directory, "language model", weights=True,
                                dtype=getattr(torch, dtype), attn_implementation="sdpa")
        model.to(device).eval()
        return cls(model, tokenizer, device=device, dtype=dtype, batch_tokens=batch_tokens, source=source or directory)

    def _check_head(self) -> None:
        """The projection-at-chosen-positions shortcut must equal the model's own logits;
        a model that transforms its logits (soft-capping, scaling) is refused."""
        torch = import_torch()
        ids = torch.arange(1, 9, device=self.device)[None] % self._head.weight.shape[0]
        with torch.inference_mode():
            full = self._model(input_ids=ids).logits[0].float().log_softmax(-1)
            ours = self._head(self._body(input_ids=ids).last_hidden_state[0]).float().log_softmax(-1)
        refuse_non_finite(full, self.source, "logits")
        tolerance = 1e-4 if self.dtype == "float32" else 1e-2
        if not torch.allclose(full, ours, atol=tolerance, rtol=0):
            raise ValueError(f"NeuralLM: {type(self._model).__name__} post-processes its logits; the transformers "
                             f"engine supports models whose logits are the output projection of the last hidden state")

    def describe(self) -> str:
        return f"transformers:{self.dtype}:{self.device}"

    # --- scoring -----------------------------------------------------------------
    def log_probs(self, requests: list) -> list:
        """Per request, a float32 tensor (on the device) of ln p(target token | everything before it)."""
        torch = import_torch()
        trie = TokenTrie([r.prefix + r.target for r in requests], shared=self.share_prefixes)
        needed = np.zeros(len(trie), dtype=bool)
        for request, path in zip(requests, trie.paths):
            needed[path[len(request.prefix):]] = True
        node_tokens = np.asarray(trie.token, dtype=np.int64)
        node_scores = torch.zeros(len(trie), dtype=torch.float32, device=self.device)
        rows = sorted(trie.pack(self.row_tokens), key=len, reverse=True)
        with torch.inference_mode():
            start = 0
            while start < len(rows):
                count = max(1, self.batch_tokens // len(rows[start]))
                self._score_rows(rows[start:start + count], needed, node_tokens, node_scores)
                start += count
            return [node_scores[torch.as_tensor(path[len(r.prefix):], dtype=torch.long, device=self.device)]
                    for r, path in zip(requests, trie.paths)]

    def _score_rows(self, rows: list, needed: np.ndarray, node_tokens: np.ndarray, node_scores) -> None:
        """One forward pass over packed rows; the scores of the needed nodes whose parent
        is in a row (each node scored once: ``needed`` is cleared as they are done)."""
        torch = import_torch()
        width = len(rows[0])
        ids = np.zeros((len(rows), width), dtype=np.int64)
        positions = np.zeros((len(rows), width), dtype=np.int64)
        allowed = np.zeros((len(rows), 1, width, width), dtype=bool)
        allowed[:, 0, np.arange(width), np.arange(width)] = True       # padding attends to itself only
        parent_at, node_at = [], []
        for b, row in enumerate(rows):
            n = len(row)
            ids[b, :n], positions[b, :n] = row.tokens, row.positions
            allowed[b, 0, :n, :n] = row.ancestor_mask()
            scored = np.nonzero(needed[row.nodes] & (row.parents >= 0))[0]
            needed[row.nodes[scored]] = False
            parent_at.append(b * width + row.parents[scored])
            node_at.append(row.nodes[scored])
        parent_at, node_at = np.concatenate(parent_at), np.concatenate(node_at)
        if len(node_at) == 0:
            return
        dtype = self._head.weight.dtype
        mask = torch.zeros(allowed.shape, dtype=dtype)
        mask.masked_fill_(torch.from_numpy(~allowed), torch.finfo(dtype).min)
        hidden = self._body(input_ids=torch.from_numpy(ids).to(self.device),
                            position_ids=torch.from_numpy(positions).to(self.device),
                            attention_mask=mask.to(self.device)).last_hidden_state
        hidden = hidden.reshape(-1, hidden.shape[-1])
        # Each distinct parent's normaliser once (a context's last token predicts the first
        # token of every candidate), the chosen logits as dot products.
        parents, inverse = np.unique(parent_at, return_inverse=True)
        states = hidden[self._index(parents)]
        tokens = self._index(node_tokens[node_at])
        node_scores[self._index(node_at)] = self._target_log_probs(states, self._index(inverse), tokens)

    def _index(self, values):
        torch = import_torch()
        return torch.as_tensor(np.asarray(values, dtype=np.int64), device=self.device)

    def _target_log_probs(self, states, inverse, targets):
        """ln softmax(head(states[inverse[k]]))[targets[k]]: the vocabulary projection in
        slices of ``_HEAD_ROWS`` states (bounds the [rows, vocab] logits)."""
        torch = import_torch()
        normalisers = torch.cat([torch.logsumexp(self._head(states[s:s + _HEAD_ROWS]).float(), dim=-1)
                                 for s in range(0, states.shape[0], _HEAD_ROWS)])
        chosen = (states[inverse].float() * self._head.weight[targets].float()).sum(-1)
        if self._head.bias is not None:
            chosen = chosen + self._head.bias[targets].float()
        return chosen - normalisers[inverse]
