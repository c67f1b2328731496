"""NgramLM.train on generated tiny corpora (empty lines, one word, repeated and
marker tokens), every order, both smoothings, pruning, a closed vocabulary and
worker counts far above the core count: never a crash, a clear ValueError only for
a corpus without words, and the one-worker model for every worker count (the
segfault once seen on a 16-core Python 3.12 machine was in this call)."""
from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings, strategies as st

import fastamfm

# Words, markers, punctuation the amfm tokenizer splits off or drops, non-ASCII text.
WORDS = ["a", "b", "c", "the", "ça", "<s>", "</s>", "<unk>", "hello,", "'", "-", "%", "...", "—", "日本", "A"]
sentences = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)
corpora = st.lists(sentences, max_size=12)
options = st.fixed_dictionaries({
    "order": st.integers(1, 6),
    "smoothing": st.sampled_from(["kneser-ney", "katz"]),
    "prune": st.sampled_from([None, 1e-6, 1e-2, 0.5]),
    "vocab": st.sampled_from([None, ["a", "the"]]),
    "tokenize": st.sampled_from(["whitespace", "amfm"]),   # amfm: NgramLM.train's default
})


def _train(corpus, workers, opts):
    return fastamfm.NgramLM.train(corpus, workers=workers, **opts)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpora, opts=options, workers=st.sampled_from([2, 3, 16, 33]))
def test_tiny_corpora_train_the_one_worker_model(corpus, opts, workers):
    try:
        one = _train(corpus, 1, opts)
    except ValueError as exc:   # no word left after tokenising (markers are skipped)
        assert "empty corpus" in str(exc)
        try:
            _train(corpus, workers, opts)
        except ValueError as again:
            assert str(again) == str(exc)
            return
        raise AssertionError("a corpus without words trained a model with more workers")
    many = _train(corpus, workers, opts)
    assert many.fingerprint == one.fingerprint
    assert many.order == opts["order"]
    text = [line for line in corpus if line.strip()] or ["a"]
    assert not math.isnan(many.perplexity(text))


_SIXTEEN_CORES = """
import os, sys
import fastamfm
assert os.cpu_count() == 16, os.cpu_count()
corpora = [["a"], ["", "a b", ""], ["a b c", "a b", "b c a", "c"], ["a b c"] * 5]
for corpus in corpora:
    for order in range(1, 7):
        for smoothing in ("kneser-ney", "katz"):
            for prune in (None, 1e-3):
                every = fastamfm.NgramLM.train(corpus, order=order, smoothing=smoothing, prune=prune,
                                               tokenize="whitespace")
                one = fastamfm.NgramLM.train(corpus, order=order, smoothing=smoothing, prune=prune,
                                             tokenize="whitespace", workers=1)
                assert every.fingerprint == one.fingerprint, (corpus, order, smoothing, prune)
print("ok")
"""


def test_default_workers_on_a_sixteen_core_machine(tmp_path):
    """The GPU machine's thread counts here: tests/native/fake_cores.c makes this process see
    16 cores, so workers=-1 (the default) and the model build (every core, one order a
    thread: 6 threads at order 6 instead of 2 here) run as they do there."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the fake-cores shim")
    shim = tmp_path / "libfake_cores.so"
    source = Path(__file__).parent / "native" / "fake_cores.c"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(shim), str(source), "-ldl"], check=True)
    env = dict(os.environ, FAKE_CORES="16",
               LD_PRELOAD=" ".join(filter(None, [os.environ.get("LD_PRELOAD"), str(shim)])))  # a sanitizer first
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", _SIXTEEN_CORES], env=env,
                          capture_output=True, text=True, timeout=300,
                          cwd=Path(fastamfm.__file__).resolve().parents[1])
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout[-2000:] + done.stderr[-3000:]
