"""Nothing in a model directory or GGUF file runs code, and a bad model file is a
``fastamfm.FormatError`` naming it (issue 29): remote code (``auto_map``) in a config or
tokenizer config, pickled weights, chat templates that try to escape the sandbox or run
forever, and damaged files. Through the API, the registry and ``fastamfm score``, with
"y" waiting on stdin: no prompt, no hang, no traceback, nothing run."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the neural metrics need torch (pip install 'fastamfm[deep]')")
pytest.importorskip("transformers", reason="the neural metrics need transformers")

import fastamfm  # noqa: E402
from causal_models import make_model  # noqa: E402
from fastamfm.neural.encoder import SentenceEncoder  # noqa: E402
from fastamfm.neural.neural_lm import NeuralLM  # noqa: E402

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]

# A file that, if imported, leaves a marker: what transformers would run for auto_map.
EVIL_MODULE = "import pathlib\npathlib.Path({marker!r}).write_text('ran')\n"


def plant_remote_code(directory: Path, marker: Path, config: str = "config.json") -> Path:
    """``directory`` with an ``auto_map`` in ``config`` pointing at Python files of its own."""
    for module in ("configuration_evil", "modeling_evil", "tokenization_evil"):
        (directory / f"{module}.py").write_text(EVIL_MODULE.format(marker=str(marker)))
    data = json.loads((directory / config).read_text()) if (directory / config).exists() else {}
    data["auto_map"] = {"AutoConfig": "configuration_evil.EvilConfig", "AutoModel": "modeling_evil.EvilModel",
                        "AutoModelForCausalLM": "modeling_evil.EvilModel",
                        "AutoTokenizer": ["tokenization_evil.EvilTokenizer", None]}
    (directory / config).write_text(json.dumps(data))
    return directory


@pytest.fixture
def evil_bert(tiny_bert, tmp_path):
    directory = shutil.copytree(tiny_bert, tmp_path / "bert")
    return plant_remote_code(directory, tmp_path / "PWNED")


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    return make_model(tmp_path_factory.mktemp("llama") / "llama")


def _copy(directory: Path, tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(directory, tmp_path / name))


# --- remote code ----------------------------------------------------------------------------
def test_an_encoder_asking_for_remote_code_is_refused(evil_bert, tmp_path):
    with pytest.raises(fastamfm.FormatError, match=r"bert/config.json: the model asks to run Python code from its "
                                                   r"directory \(auto_map: .*trust_remote_code=False") as info:
        SentenceEncoder.load(str(evil_bert), device="cpu")
    assert info.value.path == str(evil_bert / "config.json")
    with pytest.raises(fastamfm.FormatError, match="asks to run Python code"):
        fastamfm.deep_am(["a"], [["a"]], encoder=str(evil_bert), device="cpu")
    with pytest.raises(fastamfm.FormatError, match="asks to run Python code"):
        fastamfm.bertscore(["a"], [["a"]], encoder=str(evil_bert), device="cpu")
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("config", ["config.json", "tokenizer_config.json"])
def test_a_language_model_asking_for_remote_code_is_refused(tiny_llama, tmp_path, config):
    directory = plant_remote_code(_copy(tiny_llama, tmp_path, "llama"), tmp_path / "PWNED", config)
    with pytest.raises(fastamfm.FormatError, match=f"llama/{config}: the model asks to run Python code"):
        NeuralLM.load(str(directory), device="cpu")
    with pytest.raises(fastamfm.FormatError, match="asks to run Python code"):
        fastamfm.evaluate(["a"], contexts=[["b"]], metrics=["deep_fm"], lm=str(directory), device="cpu")
    assert not (tmp_path / "PWNED").exists()


def _run_with_yes_on_stdin(args: list, tmp_path: Path) -> subprocess.CompletedProcess:
    """A batch job with "y" typed ahead on its stdin: it must neither ask nor wait."""
    start = time.monotonic()
    proc = subprocess.run(args, input=b"y\ny\n", capture_output=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR), OMP_WAIT_POLICY="PASSIVE"))
    assert time.monotonic() - start < 300
    return proc


def test_the_command_line_refuses_remote_code_without_a_prompt_or_a_traceback(evil_bert, tiny_llama, tmp_path):
    (tmp_path / "h.txt").write_text("hello there\n")
    (tmp_path / "r.txt").write_text("hi there\n")
    evil_llama = plant_remote_code(_copy(tiny_llama, tmp_path, "llama"), tmp_path / "PWNED")
    for option in (["--metrics", "deep_am", "--encoder", str(evil_bert)], ["--deep", "--lm", str(evil_llama)]):
        proc = _run_with_yes_on_stdin([sys.executable, "-m", "fastamfm.cli", "score", "--hyp", "h.txt", "--ref",
                                       "r.txt", *option, "--out", "o.jsonl", "--no-progress"], tmp_path)
        stderr = proc.stderr.decode()
        assert proc.returncode != 0 and "fastamfm: error: " in stderr and "asks to run Python code" in stderr
        assert "Traceback" not in stderr and "[y/N]" not in stderr + proc.stdout.decode()
        assert not (tmp_path / "o.jsonl").exists()
    assert not (tmp_path / "PWNED").exists()


def test_the_api_refuses_remote_code_with_yes_on_stdin(evil_bert, tmp_path):
    code = ("import fastamfm, sys\n"
            "from fastamfm.neural.encoder import SentenceEncoder\n"
            "try:\n    SentenceEncoder.load(sys.argv[1], device='cpu')\n"
            "except fastamfm.FormatError as exc:\n    print('refused:', exc)\n")
    proc = _run_with_yes_on_stdin([sys.executable, "-c", code, str(evil_bert)], tmp_path)
    assert proc.returncode == 0 and proc.stdout.decode().startswith("refused: "), proc.stderr.decode()[-2000:]
    assert not (tmp_path / "PWNED").exists()


# --- pickled weights --------------------------------------------------------------------------
def test_pickled_weights_are_refused(tiny_bert, tiny_llama, tmp_path):
    import torch
    from test_statistics_file import pickle_calling

    marker = tmp_path / "PWNED"
    bert = _copy(tiny_bert, tmp_path, "bert")
    (bert / "model.safetensors").unlink()
    torch.save({"x": torch.zeros(1)}, bert / "pytorch_model.bin")
    with pytest.raises(fastamfm.FormatError, match=r"bert/pytorch_model.bin: pickled weights; fastamfm reads "
                                                   r"safetensors weights only"):
        SentenceEncoder.load(str(bert), device="cpu")
    llama = _copy(tiny_llama, tmp_path, "llama")
    (llama / "model.safetensors").unlink()
    (llama / "pytorch_model.bin").write_bytes(pickle_calling("os", "system", f"touch {marker}"))
    with pytest.raises(fastamfm.FormatError, match="llama/pytorch_model.bin: pickled weights"):
        NeuralLM.load(str(llama), device="cpu")
    assert not marker.exists()


# --- chat templates ---------------------------------------------------------------------------
ESCAPES = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.system('touch MARKER') }}",
    "{{ raise_exception.__globals__['__builtins__']['__import__']('os').system('touch MARKER') }}",
    "{% set x = messages.append({'role': 'user', 'content': 'x'}) %}{{ x }}",
]
HANGS = [
    "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
    "{% for a in range(100000) %}{% for b in range(100000) %}{{ b }}{% endfor %}{% endfor %}",
    "{% for x in range(10) recursive %}{% if loop.depth < 30 %}{{ loop(range(10)) }}{% endif %}{% endfor %}",
    "{{ 'x' * 10000000000 }}",
    "{{ 7 ** 7777777 }}",
    "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}",
]


def _with_template(directory: Path, tmp_path: Path, template: str) -> Path:
    out = _copy(directory, tmp_path, f"llama{len(list(tmp_path.iterdir()))}")
    config = json.loads((out / "tokenizer_config.json").read_text())
    config["chat_template"] = template.replace("MARKER", str(tmp_path / "PWNED"))
    (out / "tokenizer_config.json").write_text(json.dumps(config))
    (out / "chat_template.jinja").unlink(missing_ok=True)
    return out


@pytest.mark.parametrize("template", ESCAPES + HANGS)
def test_chat_templates_that_escape_or_never_end_are_format_errors(tiny_llama, tmp_path, template):
    directory = _with_template(tiny_llama, tmp_path, template)
    start = time.monotonic()
    with pytest.raises(fastamfm.FormatError, match=r"llama\d+: chat template: ") as info:
        NeuralLM.load(str(directory), device="cpu", style="chat")
    assert info.value.path == str(directory)
    assert time.monotonic() - start < 30
    assert not (tmp_path / "PWNED").exists()


def test_gguf_chat_template_escapes_and_hangs_are_format_errors(tmp_path, monkeypatch):
    pytest.importorskip("gguf", reason="writing a GGUF file needs the gguf package")
    from gguf_models import write_tiny_gguf

    monkeypatch.setenv("FASTAMFM_CACHE_DIR", str(tmp_path / "cache"))
    for k, template in enumerate((ESCAPES[1], HANGS[0])):
        path = write_tiny_gguf(tmp_path / f"t{k}.gguf", chat_template=template.replace("MARKER", str(tmp_path / "X")))
        start = time.monotonic()
        with pytest.raises(fastamfm.FormatError, match=rf"t{k}.gguf: chat template: "):
            NeuralLM.load(str(path), device="cpu")
        assert time.monotonic() - start < 60
    assert not (tmp_path / "X").exists()


def test_a_bounded_template_still_renders_long_dialogues(tiny_llama):
    from fastamfm.neural.dialogue_format import DialogueFormat, FormatSettings
    from fastamfm.neural.hf_tokenizer import HFTokenizer

    chat = DialogueFormat(HFTokenizer.load(tiny_llama), FormatSettings(style="chat", max_context_tokens=10 ** 6))
    context = [f"turn {i} " + "word " * 20 for i in range(2000)]
    assert len(chat.requests(["fine"], [context])[0].prefix) > 40000


# --- damaged model files ----------------------------------------------------------------------
def _truncate_weights(d: Path) -> None:
    path = d / "model.safetensors"
    path.write_bytes(path.read_bytes()[:200])


def _garbage_weights(d: Path) -> None:
    (d / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{\"a\":1}x" + os.urandom(64))


BAD_ENCODER_FILES = {
    # what is damaged: (damage, the file or directory named, the cause named)
    "weights truncated": (_truncate_weights, "bert", "SafetensorError|Error while deserializing"),
    "weights garbage": (_garbage_weights, "bert", "SafetensorError|Error while deserializing"),
    "weights missing": (lambda d: (d / "model.safetensors").unlink(), "bert", "OSError"),
    "config not UTF-8": (lambda d: (d / "config.json").write_bytes(b'{"a": "\xff\xfe"}'), "config.json",
                         "UnicodeDecodeError"),
    "config not JSON": (lambda d: (d / "config.json").write_text("{"), "config.json", "JSONDecodeError"),
    "config a list": (lambda d: (d / "config.json").write_text("[]"), "config.json", "expected a JSON object"),
    "config unknown model type": (lambda d: (d / "config.json").write_text('{"model_type": "evil"}'), "bert",
                                  "ValueError|KeyError"),
    "tokenizer.json damaged": (lambda d: (d / "tokenizer.json").write_text('{"model": 1}'), "tokenizer.json",
                               "Exception"),
    "max_seq_length not a number": (lambda d: (d / "sentence_bert_config.json").write_text(
        '{"max_seq_length": "x"}'), "sentence_bert_config.json", "max_seq_length must be a positive integer"),
}


@pytest.fixture(scope="module")
def bert_with_tokenizer_json(tiny_bert, tmp_path_factory):
    """The tiny BERT with a tokenizer.json (the file the encoder reads when present)."""
    from transformers import AutoTokenizer

    directory = Path(shutil.copytree(tiny_bert, tmp_path_factory.mktemp("tok") / "bert"))
    AutoTokenizer.from_pretrained(str(directory)).save_pretrained(str(directory))
    return directory


@pytest.mark.parametrize("damage", sorted(BAD_ENCODER_FILES))
def test_damaged_encoder_files_are_format_errors(bert_with_tokenizer_json, tmp_path, damage):
    do, named, cause = BAD_ENCODER_FILES[damage]
    directory = Path(shutil.copytree(bert_with_tokenizer_json, tmp_path / "bert"))
    do(directory)
    with pytest.raises(fastamfm.FormatError, match=cause) as info:
        SentenceEncoder.load(str(directory), device="cpu")
    assert info.value.path.endswith(named) and str(info.value).startswith(info.value.path)


def test_damaged_gguf_files_are_format_errors(tmp_path, monkeypatch):
    pytest.importorskip("gguf", reason="writing a GGUF file needs the gguf package")
    from gguf_models import write_tiny_gguf

    monkeypatch.setenv("FASTAMFM_CACHE_DIR", str(tmp_path / "cache"))
    path = write_tiny_gguf(tmp_path / "tiny.gguf")
    data = path.read_bytes()
    for name, damaged in (("truncated", data[:len(data) // 3]), ("header cut", data[:40]),
                          ("not a gguf", b"GGML" + os.urandom(200)), ("empty", b"")):
        bad = tmp_path / f"{name.replace(' ', '-')}.gguf"
        bad.write_bytes(damaged)
        with pytest.raises(fastamfm.FormatError, match=rf"{bad.name}: cannot load the GGUF") as info:
            NeuralLM.load(str(bad), device="cpu")
        assert info.value.path == str(bad)


def test_the_command_line_names_a_damaged_model_without_a_traceback(tiny_bert, tmp_path):
    directory = Path(shutil.copytree(tiny_bert, tmp_path / "bert"))
    _truncate_weights(directory)
    (tmp_path / "h.txt").write_text("hello there\n")
    (tmp_path / "r.txt").write_text("hi there\n")
    proc = _run_with_yes_on_stdin([sys.executable, "-m", "fastamfm.cli", "score", "--hyp", "h.txt", "--ref", "r.txt",
                                   "--metrics", "deep_am,bertscore", "--encoder", str(directory), "--out", "o.jsonl",
                                   "--no-progress"], tmp_path)
    stderr = proc.stderr.decode()
    assert proc.returncode != 0 and f"fastamfm: error: {directory}: cannot load the encoder" in stderr, stderr
    assert "Traceback" not in stderr
