"""fastamfm.distributed on a real 2-worker LocalCluster (processes): every registered
metric gives the single-process sentence and corpus scores bit for bit, however the
corpus is partitioned; models load once per worker; a killed worker or a killed client
loses no row and duplicates none; distributed training gives AMFM.train's model."""
from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="fastamfm.distributed needs dask[distributed]")

import fastamfm  # noqa: E402
import fastamfm.distributed as fd  # noqa: E402  (an import error of ours fails, never skips)
from amfm_helpers import tiny_corpus, tiny_pairs, train_tiny  # noqa: E402
from available_metrics import deep_available, runnable_metric_names  # noqa: E402
from fastamfm import AMFM  # noqa: E402
from fastamfm.cli import main  # noqa: E402
from same_scores import NEURAL_COLUMNS, assert_same_scores  # noqa: E402
from vector_files import write_glove  # noqa: E402

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  memory_limit=0) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, request):
    """61 responses x 3 references as files, a saved model, word vectors in memory and on
    disk, a tiny random BERT for the neural metrics (when torch is installed)."""
    root = tmp_path_factory.mktemp("distributed")
    hyps, refs = tiny_pairs(61, n_refs=3)
    model = root / "model"
    train_tiny(tokenize="amfm").save(model)
    words = sorted({w for t in hyps + [r for rs in refs for r in rs] for w in t.split()})
    matrix = np.random.default_rng(0).normal(size=(len(words), 6)).astype(np.float32)
    vectors = root / "vectors.txt"
    write_glove(vectors, words, matrix)
    # Every registered metric that runs from options alone (the learned metric needs a
    # scorer fitted on human ratings and contexts: tests/test_learned.py; the evaluator a
    # trained evaluator and contexts: tests/test_evaluator.py).
    names = runnable_metric_names()
    extra = {}
    if deep_available():  # a tiny random BERT and a tiny random Llama, loaded by each worker from their paths
        from causal_models import make_model

        extra = {"encoder": str(request.getfixturevalue("tiny_bert")), "lm": str(make_model(root / "llama", "llama"))}
    return {"root": root, "hyps": hyps, "refs": refs, "model": model, "vectors": vectors, "names": names,
            "in_memory": {"model": AMFM.load(model), "vectors": fastamfm.WordVectors.from_arrays(words, matrix),
                          "empty": "zero", **extra},
            "by_path": {"model": str(model), "vectors": str(vectors), "empty": "zero", **extra}}


def _write_files(directory: Path, hyps, refs, name: str = "") -> tuple:
    directory.mkdir(parents=True, exist_ok=True)
    hyp = directory / f"hyp{name}.txt"
    hyp.write_text("".join(h + "\n" for h in hyps))
    ref_paths = []
    for k in range(len(refs[0])):
        path = directory / f"ref{name}{k}.txt"
        path.write_text("".join(r[k] + "\n" for r in refs))
        ref_paths.append(path)
    return hyp, ref_paths


@pytest.fixture(scope="module")
def single(corpus):
    """The single-process truth: evaluate (in-memory models) and score_files (model paths)."""
    hyps, refs, names = corpus["hyps"], corpus["refs"], corpus["names"]
    hyp, ref_paths = _write_files(corpus["root"] / "single", hyps, refs)
    out = corpus["root"] / "single" / "scores.jsonl"
    summary = fastamfm.score_files(out, hyp=hyp, refs=ref_paths, metrics=names, **corpus["by_path"])
    return {"evaluate": fastamfm.evaluate(hyps, refs, names, **corpus["in_memory"]), "summary": summary,
            "rows": out.read_bytes(), "hyp": hyp, "refs": ref_paths}


