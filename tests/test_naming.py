"""One naming rule over the registry: for every registered metric, its own function or
scorer, ``evaluate``, ``compute_metrics`` and the CLI's ``metrics`` listing give the same
column names, ``corpus`` is a mapping keyed by them, and the result is named after the
metric; the names before 0.2 still read, with a DeprecationWarning; no dotted path is both
a module and a function."""
from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import types
import warnings
from collections.abc import Mapping

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_pairs, train_tiny
from available_metrics import deep_available, meteor_available
from fastamfm import _deprecated, registry
from fastamfm.cli import main

CONTEXTS_OF = lambda hyps: [["hi", "fine?"]] * len(hyps)  # noqa: E731


@pytest.fixture(scope="module")
def setting(request, tmp_path_factory):
    hyps, refs = tiny_pairs(12, n_refs=2)
    scorer = train_tiny()
    words = sorted({w for t in hyps + [r for rs in refs for r in rs] for w in t.split()})
    vectors = fastamfm.WordVectors.from_arrays(
        words, np.random.default_rng(0).normal(size=(len(words), 6)).astype(np.float32))
    options = {"model": scorer, "vectors": vectors, "empty": "zero"}
    if deep_available():
        from causal_models import make_model
        from fastamfm import NeuralLM

        options["encoder"] = str(request.getfixturevalue("tiny_bert"))
        options["lm"] = NeuralLM.load(make_model(tmp_path_factory.mktemp("llama"), "llama", max_positions=2048),
                                      device="cpu")
    return hyps, refs, options


def _deep_amfm(hyps, refs, options):
    from fastamfm import DeepAMFM, SentenceEncoder

    return DeepAMFM(encoder=SentenceEncoder.load(options["encoder"], device="cpu"), lm=options["lm"]).score(hyps, refs)


def _followup(hyps, refs, options):
    from fastamfm import FollowupScorer

    return FollowupScorer(lm=options["lm"]).score(hyps, contexts=CONTEXTS_OF(hyps))


def _lm_judge(hyps, refs, options):
    from fastamfm import LMJudge

    return LMJudge(lm=options["lm"]).score(hyps, contexts=CONTEXTS_OF(hyps))


# registry name -> (the metrics the entry point's columns are those of, its own call). The
# learned metric and the evaluator need a fitted scorer / a trained evaluator: their own
# results are held to the rule in tests/test_learned.py and tests/test_evaluator.py.
OWN_CALLS = {
    "bleu": (["bleu"], lambda h, r, o: fastamfm.bleu(h, r)),
    "meteor": (["meteor"], lambda h, r, o: fastamfm.meteor(h, r)),
    "rouge_l": (["rouge_l"], lambda h, r, o: fastamfm.rouge_l(h, r)),
    "cider": (["cider"], lambda h, r, o: fastamfm.cider(h, r)),
    "embedding_average": (["embedding_average"], lambda h, r, o: fastamfm.embedding_average(h, r, vectors=o["vectors"], empty="zero")),
    "vector_extrema": (["vector_extrema"], lambda h, r, o: fastamfm.vector_extrema(h, r, vectors=o["vectors"], empty="zero")),
    "greedy_matching": (["greedy_matching"], lambda h, r, o: fastamfm.greedy_matching(h, r, vectors=o["vectors"], empty="zero")),
    "distinct": (["distinct"], lambda h, r, o: fastamfm.distinct(h)),
    "sacrebleu": (["sacrebleu"], lambda h, r, o: fastamfm.sacrebleu(h, r, layout="responses")),
    "chrf": (["chrf"], lambda h, r, o: fastamfm.chrf(h, r, layout="responses")),
    "chrf_plus": (["chrf_plus"], lambda h, r, o: fastamfm.chrf(h, r, word_order=2, layout="responses")),
    "rouge": (["rouge"], lambda h, r, o: fastamfm.rouge(h, r)),
    "self_bleu": (["self_bleu"], lambda h, r, o: fastamfm.self_bleu(h)),
    "am": (["am"], lambda h, r, o: fastamfm.adequacy(h, r, o["model"].lsi)),
    "fm": (["fm"], lambda h, r, o: fastamfm.fluency(h, r, o["model"].lm)),
    "amfm": (["am", "fm", "amfm"], lambda h, r, o: o["model"].score(h, r)),
    "deep_fm": (["deep_fm"], lambda h, r, o: fastamfm.deep_fm(h, r, lm=o["lm"])),
    "deep_amfm": (["deep_amfm"], _deep_amfm),
    "deep_am": (["deep_am"], lambda h, r, o: fastamfm.deep_am(h, r, encoder=o["encoder"])),
    "bertscore": (["bertscore"], lambda h, r, o: fastamfm.bertscore(h, r, encoder=o["encoder"])),
    "followup": (["followup"], _followup),
    "lm_judge": (["lm_judge"], _lm_judge),
}
ELSEWHERE = {"learned": "tests/test_learned.py", "evaluator": "tests/test_evaluator.py"}
NEURAL = {"deep_fm", "deep_amfm", "deep_am", "bertscore", "followup", "lm_judge"}


