"""A GGUF file as a Hugging Face model directory, for the ``transformers`` engine.

``transformers`` reads a GGUF file by dequantizing every tensor and converting the
vocabulary in Python: minutes on two busy cores (measured: ~3 min for SmolLM2-135M).
So the conversion is done once and kept in ``$FASTAMFM_CACHE_DIR`` (default
``~/.cache/fastamfm``), keyed by the SHA-256 of the GGUF file's content: the weights in
float32 safetensors (dequantized exactly as ``transformers`` does), the config and the
tokenizer. Later loads read that directory in about a second, after checking it against
its record (``derived_cache``: an edited, truncated or deleted file is converted again).
"""
from __future__ import annotations

from pathlib import Path

from ..io.cache_dir import CACHE_KINDS, cache_dir
from ..models.derived_cache import verified_cache
from ..models.file_digest import file_digest
from ..models.safe_loading import load_or_format_error
from ..progress import waiting
from ..runtime import import_torch, import_transformers, quiet_transformers

# How long the first conversion takes, as the log line announcing it says (SmolLM2-135M).
CONVERSION_TIME = CACHE_KINDS["gguf"][1]


def _convert(path: Path, into: Path) -> None:
    # transformers' own bars ("Converting and de-quantizing", "Writing model shards") are
    # silenced; the conversion's progress is one task of ours, its four stages the steps.
    with quiet_transformers(), waiting(f"converting {path.name} (GGUF, once)", steps=4) as converting:
        _convert_quietly(path, into, converting.advance)


def _convert_quietly(path: Path, into: Path, stage_done) -> None:
    torch = import_torch()
    transformers = import_transformers()
    tokenizer = load_or_format_error(lambda: transformers.AutoTokenizer.from_pretrained(
        path.parent, gguf_file=path.name, trust_remote_code=False, local_files_only=True), path, "GGUF tokenizer")
    stage_done()
    loaded = load_or_format_error(lambda: transformers.AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, dtype=torch.float32, trust_remote_code=False, local_files_only=True),
        path, "GGUF model")
    stage_done()
    # transformers refuses to save a model loaded from GGUF: move the dequantized weights
    # into a plain model of the same config, then save that.
    config = loaded.config
    config.quantization_config = None
    plain = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32, trust_remote_code=False)
    plain.load_state_dict(loaded.state_dict(), strict=True)
    stage_done()
    plain.save_pretrained(into)
    tokenizer.save_pretrained(into)


def converted_directory(path: Path) -> Path:
    """The Hugging Face directory converted from the GGUF file ``path`` (converted and
    cached on first use, verified on every later one)."""
    digest = file_digest(path)
    return verified_cache(cache_dir() / "gguf" / digest[:32], f"gguf-sha256:{digest}",
                          lambda staging: _convert(path, staging), f"converting the GGUF file {path.name} to float32",
                          duration=CONVERSION_TIME)
