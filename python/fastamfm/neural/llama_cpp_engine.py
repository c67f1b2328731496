"""The llama.cpp engine of ``NeuralLM``: a GGUF model evaluated as stored (quantized
weights, llama.cpp's CPU kernels) through ``llama-cpp-python``'s C API
(``pip install ".[llamacpp]" in the fastamfm checkout``).

One ``llama_decode`` scores many requests: each request is a sequence of llama.cpp's
unified key/value cache, and the context shared by candidate responses is put in the
batch once, its tokens belonging to every candidate's sequence (llama.cpp's multi-
sequence batches), so a shared context costs one evaluation whoever answers it.
Logits are requested only where a response token is predicted.

Not bit-equal to the float32 ``transformers`` reference: llama.cpp multiplies quantized
weights by activations quantized to 8 bits, so log-probabilities move by a few
hundredths of a nat (``benchmarks/deep/compare_neural_lm.py`` measures it).
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np

from ..errors import format_error
from ..progress import task

INSTALL_HINT = 'pip install ".[llamacpp]" in the fastamfm checkout  (builds llama.cpp: needs a C++ compiler and CMake)'


def import_llama_cpp():
    try:
        import llama_cpp
    except ImportError:
        raise ImportError(f"engine='llama.cpp' needs llama-cpp-python: {INSTALL_HINT}") from None
    return llama_cpp


_SILENT_LOG = None


def _silence(llama_cpp) -> None:
    """llama.cpp logs every load to stderr; keep it quiet (once per process)."""
    global _SILENT_LOG
    if _SILENT_LOG is None:
        _SILENT_LOG = llama_cpp.llama_log_callback(lambda level, text, data: None)
        llama_cpp.llama_log_set(_SILENT_LOG, ctypes.c_void_p(0))


class LlamaCppTokenizer:
    """``dialogue_format.LMTokenizer`` over the GGUF file's own vocabulary."""

    def __init__(self, llama_cpp, model):
        self._lib = llama_cpp
        self._vocab = llama_cpp.llama_model_get_vocab(model)
        n = llama_cpp.llama_vocab_n_tokens(self._vocab)
        self.vocab_size = n
        control = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL
        self.special_tokens = tuple(self._text(t) for t in range(n)
                                    if llama_cpp.llama_vocab_get_attr(self._vocab, t) & control)
        template = llama_cpp.llama_model_chat_template(model, None)
        self.chat_template = template.decode("utf-8") if template else None
        self.bos_token = self._special_text(llama_cpp.llama_vocab_bos(self._vocab))
        self.eos_token = self._special_text(llama_cpp.llama_vocab_eos(self._vocab))

    def _text(self, token: int) -> str:
        return self._lib.llama_vocab_get_text(self._vocab, token).decode("utf-8", errors="replace")

    def _special_text(self, token: int) -> str | None:
        return self._text(token) if 0 <= token < self.vocab_size else None

    def _encode(self, text: str, special: bool) -> list:
        data = text.encode("utf-8")
        capacity = len(data) + 8
        while True:
            buffer = (self._lib.llama_token * capacity)()
            n = self._lib.llama_tokenize(self._vocab, data, len(data), buffer, capacity, False, special)
            if n >= 0:
                return list(buffer[:n])
            capacity = -n

    def encode_batch(self, texts: list, *, special: bool) -> list:
        return [self._encode(t, special) for t in texts]

    def token_id(self, text: str) -> int | None:
        ids = self._encode(text, True)
        return ids[0] if len(ids) == 1 and self._text(ids[0]) == text else None


