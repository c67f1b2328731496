"""The AMFM scorer: combination, systems, save/load, signature, reward, default model, errors."""
from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_corpus, tiny_pairs, train_tiny
from fastamfm import AMFM, combine_scores
from fastamfm.amfm.scorer import DEFAULT_MODEL_DIR, SETTINGS_FILE


@pytest.fixture(scope="module")
def scorer():
    return train_tiny()


@pytest.fixture(scope="module")
def pairs():
    return tiny_pairs(60)


def _combine_oracle(am: float, fm: float, lam: float, mean: str) -> float:
    if mean == "arithmetic":
        return lam * am + (1 - lam) * fm
    if mean == "geometric":
        return am ** lam * fm ** (1 - lam)
    terms = [w / v if v > 0 else math.inf for w, v in ((lam, am), (1 - lam, fm)) if w > 0]
    return 0.0 if math.inf in terms else 1.0 / sum(terms)


@pytest.mark.parametrize("mean", ["arithmetic", "geometric", "harmonic"])
@pytest.mark.parametrize("lam", [0.0, 0.3, 0.5, 0.8, 1.0])
def test_combine_scores_equals_formula(mean, lam):
    rng = np.random.default_rng(0)
    am = np.concatenate([rng.random(30), [0.0, 0.0, 0.7, 1.0]])
    fm = np.concatenate([rng.random(30), [0.0, 0.5, 0.0, 1.0]])
    got = combine_scores(am, fm, lam, mean)
    expected = [_combine_oracle(a, f, lam, mean) for a, f in zip(am, fm)]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("mean", ["arithmetic", "geometric", "harmonic"])
def test_score_is_combination_of_adequacy_and_fluency(scorer, pairs, mean):
    hyps, refs = pairs
    s = scorer.with_settings(lam=0.7, mean=mean)
    res = s.score(hyps, refs)
    am = fastamfm.adequacy(hyps, refs, scorer.lsi, combine="max").sentences["AM"]
    fm = fastamfm.fluency(hyps, refs, scorer.lm, combine="mean").sentences["FM"]
    np.testing.assert_array_equal(res.am, am)
    np.testing.assert_array_equal(res.fm, fm)
    np.testing.assert_allclose(res.amfm, [_combine_oracle(a, f, 0.7, mean) for a, f in zip(am, fm)], rtol=1e-12)
    assert res.corpus == pytest.approx({"AM": am.mean(), "FM": fm.mean(), "AM-FM": res.amfm.mean()}, rel=1e-12)
    assert len(res) == len(hyps)
    assert ((res.am >= 0) & (res.am <= 1)).all() and ((res.fm >= 0) & (res.fm <= 1)).all()


def test_reference_combinations_and_dims_are_passed_on(scorer, pairs):
    hyps, refs = pairs
    s = scorer.with_settings(dims=4, am_combine="centroid", fm_combine="maxmin")
    res = s.score(hyps, refs)
    am = fastamfm.adequacy(hyps, refs, scorer.lsi, dims=4, combine="centroid").sentences["AM"]
    np.testing.assert_array_equal(res.am, am)
    np.testing.assert_array_equal(res.fm, fastamfm.fluency(hyps, refs, scorer.lm, combine="maxmin").sentences["FM"])
    both = scorer.with_settings(combine="mean")
    assert (both.settings.am_combine, both.settings.fm_combine) == ("mean", "mean")


def test_unknown_words_score_am_zero(scorer, pairs):
    hyps, refs = pairs
    res = scorer.score(hyps, refs)
    assert res.am[0] == 0.0  # "zzqx unknownword" has no vocabulary word
    assert res.am[3] == 0.0  # the empty response


def test_score_systems_reuses_references(scorer, pairs):
    hyps, refs = pairs
    other = list(reversed(hyps))
    results = scorer.score_systems({"A": hyps, "B": other}, refs)
    assert list(results) == ["A", "B"]
    np.testing.assert_array_equal(results["A"].amfm, scorer.score(hyps, refs).amfm)
    np.testing.assert_array_equal(results["B"].amfm, scorer.score(other, refs).amfm)
    encoded = scorer.references(refs)
    assert scorer.references(encoded) is encoded
    np.testing.assert_array_equal(scorer.score(hyps, encoded).amfm, results["A"].amfm)