def _check_equal(summary, out_file: Path, single, fmt: str = "jsonl"):
    assert_same_scores(summary["corpus"], single["evaluate"].corpus, "corpus vs evaluate")
    assert_same_scores(summary["corpus"], single["summary"]["corpus"], "corpus vs score_files")
    assert summary["signatures"] == single["summary"]["signatures"]
    assert summary["responses"] == len(single["evaluate"])
    rows = out_file.read_text().splitlines()
    expected = [json.loads(r) for r in single["rows"].decode().splitlines()]
    if fmt == "jsonl":
        if not set(single["evaluate"].columns) & set(NEURAL_COLUMNS):
            assert out_file.read_bytes() == single["rows"]
        records = [json.loads(r) for r in rows]
    else:
        header = rows[0].split("\t")
        assert header == ["id", *single["evaluate"].columns]
        records = [dict(zip(header, (int(f) if k == "id" else float(f) for k, f in zip(header, r.split("\t")))))
                   for r in rows[1:]]
    assert [r["id"] for r in records] == list(range(len(expected)))
    for i, (got, want) in enumerate(zip(records, expected)):
        assert_same_scores(got, want, f"row {i}")
    for column in single["evaluate"].columns:
        written = [float("%.9g" % v) for v in single["evaluate"][column]]
        if column not in NEURAL_COLUMNS:
            assert [r[column] for r in records] == written, column


def test_every_metric_equals_single_process_on_uneven_file_partitions(client, corpus, single, tmp_path):
    hyps, refs = corpus["hyps"], corpus["refs"]
    # Two file pairs of 40 and 21 responses, partitions of 7 lines: sizes 7 x 5, 5, 7 x 3.
    first = _write_files(tmp_path, hyps[:40], refs[:40], "a")
    second = _write_files(tmp_path, hyps[40:], refs[40:], "b")
    summary = fd.score(client, [first, second], corpus["names"], out=tmp_path / "out", partition_size=7,
                       **corpus["by_path"])
    assert summary["partitions"] == 6 + 3
    _check_equal(summary, tmp_path / "out" / "scores.jsonl", single)
    assert not (tmp_path / "out" / "parts").exists()
    # A second call finds the finished run.
    assert fd.score(client, [first, second], corpus["names"], out=tmp_path / "out", partition_size=7,
                    **corpus["by_path"]) == summary


def test_every_metric_equals_single_process_on_a_bag(client, corpus, single, tmp_path):
    bag = pytest.importorskip("dask.bag")
    import dask

    records = [{"hyp": h, "refs": r} for h, r in zip(corpus["hyps"], corpus["refs"])]
    # Partitions of 30, 0, 1 and 30 records: an empty one has no rows and no reference statistics.
    parts = [records[:30], [], records[30:31], records[31:]]
    summary = fd.score(client, bag.from_delayed([dask.delayed(p) for p in parts]), corpus["names"],
                       out=tmp_path / "out", format="tsv", **corpus["by_path"])
    assert summary["partitions"] == 3
    _check_equal(summary, tmp_path / "out" / "scores.tsv", single, "tsv")


def test_models_are_loaded_once_per_worker(client, corpus, single, tmp_path):
    hyp, ref_paths = single["hyp"], single["refs"]
    fd.score(client, [(hyp, ref_paths)], ["am", "fm", "amfm", "embedding_average", "greedy_matching"],
             out=tmp_path / "out", partition_size=5, model=corpus["by_path"]["model"],
             vectors=corpus["by_path"]["vectors"], empty="zero")
    reports = client.run(lambda dask_worker: dask_worker.plugins[fd.WorkerModels.name].summary())
    assert len(reports) == 2
    for report in reports.values():
        # Every test of this module used the same model and vectors: each loaded once per worker,
        # however many partitions and metric sets the worker scored.
        assert report["loads"] and all(n == 1 for n in report["loads"].values()), report
        # CIDEr's corpus document frequencies do not outlive the runs that needed them.
        assert report["cached_with_references"] == 0


