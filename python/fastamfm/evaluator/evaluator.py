"""``Evaluator``: a trained dialogue evaluator loaded from its directory, scoring responses
given their dialogue contexts (and references, when there are some).

    ev = Evaluator.load("evaluator-dir")                # checksums verified first
    res = ev.score(hyps, contexts=ctx)                  # reference-free
    res = ev.score(hyps, refs=refs, contexts=ctx)       # with references too
    res.sentences["evaluator"], res.sentences["evaluator_relevance"], ...
    ev.reward(hyps, contexts=ctx)                       # float32 torch tensor, thread-safe

Columns (every one on the scale 0..1, higher is better):

- ``relevance``: the head's probability that the response is what was said next;
- ``validity``: its probability that the response is a well-formed utterance;
- ``coherence``: the cosine of the response with its context under the frozen encoder
  (the context's turns weighted by recency, as the head reads them; Deep AM's
  reference-free score), clipped at 0. No head is needed for it, and the heads do not
  subsume it: measured on the DSTC-10 development sets, it tracks people where they
  do not (benchmarks/evaluator/README.md);
- ``reference`` (with references): the largest cosine of the response with a reference
  under the frozen encoder (Deep AM's reference score), clipped at 0;
- ``evaluator``: the sub-scores combined (``combination.py``).

An empty or whitespace response scores 0 in every column (the scale's minimum): there is
nothing to judge, and an empty reply is never a good one.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .._argument_order import refs_before_contexts
from ..progress import ProgressOption, reports_progress
from ..result import MetricResult, make_signature
from .combination import Combination
from .head import SUB_SCORES
from .model_directory import (
    ENCODER,
    is_evaluator_directory,
    load_head_tensors,
    read_manifest,
)
from .turn_vectors import TurnVectors

# The frozen encoder's own sub-score beside the head's.
COHERENCE = "coherence"
COLUMNS = ("evaluator",) + SUB_SCORES + (COHERENCE, "reference")


def result_column(component: str) -> str:
    """A component's column in a result: the evaluator's own score, or ``evaluator_<component>``."""
    return component if component == "evaluator" else f"evaluator_{component}"


# Evaluator.score's column names before 0.2 (the evaluator metric's since): readable until 0.3.
RENAMED_COLUMNS = {c: result_column(c) for c in COLUMNS if c != "evaluator"}


class DialogueEncoder:
    """The evaluator's trained dialogue encoder as ``LearnedScorer`` takes one: sentence
    vectors of the frozen encoder through the learned projection (``head.project``)."""

    def __init__(self, evaluator: "Evaluator"):
        self._evaluator = evaluator

    @property
    def signature(self) -> str:
        return f"evaluator:{self._evaluator.fingerprint}"

    def encode(self, sentences) -> np.ndarray:
        return self._evaluator.project(list(sentences))


class Evaluator:
    """A loaded evaluator (see the module docstring). Immutable and thread-safe.

    Build it with ``Evaluator.load(directory)`` (a ``fastamfm train --evaluator`` /
    ``fastamfm.train_evaluator`` output); the constructor takes the parts ``load`` reads.

    Parameters
    ----------
    directory : Path
        The evaluator directory.
    encoder : SentenceEncoder
        The frozen sentence encoder.
    head : torch.nn.Module
        The trained head, on the encoder's device.
    manifest : dict
        ``evaluator.json``'s content (scoring settings, combination).
    fingerprint : str
        The directory's content fingerprint (in the signature).
    vectors : TurnVectors, optional
        A cache of the encoder's turn vectors to share; None: the evaluator's own.
    """

    def __init__(self, *, directory: Path, encoder, head, manifest: dict, fingerprint: str, vectors=None):
        # ``vectors``: a ``TurnVectors`` of ``encoder`` to share (the ablation benchmark
        # scores many heads over one encoder); by default the evaluator's own.
        self.directory = directory
        self._encoder = encoder
        self._head = head
        self._vectors = TurnVectors(encoder, capacity=100_000) if vectors is None else vectors
        self.manifest = manifest
        self.fingerprint = fingerprint
        scoring = manifest["scoring"]
        self.context_turns = int(scoring["context_turns"])
        self.decay = float(scoring["decay"])
        self.combination = Combination.from_json(manifest["combination"])

    # --- construction ---------------------------------------------------------------
    @classmethod
    def load(cls, directory, *, device: str = "auto", workers: int = -1) -> "Evaluator":
        """The evaluator in ``directory`` (``train_evaluator``'s output). Every file is
        checked against ``checksums.json`` first; a changed file is a ``FormatError``.

        Parameters
        ----------
        directory : str or path
            The evaluator directory.
        device : str, default "auto"
            Where the encoder and head go ("cpu", "cuda[:N]", "auto").
        workers : int, default -1
            CPU threads (-1: every core).

        Returns
        -------
        Evaluator
            The loaded evaluator.

        Raises
        ------
        FileNotFoundError
            ``directory`` is not an evaluator directory (no ``evaluator.json``).
        FormatError
            A file that does not match ``checksums.json``, or an unusable manifest or head
            (a ``ValueError``).
        ImportError
            PyTorch or transformers not installed (the ``deep`` extra).
        """
        from ..errors import format_error
        from ..models.directory import content_fingerprint, verify_directory
        from ..neural.encoder import SentenceEncoder
        from .head import build_head

        directory = Path(directory)
        if not is_evaluator_directory(directory):
            raise FileNotFoundError(f"{directory}: not an evaluator directory (no evaluator.json; make one with "
                                    f"fastamfm train --evaluator)")
        verify_directory(directory)
        manifest = read_manifest(directory)
        try:
            enc, sizes = manifest["encoder"], manifest["head"]
            encoder = SentenceEncoder.load(directory / ENCODER, pooling=enc["pooling"], normalize=True,
                                           max_length=int(enc["max_length"]), device=device, workers=workers)
            head = build_head(int(sizes["dim"]), projection=int(sizes["projection"]), hidden=int(sizes["hidden"]))
            head.load_state_dict(load_head_tensors(directory))
            if encoder.dim != head.dim:
                raise ValueError(f"the head reads {head.dim}-dimensional vectors, the encoder gives {encoder.dim}")
            head = head.to(encoder.device).eval().requires_grad_(False)
            return cls(directory=directory, encoder=encoder, head=head, manifest=manifest,
                       fingerprint=content_fingerprint(directory))
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise format_error(directory, f"unusable evaluator directory ({type(exc).__name__}: {exc})") from None

    # --- what it is -------------------------------------------------------------------
    @property
    def device(self) -> str:
        return self._encoder.device

    @property
    def encoder(self) -> DialogueEncoder:
        """The trained dialogue encoder (for ``LearnedScorer.fit(..., encoder=...)``)."""
        return DialogueEncoder(self)

    def signature(self, *, references: bool | None = False) -> str:
        """``references``: whether references were given; None (the registry metric, whose
        batches may or may not have them): ``refs=auto``, used when a batch has them."""
        return make_signature("evaluator", model=self.fingerprint, base=self._encoder.describe(),
                              turns=self.context_turns, decay=self.decay, combine=self.combination.describe(),
                              refs="auto" if references is None else int(references))

    def __repr__(self) -> str:
        return f"Evaluator({self.directory}, {self.signature()})"

    # --- scoring ------------------------------------------------------------------------
    def _inputs(self, hyps, contexts, refs):
        from ..deep.inputs import ReferenceTexts, context_turns, text_list

        hyps = text_list(hyps, "hyps", allow_empty=True)
        if contexts is None:
            raise ValueError("the evaluator scores a response given its dialogue context: pass contexts= (per "
                             "response, the turns before it: a list of turns or one string with newlines)")
        contexts = [turns[-self.context_turns:] for turns in context_turns(contexts, len(hyps), "evaluator")]
        references = None if refs is None else ReferenceTexts(refs, len(hyps), "evaluator")
        return hyps, contexts, references

    @refs_before_contexts
    def components(self, hyps, refs=None, contexts=None) -> dict:
        """Every column (``COLUMNS``; ``reference`` only with ``refs``) as float64 arrays."""
        from ..runtime import import_torch

        hyps, contexts, references = self._inputs(hyps, contexts, refs)
        n = len(hyps)
        present = np.array([bool(h.strip()) for h in hyps], dtype=bool)
        out = {name: np.zeros(n) for name in SUB_SCORES + (COHERENCE,)}
        rows = np.flatnonzero(present)
        if len(rows):
            torch = import_torch()
            context, last, response = self._vectors.triples([contexts[i] for i in rows], [hyps[i] for i in rows],
                                                            decay=self.decay)
            with torch.inference_mode():
                logits = self._head(*(torch.from_numpy(a).to(self.device) for a in (context, last, response)))
                # float64: the zscore combination reads these back on the logit scale.
                probabilities = torch.sigmoid(logits.double()).cpu().numpy()
            for k, name in enumerate(SUB_SCORES):
                out[name][rows] = probabilities[:, k]
            cosines = np.einsum("ij,ij->i", context.astype(np.float64), response.astype(np.float64))
            out[COHERENCE][rows] = np.clip(cosines, 0.0, 1.0)
        if references is not None:
            out["reference"] = self._reference_similarity(hyps, references, present)
        out["evaluator"] = np.where(present, self.combination(out), 0.0)
        return out

    def _reference_similarity(self, hyps, references, present) -> np.ndarray:
        flat = references.flat
        vectors = self._vectors.lookup(list(hyps) + list(flat)).astype(np.float64)
        hyp_vectors, ref_vectors = vectors[:len(hyps)], vectors[len(hyps):]
        segment = np.repeat(np.arange(len(hyps)), np.diff(references.offsets))
        cosines = np.einsum("ij,ij->i", hyp_vectors[segment], ref_vectors)
        best = np.full(len(hyps), -np.inf)
        np.maximum.at(best, segment, cosines)
        return np.where(present, np.clip(best, 0.0, 1.0), 0.0)

    @refs_before_contexts
    @reports_progress
    def score(self, hyps, refs=None, contexts=None, *, progress: ProgressOption = None) -> MetricResult:
        """Every column per response, named as ``evaluate(metrics=["evaluator"])`` names them
        (``evaluator``, ``evaluator_relevance``, ...; ``evaluator_reference`` with references);
        corpus scores: the columns' means; ``progress``: per encoder batch (``fastamfm.progress``).

        Parameters
        ----------
        hyps : sequence of str
            The n responses.
        refs : sequence of sequences of str, optional
            Their references: adds ``evaluator_reference``.
        contexts : sequence
            Per response the dialogue before it (required): a list of turns or a str with
            newlines; the last ``context_turns`` turns are read.
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        MetricResult
            Columns ``evaluator``, ``evaluator_relevance``, ``evaluator_validity``,
            ``evaluator_coherence`` (and ``evaluator_reference``), each in [0, 1], float64 [n].

        Raises
        ------
        ValueError
            No ``contexts``; inputs of different lengths.
        TypeError
            ``hyps`` not a sequence of strings; ``refs`` and ``contexts`` both positional.
        """
        found = self.components(hyps, refs=refs, contexts=contexts)
        columns = {result_column(c): found[c] for c in COLUMNS if c in found}
        return MetricResult("evaluator", {c: float(v.mean()) if len(v) else float("nan") for c, v in columns.items()},
                            columns, self.signature(references=refs is not None), renamed=RENAMED_COLUMNS)

    @refs_before_contexts
    @reports_progress
    def reward(self, hyps, refs=None, contexts=None, *, progress: ProgressOption = None):
        """The ``evaluator`` column as a float32 torch tensor on the evaluator's device.

        Parameters
        ----------
        hyps : sequence of str
            The n responses (completions) to reward.
        refs : sequence of sequences of str, optional
            Their references.
        contexts : sequence
            Per response the dialogue before it (required).
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        torch.Tensor
            float32 [n] in [0, 1].

        Raises
        ------
        ValueError
            As ``score``.
        """
        from ..runtime import import_torch

        values = self.components(hyps, refs=refs, contexts=contexts)["evaluator"].astype(np.float32)
        return import_torch().from_numpy(values).to(self.device)

    def project(self, sentences: list) -> np.ndarray:
        """Dialogue vectors (unit length) of ``sentences``: the frozen encoder's vectors
        through the head's learned projection."""
        from ..runtime import import_torch

        torch = import_torch()
        vectors = self._vectors.lookup(list(sentences))
        with torch.inference_mode():
            projected = self._head.project(torch.from_numpy(vectors).to(self.device))
        return projected.float().cpu().numpy()
