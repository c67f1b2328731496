"""The dialogue evaluator (``fastamfm.evaluator``): self-supervised training on a small
corpus with a tiny random BERT built here, its checksummed directory, scoring through
``Evaluator``, the registry, ``score_files``/the CLI, Dask workers and ``reward``, and
``LearnedScorer`` over its encoder and columns. Seconds each."""
from __future__ import annotations

import json
import random
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the evaluator needs torch (fastamfm[deep])")
pytest.importorskip("transformers", reason="the evaluator needs transformers (fastamfm[deep])")

import fastamfm  # noqa: E402
from deep_models import build_tiny_bert, write_dialogue_corpus  # noqa: E402
from fastamfm.cli import main  # noqa: E402
from fastamfm.evaluator import Combination  # noqa: E402
from fastamfm.evaluator.combination import standardisable  # noqa: E402
from fastamfm.evaluator.speaker_tags import strip_speaker  # noqa: E402
from fastamfm.training import DialogueCorpus, write_checksums  # noqa: E402
from fastamfm.training.calibration import calibration_replies, standardizers  # noqa: E402
from fastamfm.training.corruption import CORRUPTIONS, corrupt  # noqa: E402
from fastamfm.training.evaluator import CALIBRATION_REPLIES, MIN_HELD_OUT_REPLIES  # noqa: E402
from fastamfm.training.negatives import (  # noqa: E402
    NEGATIVE_KINDS,  # noqa: E402
    Example,
    NegativeSampler,
)
from fastamfm.training.turn_pool import TurnPool, dialogue_key  # noqa: E402

WORDS = "hello thanks please help sorry delay gate bag ticket seat flight check status good day".split()
HYPS = ["thanks please help", "good day", "sorry delay gate", "check the bag status"]
CONTEXTS = [["hello", "my flight"], "please check\nthe gate", ["good day"], ["where is my bag"]]


def quick(**extra):
    return {"max_steps": 6, "batch_size": 16, "device": "cpu", "progress": False, "blocklist": False, **extra}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("evaluator")
    bert = build_tiny_bert(root / "bert")
    corpus = write_dialogue_corpus(root / "corpus.txt", 160)
    out = root / "evaluator"
    evaluator = fastamfm.train_evaluator(str(corpus), out=out, base=str(bert), **quick())
    return {"root": root, "bert": bert, "corpus": corpus, "out": out, "evaluator": evaluator}


# --- negatives ------------------------------------------------------------------------

@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_a_corrupted_turn_is_never_the_turn(kind):
    rng = random.Random(1)
    for text in ["please check the flight status now", "no no no", "a b c", "good day to you sir"]:
        for _ in range(20):
            damaged = corrupt(kind, text, rng)
            assert damaged is not None and damaged != text and damaged.strip()
    assert corrupt(kind, "hi there", rng) is None          # too short to damage
    with pytest.raises(ValueError, match="unknown corruption"):
        corrupt("reverse", "a b c d", rng)


def test_labels_of_each_kind():
    assert Example((), "x", "positive").labels == (1.0, 1.0)
    for kind in NEGATIVE_KINDS:
        relevance, validity = Example((), "x", kind).labels
        assert relevance == 0.0 and validity == (0.0 if kind in CORRUPTIONS else 1.0)


def test_sampler_draws_every_kind_from_other_dialogues_and_is_seeded():
    dialogues = [[f"turn {d} {t} about {WORDS[(d + t) % len(WORDS)]} and {WORDS[d % 5]}" for t in range(6)]
                 for d in range(40)]
    keyed = [(dialogue_key(d), d) for d in dialogues]
    pool = TurnPool.build(keyed, retrieval_dims=8, generic_count=5)
    weights = {kind: 1.0 for kind in NEGATIVE_KINDS}
    first = NegativeSampler(pool, weights, context_turns=2, seed=3)
    seen = {}
    for key, turns in keyed:
        for example in first.examples(key, turns):
            seen.setdefault(example.kind, []).append((key, turns, example))
    assert set(seen) == {"positive", *NEGATIVE_KINDS}
    for kind in ("random", "retrieval"):
        for key, turns, example in seen[kind]:
            assert example.response not in turns and len(example.context) <= 2
    for key, turns, example in seen["same_dialogue"]:
        assert example.response in turns
    a, b = (NegativeSampler(pool, weights, context_turns=2, seed=9) for _ in range(2))
    assert [a.examples(k, t) for k, t in keyed] == [b.examples(k, t) for k, t in keyed]
    with pytest.raises(ValueError, match="unknown negative kind"):
        NegativeSampler(pool, {"nonsense": 1.0}, context_turns=2)
    with pytest.raises(ValueError, match="weight 0"):
        NegativeSampler(pool, {"random": 0.0}, context_turns=2)