def test_every_registered_metric_has_its_entry_points_checked():
    assert set(registry.names()) == set(OWN_CALLS) | set(ELSEWHERE)


@pytest.mark.parametrize("name", list(OWN_CALLS))
def test_own_call_and_evaluate_name_the_columns_alike(name, setting):
    if name == "meteor" and not meteor_available():
        pytest.skip("METEOR's resources (pycocoevalcap's jar directory) are not installed")
    if name in NEURAL and not deep_available():
        pytest.skip("the neural metrics need torch and transformers (pip install '.[deep]')")
    hyps, refs, options = setting
    names, call = OWN_CALLS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)     # the current names warn nothing
        own = call(hyps, refs, options)
        contexts = CONTEXTS_OF(hyps) if registry.metric_class(name).needs_contexts else None
        accepted = {o for metric in names for o in registry.metric_class(metric).option_names()}
        table = fastamfm.evaluate(hyps, None if contexts else refs, names, contexts=contexts, progress=False,
                                  **{k: v for k, v in options.items() if k in accepted})
    assert own.name == name
    assert isinstance(own.corpus, Mapping) and isinstance(own.sentences, Mapping)
    # the evaluate table's columns; a scorer may add its own (the judge's per-aspect columns are
    # both): every column evaluate gives, the own call gives under the same name
    assert set(table.columns) <= set(own.columns), (own.columns, table.columns)
    assert set(own.corpus) == set(own.columns)
    for column in table.columns:
        assert len(own.sentences[column]) == len(hyps)
        if name not in NEURAL:     # the neural ones run their models again: equal to float32 rounding
            assert own.corpus[column] == table.corpus[column], column
            np.testing.assert_array_equal(own.sentences[column], table.sentences[column], err_msg=column)
    for metric in names:
        assert set(registry.metric_class(metric).columns) <= set(table.columns) | {"deep_amfm_followup"}


def test_compute_metrics_and_the_metric_listing_use_the_same_names(setting):
    hyps, refs, options = setting
    keys = fastamfm.compute_metrics(hyps, refs, metrics=["bleu", "rouge_l", "cider", "sacrebleu", "chrf"])
    assert set(keys) == {"Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr", "sacreBLEU", "chrF"}


