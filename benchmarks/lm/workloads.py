"""Language-model workloads and peers shared by bench.py and compare.py.

Peers: kenlm (queries, ARPA loading; the pip package has no trainer) and IRSTLM's
``tlm`` (training, when installed). Models are trained by fastamfm with whitespace
tokens, the tokenization kenlm and IRSTLM use.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import fastamfm
import numpy as np
from lm_corpora import zipf_corpus  # tests/lm_corpora.py

from benchmarks import measure
from benchmarks.shared_data import REPO

IRSTLM_TLM = Path("/usr/lib/irstlm/bin/tlm")


# --- corpora ---------------------------------------------------------------------------------
def write_lines(path: Path, lines) -> int:
    """Write ``lines`` to ``path``; returns the number of whitespace tokens."""
    tokens = 0
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
            tokens += len(line.split())
    return tokens


def count_tokens(path: Path) -> int:
    with open(path, encoding="utf-8") as f:
        return sum(len(line.split()) for line in f)


def synthetic_corpus(path: Path, tokens: int) -> int:
    """A Zipf corpus of at least ``tokens`` tokens at ``path`` (kept between runs)."""
    if path.exists():
        return count_tokens(path)
    written = 0
    seed = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < tokens:
            for sentence in zipf_corpus(20000, vocabulary=50000, seed=seed, max_len=20):
                f.write(sentence + "\n")
                written += len(sentence.split())
            seed += 1
    return written


def with_sentence_markers(path: Path) -> Path:
    """The corpus with ``<s> ... </s>`` around each line (what IRSTLM's tlm expects)."""
    marked = path.with_suffix(".marked.txt")
    if not marked.exists():
        with open(path, encoding="utf-8") as f:
            write_lines(marked, (f"<s> {line.rstrip()} </s>" for line in f))
    return marked


# --- training ------------------------------------------------------------------------------
TRAIN_SNIPPET = """
import json, sys, time
sys.path.insert(0, {python!r})
import fastamfm
start = time.perf_counter()
lm = fastamfm.NgramLM.train({corpus!r}, order={order}, smoothing={smoothing!r}, max_memory={memory!r},
                            tokenize="whitespace")
print(json.dumps({{"seconds": time.perf_counter() - start, "counts": lm.counts,
                  "spilled_runs": lm.training_stats["spilled_runs"]}}))
"""


def train_fastamfm_process(corpus: Path, order: int, smoothing: str, memory: str) -> tuple[measure.Timing, dict]:
    """NgramLM.train in a fresh process: (the process's Timing, its own training seconds and counts)."""
    code = TRAIN_SNIPPET.format(python=str(REPO / "python"), corpus=str(corpus), order=order, smoothing=smoothing,
                                memory=memory)
    run = measure.run_child([sys.executable, "-c", code])
    return run.timing, json.loads(run.stdout.strip().splitlines()[-1])


def train_irstlm_process(corpus_with_markers: Path, order: int, workdir: Path) -> tuple[measure.Timing, str] | None:
    """IRSTLM's tlm in backoff form, measured as a child process of its own: modified
    shift-beta (closest to modified Kneser-Ney) where it can estimate its
    count-of-counts, else Witten-Bell. (Timing, method), or None without IRSTLM."""
    if not IRSTLM_TLM.exists():
        return None
    for method in ("msb", "wb"):
        command = [str(IRSTLM_TLM), f"-tr={corpus_with_markers}", f"-n={order}", f"-lm={method}", "-bo=yes",
                   f"-o={workdir / 'irstlm.arpa'}"]
        run = measure.run_child(command, check=False)
        if run.returncode == 0:
            return run.timing, method
    return None


def train_models(corpus, directory: Path, order: int, name: str = "model", **options) -> tuple[Path, Path]:
    """A Kneser-Ney model of ``corpus`` (whitespace tokens) saved as ARPA and as fastamfm
    binary (``directory/{name}_kn{order}.arpa|.bin``); ``options`` go to NgramLM.train."""
    lm = fastamfm.NgramLM.train(corpus, order=order, tokenize="whitespace", **options)
    arpa, binary = directory / f"{name}_kn{order}.arpa", directory / f"{name}_kn{order}.bin"
    lm.save_arpa(arpa)
    lm.save(binary)
    return arpa, binary


# --- queries -----------------------------------------------------------------------------------
def kenlm_model(arpa: Path):
    import kenlm

    return kenlm.Model(str(arpa))


def kenlm_full_scores(model, sentences) -> np.ndarray:
    """log10 sentence probabilities summed exactly from kenlm's per-word scores (the oracle)."""
    return np.array([math.fsum(t[0] for t in model.full_scores(s)) for s in sentences])


def kenlm_score_loop(model, sentences) -> list[float]:
    """The peer of NgramLM.score: one kenlm.Model.score call per sentence."""
    return [model.score(s) for s in sentences]


def check_scores(ours, theirs, sentences, atol: float = 1e-4) -> None:
    """Equal within 1e-4 plus kenlm's float32 rounding of each word score."""
    theirs = np.asarray(theirs)
    rounding = np.array([len(s.split()) + 1 for s in sentences]) * np.abs(theirs) * 2.0 ** -24
    assert np.all(np.abs(np.asarray(ours) - theirs) <= atol + rounding)
