"""The Hugging Face evaluate module: ``evaluate.load(fastamfm.integrations.evaluate_module_path())``
computes what ``fastamfm.compute_metrics`` computes, under nlg-eval's keys, on DSTC-6."""
from __future__ import annotations

import warnings

import pytest

evaluate = pytest.importorskip("evaluate", reason="the evaluate module needs evaluate (pip install "
                                                  "'fastamfm[evaluate]')")

import fastamfm  # noqa: E402
import fastamfm.integrations  # noqa: E402
from amfm_helpers import tiny_pairs, train_tiny  # noqa: E402


def load(tmp_path, *args):
    return evaluate.load(fastamfm.integrations.evaluate_module_path(), *args, cache_dir=str(tmp_path))


def quietly(fn, *args, **kwargs):
    """Without word vectors both sides leave the embedding metrics out with a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


@pytest.mark.shared_data
def test_dstc6_s1_equals_compute_metrics(tmp_path, dstc6_refs, dstc6_systems):
    hyps = dstc6_systems["S_1"]
    module = load(tmp_path)
    assert module.name == "fastamfm"
    module.add_batch(predictions=hyps[:1200], references=dstc6_refs[:1200])
    module.add_batch(predictions=hyps[1200:], references=dstc6_refs[1200:])
    got = quietly(module.compute)
    want = quietly(fastamfm.compute_metrics, hyps, dstc6_refs)
    assert {"Bleu_1", "Bleu_4", "ROUGE_L", "CIDEr"} <= set(got)
    assert got == want


def test_metrics_options_and_one_reference_per_prediction(tmp_path):
    hyps, refs = tiny_pairs(30, n_refs=2)
    model = tmp_path / "model"
    train_tiny().save(model)
    module = load(tmp_path)
    got = module.compute(predictions=hyps, references=[r[0] for r in refs], metrics=["amfm", "Bleu_2"],
                         model=str(model))
    assert got == fastamfm.compute_metrics(hyps, [[r[0]] for r in refs], metrics=["amfm", "Bleu_2"], model=str(model))
    assert list(got) == ["AM-FM", "Bleu_2"]


def test_the_configuration_names_the_metric_set(tmp_path):
    hyps, refs = tiny_pairs(30, n_refs=2)
    module = load(tmp_path, "rouge_l,cider")
    assert module.compute(predictions=hyps, references=refs) == \
        fastamfm.compute_metrics(hyps, refs, metrics=["rouge_l", "cider"])


def test_bad_options_are_the_same_clear_errors(tmp_path):
    hyps, refs = tiny_pairs(5)
    with pytest.raises(TypeError, match="unknown option"):
        load(tmp_path).compute(predictions=hyps, references=refs, metrics=["bleu"], no_such_option=1)