def test_speaker_tags_are_stripped():
    assert strip_speaker("User: Hi there") == "Hi there"
    assert strip_speaker("System:  ok ") == "ok"
    assert strip_speaker("username: bob") == "username: bob"


# --- training and the directory --------------------------------------------------------

def test_training_writes_a_checksummed_directory_with_provenance(trained):
    out = trained["out"]
    assert sorted(p.name for p in out.iterdir()) == ["checksums.json", "encoder", "evaluator.json",
                                                     "head.safetensors", "provenance.json"]
    assert not Path(str(out) + ".work").exists()
    record = json.loads((out / "provenance.json").read_text())
    assert record["stages"]["evaluator"]["steps"] == 6
    assert record["corpus"]["counts"]["dialogues_read"] == 160
    assert "dropped_blocklist" in record["corpus"]["counts"] and len(record["corpus"]["counts"]["content_sha256"]) == 64
    assert record["base_models"]["encoder"]["fingerprint"]
    assert record["settings"]["evaluator"]["negatives"]["retrieval"] > 0
    assert record["turn_pool"]["turns"] > 100
    manifest = json.loads((out / "evaluator.json").read_text())
    assert manifest["version"] == 2 and manifest["combination"]["kind"] == "zscore"
    assert sorted(manifest["combination"]["scales"]) == ["coherence", "relevance", "validity"]
    # The tiny corpus holds out few dialogues: the calibration topped them up and says so.
    calibration = record["calibration"]
    assert calibration["training_replies"] > 0 and calibration["held_out_replies"] >= 0


def test_zscore_scales_are_measured_on_real_replies_and_combine_as_documented(trained):
    ev = trained["evaluator"]
    corpus = DialogueCorpus([str(trained["corpus"])], blocklist=False)
    contexts, replies, source = calibration_replies(corpus, limit=CALIBRATION_REPLIES, context_turns=ev.context_turns,
                                                    top_up=MIN_HELD_OUT_REPLIES)
    record = json.loads((trained["out"] / "provenance.json").read_text())["calibration"]
    assert {k: record[k] for k in source} == source
    scales = standardizers(standardisable(ev.components(replies, contexts=contexts)))
    for name, stored in ev.combination.scales.items():
        assert (scales[name].center, scales[name].scale) == pytest.approx((stored.center, stored.scale), rel=1e-5)
    columns = ev.components(HYPS, contexts=CONTEXTS)
    assert np.all((columns["coherence"] >= 0) & (columns["coherence"] <= 1))
    scales = ev.combination.scales
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    z = [(logit(columns[name]) - scales[name].center) / scales[name].scale for name in ("relevance", "validity")]
    z.append((columns["coherence"] - scales["coherence"].center) / scales["coherence"].scale)
    np.testing.assert_allclose(columns["evaluator"], 1 / (1 + np.exp(-np.mean(z, axis=0))), rtol=1e-9)
    # Real replies sit around the middle of the scale they were measured on.
    assert 0.3 < float(np.mean(ev.components(replies, contexts=contexts)["evaluator"])) < 0.7


def test_combinations_check_their_settings():
    columns = {"relevance": np.array([0.2, 0.9]), "validity": np.array([0.5, 0.5]), "coherence": np.array([0.1, 0.4])}
    np.testing.assert_allclose(Combination("product")(columns), [0.1, 0.45])
    np.testing.assert_allclose(Combination("mean")(columns), [0.35, 0.7])
    with pytest.raises(ValueError, match="measured scale of relevance, validity, coherence"):
        Combination("zscore")
    scales = standardizers(standardisable(columns))
    combined = Combination("zscore", 0.5, scales)
    assert Combination.from_json(json.loads(json.dumps(combined.to_json()))) == combined
    assert combined(columns)[1] > combined(columns)[0]
    bad = dict(scales, coherence=type(scales["coherence"])(0.0, 0.0))
    with pytest.raises(ValueError, match="scale > 0"):
        Combination("zscore", 0.5, bad)
    with pytest.raises(ValueError, match="combination must be one of"):
        Combination("sum")