def test_chunked_scoring_equals_whole(scorer, pairs):
    hyps, refs = pairs
    whole = scorer.score(hyps, refs)
    parts = [scorer.score(hyps[i:i + 17], refs[i:i + 17]) for i in range(0, len(hyps), 17)]
    np.testing.assert_array_equal(np.concatenate([p.amfm for p in parts]), whole.amfm)


def test_results_do_not_depend_on_workers(scorer, pairs):
    hyps, refs = pairs
    np.testing.assert_array_equal(scorer.score(hyps, refs, workers=1).amfm, scorer.score(hyps, refs, workers=4).amfm)


def test_signature_records_settings_and_models(scorer):
    sig = scorer.signature
    for part in ("amfm|", "lam=0.5", "mean=arithmetic", "dims=8", "am=max", "fm=mean", "order=3",
                 f"lsi={scorer.lsi.fingerprint}", "tok=", "version="):
        assert part in sig
    assert scorer.with_settings(lam=0.8).signature != sig
    assert scorer.with_settings(dims=4).signature != sig
    assert scorer.with_settings(mean="harmonic").signature != sig
    assert scorer.with_settings(fm_combine="max").signature != sig
    assert scorer.with_settings().signature == sig
    other = train_tiny(order=2)
    assert other.signature != sig


def test_save_load_round_trip(scorer, pairs, tmp_path):
    hyps, refs = pairs
    path = tmp_path / "model"
    scorer.with_settings(lam=0.8, mean="geometric").save(path)
    manifest = json.loads((path / SETTINGS_FILE).read_text())
    assert manifest["format"] == "fastamfm-amfm" and manifest["format_version"] == 1
    loaded = AMFM.load(path)
    assert loaded.settings == scorer.with_settings(lam=0.8, mean="geometric").settings
    assert loaded.signature == scorer.with_settings(lam=0.8, mean="geometric").signature
    np.testing.assert_array_equal(loaded.score(hyps, refs).amfm,
                                  scorer.with_settings(lam=0.8, mean="geometric").score(hyps, refs).amfm)
    assert AMFM.load(path, lam=0.2).settings.lam == 0.2
    # Saving again over an existing model directory replaces it.
    scorer.save(path)
    assert AMFM.load(path).settings.lam == 0.5
    assert not [p for p in tmp_path.iterdir() if p.name != "model"]  # no temporary left behind


def test_load_rejects_corrupt_or_foreign_models(scorer, tmp_path):
    path = tmp_path / "model"
    scorer.save(path)
    manifest = json.loads((path / SETTINGS_FILE).read_text())

    manifest["format_version"] = 99
    (path / SETTINGS_FILE).write_text(json.dumps(manifest))
    with pytest.raises(fastamfm.FormatError, match="format version 99"):
        AMFM.load(path)

    manifest["format_version"] = 1
    (path / SETTINGS_FILE).write_text(json.dumps(manifest))
    data = bytearray((path / "lm.model").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (path / "lm.model").write_bytes(bytes(data))
    with pytest.raises(fastamfm.FormatError, match="lm.model: SHA-256 differs from amfm.json"):
        AMFM.load(path)

    (path / SETTINGS_FILE).write_text("{not json")
    with pytest.raises(fastamfm.FormatError, match="amfm.json:1:2: invalid JSON in the settings file"):
        AMFM.load(path)
    with pytest.raises(FileNotFoundError, match="no such AM-FM model directory"):
        AMFM.load(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="not an AM-FM model directory"):
        AMFM.load(tmp_path / "empty")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("x")
    with pytest.raises(FileExistsError, match="holds no AM-FM model"):
        scorer.save(tmp_path / "other")
    assert (tmp_path / "other" / "keep.txt").exists()


def test_reward_is_float32_and_thread_safe(scorer):
    batches = [tiny_pairs(64, n_refs=4, seed=s) for s in range(8)]
    serial = [scorer.reward(h, r) for h, r in batches]
    assert serial[0].dtype == np.float32 and serial[0].shape == (64,)
    np.testing.assert_array_equal(serial[0], scorer.score(*batches[0]).amfm.astype(np.float32))
    results = [None] * len(batches)
    errors = []

    def work(i):
        try:
            for _ in range(5):
                out = scorer.reward(*batches[i])
                if results[i] is not None:
                    assert np.array_equal(out, results[i])
                results[i] = out
        except Exception as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(batches))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for a, b in zip(results, serial):
        np.testing.assert_array_equal(a, b)


