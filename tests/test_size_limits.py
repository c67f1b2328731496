"""Bounded memory on hostile input: a 5 MB line in every reader is a FormatError naming
the file and line (read no further than the limit), METEOR's memory grows linearly with
sentence length (or stops at a documented cap with a clear error), ROUGE-L's too, and
declared sizes a file cannot hold never size an allocation."""
from __future__ import annotations

import bisect
import json
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from fastamfm import io, limits
from fastamfm.analysis.ratings import load_rated_turns
from vector_files import write_fasttext, write_glove

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]
FIVE_MB = 5 << 20


def _long_text() -> str:
    rng = random.Random(0)
    text = " ".join(f"w{rng.randrange(50000)}" for _ in range(FIVE_MB // 6))
    return text[:FIVE_MB]


LONG = _long_text()


def _arpa_with(line: str) -> str:
    return f"\\data\\\nngram 1=3\n\n\\1-grams:\n-1.0\t<unk>\n-1.0\t<s>\n{line}\n\n\\end\\\n"


# Each writes a file whose line 'line' is 5 MB long; then reads it.
READERS = {
    "text lines": (lambda p: p.write_text("short\n" + LONG + "\n"), lambda p: io.read_lines(p), 2),
    "parallel files": (lambda p: p.write_text("a\n" + LONG + "\n"),
                       lambda p: io.read_parallel_files([p, p]), 2),
    "jsonl records": (lambda p: p.write_text(json.dumps({"hyp": LONG, "refs": ["r"]}) + "\n"),
                      lambda p: io.read_jsonl(p), 1),
    "DSTC json": (lambda p: p.write_text(json.dumps([{"response": LONG, "reference": "r"}])),
                  lambda p: io.read_dstc_json(p), None),
    "ratings json": (lambda p: p.write_text(json.dumps([{"response": LONG, "context": "c",
                                                         "annotations": {"Overall": [3]}}])),
                     lambda p: load_rated_turns(p), None),
    "ratings jsonl": (lambda p: p.with_suffix(".jsonl").write_text(json.dumps({"hyp": LONG, "rating": 1}) + "\n"),
                      lambda p: load_rated_turns(p.with_suffix(".jsonl")), 1),
    "ARPA": (lambda p: p.write_text(_arpa_with("-1.0\t" + LONG.replace(" ", "_"))),
             lambda p: fastamfm.NgramLM.load(p), 7),
    "GloVe": (lambda p: p.write_text("a 1 2\n" + "b" + " 0.5" * (FIVE_MB // 4) + "\n"),
              lambda p: fastamfm.WordVectors.load(p, format="glove", cache=False), 2),
    "fastText": (lambda p: p.write_text(f"2 {FIVE_MB // 4}\n" + "b" + " 0.5" * (FIVE_MB // 4) + "\n"),
                 lambda p: fastamfm.WordVectors.load(p, format="fasttext", cache=False), 1),
    "word2vec": (lambda p: p.write_bytes(b"1 2000000\nw " + bytes(8_000_000)),
                 lambda p: fastamfm.WordVectors.load(p, format="word2vec", cache=False), 1),
    "LM corpus": (lambda p: p.write_text("a b\n" + LONG + "\n"), lambda p: fastamfm.NgramLM.train(p, order=2), 2),
    "LSI corpus": (lambda p: p.write_text("a b\n" + LONG + "\n"), lambda p: fastamfm.LsiModel.train(p, dims=2), 2),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_five_megabyte_line_is_a_clear_error(reader, tmp_path):
    write, read, line = READERS[reader]
    path = tmp_path / "input.txt"
    write(path)
    with pytest.raises(fastamfm.FormatError, match="longer than 1048576 bytes|dimensions: rows that long exceed the 1048576-byte") as info:
        read(path)
    error = info.value
    assert error.path is not None and Path(error.path).name.startswith("input")
    if line is not None:
        assert error.line == line, str(error)
    # Raising the limit is how such files are read (the message says so).
    assert "max_line_bytes" in str(error)


def test_raised_limit_reads_the_long_line(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("short\n" + LONG + "\n")
    with limits.override(max_line_bytes=8 << 20):
        assert io.read_lines(path)[1] == LONG
    assert limits.get()["max_line_bytes"] == 1 << 20


def test_limits_api():
    assert set(limits.get()) == set(limits.NAMES)
    with pytest.raises(TypeError, match="unknown limits"):
        limits.set(max_lines=3)
    for bad in (0, -1, 1.5, True, 1 << 70):
        with pytest.raises(ValueError, match="positive integer"):
            limits.set(max_line_bytes=bad)


def _peak_rss_growth(code: str) -> dict:
    """Runs `code` (which sets `result`) in a fresh interpreter; returns its result and
    the growth of the peak resident set during it, in MB."""
    script = ("import resource, json, fastamfm\n"
              "fastamfm.meteor(['warm up'], [['warm up']])\n"
              "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              f"{code}\n"
              "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              "print(json.dumps({'result': result, 'mb': (peak - base) / 1024}))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


METEOR_ON = """
import random
rng = random.Random(0)
words = [f"w{{i}}" for i in range(20000)]
hyp = " ".join(rng.choice(words) for _ in range({n}))
ref = " ".join(rng.choice(words) for _ in range({n}))
result = float(fastamfm.meteor([hyp], [[ref]]).sentences["METEOR"][0])
"""


def _needs_meteor_resources():
    try:
        fastamfm.meteor_resources.load()
    except fastamfm.meteor_resources.MeteorResourcesNotFound:
        pytest.skip('METEOR 1.5 resources absent (pip install "fastamfm[meteor]")')


@pytest.mark.slow
def test_meteor_memory_grows_linearly_with_sentence_length():
    _needs_meteor_resources()
    growth = {n: _peak_rss_growth(METEOR_ON.format(n=n))["mb"] for n in (10_000, 100_000)}
    print(f"METEOR peak RSS growth: 10k tokens {growth[10_000]:.0f} MB, 100k tokens {growth[100_000]:.0f} MB")
    # Quadratic growth would be 100x (the old aligner: 1.3 GB at 10k tokens).
    assert growth[100_000] < 400


def test_meteor_candidate_cap_is_a_clear_error():
    hyp = " ".join(["the"] * 20_000)
    with pytest.raises(ValueError, match=r"hyps\[1\] and refs\[1\]\[0\]: .* more than 4194304 candidate matches"
                                         r".*meteor_max_candidates"):
        fastamfm.meteor(["a b", hyp], [["a b"], [hyp]], stages=("exact", "stem"))
    with limits.override(meteor_max_candidates=10):
        with pytest.raises(ValueError, match="more than 10 candidate matches"):
            fastamfm.meteor(["a a a a"], [["a a a a"]], stages=("exact", "stem"))


def test_meteor_references_past_the_candidate_budget_are_found_again():
    """A segment holds its references' candidates while they fit one pair's limit in
    all; the others are dropped and found again for their alignment, with the same
    result as scoring each reference alone."""
    hyp = "a b c a b c a b c a b"
    refs = [" ".join(["a b c"] * n) for n in (1, 4, 2, 3, 1)] + ["c a b a"]
    with limits.override(meteor_max_candidates=60):
        together = fastamfm.meteor([hyp], [refs], stages=("exact", "stem"))
        alone = [fastamfm.meteor([hyp], [[r]], stages=("exact", "stem")).sentences["METEOR"][0] for r in refs]
    assert together.sentences["METEOR"][0] == max(alone)
    first_best = alone.index(max(alone))
    best = fastamfm.meteor([hyp], [[refs[first_best]]], stages=("exact", "stem"))
    assert together.corpus["METEOR"] == best.corpus["METEOR"]


def _rouge_l_from_lcs(lcs: int, n_hyp: int, n_ref: int, beta: float = 1.2) -> float:
    p, r = lcs / n_hyp, lcs / n_ref
    return (1 + beta ** 2) * p * r / (r + beta ** 2 * p) if lcs else 0.0


def test_rouge_l_of_long_sentences_with_many_distinct_words():
    """Past the dense-mask budget the LCS masks come from position lists; for a
    hypothesis of distinct words the LCS is a longest increasing subsequence."""
    rng = random.Random(1)
    n = 20_000
    hyp = [f"t{i}" for i in range(n)]
    rng.shuffle(hyp)
    ref = [f"t{rng.randrange(n + 3000)}" for _ in range(n)]
    position = {w: i for i, w in enumerate(hyp)}
    tails: list[int] = []
    for w in ref:
        if w in position:
            k = bisect.bisect_left(tails, position[w])
            tails[k:k + 1] = [position[w]]
    expected = _rouge_l_from_lcs(len(tails), n, n)
    got = fastamfm.rouge_l([" ".join(hyp)], [[" ".join(ref)]]).sentences["ROUGE_L"][0]
    assert got == pytest.approx(expected, rel=1e-12)


def test_rouge_l_memory_is_linear():
    code = ("import random\nrng = random.Random(0)\n"
            "a = ' '.join(f'w{rng.randrange(10**6)}' for _ in range(200_000))\n"
            "b = ' '.join(f'w{rng.randrange(10**6)}' for _ in range(200_000))\n"
            "result = float(fastamfm.rouge_l([a], [[b]]).sentences['ROUGE_L'][0])\n")
    # Dense masks would take ~200k distinct x 200k bits = 5 GB.
    assert _peak_rss_growth(code)["mb"] < 200


def test_arpa_counts_the_file_cannot_hold(tmp_path):
    path = tmp_path / "big.arpa"
    path.write_text("\\data\\\nngram 1=4294967296\n\n\\1-grams:\n-1.0\t<unk>\n\\end\\\n")
    with pytest.raises(fastamfm.FormatError, match=r"big.arpa:2: .*declares 4294967296 1-grams, more than the "
                                                   r"file's \d+ bytes can hold") as info:
        fastamfm.NgramLM.load(path)
    assert info.value.line == 2


def test_vector_header_sizes_the_file_cannot_hold(tmp_path):
    path = tmp_path / "v.bin"
    path.write_bytes(b"4000000000 300\nw " + struct.pack("<300f", *([0.5] * 300)))
    with pytest.raises(fastamfm.FormatError, match="4000000000 vectors of 300 dimensions, more than the file"):
        fastamfm.WordVectors.load(path, format="word2vec", cache=False)
    write_fasttext(tmp_path / "v.vec", ["a"], np.ones((1, 3), np.float32))
    (tmp_path / "v.vec").write_text("1 900000000000\na 1 1 1\n")
    with pytest.raises(fastamfm.FormatError, match="900000000000 dimensions: rows that long exceed"):
        fastamfm.WordVectors.load(tmp_path / "v.vec", format="fasttext", cache=False)
    write_glove(tmp_path / "ok.txt", ["a"], np.ones((1, 3), np.float32))
    assert fastamfm.WordVectors.load(tmp_path / "ok.txt", cache=False).dim == 3
