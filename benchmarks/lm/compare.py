"""Side-by-side numbers for the language model, all in one run on the same data.

    python3 benchmarks/run.py lm compare [--repeats 3] [--skip-training]

1. Training: wall time, CPU time and peak memory (a process of its own, wait4's
   rusage) for orders 2 and 5 on the twcs_airlines agent turns and on a 10M-token
   synthetic corpus (generated in /tmp); IRSTLM's ``tlm`` (modified shift-beta, when
   installed) beside it, since no pip package ships a trainer (kenlm has no lmplz).
2. Query: sentences/s of ``NgramLM.score`` (1 and 2 threads) against a
   ``kenlm.Model.score`` loop on the same DSTC-6 sentences and the same ARPA file.
3. Loading: fastamfm binary vs fastamfm ARPA vs kenlm ARPA.
Medians of interleaved repeats; correctness is asserted along the way. Workloads and
peers: workloads.py.
"""
from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path

import fastamfm
from lm_corpora import twcs_agent_turns

from benchmarks import measure
from benchmarks.lm import workloads as w
from benchmarks.shared_data import DSTC6, TWCS, dstc6_references, dstc6_systems, require


def section_training(corpora: dict, workdir: Path, memory: str) -> None:
    rows = []
    with measure.LoadMonitor() as load:
        for name, path in corpora.items():
            for order in (2, 5):
                irst = w.train_irstlm_process(w.with_sentence_markers(path), order, workdir)
                for smoothing in ("kneser-ney", "katz"):
                    process, ours = w.train_fastamfm_process(path, order, smoothing, memory)
                    irst_cells = ([f"{irst[0].wall:.2f}", f"{irst[0].cpu:.2f}", f"{irst[0].peak_mib:.0f}", irst[1],
                                   measure.ratio(irst[0].wall / ours["seconds"])] if irst else
                                  ["n/a"] * 4 + ["failed" if w.IRSTLM_TLM.exists() else "not installed"])
                    rows.append([name, order, smoothing, f"{ours['seconds']:.2f}", f"{process.cpu:.2f}",
                                 f"{process.peak_mib:.0f}", ours["spilled_runs"], *irst_cells])
    measure.print_table("Training: seconds, CPU seconds (whole process), peak RSS MiB",
                        ["corpus", "order", "smoothing", "ours s", "ours CPU", "ours MiB", "runs", "IRSTLM s",
                         "IRSTLM CPU", "IRSTLM MiB", "method", "time ratio"], rows,
                        ["ours s: the training call; CPU and MiB: the whole process (interpreter and import included)",
                         str(load)])


def section_query(arpa: Path, binary: Path, sentences: list[str], repeats: int) -> None:
    lm = fastamfm.NgramLM.load(binary)
    model = w.kenlm_model(arpa)
    w.check_scores(lm.score(sentences), w.kenlm_score_loop(model, sentences), sentences)
    n = len(sentences)
    with measure.LoadMonitor() as load:
        results = measure.interleaved({
            "kenlm.Model.score loop": lambda: measure.timed(lambda: w.kenlm_score_loop(model, sentences)),
            "fastamfm NgramLM.score workers=1": lambda: measure.timed(lambda: lm.score(sentences, workers=1)),
            "fastamfm NgramLM.score workers=2": lambda: measure.timed(lambda: lm.score(sentences, workers=2)),
        }, repeats)
    peer = results["kenlm.Model.score loop"][0]
    rows = [[name, f"{n / t.wall:,.0f}", measure.ratio(peer.wall / t.wall), f"{t.cpu:.3f}",
             measure.ratio(peer.cpu / t.cpu)] for name, (t, _) in results.items()]
    measure.print_table(f"Query: {n} DSTC-6 sentences, order {lm.order} model ({arpa.name})",
                        ["scorer", "sentences/s", "vs kenlm", "CPU s", "CPU vs kenlm"], rows,
                        [f"median of {repeats} interleaved repeats; {load}"])


def section_loading(arpa: Path, binary: Path, repeats: int) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    os.dup2(devnull, 2)  # kenlm draws a progress bar on stderr
    try:
        with measure.LoadMonitor() as load:
            results = measure.interleaved({
                "fastamfm binary (mmap)": lambda: measure.timed(lambda: fastamfm.NgramLM.load(binary)),
                "fastamfm ARPA": lambda: measure.timed(lambda: fastamfm.NgramLM.load(arpa)),
                "kenlm ARPA": lambda: measure.timed(lambda: w.kenlm_model(arpa)),
            }, repeats)
    finally:
        os.dup2(saved, 2)
    base = results["fastamfm binary (mmap)"][0].wall
    lm = results["fastamfm binary (mmap)"][1]
    measure.print_table(f"Loading: {sum(lm.counts):,} n-grams, ARPA {arpa.stat().st_size / 1e6:.0f} MB, "
                        f"binary {binary.stat().st_size / 1e6:.0f} MB", ["loader", "seconds", "vs binary"],
                        [[name, f"{t.wall:.3f}", measure.ratio(t.wall / base)] for name, (t, _) in results.items()],
                        [f"median of {repeats} interleaved repeats; {load}"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "fastamfm_bench_lm")
    parser.add_argument("--synthetic-tokens", type=int, default=10_000_000)
    parser.add_argument("--max-memory", default="1G")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--repeats-query", type=int, default=7)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    require(DSTC6)
    print(f"cores: {os.cpu_count()}, fastamfm {fastamfm.__version__}")

    twcs_txt = args.workdir / "twcs_agent_turns.txt"
    if not twcs_txt.exists():
        w.write_lines(twcs_txt, twcs_agent_turns(require(TWCS)))
    synthetic_txt = args.workdir / "synthetic.txt"
    synthetic_tokens = w.synthetic_corpus(synthetic_txt, args.synthetic_tokens)
    print(f"twcs agent turns: {w.count_tokens(twcs_txt):,} tokens; synthetic: {synthetic_tokens:,} tokens")
    if not args.skip_training:
        section_training({"twcs agent turns": twcs_txt, f"synthetic {synthetic_tokens / 1e6:.1f}M tok": synthetic_txt},
                         args.workdir, args.max_memory)

    sentences = [s for hyps in dstc6_systems().values() for s in hyps]
    sentences += [r for rs in dstc6_references() for r in rs]
    for order in (2, 5):
        section_query(*w.train_models(twcs_txt, args.workdir, order, "twcs"), sentences, args.repeats_query)

    arpa, binary = w.train_models(synthetic_txt, args.workdir, 5, "synthetic", max_memory=args.max_memory)
    section_loading(arpa, binary, args.repeats)
    assert math.isfinite(fastamfm.NgramLM.load(binary).perplexity(sentences[:1000]))


if __name__ == "__main__":
    main()
