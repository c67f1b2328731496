"""fastamfm.integrations.torchmetrics: registry metrics as torchmetrics metrics.

Every registered metric (the learned one needs a fitted scorer: tests/test_learned.py)
updated batch by batch, in one process or in two torch.distributed (gloo) processes that
each update part of the data -- one of them more batches than the other, or none --
gives the corpus scores of one ``fastamfm.evaluate`` call over all of it: bit for bit,
the neural metrics to float32 precision."""
from __future__ import annotations

import json
import socket
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the torchmetrics integration needs torch")
pytest.importorskip("torchmetrics", reason="the torchmetrics integration needs torchmetrics "
                                           "(pip install 'fastamfm[torchmetrics]')")

import fastamfm  # noqa: E402
from amfm_helpers import tiny_pairs  # noqa: E402
from available_metrics import NEURAL_METRICS, deep_available, runnable_metric_names  # noqa: E402
from fastamfm.integrations.torchmetrics import RegistryMetric, metric  # noqa: E402
from same_scores import assert_same_scores  # noqa: E402
from vector_files import write_glove  # noqa: E402


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, request):
    """61 responses x 3 references, word vectors on disk, a tiny random BERT and Llama for
    the neural metrics (when transformers is installed): every option given as a path,
    so another process builds the same metrics from them."""
    root = tmp_path_factory.mktemp("torchmetrics")
    hyps, refs = tiny_pairs(61, n_refs=3)
    words = sorted({w for t in hyps + [r for rs in refs for r in rs] for w in t.split()})
    vectors = root / "vectors.txt"
    write_glove(vectors, words, np.random.default_rng(0).normal(size=(len(words), 6)).astype(np.float32))
    names = runnable_metric_names()
    options = {"vectors": str(vectors), "empty": "zero"}
    if deep_available():
        from causal_models import make_model

        options.update(encoder=str(request.getfixturevalue("tiny_bert")), lm=str(make_model(root / "llama", "llama")),
                       device="cpu")
    return {"hyps": hyps, "refs": refs, "names": names, "options": options,
            "truth": fastamfm.evaluate(hyps, refs, names, **options).corpus}


def as_floats(computed) -> dict:
    return {c: v.item() for c, v in computed.items()}


def test_batches_of_one_process_equal_evaluate(corpus):
    hyps, refs = corpus["hyps"], corpus["refs"]
    m = metric(corpus["names"], **corpus["options"])
    for start, stop in ((0, 1), (1, 17), (17, 40), (40, 61)):
        m.update(hyps[start:stop], refs[start:stop])
    computed = m.compute()
    assert list(computed) == list(corpus["truth"])
    assert all(v.dtype == torch.float64 for v in computed.values())
    assert_same_scores(as_floats(computed), corpus["truth"], "torchmetrics vs evaluate")


def test_forward_scores_the_batch_and_accumulates(corpus):
    hyps, refs = corpus["hyps"], corpus["refs"]
    m = metric(["bleu", "cider", "amfm"])
    first = m(hyps[:20], refs[:20])
    assert as_floats(first) == fastamfm.evaluate(hyps[:20], refs[:20], ["bleu", "cider", "amfm"]).corpus
    m(hyps[20:], refs[20:])
    assert as_floats(m.compute()) == fastamfm.evaluate(hyps, refs, ["bleu", "cider", "amfm"]).corpus
    m.reset()
    m.update(hyps[:5], refs[:5])
    assert as_floats(m.compute()) == fastamfm.evaluate(hyps[:5], refs[:5], ["bleu", "cider", "amfm"]).corpus


def test_named_columns_and_one_reference_per_response(corpus):
    hyps, refs = corpus["hyps"], corpus["refs"]
    single = [r[0] for r in refs]
    m = metric("Bleu_4")
    m.update(hyps[:30], single[:30])
    m.update(hyps[30:], single[30:])
    value = m.compute()
    assert isinstance(value, torch.Tensor) and value.ndim == 0
    assert value.item() == fastamfm.evaluate(hyps, [[r] for r in single], ["bleu"]).corpus["Bleu_4"]
    assert list(metric("AM-FM, Bleu_2, Distinct_1").columns) == ["AM-FM", "Bleu_2", "Distinct_1"]