def test_corpus_scores_only_and_jsonl_input_through_the_command_line(client, corpus, single, tmp_path, capsys):
    jsonl = tmp_path / "records.jsonl"
    jsonl.write_text("".join(json.dumps({"hyp": h, "refs": r}) + "\n\n"[: 1 + (i % 2)]
                             for i, (h, r) in enumerate(zip(corpus["hyps"], corpus["refs"]))))
    names = "bleu,cider,amfm,distinct"
    argv = ["-q", "score", "--jsonl", str(jsonl), "--metrics", names, "--model", str(corpus["model"]),
            "--no-progress", "--scheduler", client.scheduler.address, "--partition-size", "9"]
    assert main(argv + ["--out", str(tmp_path / "d.tsv")]) == 0
    distributed_out = capsys.readouterr().out
    assert main(argv[:-4] + ["--out", str(tmp_path / "s.tsv")]) == 0
    assert capsys.readouterr().out == distributed_out
    assert (tmp_path / "d.tsv").read_bytes() == (tmp_path / "s.tsv").read_bytes()
    assert json.loads((tmp_path / "d.tsv.summary.json").read_text())["corpus"] == \
        json.loads((tmp_path / "s.tsv.summary.json").read_text())["corpus"]
    assert not (tmp_path / "d.tsv.partitions").exists()
    assert main(argv) == 0  # no --out: corpus scores only
    assert capsys.readouterr().out == distributed_out


def test_reference_free_metrics_with_contexts(client, single, tmp_path):
    context = tmp_path / "context.txt"
    context.write_text("".join(f"turn {i}\tturn {i + 1}\n" for i in range(len(single["evaluate"]))))
    expected = fastamfm.score_files(tmp_path / "single.jsonl", hyp=single["hyp"], contexts=context, metrics=["distinct"])
    summary = fd.score(client, [(single["hyp"], [], context)], ["distinct"], out=tmp_path / "out", partition_size=10)
    assert summary["corpus"] == expected["corpus"]
    assert (tmp_path / "out" / "scores.jsonl").read_bytes() == (tmp_path / "single.jsonl").read_bytes()


def _big_files(directory: Path, n: int = 3000):
    hyps, refs = tiny_pairs(n, n_refs=2, seed=5)
    hyp, ref_paths = _write_files(directory, hyps, refs)
    return hyp, ref_paths


FAULT_METRICS = ["bleu", "rouge_l", "cider", "am", "fm", "amfm"]


def test_a_worker_killed_mid_run_loses_and_duplicates_no_row(client, corpus, tmp_path):
    hyp, ref_paths = _big_files(tmp_path)
    expected = fastamfm.score_files(tmp_path / "single.jsonl", hyp=hyp, refs=ref_paths, metrics=FAULT_METRICS,
                                    model=str(corpus["model"]))
    pids = client.run(os.getpid)
    done_at_kill = []

    def kill_once(update):
        if not done_at_kill:
            os.kill(pids[sorted(pids)[0]], signal.SIGKILL)
            done_at_kill.append(len(list((tmp_path / "out" / "parts").glob("*.statistics.json"))))

    summary = fd.score(client, [(hyp, ref_paths)], FAULT_METRICS, out=tmp_path / "out", partition_size=100,
                       progress=kill_once, model=str(corpus["model"]))
    assert summary["partitions"] == 30 and 1 <= done_at_kill[0] < 30  # killed mid-run
    assert summary["corpus"] == expected["corpus"]
    assert (tmp_path / "out" / "scores.jsonl").read_bytes() == (tmp_path / "single.jsonl").read_bytes()
    try:  # the nanny restarts the worker for the module's later tests (slow on a loaded machine)
        client.wait_for_workers(2, timeout=60)
    except TimeoutError:
        pass


