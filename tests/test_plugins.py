"""Metric plugins (fastamfm.registry.plugins): a metric from a package outside fastamfm, installed as
a real distribution (a dist-info directory with entry_points.txt, the files pip writes),
runs through ``evaluate``, the command line and Dask workers exactly as a built-in one;
the built-in metrics are entry points of the same group, in nlg-eval's order."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from fastamfm import registry
from fastamfm.registry import plugins

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]

HYPS = ["the flight leaves at noon", "thanks", "please send me your confirmation number now"]
REFS = [["it leaves at noon"], ["you are welcome"], ["what is your confirmation number"]]
LENGTHS = [5.0, 1.0, 7.0]

PLUGIN_MODULE = '''
"""An out-of-tree metric: the number of words of each response."""
import numpy as np

from fastamfm.registry import Chunk, MeanStatistics, Metric
from fastamfm.result import make_signature


class ResponseLength(Metric):
    name = "response_length"
    columns = ("Length",)
    aliases = ("length",)
    needs_references = False

    def signature(self):
        return make_signature("response_length", unit="word")

    def update(self, batch):
        columns = {"Length": np.array([len(batch.hyps[i].split()) for i in range(len(batch))], dtype=np.float64)}
        return Chunk(columns, MeanStatistics.of(columns))
'''


def install_plugin(site: Path, module: str, source: str, entry_points: str) -> Path:
    """``site`` holding the installed package ``module`` (a single-module distribution): its
    module and its dist-info (METADATA, entry_points.txt), as ``pip install --target`` lays
    them out."""
    (site / f"{module}.py").write_text(source)
    dist_info = site / f"{module}-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text(entry_points)
    return site


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """The installed package ``fastamfm-length-plugin``."""
    return install_plugin(tmp_path_factory.mktemp("plugin_site"), "fastamfm_length_plugin", PLUGIN_MODULE,
                          "[fastamfm.metrics]\nresponse_length = fastamfm_length_plugin:ResponseLength\n")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("plugin_files")
    (root / "hyp.txt").write_text("".join(h + "\n" for h in HYPS))
    (root / "ref.txt").write_text("".join(r[0] + "\n" for r in REFS))
    return {"hyp": str(root / "hyp.txt"), "ref": str(root / "ref.txt"), "root": root}


def _run(site: Path, args: list, cwd: Path) -> subprocess.CompletedProcess:
    """A fresh interpreter that has the plugin installed (on its path) beside this fastamfm."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PYTHON_DIR), str(site)]))
    proc = subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_builtin_metrics_are_entry_points_in_nlg_evals_order():
    own = [ep for dist, ep in plugins.entry_points() if dist == plugins.DISTRIBUTION]
    assert [ep.name for ep in own] == ["bleu", "meteor", "rouge_l", "cider", "embedding_average", "vector_extrema",
                                       "greedy_matching", "distinct", "sacrebleu", "chrf", "chrf_plus", "rouge",
                                       "self_bleu", "am", "fm", "amfm", "learned", "deep_fm",
                                       "deep_amfm", "deep_am", "bertscore", "evaluator", "followup", "lm_judge"]
    assert list(registry.names()[:len(own)]) == [ep.name for ep in own]
    assert registry.default_names() == ("bleu", "meteor", "rouge_l", "cider", "embedding_average",
                                        "vector_extrema", "greedy_matching")
    for ep in own:
        assert registry.metric_class(ep.name) is ep.load()


def test_a_plugin_runs_through_evaluate(plugin_site, files):
    code = textwrap.dedent(f"""
        import json, fastamfm
        from fastamfm import registry
        res = fastamfm.evaluate({HYPS!r}, {REFS!r}, metrics=["bleu", "length"])
        print(json.dumps({{"names": registry.names(), "length": res["Length"].tolist(), "corpus": res.corpus,
                          "bleu": res["Bleu_1"].tolist()}}))
    """)
    out = json.loads(_run(plugin_site, ["-c", code], files["root"]).stdout)
    assert out["names"][-1] == "response_length"        # after fastamfm's own
    assert out["length"] == LENGTHS
    assert out["corpus"]["Length"] == pytest.approx(np.mean(LENGTHS), abs=0, rel=1e-15)
    assert out["bleu"] == fastamfm.evaluate(HYPS, REFS, metrics=["bleu"])["Bleu_1"].tolist()