class LlamaCppEngine:
    name = "llama.cpp"
    device = "cpu"

    def __init__(self, llama_cpp, model, context, tokenizer, *, batch_tokens: int, max_sequences: int,
                 threads: int, n_ctx_train: int):
        self._lib = llama_cpp
        self._model = model
        self._context = context
        self.tokenizer = tokenizer
        self.batch_tokens = batch_tokens
        self.max_sequences = max_sequences
        self.threads = threads
        self.max_length = min(n_ctx_train, batch_tokens) if n_ctx_train > 0 else batch_tokens
        self._vocab_size = tokenizer.vocab_size
        self._batch = llama_cpp.llama_batch_init(batch_tokens, 0, max_sequences)

    @classmethod
    def load(cls, path: Path, *, batch_tokens: int = 1024, max_sequences: int = 64,
             threads: int | None = None) -> "LlamaCppEngine":
        llama_cpp = import_llama_cpp()
        _silence(llama_cpp)
        llama_cpp.llama_backend_init()
        model = llama_cpp.llama_model_load_from_file(str(path).encode(), llama_cpp.llama_model_default_params())
        if not model:
            raise format_error(path, "llama.cpp cannot load this GGUF file")
        threads = threads or os.cpu_count() or 1
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = params.n_batch = params.n_ubatch = batch_tokens
        params.n_seq_max = max_sequences
        params.n_threads = params.n_threads_batch = threads
        params.kv_unified = True          # a context token shared by several sequences is stored once
        params.no_perf = True
        context = llama_cpp.llama_init_from_model(model, params)
        if not context:
            llama_cpp.llama_model_free(model)
            raise RuntimeError(f"{path}: llama.cpp could not create a context of {batch_tokens} tokens")
        return cls(llama_cpp, model, context, LlamaCppTokenizer(llama_cpp, model), batch_tokens=batch_tokens,
                   max_sequences=max_sequences, threads=threads,
                   n_ctx_train=llama_cpp.llama_model_n_ctx_train(model))

    def __del__(self):
        lib = getattr(self, "_lib", None)
        if lib is None:
            return
        lib.llama_batch_free(self._batch)
        lib.llama_free(self._context)
        lib.llama_model_free(self._model)

    def describe(self) -> str:
        return "llama.cpp:gguf-native:cpu"

    # --- scoring -----------------------------------------------------------------
    def _units(self, requests: list) -> list:
        """(prefix, members) work units: requests sharing a prefix, split so that one
        unit fits a decode (``batch_tokens`` tokens, ``max_sequences`` sequences)."""
        groups: dict = {}
        for i, r in enumerate(requests):
            groups.setdefault(r.prefix, []).append(i)
        units = []
        for prefix, members in groups.items():
            current: list[int] = []
            size = len(prefix)
            for i in members:
                need = max(len(requests[i].target) - 1, 0)
                if current and (size + need > self.batch_tokens or len(current) == self.max_sequences):
                    units.append((prefix, current))
                    current, size = [], len(prefix)
                current.append(i)
                size += need
            units.append((prefix, current))
        return units

    def _unit_size(self, unit, requests) -> int:
        prefix, members = unit
        return len(prefix) + sum(max(len(requests[i].target) - 1, 0) for i in members)

    def log_probs(self, requests: list) -> list:
        """Per request, a float32 array of ln p(target token | everything before it)."""
        out: list = [None] * len(requests)
        for r, request in enumerate(requests):
            if len(request.prefix) + len(request.target) - 1 > self.batch_tokens:
                raise ValueError(f"request {r}: {len(request.prefix) + len(request.target)} tokens exceed the "
                                 f"llama.cpp batch of {self.batch_tokens} (raise batch_tokens=)")
        batches: list[list] = []
        batch: list = []
        tokens, sequences = 0, 0
        for unit in self._units(requests):
            size, seqs = self._unit_size(unit, requests), len(unit[1])
            if batch and (tokens + size > self.batch_tokens or sequences + seqs > self.max_sequences):
                batches.append(batch)
                batch, tokens, sequences = [], 0, 0
            batch.append(unit)
            tokens += size
            sequences += seqs
        if batch:
            batches.append(batch)
        with task("LM forward passes", total=len(batches), unit="batch") as passes:
            for batch in batches:
                self._decode(batch, requests, out)
                passes.advance()
        return out

    def _decode(self, units: list, requests: list, out: list) -> None:
        lib, b = self._lib, self._batch
        lib.llama_memory_clear(lib.llama_get_memory(self._context), True)
        n = 0
        predictions = []    # (output row, request index, target position it predicts)
        row = 0
        seq = 0
        for prefix, members in units:
            seqs = list(range(seq, seq + len(members)))
            seq += len(members)
            for p, token in enumerate(prefix):
                last = p == len(prefix) - 1
                n = self._put(b, n, token, p, seqs, last)
            context_row = row
            row += 1
            for s, i in zip(seqs, members):
                target = requests[i].target
                if target:
                    predictions.append((context_row, i, 0))
                for j, token in enumerate(target[:-1]):
                    n = self._put(b, n, token, len(prefix) + j, [s], True)
                    predictions.append((row, i, j + 1))
                    row += 1
        b.n_tokens = n
        status = lib.llama_decode(self._context, b)
        if status != 0:
            raise RuntimeError(f"llama.cpp decode failed with status {status}")
        logits = np.ctypeslib.as_array(lib.llama_get_logits(self._context), shape=(row, self._vocab_size))
        rows = np.fromiter((p[0] for p in predictions), dtype=np.int64, count=len(predictions))
        targets = np.fromiter((requests[i].target[j] for _, i, j in predictions), dtype=np.int64,
                              count=len(predictions))
        scores = _log_softmax_at(logits, rows, targets)
        for (_, i, j), value in zip(predictions, scores):
            if out[i] is None:
                out[i] = np.empty(len(requests[i].target), dtype=np.float32)
            out[i][j] = value
        for _, members in units:
            for i in members:
                if out[i] is None:
                    out[i] = np.zeros(0, dtype=np.float32)

    @staticmethod
    def _put(b, n: int, token: int, position: int, seqs: list, logits: bool) -> int:
        b.token[n] = token
        b.pos[n] = position
        b.n_seq_id[n] = len(seqs)
        for k, s in enumerate(seqs):
            b.seq_id[n][k] = s
        b.logits[n] = logits
        return n + 1


def _log_softmax_at(logits: np.ndarray, rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """ln softmax(logits[row])[target] for each (row, target), each row's normaliser once."""
    unique_rows, inverse = np.unique(rows, return_inverse=True)
    block = logits[unique_rows]
    peak = block.max(axis=1, keepdims=True)
    normaliser = peak[:, 0] + np.log(np.exp(block - peak).sum(axis=1, dtype=np.float64))
    return logits[rows, targets].astype(np.float64) - normaliser[inverse]
