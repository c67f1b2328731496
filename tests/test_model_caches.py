"""Full-content fingerprints and verified derived caches (issue 29): a model differing
from another anywhere in its bytes has its own fingerprint and its own caches; a GGUF
conversion or an ONNX export that was truncated, edited or partly deleted is rebuilt
(and scores come back unchanged); NaN or infinite model outputs are an error, never a
score."""
from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the neural metrics need torch (pip install 'fastamfm[deep]')")
pytest.importorskip("transformers", reason="the neural metrics need transformers")

import fastamfm  # noqa: E402
from fastamfm.models import file_digest as digests  # noqa: E402
from fastamfm.models.derived_cache import RECORD  # noqa: E402
from fastamfm.models.location import model_fingerprint  # noqa: E402
from fastamfm.neural.encoder import SentenceEncoder  # noqa: E402
from fastamfm.neural.neural_lm import NeuralLM  # noqa: E402

SENTENCES = ["hello , how are you today ?", "i like hiking and reading books .", "the weather is nice"]
CONTEXTS = [["hi"], ["what do you like to do on weekends ?"], ["let's go outside"]]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTAMFM_CACHE_DIR", str(tmp_path / "cache"))
    digests._MEMORY.clear()
    return tmp_path / "cache"


def _flip_middle_byte(path: Path, offset: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    at = len(data) // 2 if offset is None else offset
    data[at] ^= 0x40
    path.write_bytes(bytes(data))


# --- file digests ---------------------------------------------------------------------------
def test_a_digest_is_computed_once_per_version_of_a_file(cache, tmp_path, monkeypatch):
    path = tmp_path / "weights.bin"
    path.write_bytes(os.urandom(3 << 20))
    first = digests.file_digest(path)
    import hashlib
    assert first == hashlib.sha256(path.read_bytes()).hexdigest()
    reads = []
    monkeypatch.setattr(digests, "_sha256", lambda f: reads.append(1) or "0" * 64)
    digests._MEMORY.clear()                        # a new process: the digest is read from the cache
    assert digests.file_digest(path) == first and not reads
    # Same size, modification time restored: the status-change time still tells.
    stat = path.stat()
    _flip_middle_byte(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    monkeypatch.undo()
    assert digests.file_digest(path) != first
    # A damaged cache entry is ignored.
    for entry in (cache / "digests").iterdir():
        entry.write_text("{not json")
    digests._MEMORY.clear()
    assert digests.file_digest(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_models_differing_only_in_the_middle_have_different_fingerprints(tiny_bert, cache, tmp_path):
    other = Path(shutil.copytree(tiny_bert, tmp_path / "other"))
    weights = other / "model.safetensors"
    _flip_middle_byte(weights)            # a byte of the tensor data
    assert model_fingerprint(other) != model_fingerprint(tiny_bert)
    a = SentenceEncoder.load(str(tiny_bert), device="cpu")
    b = SentenceEncoder.load(str(other), device="cpu")
    assert a.fingerprint != b.fingerprint and a.describe() != b.describe()


def test_a_big_file_differing_beyond_its_first_and_last_mib(cache, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    data = os.urandom(5 << 20)
    (a / "model.safetensors").write_bytes(data)
    (b / "model.safetensors").write_bytes(data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 1]) +
                                          data[len(data) // 2 + 1:])
    assert model_fingerprint(a) != model_fingerprint(b)


# --- GGUF conversion ------------------------------------------------------------------------
@pytest.fixture
def tiny_gguf(tmp_path, cache):
    pytest.importorskip("gguf", reason="writing a GGUF file needs the gguf package")
    from gguf_models import write_tiny_gguf

    return write_tiny_gguf(tmp_path / "tiny.gguf")


def _converted(cache: Path) -> Path:
    (directory,) = [p for p in (cache / "gguf").iterdir() if not p.name.startswith(".")]
    return directory


def _set_layers(path: Path) -> None:
    config = json.loads(path.read_text())
    config["num_hidden_layers"] = 1
    path.write_text(json.dumps(config))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


DAMAGES = {
    "num_hidden_layers edited": lambda d: _set_layers(d / "config.json"),
    "weight bytes flipped": lambda d: _flip_middle_byte(d / "model.safetensors"),
    "weights truncated": lambda d: _truncate(d / "model.safetensors"),
    "config.json deleted": lambda d: (d / "config.json").unlink(),
    "record deleted": lambda d: (d / RECORD).unlink(),
    "a file added": lambda d: (d / "extra.json").write_text("{}"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_gguf_conversion_is_rebuilt(tiny_gguf, cache, damage, caplog):
    original = NeuralLM.load(str(tiny_gguf), device="cpu").score(SENTENCES, contexts=CONTEXTS)
    directory = _converted(cache)
    DAMAGES[damage](directory)
    with caplog.at_level(logging.WARNING, logger="fastamfm"):
        again = NeuralLM.load(str(tiny_gguf), device="cpu").score(SENTENCES, contexts=CONTEXTS)
    np.testing.assert_array_equal(again, original)
    assert _converted(cache) == directory and "does not match its record" in caplog.text
    assert not [p for p in (cache / "gguf").iterdir() if p.name.startswith(".")]  # no temporary left


def test_a_sound_gguf_conversion_is_not_rebuilt(tiny_gguf, cache, monkeypatch):
    NeuralLM.load(str(tiny_gguf), device="cpu")
    from fastamfm.neural import gguf_conversion

    monkeypatch.setattr(gguf_conversion, "_convert", lambda *a: pytest.fail("converted again"))
    digests._MEMORY.clear()
    NeuralLM.load(str(tiny_gguf), device="cpu")


def _tensor_offset(path: Path, name: str) -> tuple:
    import gguf

    reader = gguf.GGUFReader(str(path))
    tensor = next(t for t in reader.tensors if t.name == name)
    return int(tensor.data_offset), int(tensor.n_bytes)


def test_damaged_tensor_bytes_are_an_error_not_a_score(tiny_gguf, cache):
    offset, size = _tensor_offset(tiny_gguf, "blk.0.attn_q.weight")
    data = bytearray(tiny_gguf.read_bytes())
    data[offset:offset + 64] = np.full(16, np.nan, dtype="<f4").tobytes()
    tiny_gguf.write_bytes(bytes(data))
    with pytest.raises(fastamfm.FormatError, match=r"tiny.gguf: the model's weights hold NaN or infinity "
                                                   r"\(model.layers.0.self_attn.q_proj.weight\)") as info:
        NeuralLM.load(str(tiny_gguf), device="cpu")
    assert info.value.path == str(tiny_gguf)


def test_non_finite_log_probabilities_are_an_error_not_a_score(cache, tmp_path, monkeypatch):
    """NaN positions from 20 on (GPT-2's position table): refused at load; and where values go
    non-finite anyway (the load check switched off, as for arithmetic that overflows on some
    input), scoring a long enough text is a FormatError in every metric, never a number."""
    from causal_models import make_model
    from deep_models import build_tiny_bert
    from fastamfm.deep.deep_amfm import DeepAMFM
    from safetensors.torch import load_file, save_file

    directory = make_model(tmp_path / "gpt2", "gpt2")
    weights = load_file(directory / "model.safetensors")
    name = next(k for k in weights if k.endswith("wpe.weight"))
    weights[name][20:] = float("nan")
    save_file(weights, directory / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(fastamfm.FormatError, match=r"gpt2: the model's weights hold NaN or infinity \(.*wpe.weight\)"):
        NeuralLM.load(str(directory), device="cpu")
    from fastamfm.neural import transformers_engine

    monkeypatch.setattr(transformers_engine, "refuse_non_finite_weights", lambda model, path: None)
    lm = NeuralLM.load(str(directory), device="cpu")
    assert np.isfinite(lm.score(["hi"])).all()
    long = [" ".join(SENTENCES)] * 2
    with pytest.raises(fastamfm.FormatError, match=r"gpt2: the model gives non-finite log-probabilities"):
        lm.score(long)
    with pytest.raises(fastamfm.FormatError, match="non-finite log-probabilities"):
        lm.score_tensor(long)
    with pytest.raises(fastamfm.FormatError, match="non-finite log-probabilities"):
        fastamfm.deep_fm(long, [[s] for s in long], lm=lm)
    encoder = SentenceEncoder.load(str(build_tiny_bert(tmp_path / "bert")), device="cpu")
    with pytest.raises(fastamfm.FormatError, match="non-finite log-probabilities"):
        DeepAMFM(encoder=encoder, lm=lm, device="cpu").reward(long, contexts=[["hi"], ["hello"]])


def test_non_finite_encoder_vectors_are_an_error(tiny_bert, cache, tmp_path):
    import torch
    from safetensors.torch import load_file, save_file

    directory = Path(shutil.copytree(tiny_bert, tmp_path / "nan-bert"))
    weights = load_file(directory / "model.safetensors")
    name = next(k for k in weights if "word_embeddings" in k)
    weights[name][:] = torch.nan
    save_file(weights, directory / "model.safetensors", metadata={"format": "pt"})
    encoder = SentenceEncoder.load(str(directory), device="cpu")
    with pytest.raises(fastamfm.FormatError, match="nan-bert: the model gives non-finite sentence vectors"):
        encoder.encode(SENTENCES)
    with pytest.raises(fastamfm.FormatError, match="non-finite token vectors"):
        fastamfm.bertscore(SENTENCES, [[s] for s in SENTENCES], encoder=encoder)


# --- ONNX export ----------------------------------------------------------------------------
def test_a_damaged_onnx_export_is_rebuilt(tiny_bert, cache, caplog):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    first = SentenceEncoder.load(str(tiny_bert), device="cpu", backend="onnx").encode(SENTENCES)
    (export,) = (cache / "onnx").iterdir()
    for damage in (lambda: _flip_middle_byte(export / "hidden.onnx"), lambda: _truncate(export / "hidden.onnx"),
                   lambda: (export / "hidden.onnx").unlink(), lambda: (export / RECORD).unlink()):
        damage()
        with caplog.at_level(logging.WARNING, logger="fastamfm"):
            again = SentenceEncoder.load(str(tiny_bert), device="cpu", backend="onnx").encode(SENTENCES)
        np.testing.assert_array_equal(again, first)
        assert "does not match its record" in caplog.text
        caplog.clear()
