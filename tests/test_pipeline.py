"""The one pipeline: every registered metric gives the same numbers through every entry
point, chunking does not change corpus scores, and prepared state is reused."""
from __future__ import annotations

import json

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_pairs, train_tiny
from available_metrics import deep_available, meteor_available, runnable_metric_names
from fastamfm import _core, registry
from fastamfm.cli import main
from fastamfm.pipeline import Pipeline
from same_scores import NEURAL_COLUMNS, assert_same_scores


@pytest.fixture(scope="module")
def scorer():
    # The AM-FM toolkit's tokenizer: AM and FM tokenize apart from the nlg-eval metrics.
    return train_tiny(tokenize="amfm")


@pytest.fixture(scope="module")
def data():
    hyps, refs = tiny_pairs(61, n_refs=3)
    return hyps, refs


@pytest.fixture(scope="module")
def options(scorer, data, request):
    hyps, refs = data
    words = sorted({w for t in hyps + [r for rs in refs for r in rs] for w in t.split()})
    rng = np.random.default_rng(0)
    vectors = fastamfm.WordVectors.from_arrays(words, rng.normal(size=(len(words), 6)).astype(np.float32))
    options = {"model": scorer, "vectors": vectors, "empty": "zero"}
    if deep_available():
        # A tiny random BERT and a tiny random Llama (built in the test) for the neural metrics.
        from causal_models import make_model

        options["encoder"] = str(request.getfixturevalue("tiny_bert"))
        options["lm"] = str(make_model(request.getfixturevalue("tmp_path_factory").mktemp("llama"), "llama"))
    return options


@pytest.fixture(scope="module")
def metric_names():
    # Every registered metric that runs from options alone: the learned metric needs a
    # scorer fitted on human ratings (tests/test_learned.py scores it through evaluate), the
    # evaluator a trained evaluator directory (tests/test_evaluator.py).
    return runnable_metric_names()


def _files(tmp_path, hyps, refs):
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("\n".join(hyps) + "\n")
    ref_paths = []
    for k in range(len(refs[0])):
        path = tmp_path / f"ref{k}.txt"
        path.write_text("\n".join(r[k] for r in refs) + "\n")
        ref_paths.append(path)
    return hyp, ref_paths


def _as_written(values) -> list[float]:
    """What the output files hold: '%.9g' of each score."""
    return [float("%.9g" % v) for v in values]


def test_every_metric_is_registered_once_with_its_columns(metric_names):
    assert set(registry.names()) >= {"bleu", "meteor", "rouge_l", "cider", "distinct", "embedding_average",
                                     "vector_extrema", "greedy_matching", "am", "fm", "amfm"}
    columns = [c for n in registry.names() for c in registry.metric_class(n).columns]
    assert len(columns) == len(set(columns))
    assert list(registry.default_names()) == ["bleu", "meteor", "rouge_l", "cider", "embedding_average",
                                              "vector_extrema", "greedy_matching"]