def test_the_missing_default_model_error_names_a_command_that_runs(tmp_path, monkeypatch):
    """The error tells users how to rebuild the packaged model: that command must exist."""
    import re
    import subprocess
    import sys

    from fastamfm.amfm import scorer

    monkeypatch.setattr(scorer, "DEFAULT_MODEL_DIR", tmp_path / "absent")
    monkeypatch.setattr(scorer, "_DEFAULT", None)
    with pytest.raises(FileNotFoundError, match="packaged default AM-FM model is missing") as info:
        AMFM.default()
    command = re.search(r"python -m (\S+)", str(info.value))
    assert command, str(info.value)
    proc = subprocess.run([sys.executable, "-m", command[1], "--help"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(fastamfm.__file__).resolve().parents[1])})
    assert proc.returncode == 0 and "--topical-chat" in proc.stdout, proc.stderr


def test_default_model_ships_and_scores():
    assert (DEFAULT_MODEL_DIR / SETTINGS_FILE).exists(), "the packaged default model is missing"
    size = sum(p.stat().st_size for p in DEFAULT_MODEL_DIR.iterdir())
    assert size <= 15 * 1024 * 1024
    default = AMFM.default()
    assert AMFM.default() is default  # loaded once per process
    hyps = ["I love watching football on Sundays!", "zzzz qqqq"]
    refs = [["Do you like football? I watch it every Sunday.", "I enjoy football games."], ["hello there"]]
    res = default.score(hyps, refs)
    assert res.amfm[0] > res.amfm[1]
    metrics = fastamfm.compute_metrics(hyps, refs, metrics=["am", "fm", "amfm"])
    assert set(metrics) == {"AM", "FM", "AM-FM"}
    assert metrics["AM-FM"] == pytest.approx(res.corpus["AM-FM"])


def test_amfm_metrics_accept_a_scorer_or_directory(scorer, pairs, tmp_path):
    hyps, refs = pairs
    scorer.save(tmp_path / "m")
    by_object = fastamfm.evaluate(hyps, refs, metrics="am,fm,amfm", model=scorer)
    assert by_object.corpus == fastamfm.evaluate(hyps, refs, metrics="am,fm,amfm", model=tmp_path / "m").corpus
    with pytest.raises(TypeError, match="model must be 'default'"):
        fastamfm.evaluate(hyps, refs, metrics="amfm", model=3)


def test_evaluate_returns_one_table_type(scorer, pairs):
    hyps, refs = pairs
    table = fastamfm.evaluate(hyps, refs, metrics="am,fm,amfm", model=scorer)
    res = scorer.score(hyps, refs)
    assert isinstance(table, fastamfm.MetricResult) and isinstance(res, fastamfm.MetricResult)
    assert list(table.sentences) == ["AM", "FM", "AM-FM"] == list(table.to_dict())
    np.testing.assert_array_equal(table["AM-FM"], res.amfm)
    assert table.corpus == res.corpus
    pd = pytest.importorskip("pandas")
    frame = fastamfm.evaluate(hyps, refs, metrics=["AM-FM"], model=scorer).to_frame()
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == ["AM-FM"]


def test_evaluate_skips_what_is_missing_with_a_warning(scorer, pairs):
    hyps, refs = pairs
    with pytest.warns(RuntimeWarning, match="no word vectors given"):
        out = fastamfm.evaluate(hyps, refs, metrics="am,embedding_average", model=scorer)
    assert list(out.sentences) == ["AM"]
    with pytest.raises(ValueError, match="unknown metric 'blue'"):
        fastamfm.evaluate(hyps, refs, metrics="blue", model=scorer)


def test_train_from_file_equals_train_from_list(tmp_path):
    corpus = tiny_corpus(2000)
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(corpus) + "\n")
    a = AMFM.train(corpus, dims=6, order=2, tokenize="whitespace", workers=1)
    b = AMFM.train(path, dims=6, order=2, tokenize="whitespace", workers=1)
    hyps, refs = tiny_pairs(20)
    np.testing.assert_array_equal(a.score(hyps, refs).amfm, b.score(hyps, refs).amfm)
    assert a.signature == b.signature


