"""Chunked scoring of files: equal to in-memory scoring, atomic output, resume after interruption."""
from __future__ import annotations

import json

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_pairs, train_tiny
from fastamfm.pipeline import Pipeline
from fastamfm.streaming import score_files


@pytest.fixture(scope="module")
def scorer():
    return train_tiny()


@pytest.fixture()
def files(tmp_path):
    hyps, refs = tiny_pairs(230, n_refs=3)
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("\n".join(hyps) + "\n")
    ref_paths = []
    for k in range(3):
        p = tmp_path / f"ref{k}.txt"
        p.write_text("\n".join(r[k] for r in refs) + "\n")
        ref_paths.append(p)
    jsonl = tmp_path / "pairs.jsonl"
    jsonl.write_text("".join(json.dumps({"hyp": h, "refs": r}) + "\n" for h, r in zip(hyps, refs)))
    return hyps, refs, hyp, ref_paths, jsonl


def _read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_jsonl_output_equals_in_memory_scores(scorer, files, tmp_path):
    hyps, refs, hyp, ref_paths, _ = files
    out = tmp_path / "scores.jsonl"
    summary = score_files(out, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=50)
    res = scorer.score(hyps, refs)
    rows = _read_jsonl(out)
    assert [r["id"] for r in rows] == list(range(len(hyps)))
    np.testing.assert_allclose([r["AM-FM"] for r in rows], res.amfm, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose([r["AM"] for r in rows], res.am, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose([r["FM"] for r in rows], res.fm, rtol=1e-8, atol=1e-12)
    assert summary["responses"] == len(hyps)
    for key in ("AM", "FM", "AM-FM"):
        assert summary["corpus"][key] == pytest.approx(res.corpus[key], rel=1e-12)
    assert json.loads((tmp_path / "scores.jsonl.summary.json").read_text())["corpus"] == summary["corpus"]
    assert not (tmp_path / "scores.jsonl.parts").exists()


def test_tsv_output_and_jsonl_input(scorer, files, tmp_path):
    hyps, refs, hyp, ref_paths, jsonl = files
    score_files(tmp_path / "a.tsv", jsonl=jsonl, model=scorer, metrics="amfm,am", chunk_size=64)
    lines = (tmp_path / "a.tsv").read_text().splitlines()
    assert lines[0] == "id\tAM-FM\tAM"
    values = np.array([[float(x) for x in line.split("\t")] for line in lines[1:]])
    res = scorer.score(hyps, refs)
    np.testing.assert_allclose(values[:, 1], res.amfm, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(values[:, 2], res.am, rtol=1e-8, atol=1e-12)


def test_chunk_size_does_not_change_results(scorer, files, tmp_path):
    _, _, hyp, ref_paths, _ = files
    a = score_files(tmp_path / "a.jsonl", hyp=hyp, refs=ref_paths, model=scorer, chunk_size=7)
    b = score_files(tmp_path / "b.jsonl", hyp=hyp, refs=ref_paths, model=scorer, chunk_size=10_000)
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    for key in a["corpus"]:
        assert a["corpus"][key] == pytest.approx(b["corpus"][key], rel=1e-12)


def test_summary_only_without_out(scorer, files):
    hyps, refs, hyp, ref_paths, _ = files
    summary = score_files(None, hyp=hyp, refs=ref_paths, model=scorer)
    assert summary["corpus"]["AM-FM"] == pytest.approx(scorer.score(hyps, refs).corpus["AM-FM"], rel=1e-12)


def _failing_after(monkeypatch, n_ok: int, calls: list):
    real = Pipeline.score_batch

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) > n_ok:
            raise KeyboardInterrupt  # as Ctrl-C in the middle of a run
        return real(*args, **kwargs)

    monkeypatch.setattr(Pipeline, "score_batch", flaky)


def test_interrupted_run_leaves_no_output_and_resumes(scorer, files, tmp_path, monkeypatch):
    _, _, hyp, ref_paths, _ = files
    expected = tmp_path / "expected.jsonl"
    score_files(expected, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=40)

    out = tmp_path / "out.jsonl"
    calls: list = []
    _failing_after(monkeypatch, 3, calls)
    with pytest.raises(KeyboardInterrupt):
        score_files(out, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=40)
    assert not out.exists()
    parts = tmp_path / "out.jsonl.parts"
    assert len(list(parts.glob("part-*.statistics.json"))) == 3
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    monkeypatch.undo()
    rescored: list = []
    _failing_after(monkeypatch, 100, rescored)
    summary = score_files(out, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=40)
    assert len(rescored) == 3  # 230 lines / 40 = 6 chunks, 3 already done
    assert out.read_text() == expected.read_text()
    expected_summary = json.loads((tmp_path / "expected.jsonl.summary.json").read_text())
    assert summary["corpus"] == pytest.approx(expected_summary["corpus"])
    assert not parts.exists()


def test_a_resumed_run_reads_cider_first_pass_back(files, tmp_path, monkeypatch):
    """CIDEr's document frequencies (a pass over every reference before any scoring) are kept
    with the parts: the rerun after an interruption does not read the references twice."""
    _, _, hyp, ref_paths, _ = files
    expected = tmp_path / "expected.jsonl"
    score_files(expected, hyp=hyp, refs=ref_paths, metrics=["cider", "bleu"], chunk_size=40)
    out = tmp_path / "out.jsonl"
    _failing_after(monkeypatch, 3, [])
    with pytest.raises(KeyboardInterrupt):
        score_files(out, hyp=hyp, refs=ref_paths, metrics=["cider", "bleu"], chunk_size=40)
    saved = tmp_path / "out.jsonl.parts" / "reference-statistics.json"
    assert set(json.loads(saved.read_text())) == {"cider"}
    monkeypatch.undo()
    passes: list = []
    real = Pipeline.reference_statistics
    monkeypatch.setattr(Pipeline, "reference_statistics", lambda self, refs: passes.append(1) or real(self, refs))
    summary = score_files(out, hyp=hyp, refs=ref_paths, metrics=["cider", "bleu"], chunk_size=40)
    assert passes == []
    assert out.read_text() == expected.read_text()
    assert summary["corpus"] == json.loads((tmp_path / "expected.jsonl.summary.json").read_text())["corpus"]
    # A damaged first-pass file is read again from the references, not trusted.
    _failing_after(monkeypatch, 3, [])
    with pytest.raises(KeyboardInterrupt):
        score_files(out, hyp=hyp, refs=ref_paths, metrics=["cider", "bleu"], chunk_size=40)
    saved.write_text('{"cider": {"max_order": 2')
    monkeypatch.undo()
    score_files(out, hyp=hyp, refs=ref_paths, metrics=["cider", "bleu"], chunk_size=40)
    assert out.read_text() == expected.read_text()


def test_an_input_edited_to_the_same_size_and_mtime_makes_the_parts_stale(scorer, files, tmp_path, monkeypatch):
    import os

    _, _, hyp, ref_paths, _ = files
    out = tmp_path / "out.jsonl"
    _failing_after(monkeypatch, 3, [])
    with pytest.raises(KeyboardInterrupt):
        score_files(out, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=40)
    monkeypatch.undo()
    stat = hyp.stat()
    lines = hyp.read_text().splitlines(keepends=True)
    lines[0], lines[-1] = lines[-1], lines[0]          # other content, same size
    hyp.write_text("".join(lines))
    os.utime(hyp, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    rescored: list = []
    _failing_after(monkeypatch, 100, rescored)
    score_files(out, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=40)
    assert len(rescored) == 6  # every chunk scored again: the old parts were of the old file
    expected = tmp_path / "expected.jsonl"
    score_files(expected, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=40)
    assert out.read_text() == expected.read_text()


def test_failed_rerun_keeps_previous_output(scorer, files, tmp_path, monkeypatch):
    _, _, hyp, ref_paths, _ = files
    out = tmp_path / "out.jsonl"
    score_files(out, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=100)
    before = out.read_text()
    _failing_after(monkeypatch, 1, [])
    with pytest.raises(KeyboardInterrupt):
        score_files(out, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=50, metrics="am")
    assert out.read_text() == before


def test_changed_settings_discard_stale_parts(scorer, files, tmp_path, monkeypatch):
    hyps, refs, hyp, ref_paths, _ = files
    out = tmp_path / "out.jsonl"
    _failing_after(monkeypatch, 2, [])
    with pytest.raises(KeyboardInterrupt):
        score_files(out, hyp=hyp, refs=ref_paths, model=scorer, chunk_size=40)
    monkeypatch.undo()
    other = scorer.with_settings(lam=0.9)
    score_files(out, hyp=hyp, refs=ref_paths, model=other, chunk_size=40)
    np.testing.assert_allclose([r["AM-FM"] for r in _read_jsonl(out)], other.score(hyps, refs).amfm, rtol=1e-8)


@pytest.mark.skipif(not hasattr(fastamfm, "bleu") or not hasattr(fastamfm, "rouge_l"),
                    reason="BLEU/ROUGE-L are not in this build (issue 3)")
def test_streamed_bleu_and_rouge_equal_whole_corpus(scorer, files, tmp_path):
    hyps, refs, hyp, ref_paths, _ = files
    summary = score_files(tmp_path / "o.jsonl", hyp=hyp, refs=ref_paths, model=scorer, chunk_size=33,
                          metrics="bleu,rouge_l,amfm")
    bleu = fastamfm.bleu(hyps, refs)
    np.testing.assert_allclose([summary["corpus"][f"Bleu_{k}"] for k in range(1, 5)], list(bleu.corpus.values()),
                               rtol=1e-12)
    assert summary["corpus"]["ROUGE_L"] == pytest.approx(fastamfm.rouge_l(hyps, refs).corpus["ROUGE_L"], rel=1e-12)
    rows = _read_jsonl(tmp_path / "o.jsonl")
    np.testing.assert_allclose([r["Bleu_4"] for r in rows], bleu.sentences["Bleu_4"], rtol=1e-8, atol=1e-12)


def test_bad_input(scorer, files, tmp_path):
    _, _, hyp, ref_paths, jsonl = files
    short = tmp_path / "short.txt"
    short.write_text("one line\n")
    cases = [
        (dict(hyp=hyp, refs=[short]), ValueError, r"line counts differ between parallel files .*short.txt: 1 lines"),
        (dict(hyp=tmp_path / "absent.txt", refs=ref_paths), FileNotFoundError, "absent.txt: no such file"),
        (dict(hyp=hyp, refs=ref_paths, jsonl=jsonl), ValueError, "either jsonl= or hyp="),
        (dict(hyp=hyp), ValueError, "need reference files"),
        (dict(hyp=hyp, refs=ref_paths, format="csv"), ValueError, "format must be one of"),
        (dict(hyp=hyp, refs=ref_paths, chunk_size=0), ValueError, "chunk_size must be a positive integer"),
        (dict(hyp=hyp, refs=ref_paths, metrics="nope"), ValueError, "unknown metric 'nope'"),
    ]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            score_files(tmp_path / "x.jsonl", model=scorer, **kwargs)
        assert not (tmp_path / "x.jsonl").exists()
    with pytest.raises(IsADirectoryError, match="is a directory"):
        score_files(tmp_path, hyp=hyp, refs=ref_paths, model=scorer)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"hyp": "a", "refs": ["b"]}\n{"hyp": "a"}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: record has no 'refs' key"):
        score_files(tmp_path / "x.jsonl", jsonl=bad, model=scorer)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match="holds no response"):
        score_files(tmp_path / "x.jsonl", hyp=empty, refs=[empty], model=scorer)
    assert not (tmp_path / "x.jsonl").exists()


def test_output_gets_ordinary_file_permissions(scorer, files, tmp_path):
    import os

    _, _, hyp, ref_paths, _ = files
    out = tmp_path / "o.jsonl"
    score_files(out, hyp=hyp, refs=ref_paths, model=scorer)
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask
