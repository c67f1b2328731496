"""The ``transformers`` engine of ``NeuralLM``: log-probabilities of response tokens
with PyTorch, on the CPU or a GPU.

What makes it faster than a plain loop over padded batches, without changing a number
beyond float rounding:
- every distinct token prefix is evaluated once: the requests form a prefix tree
  (``token_trie``), packed into rows of at most ``row_tokens`` nodes and run with an
  ancestor attention mask and depth position ids (tree attention). A context shared by
  candidate responses, or a generic reply given by many systems, costs one evaluation;
- rows hold many short sequences back to back, so there is almost no padding, and rows
  of similar length form a batch of at most ``batch_tokens`` tokens (on a CPU at most 5%
  of them padding: ``padded_batches``);
- the output projection (the vocabulary-sized matrix, a fifth of a small model's cost per
  token) runs only at the nodes that predict a response token, once per distinct node.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np

from ..models.safe_loading import (
    from_pretrained,
    refuse_non_finite,
    refuse_non_finite_weights,
)
from ..progress import task
from ..runtime import import_torch, import_transformers, resolve_torch_device
from .batching import padded_batches
from .token_trie import TokenTrie

DTYPES = ("float32", "bfloat16", "float16")
# States projected onto the vocabulary at once (bounds the [rows, vocab] logits).
_HEAD_ROWS = 256
# The share of a CPU forward pass's tokens that may be padding (``padded_batches``): a CPU
# pays for every padded token, so rows of uneven length (dialogue contexts of 2 to 20 turns)
# go to passes of their own rather than pad a batch; a GPU keeps its fewer, larger passes.
# Measured on Topical-Chat replies with 10 turns of context: 14% of the tokens were padding.
CPU_MAX_PADDING = 0.05


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
        self.max_padding = CPU_MAX_PADDING if device == "cpu" else None
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
        # transformers 5 names the key/value cache argument ``cache``; earlier versions ``past_key_values``.
        self._cache_keyword = "cache" if "cache" in inspect.signature(self._body.forward).parameters \
            else "past_key_values"

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
    def log_probs(self, requests: list, *, shared: bool | None = None) -> list:
        """Per request, a float32 tensor (on the device) of ln p(target token | everything before it).
        ``shared=False``: no prefix shared between requests (the baseline of ``continuations``)."""
        torch = import_torch()
        trie = TokenTrie([r.prefix + r.target for r in requests],
                         shared=self.share_prefixes if shared is None else shared)
        needed = np.zeros(len(trie), dtype=bool)
        for request, path in zip(requests, trie.paths):
            needed[path[len(request.prefix):]] = True
        node_tokens = np.asarray(trie.token, dtype=np.int64)
        node_scores = torch.zeros(len(trie), dtype=torch.float32, device=self.device)
        rows = sorted(trie.pack(self.row_tokens), key=len, reverse=True)
        batches = padded_batches([len(row) for row in rows], self.batch_tokens, self.max_padding)
        with torch.inference_mode(), task("LM forward passes", total=len(batches), unit="batch") as passes:
            for batch in batches:
                self._score_rows([rows[i] for i in batch], needed, node_tokens, node_scores)
                passes.advance()
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
        parent_parts: list[np.ndarray] = []
        node_parts: list[np.ndarray] = []
        for b, row in enumerate(rows):
            n = len(row)
            ids[b, :n], positions[b, :n] = row.tokens, row.positions
            allowed[b, 0, :n, :n] = row.ancestor_mask()
            scored = np.nonzero(needed[row.nodes] & (row.parents >= 0))[0]
            needed[row.nodes[scored]] = False
            parent_parts.append(b * width + row.parents[scored])
            node_parts.append(row.nodes[scored])
        parent_at, node_at = np.concatenate(parent_parts), np.concatenate(node_parts)
        if len(node_at) == 0:
            return
        hidden = self._body(input_ids=torch.from_numpy(ids).to(self.device),
                            position_ids=torch.from_numpy(positions).to(self.device),
                            attention_mask=self._mask(allowed)).last_hidden_state
        hidden = hidden.reshape(-1, hidden.shape[-1])
        # Each distinct parent's normaliser once (a context's last token predicts the first
        # token of every candidate), the chosen logits as dot products.
        parents, inverse = np.unique(parent_at, return_inverse=True)
        states = hidden[self._index(parents)]
        tokens = self._index(node_tokens[node_at])
        node_scores[self._index(node_at)] = self._target_log_probs(states, self._index(inverse), tokens)

    def continuation_log_probs(self, requests: list, candidates: tuple) -> tuple:
        """``continuations``' method "cache": each prefix run once with its key/value cache
        kept, the cache expanded over the prefix's continuations, which alone then run.
        Returns (per request a list of float64 arrays: ln p of each continuation token;
        per request a float64 [K, len(candidates)] array: ln p of each candidate token
        after each continuation)."""
        torch = import_torch()
        log_probs = [[None] * len(r.continuations) for r in requests]
        ends = [np.zeros((len(r.continuations), len(candidates))) for r in requests]
        order = sorted(range(len(requests)), key=lambda i: len(requests[i].prefix))
        with torch.inference_mode():
            start = 0
            while start < len(order):
                # Prefixes sorted by length: a batch is padded to its last (longest) one.
                end = start + 1
                while end < len(order) and (end + 1 - start) * len(requests[order[end]].prefix) <= self.batch_tokens:
                    end += 1
                self._cached_batch([requests[i] for i in order[start:end]], order[start:end], candidates,
                                   log_probs, ends)
                start = end
        return log_probs, ends

    def _cached_batch(self, batch: list, where: list, candidates: tuple, log_probs: list, ends: list) -> None:
        torch = import_torch()
        lengths = np.array([len(r.prefix) for r in batch])
        width = int(lengths.max())
        ids = np.zeros((len(batch), width), dtype=np.int64)
        for b, r in enumerate(batch):
            ids[b, :lengths[b]] = r.prefix
        valid = np.arange(width)[None, :] < lengths[:, None]
        causal = np.tril(np.ones((width, width), dtype=bool))
        allowed = causal[None] & valid[:, None, :] | np.eye(width, dtype=bool)[None]
        output = self._body(input_ids=self._index(ids), position_ids=self._index(np.tile(np.arange(width), (len(batch), 1))),
                            attention_mask=self._mask(allowed[:, None]), use_cache=True)
        cache = output["cache"] if "cache" in output else output["past_key_values"]
        last = output.last_hidden_state[torch.arange(len(batch)), self._index(lengths - 1)]
        # The continuations of the batch, in groups whose expanded cache stays within the token budget.
        items = [(b, k) for b, r in enumerate(batch) for k in range(len(r.continuations))]
        longest = max(len(batch[b].continuations[k]) for b, k in items)
        group = max(1, self.batch_tokens // (width + max(longest, 1)))
        for s in range(0, len(items), group):
            self._continue(batch, where, items[s:s + group], cache, last, width, lengths, candidates, log_probs, ends)

    def _continue(self, batch, where, items, cache, last, width, lengths, candidates, log_probs, ends) -> None:
        torch = import_torch()
        transformers = import_transformers()
        parents = np.array([b for b, _ in items])
        tails = [tuple(batch[b].continuations[k]) for b, k in items]
        counts = np.array([len(t) for t in tails])
        span = max(int(counts.max()), 1)
        # Each continuation's first token is predicted by its prefix's last state.
        states = [last[self._index(parents)]]
        ids = np.zeros((len(items), span), dtype=np.int64)
        for n, tail in enumerate(tails):
            ids[n, :len(tail)] = tail
        if counts.max() > 0:
            pick = self._index(parents)
            expanded = _new_cache(transformers, self._model.config)
            for layer, (keys, values) in enumerate(_cached_tensors(cache)):
                expanded.update(keys.index_select(0, pick), values.index_select(0, pick), layer)
            own = np.arange(span)[None, :] < counts[:, None]
            allowed = np.zeros((len(items), span, width + span), dtype=bool)
            allowed[:, :, :width] = (np.arange(width)[None, :] < lengths[parents][:, None])[:, None, :]
            allowed[:, :, width:] = np.tril(np.ones((span, span), dtype=bool))[None] & own[:, None, :]
            allowed[:, np.arange(span), width + np.arange(span)] = True     # padding attends to itself
            hidden = self._body(input_ids=self._index(ids), **{self._cache_keyword: expanded},
                                position_ids=self._index(lengths[parents][:, None] + np.arange(span)[None, :]),
                                attention_mask=self._mask(allowed[:, None]), use_cache=True).last_hidden_state
            states.append(hidden.reshape(-1, hidden.shape[-1]))
        states = torch.cat(states)
        rows, targets = [], []     # the state row that predicts each wanted token
        for n, tail in enumerate(tails):
            for j, token in enumerate(tail):
                rows.append(n if j == 0 else len(items) + n * span + j - 1)
                targets.append(token)
            end_row = n if not tail else len(items) + n * span + len(tail) - 1
            for c in candidates:
                rows.append(end_row)
                targets.append(c)
        if not rows:
            for n, (b, k) in enumerate(items):
                log_probs[where[b]][k] = np.zeros(0)
            return
        unique, inverse = np.unique(np.asarray(rows), return_inverse=True)
        values = self._target_log_probs(states[self._index(unique)], self._index(inverse),
                                        self._index(np.asarray(targets))).double().cpu().numpy()
        at = 0
        for n, (b, k) in enumerate(items):
            size = counts[n]
            log_probs[where[b]][k] = values[at:at + size]
            at += size
            ends[where[b]][k] = values[at:at + len(candidates)]
            at += len(candidates)

    def _mask(self, allowed: np.ndarray):
        """An additive attention mask (0 where allowed, the dtype's minimum elsewhere) on the device."""
        torch = import_torch()
        dtype = self._head.weight.dtype
        mask = torch.zeros(allowed.shape, dtype=dtype)
        mask.masked_fill_(torch.from_numpy(~allowed), torch.finfo(dtype).min)
        return mask.to(self.device)

    def _index(self, values):
        torch = import_torch()
        return torch.as_tensor(np.asarray(values, dtype=np.int64), device=self.device)

    def _target_log_probs(self, states, inverse, targets):
        """ln softmax(head(states[inverse[k]]))[targets[k]]: the vocabulary projection in
        slices of ``_HEAD_ROWS`` states (bounds the [rows, vocab] logits). The chosen logit
        is read from the same logits the normaliser sums (one rounding, as the model's own
        log-softmax), the normaliser summed in float64; float32 out."""
        torch = import_torch()
        out = torch.empty(len(inverse), dtype=torch.float64, device=states.device)
        order = torch.argsort(inverse)
        inverse, targets = inverse[order], targets[order]
        bounds = torch.searchsorted(inverse, torch.arange(0, states.shape[0] + _HEAD_ROWS, _HEAD_ROWS,
                                                          device=inverse.device))
        for slot, s in enumerate(range(0, states.shape[0], _HEAD_ROWS)):
            lo, hi = int(bounds[slot]), int(bounds[slot + 1])
            if lo == hi:
                continue
            logits = self._head(states[s:s + _HEAD_ROWS]).double()
            rows = inverse[lo:hi] - s
            out[order[lo:hi]] = logits[rows, targets[lo:hi]] - torch.logsumexp(logits, dim=-1)[rows]
        return out.float()


def _new_cache(transformers, config):
    try:
        return transformers.DynamicCache(config=config)
    except TypeError:           # transformers < 4.56: no per-layer cache types
        return transformers.DynamicCache()


def _cached_tensors(cache):
    """(keys, values) of each layer of a ``DynamicCache``, across transformers versions."""
    if hasattr(cache, "layers"):
        return [(layer.keys, layer.values) for layer in cache.layers]
    return list(zip(cache.key_cache, cache.value_cache))