def test_a_killed_client_resumes_with_no_lost_and_no_duplicated_row(client, corpus, tmp_path):
    hyp, ref_paths = _big_files(tmp_path, 6000)  # 120 partitions of 50
    fastamfm.score_files(tmp_path / "single.jsonl", hyp=hyp, refs=ref_paths, metrics=FAULT_METRICS,
                         model=str(corpus["model"]))
    out = tmp_path / "scores.jsonl"
    argv = ["-q", "score", "--hyp", str(hyp), *[a for p in ref_paths for a in ("--ref", str(p))], "--metrics",
            ",".join(FAULT_METRICS), "--model", str(corpus["model"]), "--out", str(out), "--no-progress",
            "--scheduler", client.scheduler.address, "--partition-size", "50"]
    proc = subprocess.Popen([sys.executable, "-m", "fastamfm.cli", *argv], env=dict(os.environ, PYTHONPATH=str(
        PYTHON_DIR)), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    parts = tmp_path / "scores.jsonl.partitions" / "parts"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list(parts.glob("*.statistics.json"))) >= 2:
            break
        time.sleep(0.002)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    done = len(list(parts.glob("*.statistics.json")))
    assert done >= 2
    with distributed.get_task_stream(client) as stream:
        assert main(argv) == 0
    keys = [str(t["key"]).split("-") for t in stream.data if str(t["key"]).startswith("fastamfm-")]
    # The rerun (the run with load tasks: the killed one had none) loads the partitions
    # finished before it started (some by tasks of the killed client, which the scheduler
    # may still run for a moment) and scores the others: each partition exactly once.
    rerun = {token for _, stage, token, _ in keys if stage == "load"}
    assert len(rerun) == 1
    loaded = [int(i) for _, stage, token, i in keys if stage == "load"]
    rescored = [int(i) for _, stage, token, i in keys if stage == "score" and token in rerun]
    assert len(loaded) >= done and sorted(loaded + rescored) == list(range(120))
    assert out.read_bytes() == (tmp_path / "single.jsonl").read_bytes()


def _interrupted(out: Path, keep: int) -> None:
    """``out`` as a run killed after ``keep`` partitions leaves it (no summary, the other parts gone)."""
    (out / "summary.json").unlink()
    for path in sorted((out / "parts").glob("*.statistics.json"))[keep:]:
        path.unlink()


def test_a_resumed_run_runs_no_code_from_its_output_directory(client, single, tmp_path):
    from test_statistics_file import EXPLOITS, pickle_calling

    hyp, ref_paths = single["hyp"], single["refs"]
    out = tmp_path / "out"
    kwargs = dict(out=out, partition_size=10, assemble=False)
    summary = fd.score(client, [(hyp, ref_paths)], ["cider", "bleu"], **kwargs)
    marker = tmp_path / "PWNED"
    for module, name in EXPLOITS:
        _interrupted(out, 2) if (out / "summary.json").exists() else None
        for file in ("reference-statistics.bin", "reference-statistics.pickle"):
            (out / file).write_bytes(pickle_calling(module, name, f"touch {marker}"))
        with pytest.raises(fastamfm.FormatError, match="reference-statistics.bin: not a fastamfm reference"):
            fd.score(client, [(hyp, ref_paths)], ["cider", "bleu"], **kwargs)
        assert not marker.exists()
    # Without the file, the rerun counts the reference statistics again.
    (out / "reference-statistics.bin").unlink()
    assert fd.score(client, [(hyp, ref_paths)], ["cider", "bleu"], **kwargs)["corpus"] == summary["corpus"]


def _same_size_edit_with_the_mtime_restored(path: Path) -> None:
    stat = path.stat()
    lines = path.read_text().splitlines(keepends=True)
    # Swap two different lines: same size, same line count, other content.
    i = next(k for k in range(1, len(lines)) if lines[k] != lines[0] and len(lines[k]) == len(lines[0]))
    lines[0], lines[i] = lines[i], lines[0]
    path.write_text("".join(lines))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns


def test_inputs_edited_to_the_same_size_and_mtime_are_not_mixed_with_old_parts(client, tmp_path):
    hyps, refs = tiny_pairs(200, n_refs=2, seed=11)
    hyp, ref_paths = _write_files(tmp_path / "in", hyps, refs)
    out = tmp_path / "out"
    kwargs = dict(out=out, partition_size=20, assemble=False)
    fd.score(client, [(hyp, ref_paths)], ["cider", "bleu"], **kwargs)
    _interrupted(out, 5)
    _same_size_edit_with_the_mtime_restored(ref_paths[0])
    summary = fd.score(client, [(hyp, ref_paths)], ["cider", "bleu"], **kwargs)
    expected = fastamfm.score_files(tmp_path / "single.jsonl", hyp=hyp, refs=ref_paths, metrics=["cider", "bleu"])
    assert summary["corpus"] == expected["corpus"]
    rows = b"".join((out / "parts" / f"part-{i:08d}.rows").read_bytes() for i in range(10))
    assert rows == (tmp_path / "single.jsonl").read_bytes()


