"""The exact call that once segfaulted on the 16-core Python 3.12 device
(``NgramLM.train`` on a tiny corpus, in ``_core.NgramModel.train``), over a grid of
tiny corpora and options, each compared with the one-worker model.

    python3 -X faulthandler benchmarks/device/lm_crash_hunt.py [--quick] [--workers 1,2,16,32]
    valgrind --tool=memcheck python3 benchmarks/device/lm_crash_hunt.py --quick   # under a checker

Corpora: empty lines, one word, one sentence, duplicate sentences, the marker tokens
(<s>, </s>, <unk>) alone and in text, non-ASCII words, punctuation alone and in text,
Unicode whitespace, a long sentence, a few random Zipf corpora; the whitespace and the amfm
tokenizer (NgramLM.train's default); orders 1..6; Kneser-Ney and Katz; no pruning, light
and heavy pruning;
an open and a closed vocabulary; a memory budget small enough to spill runs; worker
counts 1 .. far above the core count; and trainings started from several Python
threads at once (a thread that waits on its workers polls for Ctrl-C under the GIL,
where Python >= 3.12 may also run the garbage collector). A training may end in a
clear ValueError (an empty corpus); it must never crash, and every worker count must
give the one-worker model. Prints one line per failure and a summary; exit 1 on any.
"""
from __future__ import annotations

import argparse
import gc
import itertools
import os
import random
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import benchmarks  # noqa: F401  (this checkout's python/ first on the path)
import fastamfm


def corpora(seed: int = 0) -> dict:
    rng = random.Random(seed)
    words = ["a", "b", "c", "d", "the", "dog", "ça", "日本", "x" * 40]

    def zipf(n, vocabulary):
        return [" ".join(f"w{min(int(rng.paretovariate(1.2)), vocabulary)}" for _ in range(rng.randint(0, 9)))
                for _ in range(n)]

    found = {
        "empty-list": [],
        "one-empty-line": [""],
        "empty-lines": ["", "", ""],
        "one-word": ["a"],
        "one-word-repeated": ["a a a a a"],
        "one-sentence": ["the dog barks at the cat"],
        "duplicates": ["a b c"] * 7,
        "markers-only": ["<s>", "</s> <unk>", "<s> </s>"],
        "markers-in-text": ["<s> a b </s>", "a <unk> b", "<unk>"],
        "tiny": ["a b c", "a b", "b c a", "c"],
        "empty-and-words": ["", "a", "", "a b", ""],
        "unicode": ["ça va", "日本 語", "ça 日本 ça"],
        "long-sentence": [" ".join(rng.choice(words) for _ in range(400))],
        "two-words-many-lines": [rng.choice(["a", "b", "a b", "b a"]) for _ in range(300)],
        "punctuation-only": ["...", ", ; :", "!?"],
        "punctuation-and-words": ["hello , world !", "it's 50% off -- really ?", "Ça va — très bien…"],
        "odd-whitespace": ["a\u00a0b", "\u3000a\tb\u2028c", " a  b "],
    }
    for i in range(3):
        found[f"zipf-{i}"] = zipf(rng.randint(5, 60), rng.randint(3, 40))
    return found


def train(corpus, **options):
    """The model's fingerprint, or the ValueError's first line."""
    options.setdefault("tokenize", "whitespace")
    try:
        return fastamfm.NgramLM.train(corpus, **options).fingerprint
    except ValueError as exc:
        return f"ValueError: {str(exc).splitlines()[0]}"


def grid(quick: bool):
    orders = [1, 2, 3] if quick else [1, 2, 3, 4, 5, 6]
    prunes = [None, 1e-3] if quick else [None, 1e-9, 1e-3, 0.5]
    for order, smoothing, prune in itertools.product(orders, ["kneser-ney", "katz"], prunes):
        yield {"order": order, "smoothing": smoothing, "prune": prune}
        if prune is None:  # the default tokenizer of NgramLM.train (punctuation, Unicode)
            yield {"order": order, "smoothing": smoothing, "tokenize": "amfm"}
    for order in orders[1:]:
        yield {"order": order, "vocab": ["a", "b", "the", "w1", "w2"]}  # closed vocabulary
        yield {"order": order, "max_memory": "1K"}  # spills runs at every batch


def hunt(workers: list, quick: bool, threads: int, log=print) -> dict:
    failures, trainings, errors = [], 0, 0
    options_list = list(grid(quick))
    with tempfile.TemporaryDirectory() as tmp:
        for name, corpus in corpora().items():
            for options in options_list:
                if "max_memory" in options:
                    options = dict(options, temp_dir=tmp)
                expected = train(corpus, workers=1, **options)
                trainings += 1
                errors += expected.startswith("ValueError")
                for w in workers:
                    got = train(corpus, workers=w, **options)
                    trainings += 1
                    if got != expected:
                        failures.append(f"{name} {options} workers={w}: {got} != {expected} (workers=1)")
                        log(f"FAIL {failures[-1]}")
        if threads > 1:
            # Several trainings at once from Python threads, with garbage to collect.
            corpus = corpora()["zipf-0"]
            expected = train(corpus, workers=1, order=3)
            stop = threading.Event()

            def churn():
                while not stop.is_set():
                    junk = [[i] for i in range(2000)]
                    junk.append(junk)  # a cycle: work for the collector
                    gc.collect(0)

            churner = threading.Thread(target=churn, daemon=True)
            churner.start()
            try:
                with ThreadPoolExecutor(threads) as pool:
                    results = list(pool.map(lambda w: train(corpus, workers=w, order=3),
                                            [workers[i % len(workers)] for i in range(threads * 8)]))
            finally:
                stop.set()
                churner.join()
            trainings += len(results)
            bad = [r for r in results if r != expected]
            if bad:
                failures.append(f"{len(bad)} of {len(results)} concurrent trainings differ from workers=1")
                log(f"FAIL {failures[-1]}")
    return {"trainings": trainings, "clear_errors": errors, "failures": failures}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="-1,2,3,16,32,64",
                        help="worker counts compared with workers=1 (-1: every core, the default of NgramLM.train)")
    parser.add_argument("--threads", type=int, default=4, help="Python threads training at once (1: none)")
    parser.add_argument("--quick", action="store_true", help="orders 1..3 and two prune levels (for valgrind)")
    parser.add_argument("--repeat", type=int, default=1, help="run the whole grid this many times")
    args = parser.parse_args(argv)
    workers = [int(w) for w in args.workers.split(",")]
    if os.environ.get("FASTAMFM_DEVICE_SELFTEST_CRASH") == "1":
        # tests/test_device_script.py: the device run's crash instrumentation, checked on a real segfault
        import ctypes

        train(["a b"], workers=2, order=2)
        ctypes.string_at(0)
    start = time.perf_counter()
    total = {"trainings": 0, "clear_errors": 0, "failures": []}
    for _ in range(args.repeat):
        result = hunt(workers, args.quick, args.threads)
        for key in ("trainings", "clear_errors"):
            total[key] += result[key]
        total["failures"] += result["failures"]
    print(f"lm crash hunt: {total['trainings']} trainings ({total['clear_errors']} clear errors) with workers "
          f"1,{args.workers} and {args.threads} Python threads, Python {sys.version.split()[0]}, "
          f"{time.perf_counter() - start:.1f} s: {len(total['failures'])} failures")
    return 1 if total["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