def test_every_entry_point_gives_the_same_numbers(data, options, metric_names, tmp_path):
    hyps, refs = data
    whole = fastamfm.evaluate(hyps, refs, metric_names, **options)
    # compute_metrics: the corpus values, under the same keys.
    keyed = fastamfm.compute_metrics(hyps, refs, metrics=metric_names, **options)
    # (nlg-eval's misspelled twin key comes beside the embedding average, equal to it.)
    assert keyed.pop("EmbeddingAverageCosineSimilairty") == keyed["EmbeddingAverageCosineSimilarity"]
    assert_same_scores(keyed, whole.corpus, "compute_metrics")
    # Each metric's own function (one pipeline behind both).
    assert list(fastamfm.bleu(hyps, refs).corpus.values()) == [whole.corpus[f"Bleu_{k}"] for k in range(1, 5)]
    assert fastamfm.cider(hyps, refs).corpus["CIDEr"] == whole.corpus["CIDEr"]
    assert fastamfm.rouge_l(hyps, refs).sentences["ROUGE_L"].tolist() == whole["ROUGE_L"].tolist()
    assert list(fastamfm.distinct(hyps).corpus.values()) == [whole.corpus["Distinct_1"], whole.corpus["Distinct_2"]]
    amfm = options["model"].score(hyps, refs)
    assert amfm.amfm.tolist() == whole["AM-FM"].tolist() and amfm.corpus["AM-FM"] == whole.corpus["AM-FM"]
    # score_files, streamed in chunks of 1, 7 and 10k: the same rows and corpus scores.
    hyp, ref_paths = _files(tmp_path, hyps, refs)
    for chunk_size in (1, 7, 10_000):
        out = tmp_path / f"out{chunk_size}.jsonl"
        summary = fastamfm.score_files(out, hyp=hyp, refs=ref_paths, metrics=metric_names, chunk_size=chunk_size,
                                       **options)
        assert_same_scores(summary["corpus"], whole.corpus, chunk_size)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["id"] for r in rows] == list(range(len(hyps)))
        for column in whole.columns:
            got = [r[column] for r in rows]
            if column in NEURAL_COLUMNS:
                np.testing.assert_allclose(got, whole[column], rtol=1e-5, atol=1e-6, err_msg=column)
            else:
                assert got == _as_written(whole[column]), (chunk_size, column)
    # The command line (tsv), with the same model directory.
    options["model"].save(tmp_path / "model")
    out = tmp_path / "cli.tsv"
    argv = ["-q", "score", "--hyp", str(hyp), *[a for p in ref_paths for a in ("--ref", str(p))],
            "--metrics", ",".join(n for n in metric_names if not n.startswith(("embedding", "vector", "greedy"))
                                  and n != "deep_fm"),
            "--model", str(tmp_path / "model"), "--out", str(out), "--chunk-size", "7", "--no-progress"]
    if "encoder" in options:
        argv += ["--encoder", options["encoder"]]
    if "lm" in options:  # --deep --lm MODEL sets deep_amfm's LM; the command line has no LM option for deep_fm
        argv += ["--deep", "--lm", options["lm"]]
    assert main(argv) == 0
    lines = out.read_text().splitlines()
    header = lines[0].split("\t")
    for k, column in enumerate(header[1:], 1):
        got = [float(line.split("\t")[k]) for line in lines[1:]]
        if column in NEURAL_COLUMNS:
            np.testing.assert_allclose(got, whole[column], rtol=1e-5, atol=1e-6, err_msg=column)
        else:
            assert got == _as_written(whole[column]), column


def test_streamed_meteor_and_cider_equal_the_whole_file(data, tmp_path):
    hyps, refs = data
    names = ["cider", "meteor"] if meteor_available() else ["cider"]
    whole = {"CIDEr": fastamfm.cider(hyps, refs).corpus["CIDEr"]}
    if "meteor" in names:
        whole["METEOR"] = fastamfm.meteor(hyps, refs).corpus["METEOR"]
    hyp, ref_paths = _files(tmp_path, hyps, refs)
    for chunk_size in (1, 7):
        summary = fastamfm.score_files(None, hyp=hyp, refs=ref_paths, metrics=names, chunk_size=chunk_size)
        assert summary["corpus"] == whole


def test_exact_corpus_means_do_not_depend_on_the_chunking():
    rng = np.random.default_rng(3)
    values = rng.random(10_001) * 10.0 ** rng.integers(-30, 30, size=10_001)
    whole = registry.MeanStatistics.of({"x": values})
    for parts in (2, 7, 1000):
        total = registry.MeanStatistics(0, {"x": 0})
        for piece in np.array_split(values, parts):
            total = total + registry.MeanStatistics.of({"x": piece})
        assert total.mean() == whole.mean()
    assert whole.mean()["x"] == pytest.approx(float(np.mean(values)), rel=1e-14)
    restored = registry.MeanStatistics.from_json(json.loads(json.dumps(whole.to_json())))
    assert restored.mean() == whole.mean()