def test_merge_state_adds_the_statistics_of_another_metric(corpus):
    hyps, refs = corpus["hyps"], corpus["refs"]
    a, b = metric(["rouge_l", "cider"]), metric(["rouge_l", "cider"])
    a.update(hyps[:25], refs[:25])
    b.update(hyps[25:], refs[25:])
    a.merge_state(b)
    assert as_floats(a.compute()) == fastamfm.evaluate(hyps, refs, ["rouge_l", "cider"]).corpus


def test_errors_are_clear():
    with pytest.raises(ValueError, match="Learned cannot run here"):
        metric("learned")
    with pytest.raises(TypeError, match="unknown option"):
        metric("bleu", model="default")
    with pytest.raises(ValueError, match="computes \\['Bleu_1', 'Bleu_2'\\] with these options, not 'Bleu_3'"):
        metric("Bleu_3", bleu={"max_order": 2})
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference lists"):
        metric("bleu").update(["a", "b"], [["a"]])


# --- two processes ---------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _process(rank: int, port: int, names: list, options: dict, hyps: list, refs: list, out: str) -> None:
    """One of two gloo processes: rank 0 updates the first 40 responses in three batches,
    rank 1 the other 21 in one; a second metric is updated by rank 0 alone. (The neural
    metrics synchronise the same records; they are left to the one-process test, which
    loads no model in two more processes.)"""
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2,
                            timeout=timedelta(seconds=300))
    try:
        every = RegistryMetric(names, **options)
        lonely = RegistryMetric(["bleu", "cider", "distinct", "amfm"])
        batches = [(0, 7), (7, 30), (30, 40)] if rank == 0 else [(40, 61)]
        for start, stop in batches:
            every.update(hyps[start:stop], refs[start:stop])
            if rank == 0:
                lonely.update(hyps[start:stop], refs[start:stop])
        result = {"every": as_floats(every.compute()), "lonely": as_floats(lonely.compute())}
        # compute() gave the synced scores and left each process its own records.
        result["own_records"] = len(every.records)
        Path(out, f"rank{rank}.json").write_text(json.dumps(result))
    finally:
        dist.destroy_process_group()


def test_two_gloo_processes_each_with_part_of_the_data_equal_evaluate(corpus, tmp_path):
    import torch.multiprocessing as mp

    hyps, refs = corpus["hyps"], corpus["refs"]
    names = [n for n in corpus["names"] if n not in NEURAL_METRICS]
    options = {k: v for k, v in corpus["options"].items() if k in ("vectors", "empty")}
    mp.start_processes(_process, args=(_free_port(), names, options, hyps, refs, str(tmp_path)), nprocs=2, join=True,
                       start_method="spawn")
    truth = {c: v for c, v in corpus["truth"].items() if c in metric(names, **options).columns}
    lonely_truth = fastamfm.evaluate(hyps[:40], refs[:40], ["bleu", "cider", "distinct", "amfm"]).corpus
    for rank, own_records in ((0, 3), (1, 1)):
        result = json.loads((tmp_path / f"rank{rank}.json").read_text())
        assert result["every"] == truth, rank   # bit for bit
        assert result["lonely"] == lonely_truth, rank
        assert result["own_records"] == own_records


@pytest.mark.gpu
def test_states_on_a_cuda_device_give_the_same_scores(corpus):
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    hyps, refs = corpus["hyps"], corpus["refs"]
    m = metric(["bleu", "cider", "amfm"]).to("cuda")
    m.update(hyps[:30], refs[:30])
    m.update(hyps[30:], refs[30:])
    assert all(r.device.type == "cuda" for r in m.records)
    computed = m.compute()
    assert all(v.device.type == "cuda" for v in computed.values())
    assert as_floats(computed) == fastamfm.evaluate(hyps, refs, ["bleu", "cider", "amfm"]).corpus