def test_round_trip_scores_the_same_and_training_is_deterministic(trained, tmp_path):
    loaded = fastamfm.Evaluator.load(trained["out"], device="cpu")
    expected = trained["evaluator"].score(HYPS, contexts=CONTEXTS)
    got = loaded.score(HYPS, contexts=CONTEXTS)
    for column in ("evaluator", "evaluator_relevance", "evaluator_validity"):
        np.testing.assert_array_equal(got.sentences[column], expected.sentences[column])
        assert np.all((got.sentences[column] > 0) & (got.sentences[column] < 1))
    again = fastamfm.train_evaluator(str(trained["corpus"]), out=tmp_path / "again", base=str(trained["bert"]),
                                     **quick())
    np.testing.assert_array_equal(again.score(HYPS, contexts=CONTEXTS).sentences["evaluator"],
                                  expected.sentences["evaluator"])
    assert again.fingerprint == loaded.fingerprint


def test_a_changed_file_is_refused(trained, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(trained["out"], copy)
    data = bytearray((copy / "head.safetensors").read_bytes())
    data[-1] ^= 1
    (copy / "head.safetensors").write_bytes(bytes(data))
    with pytest.raises(fastamfm.FormatError, match="head.safetensors"):
        fastamfm.Evaluator.load(copy, device="cpu")
    (copy / "checksums.json").unlink()
    with pytest.raises(fastamfm.FormatError, match="checksums.json"):
        fastamfm.Evaluator.load(copy, device="cpu")
    older = tmp_path / "older"
    shutil.copytree(trained["out"], older)
    manifest = json.loads((older / "evaluator.json").read_text())
    (older / "evaluator.json").write_text(json.dumps({**manifest, "version": 1}))
    write_checksums(older)
    with pytest.raises(fastamfm.FormatError, match="manifest version 1; this fastamfm reads version 2"):
        fastamfm.Evaluator.load(older, device="cpu")
    with pytest.raises(FileNotFoundError, match="not an evaluator directory"):
        fastamfm.Evaluator.load(tmp_path, device="cpu")


def test_empty_responses_score_the_minimum(trained):
    ev = trained["evaluator"]
    res = ev.score(["", "   ", "good day"], contexts=[["hello"], ["hello"], ["hello"]], refs=[["hi"], ["hi"], ["hi"]])
    for column in ("evaluator", "evaluator_relevance", "evaluator_validity", "evaluator_coherence",
                   "evaluator_reference"):
        assert res.sentences[column][0] == 0.0 and res.sentences[column][1] == 0.0
    assert res.sentences["evaluator"][2] > 0


def test_references_join_the_score(trained):
    ev = trained["evaluator"]
    free = ev.score(HYPS, contexts=CONTEXTS).sentences
    both = ev.score(HYPS, contexts=CONTEXTS, refs=[[h] for h in HYPS]).sentences
    np.testing.assert_allclose(both["evaluator_reference"], 1.0, rtol=1e-5)
    w = ev.combination.reference_weight
    np.testing.assert_allclose(both["evaluator"], w + (1 - w) * free["evaluator"], rtol=1e-6)
    with pytest.raises(ValueError, match="contexts="):
        ev.score(HYPS, refs=[[h] for h in HYPS])


def test_reward_is_float32_and_thread_safe(trained):
    import torch

    ev = trained["evaluator"]
    expected = ev.reward(HYPS, contexts=CONTEXTS)
    assert expected.dtype == torch.float32 and expected.shape == (len(HYPS),)
    results, errors = [], []

    def work(i):
        try:
            order = HYPS[i % 4:] + HYPS[:i % 4]
            contexts = CONTEXTS[i % 4:] + CONTEXTS[:i % 4]
            got = ev.reward(order * 5, contexts=contexts * 5)
            results.append((i % 4, got))
        except Exception as exc:  # noqa: BLE001 (any failure in a thread fails the test)
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for shift, got in results:
        np.testing.assert_allclose(got[:4].numpy(), np.roll(expected.numpy(), -shift), rtol=1e-6)


# --- the registry, files, the CLI, Dask ---------------------------------------------------

def test_signatures_say_whether_references_were_used(trained):
    ev = trained["evaluator"]
    refs = [[h] for h in HYPS]
    assert "refs=0" in ev.score(HYPS, contexts=CONTEXTS).signature
    assert "refs=1" in ev.score(HYPS, contexts=CONTEXTS, refs=refs).signature
    # The registry metric's batches may or may not carry references: its signature never
    # claims they were left out (it said refs=False while references changed the score).
    res = fastamfm.evaluate(HYPS, refs, contexts=CONTEXTS, metrics=["evaluator"],
                            evaluator={"model": str(trained["out"]), "device": "cpu"})
    assert "refs=auto" in res.signature and "refs=0" not in res.signature
    np.testing.assert_allclose(res.sentences["evaluator"], ev.score(HYPS, contexts=CONTEXTS, refs=refs)
                               .sentences["evaluator"], rtol=1e-6)


def test_registry_evaluate_and_score_files(trained, tmp_path):
    out = str(trained["out"])
    res = fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["evaluator"], evaluator={"model": out, "device": "cpu"})
    own = trained["evaluator"].score(HYPS, contexts=CONTEXTS)
    # One naming rule (tests/test_naming.py): Evaluator.score names its columns as evaluate does.
    assert own.name == "evaluator" and own.columns == res.columns
    assert set(own.corpus) == set(own.columns)
    expected = own.sentences
    for column in res.columns:
        np.testing.assert_allclose(res.sentences[column], expected[column], rtol=1e-6, err_msg=column)
    with pytest.warns(DeprecationWarning, match=r"\['evaluator_relevance'\]"):
        np.testing.assert_array_equal(own["relevance"], expected["evaluator_relevance"])
    assert res.corpus["evaluator"] == pytest.approx(float(np.mean(expected["evaluator"])))
    with pytest.warns(RuntimeWarning, match="needs a trained evaluator"), pytest.raises(ValueError):
        fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["evaluator"])
    hyp, ctx = tmp_path / "h.txt", tmp_path / "c.txt"
    hyp.write_text("".join(h + "\n" for h in HYPS))
    ctx.write_text("".join("\t".join(c.split("\n") if isinstance(c, str) else c) + "\n" for c in CONTEXTS))
    summary = fastamfm.score_files(tmp_path / "s.jsonl", hyp=str(hyp), contexts=str(ctx), metrics=["evaluator"],
                                   evaluator={"model": out, "device": "cpu"})
    rows = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    np.testing.assert_allclose([r["evaluator"] for r in rows], expected["evaluator"], rtol=1e-6)
    assert summary["corpus"]["evaluator"] == pytest.approx(res.corpus["evaluator"])


