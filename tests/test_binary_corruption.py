"""Every bit of every binary format's header, and random bits of its body, flipped one at
a time: the loader refuses the file (FormatError) or answers exactly as before, and the
process never crashes. Each format runs in its own subprocess (binary_corruption.py).

The shipped default model is tested the same way, on a copy.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_corpus
from fastamfm import _core
from fastamfm.amfm.scorer import DEFAULT_MODEL_DIR
from vector_files import write_glove

HERE = Path(__file__).resolve().parent
PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]
BODY_BITS = 300


def flip_bits(fmt: str, path: Path, body_bits: int = BODY_BITS, seed: int = 0) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PYTHON_DIR), str(HERE)]))
    proc = subprocess.run([sys.executable, str(HERE / "binary_corruption.py"), fmt, str(path), str(body_bits),
                           str(seed)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the {fmt} loader crashed (exit status {proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(proc.stdout)


def check(counts: dict, header_bytes: int) -> None:
    assert counts["wrong"] == [], f"{counts['format']}: flips that changed answers silently: {counts['wrong'][:20]}"
    assert counts["other"] == [], f"{counts['format']}: flips that raised another exception: {counts['other'][:5]}"
    assert counts["tried"] == counts["refused"] + counts["same"]
    assert counts["tried"] >= header_bytes * 8
    print(f"{counts['format']} ({counts['file_bytes']} bytes): {counts['tried']} flips, "
          f"{counts['refused']} FormatError, {counts['same']} same answers, 0 wrong, 0 crashes")


@pytest.fixture(scope="module")
def corpus():
    return tiny_corpus(1500, seed=3)


def test_language_model(corpus, tmp_path):
    path = tmp_path / "lm.model"
    fastamfm.NgramLM.train(corpus, order=3).save(path)
    check(flip_bits("lm", path), 376)


def test_lsi_model(corpus, tmp_path):
    path = tmp_path / "lsi.model"
    fastamfm.LsiModel.train(corpus, dims=6).save(path)
    check(flip_bits("lsi", path), 96)


def test_word_vector_cache(tmp_path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)] + ["the", "cat", "sat", "mat"]
    source = tmp_path / "vectors.txt"
    write_glove(source, words, rng.standard_normal((len(words), 12)).astype(np.float32))
    vectors = fastamfm.WordVectors.load(source, cache_dir=tmp_path / "cache")
    check(flip_bits("vectors", vectors.cache_path), 144)


def test_meteor_resource_cache(tmp_path):
    path = tmp_path / "meteor.bin"
    _core.MeteorResources.build(
        function_words=b"the\na\nan\non\n", synsets=b"car\n1 2\nautomobile\n2\nbig\n7\nlarge\n7\n",
        exceptions=b"big\nbigger\n", nonbreaking_prefixes=b"Mr\nNo #NUMERIC_ONLY#\n",
        paraphrases=b"0.5\ngood day\nnice day\n0.4\nfine\ngood\n").save(str(path))
    check(flip_bits("meteor", path), 32)


@pytest.mark.slow
@pytest.mark.parametrize("fmt, name, header_bytes", [("lm", "lm.model", 376), ("lsi", "lsi.model", 96)])
def test_shipped_default_model(fmt, name, header_bytes, tmp_path):
    copy = tmp_path / name
    shutil.copyfile(DEFAULT_MODEL_DIR / name, copy)
    check(flip_bits(fmt, copy, body_bits=200, seed=1), header_bytes)
