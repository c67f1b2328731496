"""A trained DeepAMFM: a model directory of kind ``deep_amfm`` (``fastamfm.models.directory``)
and how it is read back.

    DIR/encoder/          the sentence encoder (a Hugging Face directory)
    DIR/lm/               the causal LM (a Hugging Face directory, LoRA merged)
    DIR/deep_amfm.json    the manifest: pooling, chat format, calibration, lambdas, formulas
                          (a directory written before the followup joined has no followup scale
                          and no context_combination: it scores reference-free with AM and FM)
    DIR/provenance.json   where it came from (``fastamfm.training.provenance``)
    DIR/checksums.json    SHA-256 of every file, checked before loading

``DeepAMFM.load(DIR)`` (``load_trained``) verifies the checksums, then builds the ``DeepAMFM``: nothing in
the directory runs code (safetensors weights, JSON, tokenizer files; transformers loads
them with ``trust_remote_code`` off).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import format_error
from ..models.directory import (
    has_kind,
    manifest_path,
    read_manifest,
    verify_directory,
    write_manifest,
)

KIND = "deep_amfm"
VERSION = 1


def is_trained_directory(path) -> bool:
    return has_kind(path, KIND)


def write_trained_manifest(directory, scorer, encoder, lm_settings, calibration) -> None:
    """``DIR/deep_amfm.json``: what ``load_trained`` needs, from the scorer the directory was
    calibrated with (its encoder and LM stored as ``DIR/encoder`` and ``DIR/lm``)."""
    write_manifest(directory, KIND, VERSION, {
        "encoder": {"path": "encoder", "pooling": encoder.pooling, "layer": encoder.layer,
                    "normalize": encoder.normalize, "max_length": encoder.max_length},
        "lm": {"path": "lm", "style": lm_settings.style, "context_turns": lm_settings.context_turns,
               "max_context_tokens": lm_settings.max_context_tokens, "end_token": lm_settings.end_token,
               "system_prompt": lm_settings.system_prompt},
        "calibration": {name: [standardizer.center, standardizer.scale]
                        for name, standardizer in calibration.components().items()},
        "calibration_source": calibration.source,
        "lam": dict(scorer.lam),
        "scoring": {"am_context": scorer.am_context_mode, "recency": scorer.recency,
                    "fm_formula": scorer.fm_formula, "fm_combine": scorer.fm_combine,
                    "fm_context_formula": scorer.fm_context_formula,
                    "context_combination": scorer.context_combination},
    })


def load_trained(scorer_class, directory, *, device: str = "auto", lam: float | None = None, workers: int = -1,
                 engine: str = "transformers", dtype: str = "float32", **settings):
    """The ``scorer_class`` (``DeepAMFM``, which passes itself) of a trained directory
    (``DeepAMFM.train``'s output)."""
    from ..neural.encoder import SentenceEncoder
    from ..neural.neural_lm import NeuralLM
    from .calibration import Calibration, Standardizer

    directory = Path(directory)
    if not is_trained_directory(directory):
        raise FileNotFoundError(f"{directory}: not a trained DeepAMFM directory (no {KIND}.json; "
                                f"make one with fastamfm train --deep)")
    verify_directory(directory)
    data = read_manifest(directory, KIND, VERSION)
    try:
        enc, lm, cal = data["encoder"], data["lm"], data["calibration"]
        calibration = Calibration(**{name: Standardizer(float(c), float(s)) for name, (c, s) in cal.items()},
                                  source=str(data.get("calibration_source", "")))
        encoder = SentenceEncoder.load(directory / enc["path"], pooling=enc["pooling"], layer=int(enc["layer"]),
                                       normalize=bool(enc["normalize"]), max_length=int(enc["max_length"]),
                                       device=device, workers=workers)
        neural_lm = NeuralLM.load(directory / lm["path"], device=device, engine=engine, dtype=dtype,
                                  style=lm["style"], context_turns=lm["context_turns"],
                                  max_context_tokens=int(lm["max_context_tokens"]), end_token=bool(lm["end_token"]),
                                  system_prompt=lm["system_prompt"])
        options = {**data["scoring"], **settings}
    except (KeyError, TypeError) as exc:
        raise format_error(manifest_path(directory, KIND), f"malformed manifest ({type(exc).__name__}: {exc})") from None
    scorer = scorer_class(encoder=encoder, lm=neural_lm, device=device, calibration=calibration, workers=workers,
                      **options)
    if lam is not None:
        return scorer.with_lam(lam)
    measured = {mode: float(value) for mode, value in data["lam"].items()}     # as measured when trained
    if scorer.context_combination != data["scoring"].get("context_combination", "am+fm"):
        measured["context"] = scorer.lam["context"]     # the manifest's belongs to another combination
    scorer.lam = measured
    return scorer