def test_a_plugin_runs_through_the_command_line(plugin_site, files):
    out = files["root"] / "scores.tsv"
    proc = _run(plugin_site, ["-m", "fastamfm.cli", "-q", "score", "--hyp", files["hyp"], "--ref", files["ref"],
                              "--metrics", "response_length,bleu", "--out", str(out), "--no-progress"], files["root"])
    assert "Length: 4.333333" in proc.stdout
    header, *rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert [float(row[header.index("Length")]) for row in rows] == LENGTHS


def test_a_plugin_runs_on_dask_workers(plugin_site, files):
    pytest.importorskip("distributed", reason="fastamfm.distributed needs dask[distributed]")
    out = files["root"] / "dask_scores.tsv"
    proc = _run(plugin_site, ["-m", "fastamfm.cli", "-q", "score", "--hyp", files["hyp"], "--ref", files["ref"],
                              "--metrics", "response_length", "--out", str(out), "--no-progress",
                              "--local-workers", "2", "--partition-size", "2"], files["root"])
    assert "Length: 4.333333" in proc.stdout
    header, *rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert [float(row[header.index("Length")]) for row in rows] == LENGTHS
    # and through the Python API on a LocalCluster of processes (each worker finds the plugin itself)
    code = textwrap.dedent(f"""
        import json
        from dask.distributed import Client, LocalCluster
        import fastamfm.distributed
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          memory_limit=0) as cluster, Client(cluster) as client:
            summary = fastamfm.distributed.score(client, [({files["hyp"]!r}, [{files["ref"]!r}])],
                                                 metrics=["response_length"], out="parts", partition_size=1)
        print(json.dumps(summary["corpus"]))
    """)
    corpus = json.loads(_run(plugin_site, ["-c", code], files["root"]).stdout.strip().splitlines()[-1])
    assert corpus["Length"] == pytest.approx(np.mean(LENGTHS), abs=0, rel=1e-15)


def test_a_broken_third_party_plugin_is_left_out_with_a_warning(tmp_path, files):
    site = tmp_path / "site"
    dist_info = site / "broken_plugin-0.1.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist_info / "entry_points.txt").write_text("[fastamfm.metrics]\nbroken = no_such_module_here:Broken\n")
    code = ("import fastamfm; print(fastamfm.evaluate(['a b'], [['a b']], metrics=['distinct']).corpus['Distinct_1'], "
            "'broken' in fastamfm.registry.names())")
    proc = _run(site, ["-W", "always", "-c", code], files["root"])
    assert proc.stdout.split() == ["1.0", "False"]
    assert "metric plugin left out" in proc.stderr
    assert "entry point broken = 'no_such_module_here:Broken' of broken-plugin" in proc.stderr


def test_a_copy_neither_installed_nor_in_a_checkout_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(plugins, "_CHECKOUT_PYPROJECT", tmp_path / "pyproject.toml")
    monkeypatch.setattr(plugins, "_owns_this_package", lambda distribution: False)
    with pytest.raises(plugins.PluginError, match="neither installed .* nor inside a source checkout"):
        plugins.entry_points()