def test_cli_train_then_score(trained, tmp_path, capsys):
    out = tmp_path / "cli-evaluator"
    code = main(["-q", "train", "--evaluator", "--corpus", str(trained["corpus"]), "--corpus", str(trained["corpus"]),
                 "--out", str(out), "--max-steps", "3", "--encoder", str(trained["bert"]), "--no-blocklist",
                 "--device", "cpu", "--negatives", "random=1,shuffle=0.5"])
    assert code == 0, capsys.readouterr().err
    record = json.loads((out / "provenance.json").read_text())
    assert record["corpus"]["counts"]["duplicates"] == 160
    assert record["settings"]["evaluator"]["negatives"] == {"random": 1.0, "shuffle": 0.5}
    hyp, ctx, ref = tmp_path / "h.txt", tmp_path / "c.txt", tmp_path / "r.txt"
    hyp.write_text("thanks please help\ngood day\n")
    ctx.write_text("hello\tmy flight\ngood day\n")
    ref.write_text("please help\ngood day to you\n")
    scores = tmp_path / "scores.jsonl"
    assert main(["-q", "score", "--evaluator", str(out), "--hyp", str(hyp), "--context", str(ctx), "--ref", str(ref),
                 "--out", str(scores), "--no-progress"]) == 0
    rows = [json.loads(line) for line in scores.read_text().splitlines()]
    expected = fastamfm.Evaluator.load(out, device="cpu").score(
        ["thanks please help", "good day"], contexts=[["hello", "my flight"], ["good day"]],
        refs=[["please help"], ["good day to you"]]).sentences["evaluator"]
    np.testing.assert_allclose([r["evaluator"] for r in rows], expected, rtol=1e-5)
    assert main(["score", "--evaluator", str(out), "--hyp", str(hyp), "--ref", str(ref)]) == 1
    assert "--context" in capsys.readouterr().err
    assert main(["train", "--evaluator", "--deep", "--corpus", str(trained["corpus"]), "--out", str(tmp_path / "x")]) == 1


