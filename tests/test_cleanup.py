"""Nothing left behind, nothing shared by accident: temporaries are removed on errors,
Ctrl-C and SIGTERM; a streamed run that fails on bad input leaves no parts; directories
and files follow the umask; ``mmap=False`` copies a model so that a file truncated
under a running scorer cannot crash it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_corpus, tiny_pairs, train_tiny
from fastamfm import _core, io
from fastamfm.streaming import score_files

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))

# The children start from the default signal dispositions, whatever they inherit (a
# background or nohup job starts with SIGINT or SIGHUP ignored).
DEFAULT_SIGNALS = """
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
"""

WRITER = DEFAULT_SIGNALS + """
import sys, time
from fastamfm.io import AtomicWriter
with AtomicWriter(sys.argv[1]) as f:
    f.write("partial output")
    print("ready", flush=True)
    time.sleep(60)
"""


def _start_and_wait(args) -> subprocess.Popen:
    proc = subprocess.Popen(args, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 128 + signal.SIGTERM),
                                            (signal.SIGHUP, 128 + signal.SIGHUP),
                                            (signal.SIGINT, -signal.SIGINT)])
def test_signal_while_writing_removes_the_temporary(tmp_path, signum, status):
    out = tmp_path / "out.jsonl"
    proc = _start_and_wait([sys.executable, "-c", WRITER, str(out)])
    proc.send_signal(signum)
    # SIGTERM/SIGHUP: Terminated, a SystemExit(128 + signal); SIGINT: KeyboardInterrupt,
    # after which Python ends itself with SIGINT.
    assert proc.wait(timeout=30) == status
    assert sorted(os.listdir(tmp_path)) == []


BUILD_CACHE = DEFAULT_SIGNALS + """
import sys
import fastamfm
print("ready", flush=True)
fastamfm.WordVectors.load(sys.argv[1], cache_dir=sys.argv[2], workers=1)
"""


def test_sigterm_while_building_a_vector_cache_leaves_no_temporary(tmp_path):
    source = tmp_path / "big.txt"
    row = " " + " ".join(["0.125"] * 50) + "\n"
    source.write_text("".join(f"w{i}{row}" for i in range(150_000)))
    cache = tmp_path / "cache"
    proc = _start_and_wait([sys.executable, "-c", BUILD_CACHE, str(source), str(cache)])
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    status = proc.wait(timeout=60)
    left = sorted(p.name for p in cache.iterdir()) if cache.exists() else []
    assert not [name for name in left if ".tmp" in name], left
    # Stopped during the build (status 143: the guard removed the temporary), before it
    # (killed by the signal, nothing written yet: a slow machine), or after the cache was
    # renamed into place (143 with the whole cache: a fast machine, or under ASan), or
    # finished first (0).
    assert status in (0, 128 + signal.SIGTERM, -signal.SIGTERM), status
    assert len(left) <= 1 and (left or status != 0), (status, left)
    if left:  # whatever is left is a complete cache, read back as such
        vectors = fastamfm.WordVectors.load(source, cache_dir=cache, workers=1)
        assert len(vectors) == 150_000 and sorted(p.name for p in cache.iterdir()) == left


def test_application_signal_handlers_are_left_alone():
    def handler(signum, frame):
        pass

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        with io.cleanup_on_signals():
            assert signal.getsignal(signal.SIGTERM) is handler
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, previous)
    with io.cleanup_on_signals():
        with io.cleanup_on_signals():
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_atomic_writer_on_error_keeps_the_old_file(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("old")
    with pytest.raises(RuntimeError):
        with io.AtomicWriter(out) as f:
            f.write("new")
            raise RuntimeError("boom")
    assert out.read_text() == "old" and os.listdir(tmp_path) == ["out.txt"]


def test_cli_terminated_mid_run_cleans_up_and_resumes(tmp_path):
    model = tmp_path / "model"
    train_tiny().save(model)
    hyps, refs = tiny_pairs(40_000, n_refs=1)
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(r[0] for r in refs) + "\n")
    out = tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "fastamfm.cli", "-q", "score", "--hyp", str(tmp_path / "h.txt"), "--ref",
           str(tmp_path / "r.txt"), "--model", str(model), "--out", str(out), "--chunk-size", "500",
           "--no-progress", "--workers", "1"]
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    parts = tmp_path / "out.jsonl.parts"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and len(list(parts.glob("*.statistics.json"))) < 2:
        time.sleep(0.002)
    assert proc.poll() is None, proc.stderr.read().decode()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == -signal.SIGTERM  # cleaned up, then died of the signal
    assert b"finished chunks are kept" in proc.stderr.read()
    assert not out.exists() and not [p for p in tmp_path.rglob("*") if ".tmp" in p.name]
    rerun = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert len(out.read_text().splitlines()) == len(hyps) and not parts.exists()


THREAD_START = DEFAULT_SIGNALS + """
import os, signal, threading, time
from fastamfm.io import Terminated, cleanup_on_signals, join_if_started, start_thread

seen = []
def target():  # a SIGTERM sent while start() runs: in CI it once left an unjoinable writer thread
    seen.append(signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, []))
    os.kill(os.getpid(), signal.SIGTERM)
