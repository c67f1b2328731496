"""METEOR 1.5 workloads shared by bench.py and compare.py: the jar run
as pycocoevalcap drives it (in this process, or in a child process of its own for
start-up-inclusive timings), and fastamfm in a fresh process.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from benchmarks import measure
from benchmarks.shared_data import REFERENCE_FILES, REPO, SYSTEM_FILES, SYSTEMS

# The jar's own example: the corpus score pycocoevalcap's Meteor gives it.
PROBE = (["this is a good test"], [["this is a test", "this is also a test"]], 0.44434387)


def jar_compute(m, hyps, refs) -> tuple[float, np.ndarray]:
    """Corpus and segment scores from a pycocoevalcap ``Meteor`` (the jar, running)."""
    corpus, segments = m.compute_score({i: list(r) for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)})
    return corpus, np.array(segments)


def fastamfm_corpus_scores(systems: dict, refs, resources="auto", workers: int = -1) -> dict:
    """METEOR of every system against one ``References`` (prepared once)."""
    import fastamfm

    shared = fastamfm.References(refs)
    return {s: fastamfm.meteor(h, shared, resources=resources, workers=workers).corpus["METEOR"]
            for s, h in systems.items()}


# The jar exactly as pycocoevalcap's Meteor.compute_score drives it (a SCORE line per
# segment, then one EVAL line per system), keeping the statistics lines as well, in a
# process of its own: its wall time, CPU time (the JVM's included) and peak RSS are
# the jar's alone. The inputs come as one json file (reading them is not the jar's work).
JAR_DRIVER = """
import json, sys, time
t0 = time.perf_counter()
from pycocoevalcap.meteor.meteor import Meteor
inputs, out_path = sys.argv[1], sys.argv[2]
with open(inputs) as f:
    data = json.load(f)
refs, systems = data["refs"], data["systems"]
m = Meteor()
m.compute_score({0: ["a test"]}, {0: ["a test"]})  # returns once the jar has loaded
out = {"systems": {}, "startup_s": time.perf_counter() - t0}
t1 = time.perf_counter()
for name, hyps in systems.items():
    stats = [m._stat(h, r) for h, r in zip(hyps, refs)]
    m.meteor_p.stdin.write(("EVAL ||| " + " ||| ".join(stats) + "\\n").encode())
    m.meteor_p.stdin.flush()
    segments = [float(m.meteor_p.stdout.readline().strip()) for _ in stats]
    corpus = float(m.meteor_p.stdout.readline().strip())
    out["systems"][name] = {"stats": stats, "segments": segments, "corpus": corpus}
out["scoring_s"] = time.perf_counter() - t1
del m  # pycocoevalcap's __del__ stops the JVM and waits for it
out["total_s"] = time.perf_counter() - t0
with open(out_path, "w") as f:
    json.dump(out, f)
"""


def run_jar_process(refs, systems: dict, workdir) -> tuple[measure.Timing, dict]:
    """The 20 systems through the jar in a fresh process (JVM start-up included):
    (the child's Timing, its outputs: per system stats, segments, corpus; startup_s,
    scoring_s, total_s as the driver timed them)."""
    inputs, out = os.path.join(workdir, "jar_inputs.json"), os.path.join(workdir, "jar_outputs.json")
    if not os.path.exists(inputs):
        with open(inputs, "w") as f:
            json.dump({"refs": refs, "systems": systems}, f)
    run = measure.run_child([sys.executable, "-c", JAR_DRIVER, inputs, out])
    with open(out) as f:
        return run.timing, json.load(f)


# fastamfm as a user runs it: interpreter, import, resources (from the cache), the
# files read, references prepared once, 20 systems scored.
COLD_SCRIPT = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {python!r})
import fastamfm
fastamfm.meteor_resources.load()
ready = time.perf_counter() - t0
from fastamfm.io import read_lines, read_parallel_files
refs = fastamfm.References(read_parallel_files({ref_paths!r}))
scores = [fastamfm.meteor(read_lines(p), refs, workers={workers}).corpus["METEOR"] for p in {hyp_paths!r}]
print(ready, *scores)
"""


def run_fastamfm_process(workers: int = -1, python_dir=REPO / "python") -> tuple[measure.Timing, dict]:
    """The 20 systems in a fresh Python process: (the child's Timing,
    {"ready_s": import + resources, "scores": {system: corpus}})."""
    script = COLD_SCRIPT.format(python=str(python_dir), ref_paths=[str(p) for p in REFERENCE_FILES],
                                hyp_paths=[str(p) for p in SYSTEM_FILES], workers=workers)
    run = measure.run_child([sys.executable, "-c", script])
    fields = [float(x) for x in run.stdout.split()]
    return run.timing, {"ready_s": fields[0], "scores": dict(zip(SYSTEMS, fields[1:]))}


def convert_resources_process(cache_dir, python_dir=REPO / "python") -> measure.Timing:
    """The one-time conversion of the jar's resources into fastamfm's cache, in a fresh
    process with an empty cache directory."""
    script = f"import sys; sys.path.insert(0, {str(python_dir)!r}); import fastamfm; fastamfm.meteor_resources.load()"
    return measure.run_child([sys.executable, "-c", script], env={**os.environ, "FASTAMFM_CACHE_DIR": str(cache_dir)}
                             ).timing