WEIGHTS_MODULE = '''
"""An out-of-tree metric scoring with a model directory of its own kind ("word_weights"):
each response scores the sum of its words' weights."""
import numpy as np

from fastamfm.models import directory
from fastamfm.registry import Chunk, MeanStatistics, Metric
from fastamfm.result import make_signature

KIND = "word_weights"


def save(weights, out):
    with directory.written(out) as staging:
        directory.write_manifest(staging, KIND, 1, {"weights": weights})


class WordWeights(Metric):
    name = "word_weights"
    columns = ("WordWeights",)
    needs_references = False
    model_kind = KIND

    def __init__(self, *, model=None):
        self.weights = self.load_model(model) if isinstance(model, str) else model

    @classmethod
    def load_model(cls, path, **settings):
        directory.verify_directory(path)
        return directory.read_manifest(path, KIND, 1)["weights"]

    def signature(self):
        return make_signature("word_weights", words=len(self.weights))

    def update(self, batch):
        scores = [sum(self.weights.get(w, 0.0) for w in batch.hyps[i].split()) for i in range(len(batch))]
        columns = {"WordWeights": np.asarray(scores, dtype=np.float64)}
        return Chunk(columns, MeanStatistics.of(columns))
'''
WEIGHTS = {"flight": 2.0, "noon": 0.5, "thanks": 1.0, "number": 3.0}
WEIGHTED = [2.5, 1.0, 3.0]


@pytest.fixture(scope="module")
def weights_plugin(tmp_path_factory) -> dict:
    """A plugin whose metric needs a model directory, installed, and one such directory
    written with fastamfm.models.directory (manifest of its kind, checksums)."""
    site = install_plugin(tmp_path_factory.mktemp("weights_site"), "fastamfm_weights_plugin", WEIGHTS_MODULE,
                          "[fastamfm.metrics]\nword_weights = fastamfm_weights_plugin:WordWeights\n")
    model = tmp_path_factory.mktemp("weights_model") / "my_weights"
    code = f"import fastamfm_weights_plugin as p; p.save({WEIGHTS!r}, {str(model)!r})"
    _run(site, ["-c", code], site)
    return {"site": site, "model": model}


def test_a_plugin_model_directory_is_resolved_by_its_kind(weights_plugin, files):
    site, model = weights_plugin["site"], str(weights_plugin["model"])
    code = textwrap.dedent(f"""
        import json, fastamfm
        from fastamfm import registry
        res = fastamfm.evaluate({HYPS!r}, metrics=["word_weights"], word_weights={{"model": {model!r}}})
        print(json.dumps({{"kind": registry.model_kind({model!r}), "loaded": registry.load_model({model!r}),
                          "scores": res["WordWeights"].tolist()}}))
    """)
    out = json.loads(_run(site, ["-c", code], files["root"]).stdout)
    assert out == {"kind": "word_weights", "loaded": WEIGHTS, "scores": WEIGHTED}
    # the command line: --model DIR alone scores the metric of the directory's kind
    proc = _run(site, ["-m", "fastamfm.cli", "-q", "score", "--hyp", files["hyp"], "--context", files["hyp"],
                       "--model", model, "--no-progress"], files["root"])
    assert f"WordWeights: {np.mean(WEIGHTED):.6f}" in proc.stdout


def test_a_plugin_model_directory_scores_on_a_dask_local_cluster(weights_plugin, files):
    pytest.importorskip("distributed", reason="fastamfm.distributed needs dask[distributed]")
    site, model = weights_plugin["site"], str(weights_plugin["model"])
    code = textwrap.dedent(f"""
        import json
        from dask.distributed import Client, LocalCluster
        import fastamfm.distributed
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          memory_limit=0) as cluster, Client(cluster) as client:
            summary = fastamfm.distributed.score(client, [({files["hyp"]!r}, [{files["ref"]!r}])],
                                                 metrics=["word_weights"], out="weights_parts", partition_size=1,
                                                 model={model!r})
        print(json.dumps(summary["corpus"]))
    """)
    corpus = json.loads(_run(site, ["-c", code], files["root"]).stdout.strip().splitlines()[-1])
    assert corpus["WordWeights"] == pytest.approx(np.mean(WEIGHTED), abs=0, rel=1e-15)