thread = threading.Thread(target=target)
try:
    with cleanup_on_signals():
        start_thread(thread)
        while True:
            # Wait as real code waits, releasing the GIL. The SIGTERM may be taken by a native
            # thread (a BLAS pool's) rather than this one; CPython 3.11 then re-reads its flag only
            # when this thread takes the GIL again (bpo-40010), never in a pure-Python spin (the
            # spin hung about one run in fifteen).
            time.sleep(0.005)
except Terminated:
    join_if_started(thread)
    print("started" if thread.ident is not None else "not started", seen, flush=True)
"""


def test_a_signal_during_thread_start_is_handled_after_it_with_the_thread_joinable():
    done = subprocess.run([sys.executable, "-c", THREAD_START], env=ENV, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "started [True]"


def test_bad_input_leaves_no_parts_and_names_the_absolute_place(tmp_path):
    lines = [f"w{i} hello there" for i in range(2600)]
    lines[2501] = ""
    (tmp_path / "h.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(line or "x" for line in lines) + "\n")
    words = ["hello", "there", "x"] + [f"w{i}" for i in range(2600)]
    vectors = fastamfm.WordVectors.from_arrays(words, np.random.default_rng(0).standard_normal((len(words), 4)))
    with pytest.raises(ValueError, match=r"h.txt: embedding_average: hyps\[2501\] has no tokens"):
        score_files(tmp_path / "out.jsonl", hyp=tmp_path / "h.txt", refs=[tmp_path / "r.txt"],
                    metrics=("embedding_average",), vectors=vectors, chunk_size=1000)
    assert sorted(os.listdir(tmp_path)) == ["h.txt", "r.txt"]
    (tmp_path / "bad.jsonl").write_text('{"hyp": "a", "refs": ["b"]}\n' * 1500 + '{"hyp": 3, "refs": ["b"]}\n')
    with pytest.raises(fastamfm.FormatError, match=r"bad.jsonl:1501: 'hyp' must be a string") as info:
        score_files(tmp_path / "out.jsonl", jsonl=tmp_path / "bad.jsonl", model=train_tiny(), chunk_size=1000)
    assert info.value.line == 1501
    assert sorted(os.listdir(tmp_path)) == ["bad.jsonl", "h.txt", "r.txt"]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_saved_model_directories_follow_the_umask(tmp_path, umask):
    scorer = train_tiny()
    previous = os.umask(umask)
    try:
        scorer.save(tmp_path / "model")
        with io.AtomicWriter(tmp_path / "out.txt") as f:
            f.write("x")
    finally:
        os.umask(previous)
    assert (tmp_path / "model").stat().st_mode & 0o777 == 0o777 & ~umask
    for f in (tmp_path / "model").iterdir():
        assert f.stat().st_mode & 0o777 == 0o666 & ~umask, f
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o666 & ~umask


def test_failed_save_leaves_nothing(tmp_path, monkeypatch):
    scorer = train_tiny()

    def broken(path):
        raise OSError("disk full")

    monkeypatch.setattr(scorer.lm, "save", broken)
    with pytest.raises(OSError, match="disk full"):
        scorer.save(tmp_path / "model")
    assert os.listdir(tmp_path) == []


def test_mmap_false_survives_the_file_being_truncated(tmp_path):
    """Truncating a memory-mapped file under a scorer gives SIGBUS; a copy is immune."""
    model = tmp_path / "model"
    train_tiny().save(model)
    hyps, refs = tiny_pairs(20)
    scorer = fastamfm.AMFM.load(model, mmap=False)
    expected = scorer.score(hyps, refs).amfm
    for name in ("lsi.model", "lm.model"):
        os.truncate(model / name, 0)
    np.testing.assert_array_equal(scorer.score(hyps, refs).amfm, expected)

    source = tmp_path / "v.txt"
    source.write_text("".join(f"w{i} {i} 1 0.5\n" for i in range(50)))
    vectors = fastamfm.WordVectors.load(source, cache_dir=tmp_path / "cache", mmap=False)
    before = np.array(vectors.vectors)
    os.truncate(vectors.cache_path, 0)
    np.testing.assert_array_equal(np.array(vectors.vectors), before)

    cache = tmp_path / "meteor.bin"
    _core.MeteorResources.build(function_words=b"the\n", synsets=b"car\n1\nauto\n1\n", exceptions=b"",
                                nonbreaking_prefixes=b"", paraphrases=b"0.5\ngood day\nnice day\n").save(str(cache))
    resources = _core.MeteorResources.load(str(cache), mmap=False)
    os.truncate(cache, 0)
    assert fastamfm.meteor(["the car"], [["the auto"]], resources=resources).corpus["METEOR"] > 0.5


def test_lm_and_lsi_load_without_mmap_equal_mapped(tmp_path):
    corpus = tiny_corpus(500)
    fastamfm.NgramLM.train(corpus, order=3).save(tmp_path / "lm.model")
    fastamfm.LsiModel.train(corpus, dims=4).save(tmp_path / "lsi.model")
    for load in (fastamfm.NgramLM.load, fastamfm.LsiModel.load):
        path = tmp_path / ("lm.model" if load == fastamfm.NgramLM.load else "lsi.model")
        mapped, copied = load(path), load(path, mmap=False)
        score = (lambda m: m.score(corpus[:20])) if load == fastamfm.NgramLM.load else (lambda m: m.transform(corpus[:20]))
        np.testing.assert_array_equal(score(mapped), score(copied))