def test_cli_train_bad_corpus_is_one_error_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"one turn alone\n")
    assert main(["train", "--evaluator", "--corpus", str(bad), "--out", str(tmp_path / "o"), "--no-blocklist",
                 "--max-steps", "1"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:1" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_dask_workers_load_the_evaluator_once(trained, tmp_path):
    distributed = pytest.importorskip("distributed", reason="needs dask[distributed]")
    import fastamfm.distributed as fd

    hyp, ctx = tmp_path / "h.txt", tmp_path / "c.txt"
    hyp.write_text("".join(h + "\n" for h in HYPS))
    ctx.write_text("".join("\t".join(c.split("\n") if isinstance(c, str) else c) + "\n" for c in CONTEXTS))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None,
                                  memory_limit=0) as cluster, distributed.Client(cluster) as client:
        fd.score(client, [(str(hyp), [], str(ctx))], ["evaluator"], out=tmp_path / "scored",
                 evaluator={"model": str(trained["out"]), "device": "cpu"})
    rows = [json.loads(line) for line in (tmp_path / "scored" / "scores.jsonl").read_text().splitlines()]
    expected = trained["evaluator"].score(HYPS, contexts=CONTEXTS).sentences["evaluator"]
    np.testing.assert_allclose([r["evaluator"] for r in rows], expected, rtol=1e-5)


# --- fitted to ratings ------------------------------------------------------------------------

def test_learned_scorer_adem_on_the_evaluator_encoder_and_stack_with_its_columns(trained, tmp_path):
    ev = trained["evaluator"]
    hyps = HYPS * 4
    contexts = CONTEXTS * 4
    ratings = np.arange(len(hyps)) % 5 + 1.0
    adem = fastamfm.LearnedScorer.fit(ratings, hyps, contexts=contexts, kind="adem", encoder=ev.encoder, dims=3)
    assert adem.settings["encoder"] == f"evaluator:{ev.fingerprint}"
    adem.save(tmp_path / "adem.fastamfm")
    again = fastamfm.LearnedScorer.load(tmp_path / "adem.fastamfm", encoder=str(trained["out"]))
    np.testing.assert_allclose(again.score(hyps, contexts=contexts).sentences["Learned"],
                               adem.score(hyps, contexts=contexts).sentences["Learned"], rtol=1e-6)
    stack = fastamfm.LearnedScorer.fit(ratings, hyps, contexts=contexts, kind="stack", evaluator=ev,
                                       metrics=["Evaluator-relevance", "Evaluator-validity"])
    assert stack.settings["evaluator"] == ev.fingerprint
    stack.save(tmp_path / "stack.fastamfm")
    with pytest.raises(ValueError, match="evaluator="):
        fastamfm.LearnedScorer.load(tmp_path / "stack.fastamfm")
    loaded = fastamfm.LearnedScorer.load(tmp_path / "stack.fastamfm", evaluator=str(trained["out"]))
    np.testing.assert_allclose(loaded.score(hyps, contexts=contexts).sentences["Learned"],
                               stack.score(hyps, contexts=contexts).sentences["Learned"], rtol=1e-6)
    res = fastamfm.evaluate(hyps, contexts=contexts, metrics=["learned"],
                            learned={"path": str(tmp_path / "stack.fastamfm"), "evaluator": str(trained["out"])})
    np.testing.assert_allclose(res.sentences["Learned"], stack.score(hyps, contexts=contexts).sentences["Learned"],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="trained evaluator"):
        fastamfm.LearnedScorer.fit(ratings, hyps, contexts=contexts, kind="stack", metrics=["Evaluator"])
