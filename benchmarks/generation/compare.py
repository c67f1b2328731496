"""fastamfm's generation metrics vs the tools people use, side by side, one run.

Rows (every comparison asserts the numbers agree first):
1. sacreBLEU corpus + sentence BLEU of the 20 DSTC-6 systems (2000 x 11 references):
   sacrebleu (timed on ``--peer-systems`` systems, scaled to 20) and bleuscore (corpus BLEU
   only, all 20) beside fastamfm.sacrebleu against one shared References.
2. chrF corpus + sentence of the 20 systems beside sacrebleu (scaled like row 1).
3. chrF 1,024 x 1,024 pairwise: fastchrf (all), sacrebleu (``--sacrebleu-rows`` rows, scaled).
4. rouge-score's rouge1/2/L/Lsum of the 20 systems: rouge-score timed on the first
   ``--rouge-responses`` responses of each of ``--peer-systems`` systems, scaled.
5. Self-BLEU of the 20 systems (each response against the 1999 others): fast-bleu
   (``--peer-systems`` systems, scaled) and NLTK's loop on 300 responses of one system
   beside fastamfm on the same 300.
6. Token-id sentence BLEU (TensorBLEU's floor smoothing and convention) of 256 completions
   x 64 ids x 4 references, 20 batches: TensorBLEU on CPU tensors beside fastamfm.token_bleu.
Sides run interleaved, repeat after repeat; times are medians of wall-clock and CPU time
(user + sys, all threads), with the load average sampled while measuring.

    python3 benchmarks/run.py generation compare [--repeats 3] [--peer-systems 2]
"""
from __future__ import annotations

import argparse

from benchmarks import measure
from benchmarks.generation import workloads as w
from benchmarks.shared_data import DSTC6, require

HEADER = ["task", "peer", "peer wall", "fastamfm wall", "wall x", "peer CPU", "fastamfm CPU", "CPU x"]


def _row(task: str, peer: str, peer_timing, ours) -> list:
    cells = measure.speed_rows(task, peer_timing, ours)
    return [cells[0], peer] + cells[1:]


def _race(rows, task, peers: dict, ours, repeats):
    """Time `ours` beside each available peer; peers: {name: (fn, check, scale)}."""
    sides = {"fastamfm": lambda: measure.timed(ours)}
    for name, (fn, _, _) in peers.items():
        sides[name] = lambda fn=fn: measure.timed(fn)
    results = measure.interleaved(sides, repeats)
    ours_timing, ours_result = results.pop("fastamfm")
    for name, (timing, result) in results.items():
        _, check_fn, factor = peers[name]
        check_fn(ours_result, result)
        rows.append(_row(task, name + (f" (x{factor:g})" if factor != 1 else ""), timing.scaled(factor), ours_timing))
    return ours_result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-systems", type=int, default=2)
    parser.add_argument("--rouge-responses", type=int, default=400)
    parser.add_argument("--sacrebleu-rows", type=int, default=32)
    args = parser.parse_args()
    require(DSTC6)
    systems, refs = w.dstc6()
    k = args.peer_systems
    few = dict(list(systems.items())[:k])
    scale = len(systems) / k
    rows, notes = [], []
    with measure.LoadMonitor() as load:
        # 1. sacreBLEU
        peers = {"sacrebleu": (lambda: w.sacrebleu_systems(few, refs), w.check_sacrebleu, scale)}
        if w.available("bleuscore"):
            peers["bleuscore (corpus only)"] = (lambda: w.bleuscore_systems(systems, refs), w.check_corpus, 1)
        _race(rows, "sacreBLEU corpus+sentence, 20 systems", peers,
              lambda: w.fastamfm_sacrebleu_systems(systems, refs), args.repeats)
        # 2. chrF corpus + sentence
        _race(rows, "chrF corpus+sentence, 20 systems",
              {"sacrebleu": (lambda: w.sacrebleu_chrf_systems(few, refs), w.check_sacrebleu, scale)},
              lambda: w.fastamfm_chrf_systems(systems, refs), args.repeats)
        # 3. chrF pairwise
        candidates, references = w.pairwise_texts(1024)
        head = candidates[:args.sacrebleu_rows]
        peers = {"sacrebleu": (lambda: w.sacrebleu_chrf_pairwise(head, references), w.check_pairwise,
                               len(candidates) / len(head))}
        if w.available("fastchrf"):
            peers["fastchrf"] = (lambda: w.fastchrf_pairwise(candidates, references), w.check_pairwise, 1)
        _race(rows, "chrF 1,024 x 1,024 pairwise", peers,
              lambda: w.fastamfm_chrf_pairwise(candidates, references), args.repeats)
        # 4. rouge-score
        n = args.rouge_responses
        subset = {s: hyps[:n] for s, hyps in few.items()}
        _race(rows, "rouge1/2/L/Lsum, 20 systems", {
            "rouge-score": (lambda: w.rouge_score_systems(subset, refs[:n]), w.check_rouge,
                            len(systems) * 2000 / (k * n))},
            lambda: w.fastamfm_rouge_systems(systems, refs), args.repeats)
        notes.append(f"sacrebleu and rouge-score timed on {k} of the 20 systems (rouge-score on their first {n} "
                     f"responses), chrF pairwise by sacrebleu on {len(head)} of the 1,024 rows, fast-bleu on {k} "
                     f"systems; each scaled (xN) to the whole task")
        # 5. Self-BLEU
        if w.available("fast_bleu"):
            _race(rows, "Self-BLEU, 20 systems x 2000", {
                "fast-bleu": (lambda: w.fast_bleu_self_bleu(few), w.check_self_bleu, scale)},
                lambda: w.fastamfm_self_bleu(systems), args.repeats)
        small = {"S_1": systems["S_1"][:300]}
        _race(rows, "Self-BLEU, 300 responses", {"NLTK loop": (lambda: w.nltk_self_bleu(small), w.check_self_bleu, 1)},
              lambda: w.fastamfm_self_bleu(small), max(1, args.repeats - 2))
        # 6. token-id BLEU
        if w.available("rxlm"):
            batches = [w.token_batch(seed=s) for s in range(20)]
            _race(rows, "token-id BLEU, 20 x (256 x 64 ids x 4 refs), CPU", {
                "TensorBLEU": (lambda: [w.tensorbleu_sentence_bleu(h, r) for h, r in batches],
                               lambda a, b: [w.check_token_bleu(x, y) for x, y in zip(a, b)], 1)},
                lambda: [w.fastamfm_token_bleu(h, r) for h, r in batches], args.repeats)
        else:
            notes.append("TensorBLEU absent (pip install --no-deps rxlm): token-id row left out")
    notes.insert(0, f"median of {args.repeats} interleaved repeats; {load}")
    measure.print_table("generation metrics: fastamfm vs sacrebleu, bleuscore, fastchrf, rouge-score, fast-bleu, "
                        "NLTK, TensorBLEU (speed-up = peer / fastamfm)", HEADER, rows, notes)


if __name__ == "__main__":
    main()
