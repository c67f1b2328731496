"""Training the neural metrics on tiny random models (seconds each): SentenceEncoder.fine_tune
(contrastive, and masked-LM where the model has the head), NeuralLM.fine_tune (full and
LoRA), DeepAMFM.train -> load -> score, the CLI (train --deep, score --deep DIR), the
registry's deep_amfm with model=DIR, and Dask workers loading the directory."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="training needs torch (fastamfm[train])")
pytest.importorskip("transformers", reason="training needs transformers (fastamfm[train])")

import fastamfm  # noqa: E402
from causal_models import make_model  # noqa: E402
from deep_models import build_tiny_bert, write_dialogue_corpus  # noqa: E402
from fastamfm.cli import main  # noqa: E402
from fastamfm.deep.deep_amfm import DeepAMFM  # noqa: E402
from fastamfm.neural.encoder import SentenceEncoder  # noqa: E402
from fastamfm.neural.neural_lm import NeuralLM  # noqa: E402
from fastamfm.training.causal_lm_task import TRAINING_CONTEXT_TOKENS  # noqa: E402

write_corpus = write_dialogue_corpus


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("deep-training")
    return {"root": root, "encoder": build_tiny_bert(root / "bert"), "lm": make_model(root / "llama"),
            "corpus": write_corpus(root / "corpus.txt")}


def quick(**extra):
    return {"max_steps": 4, "batch_size": 8, "device": "cpu", "progress": False, "blocklist": False, **extra}


def test_encoder_fine_tune_saves_a_loadable_encoder_that_changed(models, tmp_path):
    base = SentenceEncoder.load(models["encoder"], device="cpu")
    run = base.fine_tune(models["corpus"], tmp_path / "enc", learning_rate=1e-3, **quick())
    assert run.steps == 4 and run.examples == 32 and run.tokens > 0 and run.task == "encoder"
    tuned = SentenceEncoder.load(tmp_path / "enc", device="cpu")
    sentences = ["hello thanks please", "sorry delay gate"]
    assert tuned.dim == base.dim and tuned.max_length == base.max_length
    assert not np.allclose(tuned.encode(sentences), base.encode(sentences))


def test_encoder_fine_tune_adds_masked_lm_where_the_model_has_the_head(models, tmp_path):
    import torch
    import transformers
    from fastamfm.training.contrastive_task import ContrastiveTask, has_mlm_head

    directory = tmp_path / "bert-mlm"
    build_tiny_bert(directory)
    config = transformers.BertConfig.from_pretrained(directory)
    config.architectures = ["BertForMaskedLM"]
    torch.manual_seed(0)
    transformers.BertForMaskedLM(config).save_pretrained(directory)
    assert has_mlm_head(directory) and not has_mlm_head(models["encoder"])
    task = ContrastiveTask(directory, pooling="mean", layer=-1, normalize=True)
    assert task.mlm
    examples = [("hello thanks please", "sorry delay gate bag", "good day"), ("check status", "ticket seat", None)]
    batch = task.collate(examples)
    assert (batch["mlm_labels"] != -100).any() and torch.equal(task.collate(examples)["mlm_ids"], batch["mlm_ids"])
    assert batch["reply_ids"].shape[0] == 3                   # two replies + one same-dialogue negative
    encoder = SentenceEncoder.load(directory, device="cpu")
    run = encoder.fine_tune(models["corpus"], tmp_path / "out", **quick())
    assert run.steps == 4
    SentenceEncoder.load(tmp_path / "out", device="cpu").encode(["hello"])


def test_contrastive_pooling_is_the_scorers(models):
    """The vectors the loss compares are the ones SentenceEncoder.encode returns."""
    import torch
    from fastamfm.training.contrastive_task import ContrastiveTask

    for pooling, layer in (("mean", -1), ("cls", 1), ("sum", -1)):
        encoder = SentenceEncoder.load(models["encoder"], pooling=pooling, layer=layer, device="cpu",
                                       backend="transformers")
        task = ContrastiveTask(models["encoder"], pooling=pooling, layer=encoder.layer, normalize=True)
        task.model.eval()
        texts = ["hello thanks please help", "sorry delay"]
        ids, mask = task._pad(texts)
        with torch.no_grad():
            ours = task._sentence_vectors(ids, mask).numpy()
        np.testing.assert_allclose(ours, encoder.encode(texts), atol=1e-5)


@pytest.mark.parametrize("lora_rank", [None, 4])
def test_lm_fine_tune_raises_the_likelihood_of_in_domain_replies(models, tmp_path, lora_rank):
    base = NeuralLM.load(models["lm"], device="cpu")
    run = base.fine_tune(models["corpus"], tmp_path / "lm", lora_rank=lora_rank, learning_rate=3e-3,
                         **quick(max_steps=12))
    assert run.steps == 12 and run.task == "lm"
    tuned = NeuralLM.load(tmp_path / "lm", device="cpu")
    replies, contexts = ["thanks please help", "sorry delay gate"], [["hello good day"], ["check status"]]
    before, after = base.score(replies, contexts=contexts), tuned.score(replies, contexts=contexts)
    assert after.mean() > before.mean()
    assert tuned.settings == base.settings
    assert not any((tmp_path / "lm").glob("adapter_*"))        # LoRA merged: a plain model directory


def test_lm_examples_are_the_scorers_requests(models):
    """The training prefix of a reply is exactly the prefix NeuralLM.score conditions it on."""
    import transformers
    from fastamfm.neural.hf_tokenizer import HFTokenizer
    from fastamfm.training import Dialogue
    from fastamfm.training.causal_lm_task import CausalLMTask

    lm = NeuralLM.load(models["lm"], device="cpu")
    task = CausalLMTask(transformers.AutoModelForCausalLM.from_pretrained(models["lm"]),
                        HFTokenizer.load(models["lm"]), lm.settings)
    turns = ("hello good day", "thanks please", "sorry delay gate")
    examples = list(task.examples(Dialogue(turns, "x", 1)))
    requests = lm.requests(list(turns[1:]), [list(turns[:1]), list(turns[:2])])
    assert [p for p, _ in examples] == [r.prefix for r in requests]
    assert all(t[:len(r.target)] == r.target and len(t) == len(r.target) + 1 for (_, t), r in zip(examples, requests))


def test_lm_examples_keep_the_most_recent_context_tokens(models):
    """A long context is cut for training to the last TRAINING_CONTEXT_TOKENS tokens' turns,
    exactly as a scorer with that limit cuts it (scoring itself keeps its own, longer limit)."""
    import transformers
    from fastamfm.neural.hf_tokenizer import HFTokenizer
    from fastamfm.training import Dialogue
    from fastamfm.training.causal_lm_task import CausalLMTask

    lm = NeuralLM.load(models["lm"], device="cpu")
    cut = NeuralLM.load(models["lm"], device="cpu", max_context_tokens=TRAINING_CONTEXT_TOKENS)
    task = CausalLMTask(transformers.AutoModelForCausalLM.from_pretrained(models["lm"]),
                        HFTokenizer.load(models["lm"]), lm.settings)
    turns = tuple("hello good day thanks please sorry delay gate" for _ in range(3)) + ("thanks please",)
    prefix, _ = list(task.examples(Dialogue(turns, "x", 1)))[-1]
    context = [list(turns[:-1])]
    assert prefix == cut.requests([turns[-1]], context)[0].prefix
    assert len(prefix) < len(lm.requests([turns[-1]], context)[0].prefix)


@pytest.fixture(scope="module")
def trained(models):
    out = models["root"] / "trained"
    scorer = DeepAMFM.train(models["corpus"], out, encoder=str(models["encoder"]), lm=str(models["lm"]),
                            max_steps=3, device="cpu", progress=False, blocklist=False, held_out=0.2,
                            calibration_samples=40, lora_rank=4)
    return out, scorer


def test_deep_amfm_train_writes_a_checksummed_directory_with_provenance(trained, models):
    out, scorer = trained
    assert sorted(p.name for p in out.iterdir()) == ["checksums.json", "deep_amfm.json", "encoder", "lm",
                                                     "provenance.json"]
    assert not Path(str(out) + ".work").exists()
    record = json.loads((out / "provenance.json").read_text())
    assert set(record["stages"]) == {"encoder", "lm"} and record["stages"]["lm"]["steps"] == 3
    counts = record["corpus"]["counts"]
    assert counts["dialogues_read"] == 240 and counts["held_out"] >= 20 and len(counts["content_sha256"]) == 64
    assert record["base_models"]["encoder"]["fingerprint"] and record["versions"]["torch"]
    assert record["settings"]["lm"]["lora_rank"] == 4
    assert record["settings"]["lm"]["max_context_tokens"] == TRAINING_CONTEXT_TOKENS
    manifest = json.loads((out / "deep_amfm.json").read_text())
    assert manifest["calibration_source"].startswith("held-out:")
    assert scorer.calibration.source == manifest["calibration_source"]
    # the followup's scale is measured with the others (context_combination="am+fm+followup" needs
    # it); the reference-free default combines AM and FM alone
    assert set(manifest["calibration"]) == {"am_reference", "fm_reference", "am_context", "fm_context", "followup"}
    assert manifest["scoring"]["context_combination"] == scorer.context_combination == "am+fm"


def test_trained_directory_round_trip_scores_the_same(trained):
    out, scorer = trained
    hyps, refs, contexts = ["thanks please help"], [["sorry delay gate", "help please"]], [["hello", "good day"]]
    loaded = DeepAMFM.load(out, device="cpu")
    for kwargs in ({"refs": refs}, {"contexts": contexts}, {"refs": refs, "contexts": contexts}):
        np.testing.assert_allclose(loaded.score(hyps, **kwargs).deep_amfm, scorer.score(hyps, **kwargs).deep_amfm, rtol=1e-6)
    assert loaded.signature("reference") == scorer.signature("reference")


def test_a_changed_file_in_a_trained_directory_is_refused(trained, tmp_path):
    import shutil

    out, _ = trained
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    manifest = json.loads((copy / "deep_amfm.json").read_text())
    manifest["lam"]["reference"] = 0.1
    (copy / "deep_amfm.json").write_text(json.dumps(manifest))
    with pytest.raises(fastamfm.FormatError, match="deep_amfm.json"):
        DeepAMFM.load(copy, device="cpu")
    with pytest.raises(FileNotFoundError, match="not a trained DeepAMFM"):
        DeepAMFM.load(tmp_path, device="cpu")


def test_a_directory_trained_before_the_followup_scores_as_it_did(trained, tmp_path):
    """A manifest without the followup's scale (written before it joined) loads with the
    two-component reference-free mode and its own lambda; asking for the followup says why not."""
    import shutil

    from fastamfm.models.directory import write_checksums

    out, _ = trained
    old = tmp_path / "old"
    shutil.copytree(out, old)
    manifest = json.loads((old / "deep_amfm.json").read_text())
    del manifest["calibration"]["followup"], manifest["scoring"]["context_combination"]
    manifest["lam"]["context"] = 0.3
    (old / "deep_amfm.json").write_text(json.dumps(manifest))
    write_checksums(old)
    loaded = DeepAMFM.load(old, device="cpu")
    assert loaded.context_combination == "am+fm" and loaded.lam["context"] == 0.3
    hyps, contexts = ["thanks please help"], [["hello", "good day"]]
    res = loaded.score(hyps, contexts=contexts)
    assert "followup" not in res.columns
    np.testing.assert_allclose(res.deep_amfm, 0.3 * loaded.calibrated("am_context", res.deep_amfm_am)
                               + 0.7 * loaded.calibrated("fm_context", res.deep_amfm_fm), rtol=1e-9)
    with pytest.raises(ValueError, match="needs a calibration with the followup's scale"):
        DeepAMFM.load(old, device="cpu", context_combination="am+fm+followup")
    # a current directory asked for the other mode: that mode's own lambda, not the manifest's
    other = DeepAMFM.load(out, device="cpu", context_combination="am+fm+followup")
    assert other.context_combination == "am+fm+followup" and other.lam["context"] == 0.5


def test_registry_deep_amfm_with_model_dir(trained):
    out, scorer = trained
    hyps, refs = ["thanks please help", "good day"], [["sorry delay gate"], ["hello good day"]]
    res = fastamfm.evaluate(hyps, refs, metrics=["deep_amfm"], deep_amfm={"model": str(out), "device": "cpu"})
    np.testing.assert_allclose(res["deep_amfm"], scorer.score(hyps, refs).deep_amfm, rtol=1e-6)
    with pytest.raises(ValueError, match="not both"):
        fastamfm.evaluate(hyps, refs, metrics=["deep_amfm"], deep_amfm={"model": str(out), "lm": "x"})
    with pytest.warns(RuntimeWarning, match="nope is not a trained DeepAMFM directory"), \
            pytest.raises(ValueError, match="none of the requested metrics"):
        fastamfm.evaluate(hyps, refs, metrics=["deep_amfm"], deep_amfm={"model": str(out / "nope")})


def test_cli_train_deep_then_score_deep_dir(models, tmp_path, capsys):
    out = tmp_path / "cli-model"
    corpus_b = write_corpus(tmp_path / "more.jsonl", 0)
    corpus_b.write_text("".join(json.dumps({"turns": ["please check the flight status", "thanks good day"]}) + "\n"
                                for _ in range(3)))
    code = main(["-q", "train", "--deep", "--corpus", str(models["corpus"]), "--corpus", str(corpus_b), "--out",
                 str(out), "--max-steps", "2", "--encoder", str(models["encoder"]), "--lm", str(models["lm"]),
                 "--no-blocklist", "--device", "cpu", "--lora-rank", "0"])
    assert code == 0, capsys.readouterr().err
    record = json.loads((out / "provenance.json").read_text())
    assert record["corpus"]["counts"]["files"] == 2 and record["corpus"]["counts"]["duplicates"] == 2
    assert record["settings"]["lm"]["lora_rank"] is None
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("thanks please help\ngood day\n")
    ref.write_text("sorry delay gate\nhello good day\n")
    scores = tmp_path / "scores.jsonl"
    assert main(["-q", "score", "--hyp", str(hyp), "--ref", str(ref), "--deep", str(out), "--out", str(scores),
                 "--no-progress"]) == 0
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    expected = DeepAMFM.load(out, device="cpu").score(["thanks please help", "good day"],
                                                       [["sorry delay gate"], ["hello good day"]]).deep_amfm
    np.testing.assert_allclose([r["deep_amfm"] for r in rows], expected, rtol=1e-5)


def test_cli_train_deep_bad_corpus_is_one_error_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"one turn alone\n")
    assert main(["train", "--deep", "--corpus", str(bad), "--out", str(tmp_path / "o"), "--no-blocklist",
                 "--max-steps", "1"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:1" in err and "at least two" in err
    assert main(["train", "--corpus", str(bad), "--corpus", str(bad), "--out", str(tmp_path / "o")]) == 1


def test_resume_skips_a_finished_stage(models, tmp_path):
    """A run whose encoder stage finished before it was stopped redoes only what is left."""
    from fastamfm.training.deep_amfm import _Stage

    out = tmp_path / "m"
    work = Path(str(out) + ".work")
    base = SentenceEncoder.load(models["encoder"], device="cpu")
    run = base.fine_tune(models["corpus"], work / "encoder-model", work=work / "checkpoints", **quick(max_steps=2))
    _Stage(work, "encoder").finish(run)
    DeepAMFM.train(models["corpus"], out, encoder=str(models["encoder"]), lm=str(models["lm"]), max_steps=2,
                   resume=True, device="cpu", progress=False, blocklist=False, held_out=0.2, calibration_samples=30)
    record = json.loads((out / "provenance.json").read_text())
    assert record["stages"]["encoder"]["session_seconds"] == run.session_seconds


@pytest.mark.slow
def test_dask_workers_load_the_trained_directory(trained, tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs dask[distributed]")
    import fastamfm.distributed as fd

    out, scorer = trained
    hyps, refs = ["thanks please help", "good day", "sorry delay"], [["sorry delay gate"], ["hello"], ["gate bag"]]
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("".join(h + "\n" for h in hyps))
    ref.write_text("".join(r[0] + "\n" for r in refs))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit=0) as cluster, distributed.Client(cluster) as client:
        fd.score(client, [(str(hyp), [str(ref)])], ["deep_amfm"], out=tmp_path / "scored",
                 deep_amfm={"model": str(out), "device": "cpu"})
    rows = [json.loads(line) for line in (tmp_path / "scored" / "scores.jsonl").read_text().splitlines()]
    np.testing.assert_allclose([r["deep_amfm"] for r in rows], scorer.score(hyps, refs).deep_amfm, rtol=1e-5)


def test_lm_loss_projects_only_targets_but_equals_the_models_loss(models):
    import torch
    import transformers
    from fastamfm.neural.hf_tokenizer import HFTokenizer
    from fastamfm.training import Dialogue
    from fastamfm.training.causal_lm_task import CausalLMTask, with_lora

    for lora in (None, 4):
        model = transformers.AutoModelForCausalLM.from_pretrained(models["lm"])
        if lora:
            model = with_lora(model, lora, seed=0)
        lm = NeuralLM.load(models["lm"], device="cpu")
        task = CausalLMTask(model, HFTokenizer.load(models["lm"]), lm.settings)
        turns = ("hello good day", "thanks please help me", "sorry delay gate", "check status")
        batch = task.collate(list(task.examples(Dialogue(turns, "x", 1))))
        expected = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                         labels=batch["labels"]).loss
        torch.testing.assert_close(task.loss(model, batch), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.gpu
def test_deep_amfm_trains_and_scores_on_the_gpu(models, tmp_path):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    out = tmp_path / "gpu-model"
    scorer = DeepAMFM.train(models["corpus"], out, encoder=str(models["encoder"]), lm=str(models["lm"]),
                            max_steps=3, device="cuda", precision="bfloat16", progress=False, blocklist=False,
                            held_out=0.2, calibration_samples=30)
    record = json.loads((out / "provenance.json").read_text())
    assert {run["device"] for run in record["stages"].values()} == {"cuda"}
    assert scorer.lm.device.startswith("cuda")
    reward = scorer.reward(["thanks please help"], [["sorry delay gate"]])
    assert reward.device.type == "cuda" and reward.dtype == torch.float32
