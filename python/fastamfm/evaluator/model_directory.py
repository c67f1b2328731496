"""The trained evaluator's directory (a model directory of kind ``evaluator``:
``fastamfm.models.directory``), written by ``train_evaluator`` and read by ``Evaluator.load``:

    DIR/encoder/            the frozen base encoder (a copy of the packaged model's files)
    DIR/head.safetensors    the trained head's tensors
    DIR/evaluator.json      how to score: encoder pooling, head sizes, context settings,
                            how the sub-scores combine (``combination.py``; version 2: with
                            the zscore scales measured after training)
    DIR/provenance.json     where it came from (``fastamfm.training.provenance``): base
                            model and fingerprint, corpus files and hashes, dropped counts,
                            settings, the training run
    DIR/checksums.json      SHA-256 of every file, verified before anything is loaded

Nothing in the directory runs code: safetensors, JSON and tokenizer files, read with
``trust_remote_code`` off.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from ..models import directory

KIND = "evaluator"
HEAD = "head.safetensors"
ENCODER = "encoder"
# Version 2: the coherence sub-score and the zscore combination with its measured scales.
VERSION = 2
# Files of a Hugging Face encoder directory that scoring reads (weights, configuration,
# tokenizer, sentence-transformers pooling settings).
_ENCODER_FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
                  "special_tokens_map.json", "vocab.txt", "sentence_bert_config.json", "modules.json",
                  "config_sentence_transformers.json")


def is_evaluator_directory(path) -> bool:
    return directory.has_kind(path, KIND)


def copy_encoder(source: Path, out: Path) -> None:
    """The base encoder's files into ``out/encoder`` (safetensors weights only)."""
    target = out / ENCODER
    target.mkdir(parents=True, exist_ok=True)
    if not (source / "model.safetensors").is_file():
        raise ValueError(f"{source}: the evaluator's base encoder needs safetensors weights (model.safetensors)")
    for name in _ENCODER_FILES:
        if (source / name).is_file():
            shutil.copyfile(source / name, target / name)
    pooling = source / "1_Pooling" / "config.json"
    if pooling.is_file():
        (target / "1_Pooling").mkdir(exist_ok=True)
        shutil.copyfile(pooling, target / "1_Pooling" / "config.json")


def save_head(head, out: Path) -> None:
    from safetensors.torch import save_file

    tensors = {name: value.detach().cpu().contiguous() for name, value in head.state_dict().items()}
    temporary = out / (HEAD + ".tmp")
    save_file(tensors, str(temporary))
    temporary.replace(out / HEAD)


def load_head_tensors(path: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(path / HEAD))


def write_manifest(out: Path, manifest: dict) -> None:
    directory.write_manifest(out, KIND, VERSION, manifest)


def read_manifest(path: Path) -> dict:
    return directory.read_manifest(path, KIND, VERSION)
