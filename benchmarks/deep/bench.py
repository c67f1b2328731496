"""pytest-benchmark: the neural metrics, each beside its peer (CPU, packaged all-MiniLM-L6-v2).

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py deep

Groups: "deep-encode" (300 distinct DSTC-6 sentences: SentenceEncoder.encode vs
sentence-transformers' encode; vectors asserted equal to 1e-5 in cosine), "deep-am-systems"
(3 DSTC-6 systems x 300 responses x 11 references: deep_am with one References vs a
per-system sentence-transformers script; scores asserted equal), "bertscore-systems"
(2 systems x 100 responses x 11 references: bertscore with one References vs
bert_score.score per system; F1 asserted equal to 1e-4).
"""
from __future__ import annotations

import fastamfm  # noqa: E402
import numpy as np
import pytest

from benchmarks.deep.workloads import cosine_gap, peer_system_scores  # noqa: E402

N_SENTENCES = 300


@pytest.fixture(scope="module")
def sentences(dstc6_systems, dstc6_refs):
    pool = dstc6_systems["S_1"] + [r for rs in dstc6_refs for r in rs]
    return list(dict.fromkeys(pool))[:N_SENTENCES]


@pytest.fixture(scope="module")
def peer(minilm_dir):
    st = pytest.importorskip("sentence_transformers")
    return st.SentenceTransformer(str(minilm_dir), device="cpu")


@pytest.fixture(scope="module")
def encoder(minilm_dir):
    return fastamfm.SentenceEncoder.load(minilm_dir, device="cpu")


@pytest.fixture(scope="module")
def expected_vectors(peer, sentences):
    return peer.encode(sentences, batch_size=32, normalize_embeddings=True)


@pytest.mark.benchmark(group="deep-encode")
def test_fastamfm_encode(benchmark, encoder, sentences, expected_vectors):
    vectors = benchmark(encoder.encode, sentences)
    assert cosine_gap(vectors, expected_vectors) <= 1e-5


@pytest.mark.benchmark(group="deep-encode")
def test_fastamfm_encode_onnx_backend(benchmark, minilm_dir, sentences, expected_vectors):
    pytest.importorskip("onnxruntime", reason='backend="onnx" needs fastamfm[onnx]')
    pytest.importorskip("onnx", reason='backend="onnx" needs fastamfm[onnx]')
    encoder = fastamfm.SentenceEncoder.load(minilm_dir, device="cpu", backend="onnx")
    encoder.encode(sentences[:8])   # the export (first use) is not what is timed
    vectors = benchmark(encoder.encode, sentences)
    assert cosine_gap(vectors, expected_vectors) <= 1e-5


@pytest.mark.benchmark(group="deep-encode")
def test_sentence_transformers_encode(benchmark, peer, sentences, expected_vectors):
    vectors = benchmark(peer.encode, sentences, batch_size=32, normalize_embeddings=True)
    assert cosine_gap(vectors, expected_vectors) <= 1e-5


@pytest.fixture(scope="module")
def systems_problem(dstc6_systems, dstc6_refs):
    refs = dstc6_refs[:N_SENTENCES]
    systems = {s: dstc6_systems[s][:N_SENTENCES] for s in ("S_1", "S_2", "S_3")}
    return systems, refs


@pytest.mark.benchmark(group="deep-am-systems")
def test_fastamfm_deep_am_systems(benchmark, encoder, peer, systems_problem):
    systems, refs = systems_problem

    def run():
        shared = fastamfm.References(refs)
        return {s: fastamfm.deep_am(hyps, shared, encoder=encoder).sentences["deep_am"] for s, hyps in systems.items()}

    scores = benchmark.pedantic(run, rounds=1, iterations=1)
    flat = [r for rs in refs for r in rs]
    offsets = np.concatenate([[0], np.cumsum([len(rs) for rs in refs])])
    np.testing.assert_allclose(scores["S_1"], peer_system_scores(peer, systems["S_1"], flat, offsets), atol=1e-5)


@pytest.mark.benchmark(group="deep-am-systems")
def test_sentence_transformers_script_systems(benchmark, peer, systems_problem):
    systems, refs = systems_problem
    flat = [r for rs in refs for r in rs]
    offsets = np.concatenate([[0], np.cumsum([len(rs) for rs in refs])])
    scores = benchmark.pedantic(lambda: {s: peer_system_scores(peer, h, flat, offsets) for s, h in systems.items()},
                                rounds=1, iterations=1)
    assert all(np.all(v <= 1 + 1e-6) for v in scores.values())


@pytest.fixture(scope="module")
def bert_problem(dstc6_systems, dstc6_refs):
    return {s: dstc6_systems[s][:100] for s in ("S_1", "S_2")}, dstc6_refs[:100]


@pytest.mark.benchmark(group="bertscore-systems")
def test_fastamfm_bertscore_systems(benchmark, minilm_dir, bert_problem):
    from fastamfm.deep.bertscore import load_bertscore_encoder

    bert_score = pytest.importorskip("bert_score")
    systems, refs = bert_problem

    def run():
        enc = load_bertscore_encoder(str(minilm_dir), "cpu", -1)
        shared = fastamfm.References(refs)
        return {s: fastamfm.bertscore(h, shared, encoder=enc, layer=6).sentences["bertscore_f1"]
                for s, h in systems.items()}

    f1 = benchmark.pedantic(run, rounds=1, iterations=1)
    _, _, want = bert_score.score(systems["S_1"], refs, model_type=str(minilm_dir), num_layers=6)
    np.testing.assert_allclose(f1["S_1"], want.numpy(), atol=1e-4)


@pytest.mark.benchmark(group="bertscore-systems")
def test_bert_score_per_system(benchmark, minilm_dir, bert_problem):
    bert_score = pytest.importorskip("bert_score")
    systems, refs = bert_problem
    scores = benchmark.pedantic(
        lambda: {s: bert_score.score(h, refs, model_type=str(minilm_dir), num_layers=6)[2] for s, h in systems.items()},
        rounds=1, iterations=1)
    assert len(scores) == 2
