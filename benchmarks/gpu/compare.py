"""GPU vs CPU, side by side in one run (medians of repeats, ratios vs the CPU row).

    python3 benchmarks/run.py gpu compare [--pool 1000000] [--dims 64]

Sections:
1. cosine max-over-references kernel: achieved memory bandwidth vs the device's
   measured device-to-device copy bandwidth (goal >= 70 %), kernel time only;
2. AM scoring (DSTC-6 shape: 2000 responses x 11 references) and reward latency per
   call (batches of 1..256), fastamfm.gpu (numpy in/out, transfers included) vs the
   vectorised numpy/scipy CPU pipeline;
3. the embedding metrics, same shape, 300-dim vectors;
4. FAISS search of a pool of 1M references: numpy brute force, ReferenceIndex flat
   and IVF on the CPU, and on the GPU when faiss has CUDA support (IVF recall@1).
Sections 1-3 need a CUDA device and print why they are skipped otherwise.
"""
from __future__ import annotations

import argparse
import time

import fastamfm
import numpy as np
from fastamfm import gpu

from benchmarks import measure
from benchmarks.gpu.workloads import (
    RaggedCorpus,
    brute_force_top1,
    clustered_vectors,
    cpu_am_scores,
    cpu_cosine_over_references,
    cpu_embedding_average,
    cpu_greedy_matching,
    cpu_vector_extrema,
)

try:
    import cupy
except ImportError:
    cupy = None


def median_seconds(fn, repeats: int = 5, warmup: int = 1) -> float:
    return measure.repeated(fn, repeats, warmup)[0].wall


def table(title: str, rows: list[tuple[str, float, str]], baseline: str | None = None) -> None:
    print(f"\n== {title}")
    base = dict((name, t) for name, t, _ in rows).get(baseline)
    for name, seconds, note in rows:
        if seconds is None:
            print(f"  {name:<38} {'':>14} {note}")
            continue
        ratio = f"{base / seconds:8.2f}x" if base else ""
        print(f"  {name:<38} {seconds * 1e3:11.3f} ms {ratio}  {note}")


def skipped(title: str, reason: str) -> None:
    print(f"\n== {title}\n  skipped: {reason}")


def cosine_bandwidth(args) -> None:
    cuda = fastamfm.runtime.cuda_module()
    copy_gbps = cuda.copy_bandwidth_gbps(1 << 30, 20)
    print(f"\n== cosine max-over-references bandwidth on {cuda.device_description(0)}")
    print(f"  device-to-device copy: {copy_gbps:8.1f} GB/s (read + write)")
    refs_per_query = 11
    for dims in (10, 64, 300):
        n = args.cosine_rows
        rng = np.random.default_rng(dims)
        queries = rng.standard_normal((n, dims), dtype=np.float32)
        refs = rng.standard_normal((n * refs_per_query, dims), dtype=np.float32)
        offsets = np.arange(0, n * refs_per_query + 1, refs_per_query, dtype=np.int64)
        device = [cuda.DeviceArray.from_host(a) for a in (queries, refs, offsets)]
        scores = cuda.DeviceArray.empty((n,), "<f4")

        def run():
            cuda.cosine_over_references(*device, scores, "max", True, 0)
            cuda.synchronize(0)

        seconds = median_seconds(run, repeats=20, warmup=2)
        got = scores.to_host()
        sample = slice(0, 2000)
        want = cpu_cosine_over_references(queries[sample], refs[:2000 * refs_per_query],
                                          offsets[:2001], clip=True)
        np.testing.assert_allclose(got[sample], want, atol=2e-5)
        moved = queries.nbytes + refs.nbytes + offsets.nbytes + got.nbytes
        gbps = moved / seconds / 1e9
        print(f"  dims {dims:4d}: {n} queries x {refs_per_query} refs, {moved / 1e9:6.2f} GB in "
              f"{seconds * 1e3:8.3f} ms = {gbps:8.1f} GB/s = {100 * gbps / copy_gbps:5.1f} % of copy")


def am_scoring(args) -> None:
    corpus = RaggedCorpus(2000, 11, 20000, seed=1)
    for dims in (10, 100):
        components = np.random.default_rng(dims).standard_normal((corpus.words, dims)).astype(np.float32)
        hyp_rows, ref_rows = corpus.hyp_rows, corpus.ref_rows
        want = cpu_am_scores(hyp_rows, ref_rows, corpus.ref_offsets, components)
        got = gpu.am_scores(hyp_rows, ref_rows, corpus.ref_offsets, components)
        np.testing.assert_allclose(got, want, atol=2e-5)
        cpu_s = median_seconds(lambda: cpu_am_scores(hyp_rows, ref_rows, corpus.ref_offsets, components))
        gpu_s = median_seconds(lambda: gpu.am_scores(hyp_rows, ref_rows, corpus.ref_offsets, components))
        table(f"AM scoring, 2000 x 11 references, k = {dims}",
              [("CPU numpy/scipy", cpu_s, ""), ("GPU fastamfm.gpu (numpy in/out)", gpu_s, "incl. transfers")],
              "CPU numpy/scipy")
    components = np.random.default_rng(0).standard_normal((corpus.words, 100)).astype(np.float32)
    rows = []
    for batch in (1, 32, 256):
        small = RaggedCorpus(batch, 4, corpus.words, seed=batch)
        h, r = small.hyp_rows, small.ref_rows
        rows.append((f"batch {batch:3d}: CPU numpy/scipy",
                     median_seconds(lambda: cpu_am_scores(h, r, small.ref_offsets, components), repeats=50), ""))
        rows.append((f"batch {batch:3d}: GPU (numpy in/out)",
                     median_seconds(lambda: gpu.am_scores(h, r, small.ref_offsets, components), repeats=50),
                     "U_k uploaded per call"))
        resident = gpu.to_device(components)
        rows.append((f"batch {batch:3d}: GPU (numpy in/out, resident U_k)",
                     median_seconds(lambda: gpu.am_scores(h, r, small.ref_offsets, resident), repeats=50),
                     "gpu.to_device once"))
        if cupy is not None:
            rows.append((f"batch {batch:3d}: GPU (CuPy in/out)", _device_am_latency(small, components), "data on device"))
    table("AM reward latency per call (4 references each, k = 100)", rows)