@pytest.mark.parametrize("call, error, message", [
    (lambda s, h, r: s.score(h, r[:-1]), ValueError, "60 hypotheses but 59 reference lists"),
    (lambda s, h, r: s.score(h, "a reference"), TypeError, "not a single string"),
    (lambda s, h, r: s.score([], []), ValueError, "hyps is empty"),
    (lambda s, h, r: s.score("a response", r), TypeError, "hyps must be a sequence of strings"),
    (lambda s, h, r: s.score(h[:2], [["x"], []]), ValueError, r"refs\[1\] has no reference"),
    (lambda s, h, r: s.score([1, 2], [["x"], ["y"]]), TypeError, r"hyps\[0\] is int"),
    (lambda s, h, r: s.with_settings(lam=1.5), ValueError, r"lam must be a number in \[0, 1\]"),
    (lambda s, h, r: s.with_settings(lam="0.5"), ValueError, r"lam must be a number in \[0, 1\]"),
    (lambda s, h, r: s.with_settings(mean="median"), ValueError, "mean must be one of"),
    (lambda s, h, r: s.with_settings(dims=9), ValueError, "dims=9 but the LSI model has only 8"),
    (lambda s, h, r: s.with_settings(dims=0), ValueError, "dims must be a positive integer"),
    (lambda s, h, r: s.with_settings(am_combine="min"), ValueError, "am_combine must be one of"),
    (lambda s, h, r: s.with_settings(fm_combine="centroid"), ValueError, "fm_combine must be one of"),
    (lambda s, h, r: s.with_settings(combine="maxmin"), ValueError, "combine must be 'max' or 'mean'"),
    (lambda s, h, r: AMFM(s.lsi, s.lm, combine="max", am_combine="max"), ValueError, "either combine="),
    (lambda s, h, r: AMFM(s.lm, s.lm), TypeError, "lsi must be a fastamfm.LsiModel"),
    (lambda s, h, r: AMFM(s.lsi, s.lsi), TypeError, "lm must be a fastamfm.NgramLM"),
    (lambda s, h, r: AMFM(s.lsi, s.lm, tokenize="amfm"), ValueError, "trained with"),
    (lambda s, h, r: s.score_systems({}, r), TypeError, "non-empty mapping"),
    (lambda s, h, r: combine_scores([0.1], [0.1, 0.2]), ValueError, "AM has shape"),
    (lambda s, h, r: AMFM.train(b"bytes"), TypeError, "not bytes"),
    (lambda s, h, r: AMFM.train([]), ValueError, "corpus is empty"),
    (lambda s, h, r: AMFM.train("/nonexistent/corpus.txt"), FileNotFoundError, "does not exist"),
    (lambda s, h, r: AMFM.train(["", " "], dims=2), ValueError, "the corpus has no words"),
    (lambda s, h, r: AMFM.train([1, 2], dims=2), TypeError, r"corpus\[0\] is int"),
])
def test_bad_input(scorer, pairs, call, error, message):
    hyps, refs = pairs
    with pytest.raises(error, match=message):
        call(scorer, hyps, refs)


