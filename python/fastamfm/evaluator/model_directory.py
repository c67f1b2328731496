"""The trained evaluator's directory, written by ``train_evaluator`` and read by
``Evaluator.load``:

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

import json
import shutil
from pathlib import Path

from ..io import write_text_atomic

MANIFEST = "evaluator.json"
HEAD = "head.safetensors"
ENCODER = "encoder"
FORMAT = "fastamfm-evaluator"
# Version 2: the coherence sub-score and the zscore combination with its measured scales.
VERSION = 2
# Files of a Hugging Face encoder directory that scoring reads (weights, configuration,
# tokenizer, sentence-transformers pooling settings).
_ENCODER_FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
                  "special_tokens_map.json", "vocab.txt", "sentence_bert_config.json", "modules.json",
                  "config_sentence_transformers.json")


def is_evaluator_directory(path) -> bool:
    return Path(path).is_dir() and (Path(path) / MANIFEST).is_file()


def copy_encoder(source: Path, directory: Path) -> None:
    """The base encoder's files into ``directory/encoder`` (safetensors weights only)."""
    target = directory / ENCODER
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


def save_head(head, directory: Path) -> None:
    from safetensors.torch import save_file

    tensors = {name: value.detach().cpu().contiguous() for name, value in head.state_dict().items()}
    temporary = directory / (HEAD + ".tmp")
    save_file(tensors, str(temporary))
    temporary.replace(directory / HEAD)


def load_head_tensors(directory: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(directory / HEAD))


def write_manifest(directory: Path, manifest: dict) -> None:
    write_text_atomic(directory / MANIFEST, json.dumps({"format": FORMAT, "version": VERSION, **manifest},
                                                       indent=1, sort_keys=True) + "\n")


def read_manifest(directory: Path) -> dict:
    from ..training.manifest import read_manifest as read_versioned

    return read_versioned(directory / MANIFEST, FORMAT, VERSION)