def _device_am_latency(corpus: RaggedCorpus, components: np.ndarray) -> float:
    """A training loop's case: responses, references and U_k already on the device."""
    import cupyx.scipy.sparse as cusparse

    h, r = cusparse.csr_matrix(corpus.hyp_rows), cusparse.csr_matrix(corpus.ref_rows)
    offsets, u = cupy.asarray(corpus.ref_offsets), cupy.asarray(components)
    out = cupy.empty(h.shape[0], dtype=cupy.float32)

    def run():
        gpu.am_scores(h, r, offsets, u, out=out)
        cupy.cuda.get_current_stream().synchronize()

    return median_seconds(run, repeats=50)


def embedding_metrics(args) -> None:
    corpus = RaggedCorpus(2000, 11, 20000, seed=2)
    vectors = np.random.default_rng(3).standard_normal((corpus.words, 300)).astype(np.float32)
    hyps = (corpus.hyp_ids, corpus.hyp_offsets)
    refs = (corpus.ref_ids, corpus.ref_token_offsets)
    for name, cpu_fn, gpu_fn in (("Embedding Average", cpu_embedding_average, gpu.embedding_average),
                                 ("Vector Extrema", cpu_vector_extrema, gpu.vector_extrema),
                                 ("Greedy Matching", cpu_greedy_matching, gpu.greedy_matching)):
        want = cpu_fn(corpus, vectors)
        np.testing.assert_allclose(gpu_fn(hyps, refs, corpus.ref_offsets, vectors), want, atol=2e-5)
        repeats = 1 if cpu_fn is cpu_greedy_matching else 5
        table(f"{name}, 2000 x 11 references, 300-dim vectors",
              [("CPU numpy", median_seconds(lambda: cpu_fn(corpus, vectors), repeats=repeats), ""),
               ("GPU fastamfm.gpu (numpy in/out)",
                median_seconds(lambda: gpu_fn(hyps, refs, corpus.ref_offsets, vectors)), "incl. transfers")],
              "CPU numpy")


def faiss_search(args) -> None:
    try:
        import faiss
    except ImportError:
        skipped("FAISS search of a reference pool", "faiss is not installed (pip install faiss-cpu)")
        return

    pool = clustered_vectors(args.pool, args.dims, seed=0)
    queries = clustered_vectors(args.queries, args.dims, seed=1)
    start = time.perf_counter()
    pool_unit = pool / np.linalg.norm(pool, axis=1, keepdims=True)
    exact_scores, exact_ids = brute_force_top1(pool_unit, queries)
    brute_s = time.perf_counter() - start
    rows = [("numpy brute force (chunked matmul)", brute_s, "exact")]
    gpu_faiss = hasattr(faiss, "StandardGpuResources") and fastamfm.HAS_CUDA and faiss.get_num_gpus() > 0
    devices = ["cpu", "cuda"] if gpu_faiss else ["cpu"]
    for device in devices:
        for kind, nprobes in (("flat", [None]), ("ivf", [8, 32])):
            start = time.perf_counter()
            options = {"kind": kind, "device": device}
            if kind == "ivf":
                options["nlist"] = args.nlist
            index = fastamfm.ReferenceIndex(pool, **options)
            build_s = time.perf_counter() - start
            for nprobe in nprobes:
                if nprobe is not None:
                    index.nprobe = nprobe
                seconds = median_seconds(lambda: index.search(queries, 1), repeats=3)
                scores, ids = index.search(queries, 1)
                recall = float(np.mean(ids[:, 0] == exact_ids))
                if kind == "flat":
                    np.testing.assert_allclose(scores[:, 0], exact_scores, atol=1e-4)
                label = f"faiss {kind} {device}" + (f" nprobe={nprobe}" if nprobe else "")
                rows.append((label, seconds, f"recall@1 {recall:.4f}, build {build_s:.1f} s"))
    if not gpu_faiss:
        rows.append(("faiss on the GPU", None, "skipped: no faiss GPU build or no CUDA device here"))
    table(f"FAISS search: {args.queries} queries, top-1, pool {args.pool} x {args.dims}, "
          f"IVF nlist={args.nlist}", rows, "numpy brute force (chunked matmul)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pool", type=int, default=1_000_000, help="FAISS pool size")
    parser.add_argument("--dims", type=int, default=64, help="FAISS vector dims")
    parser.add_argument("--queries", type=int, default=1000, help="FAISS queries")
    parser.add_argument("--nlist", type=int, default=1024, help="IVF lists")
    parser.add_argument("--cosine-rows", type=int, default=200_000, help="queries in the bandwidth test")
    args = parser.parse_args()
    if fastamfm.HAS_CUDA:
        cosine_bandwidth(args)
        am_scoring(args)
        embedding_metrics(args)
    else:
        reason = fastamfm.runtime.cuda_unavailable_reason()
        for title in ("cosine kernel bandwidth", "AM scoring and reward latency", "embedding metrics"):
            skipped(title, reason)
    faiss_search(args)


if __name__ == "__main__":
    main()
