"""Side-by-side numbers for the language model, all in one run on the same data.

    PYTHONPATH=python python benchmarks/compare_lm.py [--shared-data ../shared/data]

1. Training: wall time and peak memory (own process, ru_maxrss) for orders 2 and 5 on
   the twcs_airlines agent turns and on a 10M-token synthetic corpus (generated in
   /tmp); IRSTLM's ``tlm`` (modified shift-beta, when installed) beside it, since no
   pip package ships a trainer (kenlm has no lmplz).
2. Query: sentences/s of ``NgramLM.score`` (1 and 2 threads) against a
   ``kenlm.Model.score`` loop on the same DSTC-6 sentences and the same ARPA file.
3. Loading: fastamfm binary vs fastamfm ARPA vs kenlm ARPA.
Medians of repeats; correctness is asserted along the way.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent / "python"))

import fastamfm  # noqa: E402
from lm_corpora import twcs_agent_turns, zipf_corpus  # noqa: E402

IRSTLM_TLM = Path("/usr/lib/irstlm/bin/tlm")

TRAIN_SNIPPET = """
import json, resource, sys, time
sys.path.insert(0, {python!r})
import fastamfm
start = time.perf_counter()
lm = fastamfm.NgramLM.train({corpus!r}, order={order}, smoothing={smoothing!r}, max_memory={memory!r}, tokenize="whitespace")
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "counts": lm.counts, "spilled_runs": lm.training_stats["spilled_runs"]}}))
"""


def median_time(fn, repeats, clock=time.perf_counter):
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times)


def train_ours(corpus: Path, order: int, smoothing: str, memory: str) -> dict:
    code = TRAIN_SNIPPET.format(python=str(HERE.parent / "python"), corpus=str(corpus), order=order,
                                smoothing=smoothing, memory=memory)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


IRSTLM_SNIPPET = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, capture_output=True)
print(json.dumps({"seconds": time.perf_counter() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def train_irstlm(corpus_with_markers: Path, order: int, workdir: Path) -> dict | None:
    """IRSTLM's tlm in backoff form, timed in a wrapper process whose only child it
    is, so that ru_maxrss is tlm's own peak. Modified shift-beta (closest to modified
    Kneser-Ney) where it can estimate its count-of-counts, else Witten-Bell."""
    if not IRSTLM_TLM.exists():
        return None
    for method in ("msb", "wb"):
        command = [str(IRSTLM_TLM), f"-tr={corpus_with_markers}", f"-n={order}", f"-lm={method}", "-bo=yes",
                   f"-o={workdir / 'irstlm.arpa'}"]
        out = subprocess.run([sys.executable, "-c", IRSTLM_SNIPPET, *command], capture_output=True, text=True)
        if out.returncode == 0:
            return {**json.loads(out.stdout.strip().splitlines()[-1]), "method": method}
    return None


def write_lines(path: Path, lines) -> int:
    tokens = 0
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
            tokens += len(line.split())
    return tokens


def synthetic_corpus(path: Path, tokens: int) -> int:
    if path.exists():
        return sum(len(line.split()) for line in open(path, encoding="utf-8"))
    written = 0
    seed = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < tokens:
            for sentence in zipf_corpus(20000, vocabulary=50000, seed=seed, max_len=20):
                f.write(sentence + "\n")
                written += len(sentence.split())
            seed += 1
    return written


def section_training(corpora: dict, workdir: Path, memory: str):
    print("\n== Training: wall seconds and peak RSS (MB) ==")
    print(f"{'corpus':<22}{'order':>6}{'smoothing':>12}{'ours s':>9}{'ours MB':>9}{'runs':>6}"
          f"{'IRSTLM s':>10}{'IRSTLM MB':>11}{'method':>8}{'time ratio':>12}")
    for name, (path, marked) in corpora.items():
        for order in (2, 5):
            irst = train_irstlm(marked, order, workdir)
            for smoothing in ("kneser-ney", "katz"):
                ours = train_ours(path, order, smoothing, memory)
                ratio = f"{irst['seconds'] / ours['seconds']:.2f}x" if irst else "n/a"
                irst_s = f"{irst['seconds']:.2f}" if irst else "n/a"
                irst_mb = f"{irst['peak_mb']:.0f}" if irst else "n/a"
                method = irst["method"] if irst else "failed"
                print(f"{name:<22}{order:>6}{smoothing:>12}{ours['seconds']:>9.2f}{ours['peak_mb']:>9.0f}"
                      f"{ours['spilled_runs']:>6}{irst_s:>10}{irst_mb:>11}{method:>8}{ratio:>12}", flush=True)


def section_query(lm_path: Path, sentences: list[str], repeats: int):
    import kenlm

    lm = fastamfm.NgramLM.load(lm_path)
    model = kenlm.Model(str(lm_path))
    theirs = np.array([model.score(s) for s in sentences])
    ours = lm.score(sentences)
    rounding = np.array([len(s.split()) + 1 for s in sentences]) * np.abs(theirs) * 2.0 ** -24
    assert np.all(np.abs(ours - theirs) <= 1e-4 + rounding)
    n = len(sentences)
    kenlm_loop = lambda: [model.score(s) for s in sentences]  # noqa: E731
    t_kenlm = median_time(kenlm_loop, repeats)
    t_one = median_time(lambda: lm.score(sentences, workers=1), repeats)
    t_two = median_time(lambda: lm.score(sentences, workers=2), repeats)
    # CPU seconds of the single-threaded runs: steadier than wall time on a busy machine.
    c_kenlm = median_time(kenlm_loop, repeats, time.process_time)
    c_one = median_time(lambda: lm.score(sentences, workers=1), repeats, time.process_time)
    print(f"\n== Query: {n} DSTC-6 sentences, order {lm.order} model ({lm_path.name}) ==")
    print(f"{'scorer':<36}{'sentences/s':>14}{'vs kenlm':>10}{'CPU s':>9}{'CPU vs kenlm':>14}")
    print(f"{'kenlm.Model.score loop':<36}{n / t_kenlm:>14,.0f}{1.0:>9.2f}x{c_kenlm:>9.3f}{1.0:>13.2f}x")
    print(f"{'fastamfm NgramLM.score workers=1':<36}{n / t_one:>14,.0f}{t_kenlm / t_one:>9.2f}x{c_one:>9.3f}"
          f"{c_kenlm / c_one:>13.2f}x")
    print(f"{'fastamfm NgramLM.score workers=2':<36}{n / t_two:>14,.0f}{t_kenlm / t_two:>9.2f}x")


def section_loading(arpa: Path, binary: Path, repeats: int):
    import kenlm

    t_binary = median_time(lambda: fastamfm.NgramLM.load(binary), repeats)
    t_arpa = median_time(lambda: fastamfm.NgramLM.load(arpa), repeats)
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    os.dup2(devnull, 2)  # kenlm draws a progress bar on stderr
    try:
        t_kenlm = median_time(lambda: kenlm.Model(str(arpa)), repeats)
    finally:
        os.dup2(saved, 2)
    lm = fastamfm.NgramLM.load(binary)
    print(f"\n== Loading: {sum(lm.counts):,} n-grams, ARPA {arpa.stat().st_size / 1e6:.0f} MB, "
          f"binary {binary.stat().st_size / 1e6:.0f} MB ==")
    print(f"{'loader':<28}{'seconds':>10}{'vs binary':>11}")
    print(f"{'fastamfm binary (mmap)':<28}{t_binary:>10.3f}{1.0:>10.1f}x")
    print(f"{'fastamfm ARPA':<28}{t_arpa:>10.3f}{t_arpa / t_binary:>10.1f}x")
    print(f"{'kenlm ARPA':<28}{t_kenlm:>10.3f}{t_kenlm / t_binary:>10.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared-data", type=Path, default=HERE.parent.parent / "shared" / "data")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "fastamfm_bench_lm")
    parser.add_argument("--synthetic-tokens", type=int, default=10_000_000)
    parser.add_argument("--max-memory", default="1G")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--repeats-query", type=int, default=7)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    data = args.shared_data
    print(f"cores: {os.cpu_count()}, fastamfm {fastamfm.__version__}")

    twcs_txt = args.workdir / "twcs_agent_turns.txt"
    if not twcs_txt.exists():
        write_lines(twcs_txt, twcs_agent_turns(data / "twcs_airlines"))
    synthetic_txt = args.workdir / "synthetic.txt"
    synthetic_tokens = synthetic_corpus(synthetic_txt, args.synthetic_tokens)
    corpora = {}
    for name, path in (("twcs agent turns", twcs_txt), (f"synthetic {synthetic_tokens / 1e6:.1f}M tok", synthetic_txt)):
        marked = path.with_suffix(".marked.txt")
        if not marked.exists():
            write_lines(marked, (f"<s> {line.rstrip()} </s>" for line in open(path, encoding="utf-8")))
        corpora[name] = (path, marked)
    twcs_tokens = sum(len(line.split()) for line in open(twcs_txt, encoding="utf-8"))
    print(f"twcs agent turns: {twcs_tokens:,} tokens; synthetic: {synthetic_tokens:,} tokens")

    if not args.skip_training:
        section_training(corpora, args.workdir, args.max_memory)

    from fastamfm.io import read_lines, read_parallel_files

    dstc6 = data / "dstc6_t2_evaluation"
    sentences = [s for i in range(1, 21) for s in read_lines(dstc6 / "hypotheses" / f"S_{i}.txt")]
    refs = read_parallel_files([dstc6 / "references" / "original_refs.txt"] +
                               [dstc6 / "references" / f"refgen_result{i}.txt" for i in range(1, 11)])
    sentences += [r for rs in refs for r in rs]
    for order in (2, 5):
        lm = fastamfm.NgramLM.train(twcs_txt, order=order, tokenize="whitespace")
        arpa = args.workdir / f"twcs_kn{order}.arpa"
        lm.save_arpa(arpa)
        section_query(arpa, sentences, args.repeats_query)

    big = fastamfm.NgramLM.train(synthetic_txt, order=5, max_memory=args.max_memory, tokenize="whitespace")
    arpa, binary = args.workdir / "synthetic_kn5.arpa", args.workdir / "synthetic_kn5.bin"
    big.save_arpa(arpa)
    big.save(binary)
    section_loading(arpa, binary, args.repeats)
    assert math.isfinite(big.perplexity(sentences[:1000]))


if __name__ == "__main__":
    main()
