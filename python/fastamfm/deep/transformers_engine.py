"""The ``transformers`` engine of ``NeuralLM``: batched log-probabilities of response
tokens with PyTorch, on the CPU or a GPU.

What makes it faster than a plain loop over padded batches, without changing a number
beyond float rounding:
- the output projection (the vocabulary-sized matrix, most of a small model's cost per
  token) and the softmax run only at the positions that predict a response token;
- requests that share a context (candidate responses to one dialogue) run the context
  once and its key/value cache is repeated for the candidates;
- the others are sorted by length and cut into batches of at most ``batch_tokens``
  padded tokens (length bucketing, dynamic padding); the last target token is never
  fed in (nothing reads its prediction).
"""
from __future__ import annotations

import copy
import inspect
from pathlib import Path

from .runtime import import_torch, import_transformers, resolve_torch_device

DTYPES = ("float32", "bfloat16", "float16")
# Rows of the vocabulary projection computed at once (bounds the [rows, vocab] logits).
_HEAD_ROWS = 256


class TransformersEngine:
    name = "transformers"

    def __init__(self, model, tokenizer, *, device: str, dtype: str, batch_tokens: int, share_context: bool):
        self.tokenizer = tokenizer
        self.device = device
        self.dtype = dtype
        self.batch_tokens = batch_tokens
        self.share_context = share_context
        self._model = model
        self._body = model.base_model
        self._head = model.get_output_embeddings()
        self._pad_id = self._pad_token(tokenizer)
        # transformers 5 names the key/value cache argument ``cache``; 4.x ``past_key_values``.
        self._cache_argument = "cache" if "cache" in inspect.signature(self._body.forward).parameters \
            else "past_key_values"
        self.max_length = getattr(model.config, "max_position_embeddings", None) or getattr(model.config, "n_positions",
                                                                                               None)
        self._check_head()

    @classmethod
    def load(cls, directory: Path, tokenizer, *, device: str = "auto", dtype: str = "float32",
             batch_tokens: int = 4096, share_context: bool = True) -> "TransformersEngine":
        if dtype not in DTYPES:
            raise ValueError(f"NeuralLM: dtype must be one of {DTYPES}, got {dtype!r}")
        torch = import_torch()
        transformers = import_transformers()
        device = resolve_torch_device(device)
        model = transformers.AutoModelForCausalLM.from_pretrained(directory, dtype=getattr(torch, dtype),
                                                                  attn_implementation="sdpa")
        model.to(device).eval()
        return cls(model, tokenizer, device=device, dtype=dtype, batch_tokens=batch_tokens,
                   share_context=share_context)

    @staticmethod
    def _pad_token(tokenizer) -> int:
        # Padded positions are masked out and never read; any valid id will do.
        for text in (tokenizer.eos_token, tokenizer.bos_token):
            if text and tokenizer.token_id(text) is not None:
                return tokenizer.token_id(text)
        return 0

    def _check_head(self) -> None:
        """The projection-at-chosen-positions shortcut must equal the model's own logits;
        a model that transforms its logits (soft-capping, scaling) is refused."""
        torch = import_torch()
        ids = torch.arange(1, 9, device=self.device)[None] % self._head.weight.shape[0]
        with torch.inference_mode():
            full = self._model(input_ids=ids).logits[0].float().log_softmax(-1)
            ours = self._head(self._body(input_ids=ids).last_hidden_state[0]).float().log_softmax(-1)
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
        out: list = [None] * len(requests)
        groups: dict = {}
        for i, r in enumerate(requests):
            groups.setdefault(r.prefix, []).append(i)
        alone = []
        with torch.inference_mode():
            for prefix, members in groups.items():
                if self.share_context and len(members) > 1 and len(prefix) > 1:
                    self._score_shared_context(prefix, members, requests, out)
                else:
                    alone.extend(members)
            self._score_batched(alone, requests, out)
        return out

    def _batches(self, lengths: list, order: list) -> list:
        """Consecutive slices of ``order`` (sorted by length, longest first) whose padded
        size stays within ``batch_tokens`` (one request always fits)."""
        batches, start = [], 0
        while start < len(order):
            width = max(lengths[order[start]], 1)
            end = start + max(1, self.batch_tokens // width)
            batches.append(order[start:end])
            start = end
        return batches

    def _pad(self, rows: list, width: int):
        torch = import_torch()
        ids = torch.full((len(rows), width), self._pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for b, row in enumerate(rows):
            ids[b, :len(row)] = torch.tensor(row, dtype=torch.long)
            mask[b, :len(row)] = 1
        return ids.to(self.device), mask.to(self.device)

    def _index(self, values: list):
        torch = import_torch()
        return torch.tensor(values, dtype=torch.long, device=self.device)

    def _target_log_probs(self, hidden, targets):
        """ln softmax(head(hidden))[target] row by row, the projection in slices."""
        torch = import_torch()
        parts = []
        for s in range(0, hidden.shape[0], _HEAD_ROWS):
            logits = self._head(hidden[s:s + _HEAD_ROWS]).float()
            chosen = logits.gather(1, targets[s:s + _HEAD_ROWS, None])[:, 0]
            parts.append(chosen - torch.logsumexp(logits, dim=-1))
        return torch.cat(parts) if parts else hidden.new_zeros(0, dtype=torch.float32)

    def _score_batched(self, members: list, requests: list, out: list) -> None:
        torch = import_torch()
        # Input = prefix + all target tokens but the last; the prediction of target j
        # is read at position len(prefix) - 1 + j.
        inputs = {i: requests[i].prefix + requests[i].target[:-1] for i in members}
        lengths = {i: len(v) for i, v in inputs.items()}
        order = sorted(members, key=lambda i: -lengths[i])
        for batch in self._batches(lengths, order):
            width = max(lengths[i] for i in batch)
            ids, mask = self._pad([inputs[i] for i in batch], width)
            hidden = self._body(input_ids=ids, attention_mask=mask).last_hidden_state
            rows, cols, targets = [], [], []
            for b, i in enumerate(batch):
                p, t = len(requests[i].prefix), requests[i].target
                rows.extend([b] * len(t))
                cols.extend(range(p - 1, p - 1 + len(t)))
                targets.extend(t)
            scores = self._target_log_probs(hidden[self._index(rows), self._index(cols)],
                                            self._index(targets))
            self._split(scores, batch, requests, out)

    def _score_shared_context(self, prefix: tuple, members: list, requests: list, out: list) -> None:
        torch = import_torch()
        ids = torch.tensor([prefix], dtype=torch.long, device=self.device)
        context = self._body(input_ids=ids, use_cache=True)
        last = context.last_hidden_state[0, -1:]
        first_targets = torch.tensor([requests[i].target[0] if requests[i].target else 0 for i in members],
                                     device=self.device)
        first = self._target_log_probs(last.expand(len(members), -1), first_targets)
        first_of = dict(zip(members, first))
        # The rest of each target, fed after the shared context's cache.
        rests = {i: requests[i].target[:-1] for i in members}
        lengths = {i: len(v) for i, v in rests.items()}
        order = sorted((i for i in members if lengths[i] > 0), key=lambda i: -lengths[i])
        room = max(1, self.batch_tokens - len(prefix))
        for i in members:
            if lengths[i] == 0:
                out[i] = first_of[i][None] if requests[i].target else first.new_zeros(0)
        start = 0
        while start < len(order):
            width = lengths[order[start]]
            batch = order[start:start + max(1, room // max(width, 1))]
            start += len(batch)
            cache = self._repeat_cache(getattr(context, self._cache_argument), len(batch))
            tokens, tmask = self._pad([rests[i] for i in batch], width)
            mask = torch.cat([torch.ones((len(batch), len(prefix)), dtype=torch.long, device=self.device), tmask], 1)
            positions = torch.arange(len(prefix), len(prefix) + width, device=self.device)[None].expand(len(batch), -1)
            hidden = self._body(input_ids=tokens, attention_mask=mask, position_ids=positions,
                                use_cache=True, **{self._cache_argument: cache}).last_hidden_state
            rows, cols, targets = [], [], []
            for b, i in enumerate(batch):
                t = requests[i].target
                rows.extend([b] * (len(t) - 1))
                cols.extend(range(len(t) - 1))
                targets.extend(t[1:])
            rest = self._target_log_probs(hidden[self._index(rows), self._index(cols)],
                                          self._index(targets))
            offset = 0
            for i in batch:
                n = len(requests[i].target) - 1
                out[i] = torch.cat([first_of[i][None], rest[offset:offset + n]])
                offset += n

    @staticmethod
    def _repeat_cache(cache, copies: int):
        """A copy of the context's key/value cache for ``copies`` candidates (the
        original stays unextended for the next batch of the same context)."""
        repeated = copy.deepcopy(cache)
        repeated.batch_repeat_interleave(copies)
        return repeated

    @staticmethod
    def _split(scores, batch: list, requests: list, out: list) -> None:
        offset = 0
        for i in batch:
            n = len(requests[i].target)
            out[i] = scores[offset:offset + n]
            offset += n

