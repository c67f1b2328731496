"""Every CUDA path beside its peer on the same device, in one run: one section per figure.

    python3 benchmarks/run.py device compare [SECTION ...] [--size full|tiny] [--json FILE]

Sections (``run_all.py`` runs each in its own process with its own time limit):

- ``bandwidth``: the device's peak memory bandwidth (a 1 GiB device-to-device copy, bytes
  read + written, median of 20; and torch's copy where torch sees the GPU), and the
  cosine-max-over-references kernel on unit float32 vectors (N queries x 11 references,
  dims 10/64/300): kernel time, bytes moved (each input read once, the output written
  once) per second, its share of the peak (goal >= 70 %), and the C++ core's CPU
  ``adequacy_scores`` on the same vectors (speed-up, max |difference|).
- ``embedding``: the embedding-metric kernels (Embedding Average, Vector Extrema: pooling +
  cosine; Greedy Matching) on resident token rows and vectors: kernel time, achieved
  bytes/s (ids, offsets, each token's vector read once, output) vs the peak; and
  ``fastamfm.embedding_average``/... ``device="cuda"`` vs ``"cpu"`` on the same texts,
  end to end (tokenising included), equal to 1e-5.
- ``amfm``: AM-FM of DSTC-6 (20 systems x 2,000 responses x 11 references, the packaged
  model): AM with ``device="cuda"`` vs ``"cpu"`` (FM is CPU-only: computed once, the same
  for both), per-system loop against one ``References``; equal to 1e-5.
- ``reference_index``: a pool of clustered vectors, top-1: exact brute force (numpy on
  the CPU; torch on the GPU), ``ReferenceIndex`` flat and IVF on the CPU and the GPU where
  faiss has GPU support: recall@1 against the exact answer and queries/s.
- ``neural``: Deep AM vs sentence-transformers, BERTScore vs ``bert_score.score``, and
  NeuralLM (DeepAMFM's FM) vs a plain transformers loop, all on the same device and model;
  DeepAMFM end to end. Max |difference| of the numbers beside each speed-up.
- ``reward``: the neural rewards as TRL calls them (``reward_function("deep_am")`` with 4
  references, ``reward_function("deep_amfm")`` on the prompts), 512 completions a call:
  latency per call (median), beside a sentence-transformers encode + max-cosine peer.
- ``training``: ``DeepAMFM.train`` (``fastamfm train --deep``: encoder, then LM) and
  ``train_evaluator`` (``--evaluator``) steps on the device: tokens/s and examples/s from
  their provenance, beside benchmarks/training's plain loops (sentence-transformers MNRL +
  AdamW; transformers causal LM + AdamW) on batches of the same size on the same device.

Models: the packaged ones where installed (``full`` size), else randomly initialised models
of their shapes (the lent GPU machine has no network and no model files); the JSON names
which. ``--size tiny`` runs every CPU side (and the GPU sides where a device is present)
in seconds: the dry run ``tests/test_device_script.py`` makes on CI.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import benchmarks  # noqa: F401  (this checkout's python/ and tests/ first on the path)
from benchmarks.device import workloads as w

SECTIONS = ("bandwidth", "embedding", "amfm", "reference_index", "neural", "reward", "training")


def device_name() -> str:
    if w.has_cuda():
        from fastamfm import _cuda

        return _cuda.device_description(0)
    if w.torch_cuda():
        import torch

        return torch.cuda.get_device_name(0)
    import platform

    return f"CPU only ({platform.processor() or platform.machine()}, {__import__('os').cpu_count()} cores)"


def no_cuda_reason() -> str:
    """Why fastamfm has no CUDA device here (the runtime's own words)."""
    from fastamfm import runtime

    return runtime.cuda_unavailable_reason() or "no CUDA device"


# --- 1. peak bandwidth and the cosine kernel ----------------------------------------------
def peak_bandwidth(figures: dict) -> float | None:
    """Measured device-to-device copy bandwidth in bytes/s (fastamfm's copy; torch's beside it)."""
    if not w.has_cuda():
        figures["peak_copy_bytes_per_s"] = w.unavailable(no_cuda_reason())
        return None
    from fastamfm import _cuda

    peak = _cuda.copy_bandwidth_gbps(1 << 30, 20) * 1e9
    figures["peak_copy_bytes_per_s"] = peak
    if w.torch_cuda():
        import torch

        a = torch.empty(1 << 28, dtype=torch.float32, device="cuda").normal_()
        b = torch.empty_like(a)
        seconds, _ = w.median_time(lambda: b.copy_(a), 20, 3)
        figures["torch_copy_bytes_per_s"] = 2 * a.numel() * 4 / seconds
        del a, b
    return peak


def section_bandwidth(size: str, work: Path) -> dict:
    from fastamfm import _core

    s = w.SIZES[size]
    figures, notes = {}, []
    peak = peak_bandwidth(figures)
    refs_per = 11
    for dims in s["cosine_dims"]:
        # inputs of cosine_bytes (1.5 GB: 25 times the H200's 60 MB L2) whatever the width
        n = max(int(s["cosine_bytes"] / ((1 + refs_per) * dims * 4)), 100)
        rng = np.random.default_rng(dims)
        q = rng.standard_normal((n, dims), dtype=np.float32)
        r = rng.standard_normal((n * refs_per, dims), dtype=np.float32)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        r /= np.linalg.norm(r, axis=1, keepdims=True)
        offsets = np.arange(0, n * refs_per + 1, refs_per, dtype=np.int64)
        row = {"queries": n, "references": n * refs_per, "dims": dims}
        cpu_s, cpu = w.median_time(lambda: _core.adequacy_scores(q, r, offsets.astype(np.uint64), "max", -1, True),
                                   s["repeats"])
        row["cpu_core_seconds"] = cpu_s
        moved = q.nbytes + r.nbytes + offsets.nbytes + n * 4
        row["bytes_moved"] = moved
        if peak is None:
            row["kernel_seconds"] = w.unavailable(no_cuda_reason())
        else:
            from fastamfm import _cuda

            device = [_cuda.DeviceArray.from_host(a) for a in (q, r, offsets)]
            out = _cuda.DeviceArray.empty((n,), "<f4")  # NaN until written: an unwritten score fails below

            def kernel():
                _cuda.cosine_over_references(*device, out, "max", True, 0)

            seconds, _ = w.median_time(kernel, max(20, s["repeats"]), 2, events=True)
            got = out.to_host()
            row.update(kernel_seconds=seconds, bytes_per_s=moved / seconds, share_of_peak=moved / seconds / peak,
                       speedup_over_cpu_core=cpu_s / seconds, max_abs_diff_vs_cpu=w.max_gap(got, cpu))
            if not np.isfinite(got).all():
                raise AssertionError(f"cosine kernel left unwritten (NaN) scores at dims {dims}")
        figures[f"cosine_max_dims_{dims}"] = row
    notes.append("cosine kernel: unit float32 rows, 11 references per query, clip to [0, 1], max; inputs of about "
                 f"{s['cosine_bytes'] / 1e9:g} GB per width, resident; kernel time by CUDA events where torch sees "
                 "the GPU (else host clock + synchronize); CPU side: fastamfm's C++ core (_core.adequacy_scores, "
                 "every core)")
    return {"figures": figures, "notes": notes}


# --- 2. embedding-metric kernels -------------------------------------------------------
def section_embedding(size: str, work: Path) -> dict:
    import fastamfm
    from benchmarks.gpu.workloads import RaggedCorpus

    s = w.SIZES[size]
    figures, notes = {}, []
    peak = peak_bandwidth({}) if w.has_cuda() else None
    dims = s["embedding_dims"]
    metrics = {"embedding_average": ("sum", fastamfm.embedding_average, "EmbeddingAverageCosineSimilarity"),
               "vector_extrema": ("extrema", fastamfm.vector_extrema, "VectorExtremaCosineSimilarity"),
               "greedy_matching": (None, fastamfm.greedy_matching, "GreedyMatchingScore")}
    for name, (pooling, public, column) in metrics.items():
        n = s["greedy_rows"] if name == "greedy_matching" else s["embedding_rows"]
        corpus = RaggedCorpus(n, 11, 20000, seed=2)
        vectors = np.random.default_rng(3).standard_normal((corpus.words, dims)).astype(np.float32)
        row = {"responses": n, "references_per_response": 11, "dims": dims,
               "tokens": int(len(corpus.hyp_ids) + len(corpus.ref_ids))}
        # the same data as texts for the public API: word i is "w{i}"
        words = [f"w{i}" for i in range(corpus.words)]
        table = fastamfm.WordVectors.from_arrays(words, vectors)

        def texts(ids, offsets):
            return [" ".join(words[t] for t in ids[offsets[i]:offsets[i + 1]]) for i in range(len(offsets) - 1)]

        hyps = texts(corpus.hyp_ids, corpus.hyp_offsets)
        flat = texts(corpus.ref_ids, corpus.ref_token_offsets)
        refs = [flat[i * 11:(i + 1) * 11] for i in range(n)]
        cpu_s, cpu = w.median_time(lambda: public(hyps, refs, vectors=table, device="cpu").sentences[column],
                                   s["repeats"])
        row["cpu_core_end_to_end_seconds"] = cpu_s
        # minimum bytes: ids and offsets of both sides, each token's vector once, the scores
        moved = (corpus.hyp_ids.nbytes + corpus.ref_ids.nbytes + corpus.hyp_offsets.nbytes +
                 corpus.ref_token_offsets.nbytes + corpus.ref_offsets.nbytes + row["tokens"] * dims * 4 + n * 4)
        row["bytes_moved"] = moved
        if peak is None:
            row["kernel_seconds"] = row["cuda_end_to_end_seconds"] = w.unavailable(no_cuda_reason())
        else:
            row.update(_embedding_kernel(name, pooling, corpus, vectors, moved, peak, s["repeats"]))
            gpu_s, gpu = w.median_time(lambda: public(hyps, refs, vectors=table, device="cuda").sentences[column],
                                       s["repeats"])
            row.update(cuda_end_to_end_seconds=gpu_s, end_to_end_speedup=cpu_s / gpu_s,
                       max_abs_diff_vs_cpu=w.max_gap(gpu, cpu))
        figures[name] = row
    notes.append("kernel: token rows and the vector table resident on the device, pooling + cosine-max (or greedy) "
                 "only; bytes_moved counts each token's vector once, but the table (words x dims x 4 bytes) is "
                 "small enough to stay in L2, so repeated words are cache hits; end to end: the public functions on "
                 "texts (tokenising and lookup on the CPU included)")
    return {"figures": figures, "notes": notes}


def _embedding_kernel(name, pooling, corpus, vectors, moved, peak, repeats) -> dict:
    from fastamfm import _cuda

    up = _cuda.DeviceArray.from_host
    table = up(vectors)
    hyp_ids, hyp_off = up(corpus.hyp_ids), up(corpus.hyp_offsets)
    ref_ids, ref_off = up(corpus.ref_ids), up(corpus.ref_token_offsets)
    groups = up(corpus.ref_offsets)
    n, dims = len(corpus.hyp_offsets) - 1, vectors.shape[1]
    out = _cuda.DeviceArray.empty((n,), "<f4")
    if pooling is None:
        def kernel():
            _cuda.greedy_matching(hyp_ids, hyp_off, ref_ids, ref_off, groups, table, out, 0)
    else:
        pooled_h = _cuda.DeviceArray.empty((n, dims), "<f4")
        pooled_r = _cuda.DeviceArray.empty((len(corpus.ref_token_offsets) - 1, dims), "<f4")

        def kernel():
            _cuda.pool_token_vectors(hyp_ids, hyp_off, table, pooled_h, pooling, 0)
            _cuda.pool_token_vectors(ref_ids, ref_off, table, pooled_r, pooling, 0)
            _cuda.cosine_over_references(pooled_h, pooled_r, groups, out, "max", False, 0)
    seconds, _ = w.median_time(kernel, max(20, repeats), 2, events=True)
    if not np.isfinite(out.to_host()).all():
        raise AssertionError(f"{name}: the kernel left unwritten (NaN) scores")
    return {"kernel_seconds": seconds, "bytes_per_s": moved / seconds, "share_of_peak": moved / seconds / peak}


# --- 3. AM-FM of DSTC-6 ---------------------------------------------------------------
def section_amfm(size: str, work: Path) -> dict:
    import fastamfm

    s = w.SIZES[size]
    systems, refs, described = w.dstc6(s["amfm_systems"], s["amfm_responses"])
    scorer = fastamfm.AMFM.default()
    settings = scorer.settings
    figures = {"data": described, "model": "the packaged default AM-FM model"}

    def am(device):
        shared = fastamfm.References(refs)
        return {name: fastamfm.adequacy(hyps, shared, scorer.lsi, dims=scorer.dims, combine=settings.am_combine,
                                        device=device).sentences["AM"] for name, hyps in systems.items()}

    def fm():
        shared = fastamfm.References(refs)
        return {name: fastamfm.fluency(hyps, shared, scorer.lm, normalization=settings.fm_normalization,
                                       combine=settings.fm_combine, oov=settings.fm_oov).sentences["FM"]
                for name, hyps in systems.items()}

    fm_s, fm_scores = w.median_time(fm, 1, 0)
    cpu_s, am_cpu = w.median_time(lambda: am("cpu"), s["repeats"])
    full_cpu = {k: fastamfm.combine_scores(am_cpu[k], fm_scores[k], settings.lam, settings.mean) for k in systems}
    reference = scorer.score_systems(systems, refs)
    figures.update(fm_seconds_cpu=fm_s, am_seconds_cpu=cpu_s, amfm_seconds_cpu=cpu_s + fm_s,
                   max_abs_diff_vs_AMFM_score=max(w.max_gap(full_cpu[k], reference[k].sentences["AM-FM"])
                                                  for k in systems))
    if not w.has_cuda():
        figures["am_seconds_cuda"] = w.unavailable(no_cuda_reason())
    else:
        gpu_s, am_gpu = w.median_time(lambda: am("cuda"), s["repeats"])
        figures.update(am_seconds_cuda=gpu_s, amfm_seconds_cuda=gpu_s + fm_s, am_speedup=cpu_s / gpu_s,
                       amfm_speedup=(cpu_s + fm_s) / (gpu_s + fm_s),
                       max_abs_diff_cuda_vs_cpu=max(w.max_gap(am_gpu[k], am_cpu[k]) for k in systems))
    return {"figures": figures, "notes": ["per-system loop against one References; AM-FM = AM (timed on each "
                                          "device) + FM (CPU only, measured once) combined by the model's settings"]}


# --- 4. ReferenceIndex vs brute force ---------------------------------------------------
def section_reference_index(size: str, work: Path) -> dict:
    import fastamfm
    from benchmarks.gpu.workloads import brute_force_top1, clustered_vectors, unit_rows

    s = w.SIZES[size]
    pool = clustered_vectors(s["pool"], s["pool_dims"], seed=0)
    queries = clustered_vectors(s["queries"], s["pool_dims"], seed=1)
    unit = unit_rows(pool)
    figures = {"pool": s["pool"], "dims": s["pool_dims"], "queries": s["queries"], "nlist": s["nlist"]}
    seconds, (exact_scores, exact) = w.median_time(lambda: brute_force_top1(unit, queries), 1, 0)
    figures["numpy_brute_force_cpu"] = {"queries_per_s": len(queries) / seconds, "recall_at_1": 1.0}

    def recall(ids, scores):
        # ties (duplicate pool rows) count as found: judged on the score, as the tests do
        return float(np.mean((ids == exact) | (scores >= exact_scores - 1e-5)))

    if w.torch_cuda():
        import torch

        pool_t = torch.from_numpy(unit).cuda()
        q_t = torch.from_numpy(unit_rows(queries)).cuda()

        def torch_top1():
            best = [(q_t[i:i + 1024] @ pool_t.T).max(dim=1) for i in range(0, len(q_t), 1024)]
            return torch.cat([b.values for b in best]).cpu().numpy(), torch.cat([b.indices for b in best]).cpu().numpy()

        seconds, (scores, ids) = w.median_time(torch_top1, 3)
        figures["torch_brute_force_cuda"] = {"queries_per_s": len(queries) / seconds, "recall_at_1": recall(ids, scores)}
    else:
        figures["torch_brute_force_cuda"] = w.unavailable("torch sees no CUDA device")
    faiss_missing = w.missing("faiss")
    for device in ("cpu", "cuda"):
        for kind in ("flat", "ivf"):
            label = f"reference_index_{kind}_{device}"
            if faiss_missing:
                figures[label] = w.unavailable(faiss_missing)
                continue
            if device == "cuda":
                import faiss

                if not (w.has_cuda() and hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0):
                    figures[label] = w.unavailable("faiss has no GPU support here (faiss-cpu) or no CUDA device")
                    continue
            options = {"kind": kind, "device": device}
            if kind == "ivf":
                options.update(nlist=s["nlist"], nprobe=32)
            start = time.perf_counter()
            index = fastamfm.ReferenceIndex(pool, **options)
            build = time.perf_counter() - start
            seconds, (scores, ids) = w.median_time(lambda: index.search(queries, 1), 2)
            figures[label] = {"queries_per_s": len(queries) / seconds, "build_seconds": build,
                              "recall_at_1": recall(ids[:, 0], scores[:, 0])}
    return {"figures": figures, "notes": ["clustered vectors (1,000 topics); exact = numpy brute force on unit rows; "
                                          "IVF nprobe 32"]}


# --- 5. neural metrics beside their peers ------------------------------------------------
def _torch_device() -> str:
    return "cuda" if w.torch_cuda() else "cpu"


def section_neural(size: str, work: Path) -> dict:
    for module in ("torch", "transformers"):
        if w.missing(module):
            return {"status": "unavailable", "reason": w.missing(module)}
    import fastamfm

    s = w.SIZES[size]
    device = _torch_device()
    encoder_dir, encoder_desc = w.encoder_model(work, size)
    lm_dir, lm_desc = w.causal_model(work, size)
    systems, refs, described = w.dstc6(s["deep_systems"], s["deep_responses"])
    figures = {"device": device, "encoder": encoder_desc, "lm": lm_desc, "data": described}
    flat = [r for rs in refs for r in rs]
    offsets = np.concatenate([[0], np.cumsum([len(rs) for rs in refs])])
    encoder = fastamfm.SentenceEncoder.load(str(encoder_dir), device=device)

    # Deep AM vs a sentence-transformers script per system
    def ours():
        shared = fastamfm.References(refs)
        return {k: fastamfm.deep_am(h, shared, encoder=encoder).sentences["deep_am"] for k, h in systems.items()}

    ours_s, mine = w.median_time(ours, s["repeats"])
    row = {"fastamfm_seconds": ours_s, "responses": sum(len(h) for h in systems.values())}
    if w.missing("sentence_transformers"):
        row["peer_seconds"] = w.unavailable(w.missing("sentence_transformers"))
    else:
        from sentence_transformers import SentenceTransformer

        from benchmarks.deep.workloads import peer_system_scores

        peer = SentenceTransformer(str(encoder_dir), device=device)
        peer_s, theirs = w.median_time(lambda: {k: peer_system_scores(peer, h, flat, offsets)
                                                for k, h in systems.items()}, s["repeats"])
        row.update(peer="sentence-transformers encode + max cosine, per system", peer_seconds=peer_s,
                   speedup=peer_s / ours_s, max_abs_diff=max(w.max_gap(mine[k], theirs[k]) for k in systems))
    figures["deep_am"] = row

    # BERTScore vs bert_score.score
    n = s["bert_responses"]
    first = next(iter(systems))
    hyps, brefs = systems[first][:n], refs[:n]
    layers = _layers(encoder_dir)
    ours_s, mine = w.median_time(lambda: fastamfm.bertscore(hyps, brefs, encoder=str(encoder_dir), layer=layers,
                                                            device=device).sentences["bertscore_f1"], s["repeats"])
    row = {"fastamfm_seconds": ours_s, "responses": n, "layer": layers}
    if w.missing("bert_score"):
        row["peer_seconds"] = w.unavailable(w.missing("bert_score"))
    else:
        import bert_score

        peer_s, theirs = w.median_time(lambda: bert_score.score(hyps, brefs, model_type=str(encoder_dir),
                                                                num_layers=layers, device=device)[2].numpy(),
                                       s["repeats"])
        row.update(peer="bert_score.score", peer_seconds=peer_s, speedup=peer_s / ours_s,
                   max_abs_diff_f1=w.max_gap(mine, theirs))
    figures["bertscore"] = row

    # NeuralLM (DeepAMFM's FM) vs a plain transformers loop, responses with their contexts
    m = s["fm_responses"]
    fm_hyps = [h for hs in systems.values() for h in hs][:m]
    contexts = w.dialogue_contexts(len(fm_hyps))
    lm = fastamfm.NeuralLM.load(str(lm_dir), device=device)
    requests = lm.requests(fm_hyps, contexts)
    tokens = sum(len(r.prefix) + len(r.target) for r in requests)
    ours_s, mine = w.median_time(lambda: lm.token_scores(fm_hyps, contexts=contexts).log_prob, s["repeats"])
    import transformers

    model = transformers.AutoModelForCausalLM.from_pretrained(str(lm_dir)).to(device).eval()
    peer_s, theirs = w.median_time(lambda: np.concatenate(_plain_lm_loop(model, requests, device)), s["repeats"])
    figures["neural_lm"] = {"responses": m, "tokens": tokens, "fastamfm_seconds": ours_s,
                            "fastamfm_tokens_per_s": tokens / ours_s, "peer": "plain transformers loop "
                            "(batches of 16, right padding, full logits, log-softmax)", "peer_seconds": peer_s,
                            "speedup": peer_s / ours_s, "max_abs_diff_ln_p": w.max_gap(mine, theirs)}
    del model

    # DeepAMFM end to end (reference mode), its own figure: no single-package peer
    scorer = fastamfm.DeepAMFM(encoder=encoder, lm=lm)
    seconds, _ = w.median_time(lambda: scorer.score(hyps, brefs), s["repeats"])
    figures["deep_amfm"] = {"responses": n, "seconds": seconds, "responses_per_s": n / seconds}
    return {"figures": figures, "notes": ["each peer on the same device and model; max_abs_diff: the largest "
                                          "per-response difference of the numbers (per token for ln p)"]}


def _layers(directory: Path) -> int:
    return int(json.loads((Path(directory) / "config.json").read_text())["num_hidden_layers"])


def _plain_lm_loop(model, requests, device: str, batch_size: int = 16) -> list:
    """What one writes first: fixed batches in input order, right padding, full logits."""
    import torch

    out = []
    with torch.inference_mode():
        for start in range(0, len(requests), batch_size):
            batch = requests[start:start + batch_size]
            rows = [list(r.prefix) + list(r.target) for r in batch]
            width = max(len(r) for r in rows)
            ids = torch.zeros((len(rows), width), dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for b, row in enumerate(rows):
                ids[b, :len(row)] = torch.tensor(row)
                mask[b, :len(row)] = 1
            log_probs = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits.float().log_softmax(-1)
            for b, r in enumerate(batch):
                positions = torch.arange(len(r.prefix) - 1, len(r.prefix) - 1 + len(r.target), device=device)
                target = torch.tensor(r.target, device=device)
                out.append(log_probs[b, positions, target].cpu().numpy().astype(np.float64))
    return out


# --- 6. the neural reward as TRL calls it -----------------------------------------------
def section_reward(size: str, work: Path) -> dict:
    for module in ("torch", "transformers"):
        if w.missing(module):
            return {"status": "unavailable", "reason": w.missing(module)}
    from fastamfm.integrations.trl import reward_function

    from benchmarks.integrations.workloads import trl_call

    s = w.SIZES[size]
    device = _torch_device()
    encoder_dir, encoder_desc = w.encoder_model(work, size)
    lm_dir, lm_desc = w.causal_model(work, size)
    k, n_refs = s["reward_completions"], s["reward_refs"]
    systems, refs, _ = w.dstc6(20, 2000) if size == "full" else w.dstc6(1, k)
    pool = [h for hs in systems.values() for h in hs]
    hyps = [pool[(i * 7919) % len(pool)] for i in range(k)]
    group_refs = [refs[(i * 104729) % len(refs)][:n_refs] for i in range(k)]
    call = trl_call(hyps, group_refs)
    figures = {"device": device, "completions": k, "references": n_refs, "encoder": encoder_desc, "lm": lm_desc}
    deep_am = reward_function("deep_am", encoder=str(encoder_dir), device=device)
    seconds, rewards = w.median_time(lambda: deep_am(**call), s["reward_calls"])
    row = {"latency_seconds": seconds}
    if not w.missing("sentence_transformers"):
        from sentence_transformers import SentenceTransformer

        peer = SentenceTransformer(str(encoder_dir), device=device)

        def peer_reward():
            h = peer.encode(hyps, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
            r = peer.encode([x for rs in group_refs for x in rs], batch_size=64, normalize_embeddings=True,
                            convert_to_numpy=True).reshape(k, n_refs, -1)
            return np.einsum("id,ird->ir", h, r).max(axis=1)

        peer_s, theirs = w.median_time(peer_reward, s["reward_calls"])
        row.update(peer="sentence-transformers encode + max cosine", peer_latency_seconds=peer_s,
                   speedup=peer_s / seconds, max_abs_diff=w.max_gap(rewards, theirs))
    figures["deep_am_reward"] = row
    chat = dict(call, references=None)
    deep_amfm = reward_function("deep_amfm", encoder=str(encoder_dir), lm=str(lm_dir), device=device,
                                references=None)
    seconds, _ = w.median_time(lambda: deep_amfm(**chat), s["reward_calls"])
    figures["deep_amfm_reward"] = {"latency_seconds": seconds, "contexts": "the prompts (reference-free)"}
    return {"figures": figures, "notes": ["TRL's keyword call (prompts, completions, completion_ids, references, "
                                          "trainer_state, log_metric); median latency per call after one warm-up"]}


# --- 7. training steps ----------------------------------------------------------------
def section_training(size: str, work: Path) -> dict:
    for module in ("torch", "transformers", "peft"):
        if w.missing(module):
            return {"status": "unavailable", "reason": w.missing(module)}
    import fastamfm
    from fastamfm.training import PROVENANCE

    s = w.SIZES[size]
    device = _torch_device()
    encoder_dir, encoder_desc = w.encoder_model(work, size)
    lm_dir, lm_desc = w.causal_model(work, size)
    # DeepAMFM's calibration needs 20 held-out dialogues: a quarter of a few hundred
    corpus = w.write_dialogue_corpus(work / "dialogues.txt", 400 if size == "full" else 300)
    steps = s["train_steps"]
    figures = {"device": device, "encoder": encoder_desc, "lm": lm_desc, "steps": steps}
    out = work / "deep-amfm"
    start = time.perf_counter()
    fastamfm.DeepAMFM.train(str(corpus), out, encoder=str(encoder_dir), lm=str(lm_dir), max_steps=steps,
                            device=device, progress=False, blocklist=False, held_out=0.25,
                            encoder_options={"batch_size": s["encoder_batch"]},
                            lm_options={"batch_size": s["lm_batch"]})
    figures["deep_amfm_train_seconds"] = time.perf_counter() - start
    stages = json.loads((out / PROVENANCE).read_text())["stages"]
    for name, run in stages.items():
        figures[f"fastamfm_{name}"] = _run_figures(run)
    figures.update(_plain_loops(corpus, encoder_dir, lm_dir, s, device))
    start = time.perf_counter()
    fastamfm.train_evaluator(str(corpus), out=work / "evaluator", base=str(encoder_dir),
                             max_steps=s["evaluator_steps"], device=device, progress=False, blocklist=False,
                             combination="product")
    figures["evaluator_train_seconds"] = time.perf_counter() - start
    run = json.loads((work / "evaluator" / PROVENANCE).read_text())["stages"]["evaluator"]
    figures["fastamfm_evaluator"] = _run_figures(run)
    figures["plain_evaluator_loop"] = w.unavailable("benchmarks/training has no plain loop of the evaluator head")
    return {"figures": figures, "notes": ["fastamfm: the public train calls (DeepAMFM.train = fastamfm train --deep; "
                                          "train_evaluator = --evaluator), figures from their provenance (whole "
                                          "session: warm-up steps and checkpoints included); plain loops: "
                                          "benchmarks/training's, after warm-up steps, same batch sizes"]}


def _run_figures(run: dict) -> dict:
    seconds = max(run["session_seconds"], 1e-9)
    return {"steps": run["steps"], "examples": run["examples"], "tokens": run["tokens"],
            "seconds": run["session_seconds"], "tokens_per_s": run["tokens_per_second"],
            "examples_per_s": run["examples"] / seconds, "device": run["device"], "precision": run["precision"],
            "loss": run["loss"]}


def _plain_loops(corpus: Path, encoder_dir: Path, lm_dir: Path, s: dict, device: str) -> dict:
    import torch
    import transformers

    from benchmarks.training.workloads import sentence_transformers_step, transformers_lm_step

    dialogues = [block.split("\n") for block in corpus.read_text(encoding="utf-8").strip().split("\n\n")]
    pairs = [(a, b) for d in dialogues for a, b in zip(d, d[1:])]
    figures = {}
    total = s["train_steps"] + s["train_warmup"]

    def measured(step, batches):
        for batch in batches[:s["train_warmup"]]:
            step(batch)
        w.sync()
        start = time.perf_counter()
        results = [step(batch) for batch in batches[s["train_warmup"]:]]
        w.sync()
        seconds = time.perf_counter() - start
        examples = sum(len(b) for b in batches[s["train_warmup"]:])
        return {"steps": len(results), "seconds": seconds, "tokens_per_s": sum(t for _, t in results) / seconds,
                "examples_per_s": examples / seconds, "loss": float(np.mean([loss for loss, _ in results]))}

    b = s["encoder_batch"]
    batches = [[pairs[(i * b + j) % len(pairs)] for j in range(b)] for i in range(total)]
    if w.missing("sentence_transformers"):
        figures["plain_encoder_loop"] = w.unavailable(w.missing("sentence_transformers"))
    else:
        step = sentence_transformers_step(encoder_dir, 2e-5, max_length=128, temperature=0.05, device=device)
        figures["plain_encoder_loop"] = dict(measured(step, batches),
                                             side="sentence-transformers MultipleNegativesRankingLoss + AdamW")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(lm_dir))
    b = s["lm_batch"]
    examples = [(tokenizer(a)["input_ids"], tokenizer(" " + r)["input_ids"]) for a, r in pairs]
    batches = [[examples[(i * b + j) % len(examples)] for j in range(b)] for i in range(total)]
    model = transformers.AutoModelForCausalLM.from_pretrained(str(lm_dir), dtype=torch.float32)
    import peft

    model = peft.get_peft_model(model, peft.LoraConfig(r=16, lora_alpha=32, target_modules="all-linear"))
    step = transformers_lm_step(model, 2e-4, pad_id=tokenizer.pad_token_id or 0, device=device)
    figures["plain_lm_lora_loop"] = dict(measured(step, batches), side="transformers causal LM + peft LoRA r=16 + AdamW")
    return figures


# --- running -------------------------------------------------------------------------------
def run_section(name: str, size: str, work: Path) -> dict:
    """One section's record: status ok / unavailable, the device, its figures, seconds."""
    w.quiet()
    start = time.perf_counter()
    result = globals()[f"section_{name}"](size, work)
    result.setdefault("status", "ok")
    result["device"] = device_name()
    result["size"] = size
    result["seconds"] = time.perf_counter() - start
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sections", nargs="*", metavar="SECTION", help=f"any of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--size", choices=sorted(w.SIZES), default=None,
                        help="full on a CUDA machine, tiny elsewhere (default: by the machine)")
    parser.add_argument("--json", type=Path, help="write the sections' records here (one object)")
    parser.add_argument("--work", type=Path, help="folder for generated models and corpora (default: a temporary one)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.sections) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    size = args.size or ("full" if w.has_cuda() else "tiny")
    records = {}
    with tempfile.TemporaryDirectory(prefix="fastamfm-device-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for name in args.sections or SECTIONS:
            start = time.perf_counter()
            try:
                records[name] = run_section(name, size, work)
            except Exception as exc:  # noqa: BLE001 - the other sections still run
                import traceback

                traceback.print_exc()
                records[name] = {"status": "failed", "error": f"{type(exc).__name__}: {exc}",
                                 "traceback": traceback.format_exc()[-4000:], "size": size,
                                 "seconds": time.perf_counter() - start}
            print(json.dumps({name: records[name]}, indent=1, default=str), flush=True)
            if args.json:  # after every section: a later hang or crash keeps what was measured
                args.json.write_text(json.dumps(records, indent=1, default=str))
    return 1 if any(r["status"] == "failed" for r in records.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