def test_a_part_rewritten_with_the_same_line_count_is_scored_again(client, corpus, tmp_path, caplog):
    hyps, refs = tiny_pairs(200, n_refs=2, seed=12)
    hyp, ref_paths = _write_files(tmp_path / "in", hyps, refs)
    expected = fastamfm.score_files(tmp_path / "single.jsonl", hyp=hyp, refs=ref_paths, metrics=FAULT_METRICS,
                                    model=str(corpus["model"]))
    out = tmp_path / "out"
    kwargs = dict(out=out, partition_size=20, assemble=False, model=str(corpus["model"]))
    fd.score(client, [(hyp, ref_paths)], FAULT_METRICS, **kwargs)
    _interrupted(out, 6)
    part = out / "parts" / "part-00000002.rows"
    lines = part.read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join(lines[1:] + lines[:1]))            # same rows, same count, other order
    record = out / "parts" / "part-00000003.statistics.json"
    edited = json.loads(record.read_text())
    edited["statistics"]["bleu"]["n"] = 0                          # a record edited by hand
    record.write_text(json.dumps(edited))
    with caplog.at_level("WARNING", logger="fastamfm"):
        summary = fd.score(client, [(hyp, ref_paths)], FAULT_METRICS, **kwargs)
    assert "part 2 is scored again: its rows changed" in caplog.text
    assert "part 3 is scored again" in caplog.text and "does not match its hash" in caplog.text
    assert summary["corpus"] == expected["corpus"]
    rows = b"".join((out / "parts" / f"part-{i:08d}.rows").read_bytes() for i in range(10))
    assert rows == (tmp_path / "single.jsonl").read_bytes()
    # Assembling refuses a part changed after it was scored.
    lines = part.read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join(lines[1:] + lines[:1]))
    (out / "summary.json").unlink()
    from fastamfm.distributed.outputs import OutputDirectory
    from fastamfm.distributed.partitions import Partition

    with pytest.raises(fastamfm.FormatError, match="part-00000002.rows: the rows changed since they were scored"):
        planned = Partition.from_json(json.loads((out / "manifest.json").read_text())["partitions"][2])
        OutputDirectory(out).assemble([planned], "jsonl", [], tmp_path / "all.jsonl")
    # A manifest that does not match its hash belongs to a stale run: the rerun starts afresh.
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["partitions"][0]["rows"] = 1
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert fd.score(client, [(hyp, ref_paths)], FAULT_METRICS, **kwargs)["corpus"] == expected["corpus"]


def test_training_on_workers_equals_amfm_train(client, tmp_path):
    corpus = tiny_corpus(3000) + ["", "Ünïcode wörds, here!", "a a a b b"] * 3
    paths = []
    for k, (a, b) in enumerate([(0, 1200), (1200, 1201), (1201, len(corpus))]):
        paths.append(tmp_path / f"corpus{k}.txt")
        paths[-1].write_text("".join(line + "\n" for line in corpus[a:b]))
    for weighting in ("counts", "log-entropy"):
        whole = AMFM.train(corpus, dims=8, weighting=weighting, workers=2, lam=0.3)
        spread = fd.train(client, paths, partition_size=500, dims=8, weighting=weighting, workers=2, lam=0.3)
        assert spread.signature == whole.signature
        assert spread.lsi.fingerprint == whole.lsi.fingerprint and spread.lm.fingerprint == whole.lm.fingerprint
    bag = pytest.importorskip("dask.bag")
    spread = fd.train(client, bag.from_sequence(corpus, npartitions=4), dims=8, order=4, smoothing="katz",
                      tokenize="whitespace", workers=2)
    whole = AMFM.train(corpus, dims=8, order=4, smoothing="katz", tokenize="whitespace", workers=2)
    assert spread.signature == whole.signature


