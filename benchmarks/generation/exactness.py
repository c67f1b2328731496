"""How far fastamfm's generation metrics are from the tools they reproduce: max |difference|
and the number of values compared, per metric and data set, printed as a table.

sacreBLEU and chrF/chrF++ against sacrebleu, ROUGE against rouge-score (F1, precision,
recall), Self-BLEU against NLTK's loop and fast-bleu, token-id BLEU against TensorBLEU
(rxlm), on DSTC-6 (all 20 systems x 2000 responses x 11 references) and Topical-Chat
(each turn of test_freq.json against the turns before and after it). ``--quick``
compares the first 200 responses of each system; ``--rouge-responses N`` compares ROUGE on
the first N responses of each system and of Topical-Chat only (rouge-score needs ~5 ms a
response with 11 references).

    python3 benchmarks/run.py generation exactness [--quick] [--rouge-responses N]
"""
from __future__ import annotations

import argparse

import numpy as np

import fastamfm
from benchmarks import REPO
from benchmarks.generation import workloads as w
from benchmarks.measure import print_table
from benchmarks.shared_data import SHARED_DATA


def _topical_chat():
    import sys

    sys.path.insert(0, str(REPO / "tests"))
    from generation_data import topical_chat_pairs

    return topical_chat_pairs(SHARED_DATA / "topical_chat")


def _worst(pairs) -> tuple:
    worst, count = 0.0, 0
    for ours, theirs in pairs:
        ours, theirs = np.atleast_1d(np.asarray(ours, dtype=np.float64)), np.atleast_1d(np.asarray(theirs))
        worst = max(worst, float(np.abs(ours - theirs).max())) if len(ours) else worst
        count += len(ours)
    return worst, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rouge-responses", type=int, default=None)
    args = parser.parse_args()
    systems, refs = w.dstc6()
    if args.quick:
        systems, refs = {s: h[:200] for s, h in systems.items()}, refs[:200]
    tc_hyps, tc_refs = _topical_chat()
    data = {"DSTC-6": (systems, refs), "Topical-Chat": ({"turns": tc_hyps}, tc_refs)}
    rows = []
    for name, (sys_, rs) in data.items():
        for label, ours_fn, peer_fn in (("sacreBLEU (13a)", w.fastamfm_sacrebleu_systems, w.sacrebleu_systems),
                                        ("chrF", w.fastamfm_chrf_systems, w.sacrebleu_chrf_systems)):
            ours, theirs = ours_fn(sys_, rs), peer_fn(sys_, rs)
            corpus = _worst([(a[0], b[0]) for a, b in zip(ours, theirs)])
            sentence = _worst([(a[1], b[1]) for a, b in zip(ours, theirs)])
            rows.append([label, name, "sacrebleu", f"{corpus[0]:.3g}", corpus[1], f"{sentence[0]:.3g}", sentence[1]])
        ours = [fastamfm.chrf(h, rs, word_order=2) for h in sys_.values()]
        from sacrebleu.metrics import CHRF

        metric = CHRF(word_order=2, references=w.streams(rs))
        theirs = []
        for h in sys_.values():
            stats = metric._extract_corpus_statistics(h, None)
            theirs.append((metric._aggregate_and_compute(stats).score,
                           [metric._compute_score_from_stats(s).score for s in stats]))
        corpus = _worst([(a.corpus["chrF++"], b[0]) for a, b in zip(ours, theirs)])
        sentence = _worst([(a.sentences["chrF++"], b[1]) for a, b in zip(ours, theirs)])
        rows.append(["chrF++", name, "sacrebleu", f"{corpus[0]:.3g}", corpus[1], f"{sentence[0]:.3g}", sentence[1]])
        for stem in (False, True):
            from rouge_score.rouge_scorer import RougeScorer

            scorer = RougeScorer(w.ROUGE_TYPES, use_stemmer=stem)
            pairs = []
            limit = args.rouge_responses
            for h in sys_.values():
                mine = {k: v[:limit] for k, v in fastamfm.rouge(h, rs, use_stemmer=stem).sentences.items()}
                expected = [scorer.score_multi(r, x) for x, r in zip(h[:limit], rs[:limit])]
                for t in w.ROUGE_TYPES:
                    for suffix, attr in (("", "fmeasure"), ("_precision", "precision"), ("_recall", "recall")):
                        pairs.append((mine[t + suffix], [getattr(e[t], attr) for e in expected]))
            worst = _worst(pairs)
            rows.append([f"ROUGE 1/2/L/Lsum P/R/F{' stemmed' if stem else ''}", name, "rouge-score", "-", "-",
                         f"{worst[0]:.3g}", worst[1]])
    few = dict(list(systems.items())[:3]) if not args.quick else systems
    if w.available("fast_bleu"):
        worst = _worst(zip(w.fastamfm_self_bleu(few), w.fast_bleu_self_bleu(few)))
        rows.append(["Self-BLEU", f"DSTC-6 ({len(few)} systems)", "fast-bleu", "-", "-", f"{worst[0]:.3g}", worst[1]])
    one = {"S_1": systems["S_1"][:300]}
    worst = _worst(zip(w.fastamfm_self_bleu(one), w.nltk_self_bleu(one)))
    rows.append(["Self-BLEU", "DSTC-6 (300 responses)", "NLTK loop", "-", "-", f"{worst[0]:.3g}", worst[1]])
    if w.available("rxlm"):
        pairs = []
        for seed in range(10):
            h, r = w.token_batch(seed=seed)
            for smooth in ("exp", "floor", "add-k", "none"):
                ours = fastamfm.token_bleu(h, r, pad_id=0, smooth=smooth, convention="tensorbleu")
                from rxlm.metrics.tensorbleu import tensor_sentence_bleu

                theirs = tensor_sentence_bleu(h, r, pad_token_id=0, smoothing_method=smooth)
                pairs.append((ours.double().numpy(), theirs.double().numpy()))
        worst = _worst(pairs)
        rows.append(["token-id BLEU (tensorbleu convention)", "synthetic ids", "TensorBLEU (float32)", "-", "-",
                     f"{worst[0]:.3g}", worst[1]])
    print_table("exactness: max |fastamfm - peer| (sentence column: every per-response value compared)",
                ["metric", "data", "peer", "corpus max |d|", "corpus n", "sentence max |d|", "sentence n"], rows)


if __name__ == "__main__":
    main()