def _twcs_agent_turns(twcs_dir, limit):
    import bz2
    import csv
    import re

    rep = re.compile(r"<rep__ (.*?) __rep>")
    turns = []
    with bz2.open(twcs_dir / "airlines_processed.csv.bz2", "rt", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            turns += rep.findall(row["context"])
            if len(turns) >= limit:
                return turns[:limit]
    return turns


def test_dstc6_scores_equal_sklearn_and_kenlm_oracle(twcs_dir, dstc6_systems, dstc6_refs, tmp_path):
    """End to end on real data: AM from CountVectorizer x U_k, FM from kenlm on our ARPA."""
    kenlm = pytest.importorskip("kenlm")
    from sklearn.feature_extraction.text import CountVectorizer

    scorer = AMFM.train(_twcs_agent_turns(twcs_dir, 6000), dims=20, order=3, tokenize="whitespace", lam=0.8,
                        workers=2)
    hyps, refs = dstc6_systems["S_3"][:300], dstc6_refs[:300]
    res = scorer.score(hyps, refs)

    vectorizer = CountVectorizer(vocabulary=scorer.lsi.vocabulary, tokenizer=str.split, lowercase=False,
                                 token_pattern=None)
    u = np.asarray(scorer.lsi.components, dtype=np.float64)

    def unit(texts):
        v = vectorizer.transform(texts) @ u
        n = np.linalg.norm(v, axis=1, keepdims=True)
        return np.divide(v, n, out=np.zeros_like(v), where=n > 0)

    scorer.lm.save_arpa(tmp_path / "lm.arpa")
    lm = kenlm.Model(str(tmp_path / "lm.arpa"))

    def prob(text):
        # Per-word normalised sentence probability, </s> prediction included; unknown
        # words leave the sum and the word count (fm_oov="skip", SRILM -ppl's rule); a
        # sentence without a scored word has probability 0 (fastamfm's empty rule).
        scores = list(lm.full_scores(text, bos=True, eos=True))
        log10 = sum(p for p, _, unknown in scores if not unknown)
        words = sum(1 for _, _, unknown in scores[:-1] if not unknown)
        return 10.0 ** (log10 / words) if words else 0.0

    for i, (h, rs) in enumerate(zip(hyps, refs)):
        hv, rv = unit([h])[0], unit(rs)
        am = max(max(0.0, float(hv @ r)) for r in rv)
        ph = prob(h)
        fm = float(np.mean([min(ph, prob(r)) / max(ph, prob(r)) if max(ph, prob(r)) > 0 else 0.0 for r in rs]))
        assert res.am[i] == pytest.approx(am, abs=1e-5), i
        assert res.fm[i] == pytest.approx(fm, abs=1e-4), i
        assert res.amfm[i] == pytest.approx(0.8 * am + 0.2 * fm, abs=1e-4), i


def test_default_model_training_data(topical_chat_dir, tmp_path):
    from fastamfm.amfm.build_default_model import topical_chat_turns

    turns = topical_chat_turns(topical_chat_dir)
    assert len(turns) == 46903 and all(t and "\n" not in t for t in turns)
    with pytest.raises(FileNotFoundError, match="valid_freq.json: missing"):
        topical_chat_turns(tmp_path)
    for split in ("valid_freq", "valid_rare", "test_freq", "test_rare"):
        (tmp_path / f"{split}.json").write_text(json.dumps({"c1": {"content": [{"message": 3}]}}))
    with pytest.raises(ValueError, match="conversation c1 turn 0: no message text"):
        topical_chat_turns(tmp_path)


@pytest.mark.skipif(not hasattr(fastamfm, "bleu"), reason="BLEU/ROUGE-L are not in this build (issue 3)")
def test_evaluate_columns_equal_the_metric_functions(scorer, pairs):
    hyps, refs = pairs
    table = fastamfm.evaluate(hyps, refs, metrics="bleu,rouge_l,cider,amfm", model=scorer)
    assert list(table) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr", "AM-FM"]
    bleu = fastamfm.bleu(hyps, refs).sentences
    for k in range(4):
        np.testing.assert_array_equal(table[f"Bleu_{k + 1}"], bleu[f"Bleu_{k + 1}"])
    np.testing.assert_array_equal(table["ROUGE_L"], fastamfm.rouge_l(hyps, refs).sentences["ROUGE_L"])
    np.testing.assert_array_equal(table["CIDEr"], fastamfm.cider(hyps, refs).sentences["CIDEr"])


def test_train_refuses_an_unknown_setting_before_training(monkeypatch):
    """AMFM.train's settings are checked against the scorer's (SCORER_SETTINGS is that list)
    before any model trains."""
    import inspect

    from fastamfm.amfm import lsi
    from fastamfm.amfm.scorer import SCORER_SETTINGS

    parameters = inspect.signature(fastamfm.AMFM.__init__).parameters
    init = [p for p in parameters if p not in ("self", "lsi", "lm", "workers")]
    assert list(SCORER_SETTINGS) == init

    def no_training(*args, **kwargs):
        raise AssertionError("a model trained before the settings were checked")

    monkeypatch.setattr(lsi.LsiModel, "train", no_training)
    with pytest.raises(TypeError, match=r"unknown setting\(s\) \['lamda'\]"):
        fastamfm.AMFM.train(["a b c", "b c d"], lamda=0.3)