@pytest.fixture()
def counted_builds(monkeypatch):
    """Counts the reference encodings and the derived states built on References."""
    counts = {"reference_sets": 0, "derived": {}, "hypothesis_encodings": 0}
    real_reference_set = _core.ReferenceSet
    real_hypotheses = _core.EncodedHypotheses
    real_derived = fastamfm.References.derived

    def reference_set(*args, **kwargs):
        counts["reference_sets"] += 1
        return real_reference_set(*args, **kwargs)

    def encoded_hypotheses(*args, **kwargs):
        counts["hypothesis_encodings"] += 1
        return real_hypotheses(*args, **kwargs)

    def derived(self, key, build):
        def counting_build():
            counts["derived"][key] = counts["derived"].get(key, 0) + 1
            return build()
        return real_derived(self, key, counting_build)

    monkeypatch.setattr("fastamfm.references._core.ReferenceSet", reference_set)
    monkeypatch.setattr("fastamfm.hypotheses._core.EncodedHypotheses", encoded_hypotheses)
    monkeypatch.setattr(fastamfm.References, "derived", derived)
    return counts


def test_one_references_is_prepared_once_for_every_system(data, options, metric_names, counted_builds):
    hyps, refs = data
    shared = fastamfm.References(refs)
    systems = [hyps, list(reversed(hyps)), [h.upper() for h in hyps]]
    first = fastamfm.evaluate(systems[0], shared, metric_names, **options)
    prepared = dict(counted_builds["derived"])
    reference_sets = counted_builds["reference_sets"]
    assert reference_sets >= 2  # whitespace (BLEU, CIDEr, ...) and the model's amfm tokens
    assert all(n == 1 for n in prepared.values()), prepared
    for system in systems[1:]:
        fastamfm.evaluate(system, shared, metric_names, **options)
    # Later systems reuse every prepared state; only BLEU builds its reference maxima
    # table when the references are scored a second time.
    built_later = {k: v for k, v in counted_builds["derived"].items() if prepared.get(k) != v}
    assert set(built_later) <= {k for k in counted_builds["derived"] if k[0] == "bleu.reference_maxima"}
    assert counted_builds["reference_sets"] == reference_sets
    # The functions and the AM-FM scorer accept the same References.
    fastamfm.rouge_l(hyps, shared)
    fastamfm.cider(hyps, shared)
    options["model"].score(hyps, shared)
    assert counted_builds["reference_sets"] == reference_sets
    assert all(v <= 1 for k, v in counted_builds["derived"].items() if k[0] != "bleu.reference_maxima")
    # Raw lists give the same numbers (prepared for that call only).
    assert fastamfm.evaluate(systems[0], refs, metric_names, **options).corpus == first.corpus


def test_responses_are_encoded_once_per_tokenizer_per_call(data, options, metric_names, counted_builds):
    hyps, refs = data
    fastamfm.evaluate(hyps, refs, metric_names, **options)
    # whitespace (n-grams up to 4: BLEU, CIDEr, ROUGE-L, Distinct) and amfm (AM, FM):
    # one encoding each, whatever the number of metrics.
    assert counted_builds["hypothesis_encodings"] == 2


def test_unknown_options_and_metrics_are_errors(data):
    hyps, refs = data
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['lowercse'\]"):
        fastamfm.evaluate(hyps, refs, ["bleu"], lowercse=True)
    with pytest.raises(TypeError, match=r"unknown option\(s\) \[\"bleu\['sigma'\]\"\]"):
        fastamfm.evaluate(hyps, refs, ["bleu"], bleu={"sigma": 3})
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        Pipeline.from_names(["nope"])
    with pytest.raises(ValueError, match="evaluate: bleu needs references"):
        fastamfm.evaluate(hyps, None, ["bleu"])


def test_per_metric_options_reach_one_metric_only(data):
    hyps, refs = data
    table = fastamfm.evaluate(hyps, refs, ["bleu", "cider"], bleu={"max_order": 2})
    assert list(table.columns) == ["Bleu_1", "Bleu_2", "CIDEr"]
    assert table.corpus["CIDEr"] == fastamfm.cider(hyps, refs).corpus["CIDEr"]  # cider kept max_order 4