def test_importing_fastamfm_imports_no_dask():
    code = "import sys, fastamfm; sys.exit(any(m in sys.modules for m in ('dask', 'distributed')))"
    assert subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
                          ).returncode == 0


def test_statistics_cross_processes_exactly():
    from fastamfm.distributed.statistics import register_pickling

    register_pickling()
    hyps, refs = tiny_pairs(20)
    statistics = fastamfm.Pipeline.from_names(["cider", "distinct", "bleu", "rouge_l"]).score(
        hyps, refs).extra["statistics"]
    df = fastamfm.DocumentFrequencies().update(refs)
    for value in [df, *statistics.values()]:
        copy = pickle.loads(pickle.dumps(value))
        assert type(copy) is type(value) and copy.to_json() == value.to_json()


def test_dataframe_partitions_read_as_records():
    pd = pytest.importorskip("pandas")
    from fastamfm.distributed.partitions import Partition

    frame = pd.DataFrame({"hyp": ["a b", "c"], "refs": [np.array(["a", "b c"]), ("c",)], "context": ["x\ny", "z"]})
    hyps, refs, contexts = Partition(0, "frame", start=3, stop=4).read(frame, require_refs=True)
    assert hyps == ["a b", "c"] and list(refs) == [["a", "b c"], ["c"]] and contexts == [["x", "y"], ["z"]]
    with pytest.raises(ValueError, match="frame partition 3:2: 'refs' is empty"):
        Partition(0, "frame", start=3, stop=4).read(pd.DataFrame({"hyp": ["a", "b"], "refs": [["a"], []]}),
                                                    require_refs=True)


def test_bad_inputs_are_clear_errors(client, corpus, single, tmp_path):
    hyp, ref_paths = single["hyp"], single["refs"]
    with pytest.raises(FileNotFoundError, match=r"data\[0\] refs\[0\]: .*nope.txt: no such file"):
        fd.score(client, [(hyp, [tmp_path / "nope.txt"])], ["bleu"], out=tmp_path / "o")
    short = tmp_path / "short.txt"
    short.write_text("one line\n")
    with pytest.raises(ValueError, match="line counts differ between parallel files"):
        fd.score(client, [(hyp, [short])], ["bleu"], out=tmp_path / "o1")
    with pytest.raises(TypeError, match="give the model's path, not a loaded AMFM"):
        fd.score(client, [(hyp, ref_paths)], ["amfm"], out=tmp_path / "o2", model=corpus["in_memory"]["model"])
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['lowercse'\]"):
        fd.score(client, [(hyp, ref_paths)], ["bleu"], out=tmp_path / "o6", lowercse=True)
    with pytest.raises(ValueError, match=r"bag partition 1:1: expected a record"):
        fd.score(client, pytest.importorskip("dask.bag").from_sequence([{"hyp": "a", "refs": ["b"]}, "text"],
                                                                         npartitions=2), ["bleu"], out=tmp_path / "o7")
    with pytest.raises(TypeError, match="options sent to the workers must be plain data"):
        fd.score(client, [(hyp, ref_paths)], ["cider"], out=tmp_path / "o3",
                 document_frequencies=fastamfm.DocumentFrequencies())
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="holds files fastamfm did not write"):
        fd.score(client, [(hyp, ref_paths)], ["bleu"], out=foreign)
    assert (foreign / "notes.txt").read_text() == "mine"
    with pytest.raises(TypeError, match="data must be a non-empty list"):
        fd.score(client, str(hyp), ["bleu"], out=tmp_path / "o4")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"hyp": "a", "refs": ["b"]}\n{"hyp": 3, "refs": ["b"]}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: 'hyp' must be a string"):
        fd.score(client, [bad], ["bleu"], out=tmp_path / "o5")