def test_the_cli_metric_listing_names_every_column(capsys):
    assert main(["metrics", "--format", "json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    rows = listing if isinstance(listing, list) else listing["metrics"]
    by_name = {row["name"]: row for row in rows}
    for name in registry.names():
        assert list(by_name[name]["columns"]) == list(registry.metric_class(name).columns), name


OLD_NAMES = [
    (lambda h, r: fastamfm.bleu(h, r), "bleu_4", "Bleu_4"),
    (lambda h, r: fastamfm.rouge_l(h, r), "rouge_l", "ROUGE_L"),
    (lambda h, r: fastamfm.cider(h, r), "cider_d", "CIDEr"),
    (lambda h, r: fastamfm.sacrebleu(h, r, layout="responses"), "sacrebleu", "sacreBLEU"),
    (lambda h, r: fastamfm.chrf(h, r, layout="responses"), "chrf", "chrF"),
    (lambda h, r: fastamfm.self_bleu(h), "self_bleu", "Self-BLEU"),
]


@pytest.mark.parametrize("call, old, new", OLD_NAMES, ids=[o for _, o, _ in OLD_NAMES])
def test_names_before_0_2_still_read_with_a_warning(call, old, new, setting):
    hyps, refs, _ = setting
    res = call(hyps, refs)
    with pytest.warns(DeprecationWarning, match=rf"\['{new}'\].*removed in 0\.3"):
        values = res[old]
    np.testing.assert_array_equal(values, res.sentences[new])


def test_the_0_1_result_forms_still_read_with_a_warning(setting):
    hyps, refs, _ = setting
    bleu, rouge = fastamfm.bleu(hyps, refs), fastamfm.rouge_l(hyps, refs)
    with pytest.warns(DeprecationWarning, match="by position"):
        assert bleu.corpus[3] == bleu.corpus["Bleu_4"]
    with pytest.warns(DeprecationWarning, match="as an array"):
        np.testing.assert_array_equal(np.asarray(bleu.sentences)[:, 0], bleu.sentences["Bleu_1"])
    with pytest.warns(DeprecationWarning, match="as a number"):
        assert float(rouge.corpus) == rouge.corpus["ROUGE_L"]
    with pytest.warns(DeprecationWarning, match="compared as a number"):
        assert rouge.corpus == rouge.corpus["ROUGE_L"]
    with pytest.warns(DeprecationWarning, match="as an array"):
        assert rouge.corpus == pytest.approx(rouge.corpus["ROUGE_L"])
    with pytest.warns(DeprecationWarning, match=r"sentences\.mean"):
        assert rouge.sentences.mean() == pytest.approx(rouge.corpus["ROUGE_L"])
    with pytest.warns(DeprecationWarning, match="formatted as a number"):
        assert f"{rouge.corpus:.4f}" == f"{rouge.corpus['ROUGE_L']:.4f}"
    # the mapping itself warns nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert dict(bleu.corpus) == {c: bleu.corpus[c] for c in bleu.columns}
        assert float(rouge) == rouge.corpus["ROUGE_L"]


def _public_modules():
    for info in pkgutil.walk_packages(fastamfm.__path__, "fastamfm."):
        if info.name.rsplit(".", 1)[-1].startswith("_") or ".compat." in info.name:
            continue
        try:
            yield importlib.import_module(info.name)
        except ImportError:      # an optional extra that is not installed (torch, dask, ...)
            continue


def test_no_dotted_path_is_both_a_module_and_a_function():
    clashes = []
    for module in [fastamfm, *_public_modules()]:
        if not hasattr(module, "__path__"):
            continue
        for name, value in vars(module).items():
            if name.startswith("_") or isinstance(value, types.ModuleType):
                continue
            if f"{module.__name__}.{name}" in _deprecated.FORMER_MODULES:   # the old module path, one release
                continue
            if importlib.util.find_spec(f"{module.__name__}.{name}") is not None:
                clashes.append(f"{module.__name__}.{name}")
    assert not clashes


def test_former_paths_answer_for_one_release():
    import fastamfm.metrics.bleu as bleu_module

    hyps, refs = ["a cat sat"], [["a cat sat down"]]
    with pytest.warns(DeprecationWarning, match=r"fastamfm\.bleu for a metric.*0\.3"):
        res = bleu_module(hyps, refs)
    assert res.corpus == fastamfm.bleu(hyps, refs).corpus
    with pytest.warns(DeprecationWarning, match="moved to fastamfm.tokenization"):
        from fastamfm.tokenize import PRESETS
    assert PRESETS == fastamfm.TOKENIZER_PRESETS
    assert callable(fastamfm.tokenize) and fastamfm.tokenize(["a b"]) == [["a", "b"]]
