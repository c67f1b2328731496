"""fastamfm.training: corpus formats, deduplication, decontamination, bad input, and the
trainer (determinism, budgets, atomic checkpoints, resume after SIGKILL) on tiny models."""
from __future__ import annotations

import bz2
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import fastamfm
import pytest
from fastamfm.training import (
    Blocklist,
    DialogueCorpus,
    DialogueHashSet,
    TrainingSettings,
    read_dialogues,
    utterance_hash,
    verify_directory,
    write_checksums,
)

HERE = Path(__file__).resolve().parent
DIALOGUES = [["hello , how are you today ?", "i am fine , thank you very much .", "what do you like to do ?"],
             ["Do you have any pets?", "Yes, a dog named Max and two cats."],
             ["I like hiking and reading books.", "The weather is nice; let's go outside!", "that sounds lovely ."]]


def write_text_corpus(path: Path, dialogues=DIALOGUES) -> Path:
    path.write_text("\n\n".join("\n".join(d) for d in dialogues) + "\n", encoding="utf-8")
    return path


def turns_of(path) -> list:
    return [list(turns) for turns, _ in read_dialogues(path)]


# --- formats ---------------------------------------------------------------------------
def test_plain_text_jsonl_bz2_and_dstc10_json_read_the_same_dialogues(tmp_path):
    text = write_text_corpus(tmp_path / "c.txt")
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text("".join(json.dumps({"id": i, "turns": d}) + "\n" for i, d in enumerate(DIALOGUES)))
    packed = tmp_path / "c.jsonl.bz2"
    packed.write_bytes(bz2.compress(jsonl.read_bytes()))
    dstc = tmp_path / "c.json"
    dstc.write_text(json.dumps([{"context": "\n".join(d[:-1]), "response": d[-1], "scores": {"x": 1}}
                                for d in DIALOGUES], indent=2))
    for path in (text, jsonl, packed, dstc):
        assert turns_of(path) == DIALOGUES, path


def test_text_lines_of_a_dialogue_start_where_it_starts(tmp_path):
    path = write_text_corpus(tmp_path / "c.txt")
    assert [line for _, line in read_dialogues(path)] == [1, 5, 8]


def test_several_corpora_and_the_counts(tmp_path):
    a = write_text_corpus(tmp_path / "a.txt")
    b = write_text_corpus(tmp_path / "b.txt", DIALOGUES[:2] + [["a new one here", "and its reply here"]])
    corpus = DialogueCorpus([a, b], blocklist=False, held_out=0.0)
    counts = corpus.scan()
    assert (counts.files, counts.dialogues_read, counts.duplicates, counts.training_dialogues) == (2, 6, 2, 4)
    assert [d.turns[0] for d in corpus.training()] == [d[0] for d in DIALOGUES] + ["a new one here"]
    assert len(counts.content_sha256) == 64


def test_blocklist_drops_every_dialogue_with_a_listed_utterance(tmp_path):
    corpus_file = write_text_corpus(tmp_path / "c.txt")
    # The blocklist's normalisation: case, punctuation and spacing do not matter.
    listed = tmp_path / "block.sha256"
    listed.write_text(utterance_hash("YES -- a dog named max, and two cats!!") + "\n")
    assert utterance_hash("ok then") is None           # under three words: never blocked
    corpus = DialogueCorpus([corpus_file], blocklist=Blocklist.load(listed), held_out=0.0)
    counts = corpus.scan()
    assert counts.dropped_blocklist == 1 and counts.training_dialogues == 2
    assert all("Max" not in " ".join(d.turns) for d in corpus.training())
    assert corpus.describe()["blocklist_hashes"] == 1


def test_blocklist_from_the_environment_is_added(tmp_path, monkeypatch):
    monkeypatch.delenv("FASTAMFM_BLOCKLIST", raising=False)
    # The packaged DSTC-10 list holds "hello , how are you today ?" and "do you have any pets ?".
    assert DialogueCorpus([write_text_corpus(tmp_path / "c.txt")], held_out=0.0).scan().dropped_blocklist == 2
    listed = tmp_path / "b.sha256"
    listed.write_text(utterance_hash("that sounds lovely .") + "\n")
    monkeypatch.setenv("FASTAMFM_BLOCKLIST", str(listed))
    corpus = DialogueCorpus([write_text_corpus(tmp_path / "c.txt", DIALOGUES + [["a new one here", "its reply"]])],
                            held_out=0.0)
    assert corpus.scan().dropped_blocklist == 3 and corpus.scan().training_dialogues == 1
    assert corpus.describe()["blocklist_hashes"] == len(Blocklist.packaged()) + 1
    monkeypatch.setenv("FASTAMFM_BLOCKLIST", str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError, match="blocklist"):
        DialogueCorpus([tmp_path / "c.txt"])


def test_a_bad_blocklist_line_is_a_format_error(tmp_path):
    listed = tmp_path / "b.sha256"
    listed.write_text("a" * 64 + "\nnot a hash\n")
    with pytest.raises(fastamfm.FormatError) as info:
        Blocklist.load(listed)
    assert info.value.line == 2


def test_held_out_slice_is_fixed_by_content_and_capped(tmp_path):
    dialogues = [[f"turn {i} of dialogue number {i}", f"reply {i} to it"] for i in range(300)]
    path = write_text_corpus(tmp_path / "c.txt", dialogues)
    corpus = DialogueCorpus([path], blocklist=False, held_out=0.2, max_held_out=25)
    held = [d.turns for d in corpus.held_out()]
    assert len(held) == 25 and corpus.scan().held_out == 25
    assert not set(held) & {d.turns for d in corpus.training()}
    shuffled = write_text_corpus(tmp_path / "d.txt", dialogues[::-1])
    again = DialogueCorpus([shuffled], blocklist=False, held_out=0.2, max_held_out=1000)
    assert set(held) <= {d.turns for d in again.held_out()}


def test_dialogue_hash_set_grows_and_dedups():
    seen = DialogueHashSet(capacity=4)
    assert all(seen.add(v) for v in range(1, 5000))
    assert not any(seen.add(v) for v in range(1, 5000))
    assert len(seen) == 4999 and seen.nbytes <= 16 * 8192


# --- bad input ------------------------------------------------------------------------
@pytest.mark.parametrize("name, content, line", [
    ("empty.txt", b"", 1),
    ("blank.txt", b"\n\n  \n", 1),
    ("one_turn.txt", b"first dialogue\nits reply\n\nalone here\n\nthird\nreply\n", 4),
    ("latin1.txt", "a turn\ncaf\xe9 au lait\n".encode("latin-1"), 2),
    ("long.txt", b"short turn\n" + b"x" * (5 << 20) + b"\n", 2),
    ("bad.jsonl", b'{"turns": ["a", "b"]}\n{"turns": "not a list"}\n', 2),
    ("one.jsonl", b'{"turns": ["only one"]}\n', 1),
    ("nojson.jsonl", b'{"turns": ["a", "b"]}\n{oops\n', 2),
    ("cut.json", b'[{"context": "a\\nb", "response": "c"},\n {"context": "d", "resp', 2),
    ("notlist.json", b'{"context": "a", "response": "b"}', 1),
    ("empty.jsonl.bz2", bz2.compress(b""), 1),
])
def test_bad_corpus_input_is_a_format_error_with_path_and_line(tmp_path, name, content, line):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(fastamfm.FormatError) as info:
        DialogueCorpus([path], blocklist=False).scan()
    assert info.value.path == str(path) and info.value.line == line, str(info.value)


def test_missing_corpus_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such corpus file"):
        DialogueCorpus([tmp_path / "nope.txt"], blocklist=False)


# --- checksummed directories -------------------------------------------------------------
def test_checksums_name_the_changed_or_missing_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.bin").write_bytes(b"abc")
    (tmp_path / "sub" / "b.json").write_text("{}")
    write_checksums(tmp_path)
    verify_directory(tmp_path)
    (tmp_path / "sub" / "b.json").write_text("{ }")
    with pytest.raises(fastamfm.FormatError, match="b.json"):
        verify_directory(tmp_path)
    (tmp_path / "sub" / "b.json").write_text("{}")
    (tmp_path / "a.bin").unlink()
    with pytest.raises(fastamfm.FormatError, match="a.bin: missing"):
        verify_directory(tmp_path)


def test_settings_need_a_budget_and_sane_values():
    with pytest.raises(ValueError, match="budget"):
        TrainingSettings().check()
    with pytest.raises(ValueError, match="precision"):
        TrainingSettings(max_steps=1, precision="float16").check()
    with pytest.raises(ValueError, match="max_steps"):
        TrainingSettings(max_minutes=1, schedule="linear").check()
    TrainingSettings(max_minutes=1).check()


# --- the trainer ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from causal_models import make_model

    return make_model(tmp_path_factory.mktemp("tiny-lm") / "model")


def _train_tiny(model_dir, corpus_file, work, **settings):
    import transformers
    from fastamfm.neural.dialogue_format import FormatSettings
    from fastamfm.neural.hf_tokenizer import HFTokenizer
    from fastamfm.training import set_seed, train
    from fastamfm.training.causal_lm_task import CausalLMTask

    set_seed(0)
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir)
    task = CausalLMTask(model, HFTokenizer.load(model_dir), FormatSettings())
    options = dict(batch_size=2, learning_rate=1e-3, checkpoint_steps=3, device="cpu", progress=False)
    options.update(settings)
    run = train(task, DialogueCorpus([corpus_file], blocklist=False, held_out=0.0), TrainingSettings(**options),
                directory=work)
    return run, {k: v.clone() for k, v in model.state_dict().items()}


def test_training_is_deterministic_and_stops_at_max_steps(tiny_lm, tmp_path):
    import torch

    corpus_file = write_text_corpus(tmp_path / "c.txt")
    run_a, a = _train_tiny(tiny_lm, corpus_file, tmp_path / "a", max_steps=5)
    run_b, b = _train_tiny(tiny_lm, corpus_file, tmp_path / "b", max_steps=5)
    assert run_a.steps == 5 and run_a.stopped_by == "max_steps" and run_a.examples == 10
    assert run_a.tokens > 0 and run_a.tokens_per_second > 0 and run_a.loss is not None
    assert all(torch.equal(a[k], b[k]) for k in a)
    start = transformers_model_state(tiny_lm)
    assert not all(torch.equal(a[k], start[k]) for k in start)
    # Checkpoints: complete folders only (every 3 steps and the last step).
    assert sorted(p.name for p in (tmp_path / "a" / "lm").iterdir()) == ["checkpoint-3", "checkpoint-5"]


def test_a_progress_callable_hears_every_optimizer_step(tiny_lm, tmp_path):
    from fastamfm.progress import ProgressUpdate, reporting

    corpus_file = write_text_corpus(tmp_path / "c.txt")
    heard = []
    run, _ = _train_tiny(tiny_lm, corpus_file, tmp_path / "a", max_steps=3, progress=heard.append)
    assert [u.done for u in heard] == [1, 2, 3] and {u.total for u in heard} == {3}
    assert all(isinstance(u, ProgressUpdate) and u.unit == "step" for u in heard)
    # the settings' default (True) follows the option of the call the run is in
    around = []
    with reporting(around.append):
        _train_tiny(tiny_lm, corpus_file, tmp_path / "b", max_steps=2, progress=True)
    assert [u.done for u in around] == [1, 2]


def transformers_model_state(model_dir):
    import transformers

    return transformers.AutoModelForCausalLM.from_pretrained(model_dir).state_dict()


def test_max_minutes_stops_the_run(tiny_lm, tmp_path):
    corpus_file = write_text_corpus(tmp_path / "c.txt")
    run, _ = _train_tiny(tiny_lm, corpus_file, tmp_path / "w", max_minutes=0.02, checkpoint_minutes=None)
    assert run.stopped_by == "max_minutes" and run.steps >= 1 and run.seconds >= 1.2
    from fastamfm.training.checkpoints import latest_checkpoint

    assert latest_checkpoint(tmp_path / "w" / "lm").name == f"checkpoint-{run.steps}"   # saved when stopped


def test_checkpoints_rotate_and_bfloat16_runs(tiny_lm, tmp_path):
    corpus_file = write_text_corpus(tmp_path / "c.txt")
    run, _ = _train_tiny(tiny_lm, corpus_file, tmp_path / "w", max_steps=10, keep_checkpoints=2,
                         precision="bfloat16")
    assert run.precision == "bfloat16" and run.steps == 10
    assert sorted(p.name for p in (tmp_path / "w" / "lm").iterdir()) == ["checkpoint-10", "checkpoint-9"]


def _job(model_dir, corpus_file, work, steps, *extra):
    installed = Path(fastamfm.__file__).resolve().parents[1]   # the tested install, not the source tree
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(installed), str(HERE)]),
               OMP_WAIT_POLICY="PASSIVE")
    return subprocess.Popen([sys.executable, str(HERE / "training_job.py"), str(model_dir), str(corpus_file),
                             str(work), str(steps), *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


@pytest.mark.slow
def test_a_run_killed_with_sigkill_resumes_to_the_same_weights(tiny_lm, tmp_path):
    import safetensors.torch
    import torch

    corpus_file = write_text_corpus(tmp_path / "c.txt")
    steps = 14
    whole = _job(tiny_lm, corpus_file, tmp_path / "whole", steps)
    assert whole.wait(timeout=300) == 0, whole.stdout.read().decode()[-3000:]

    killed = _job(tiny_lm, corpus_file, tmp_path / "killed", steps, "--slow", "0.15")
    checkpoint = tmp_path / "killed" / "lm" / "checkpoint-6"
    deadline = time.monotonic() + 300
    while not checkpoint.exists() and killed.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert killed.poll() is None, "the run ended before it could be killed"
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert not (tmp_path / "killed" / "final.safetensors").exists()
    resumed = _job(tiny_lm, corpus_file, tmp_path / "killed", steps, "--resume")
    assert resumed.wait(timeout=300) == 0, resumed.stdout.read().decode()[-3000:]

    expected = safetensors.torch.load_file(str(tmp_path / "whole" / "final.safetensors"))
    got = safetensors.torch.load_file(str(tmp_path / "killed" / "final.safetensors"))
    assert expected.keys() == got.keys()
    for name in expected:
        assert torch.equal(expected[name], got[name]), name


@pytest.mark.gpu
def test_training_runs_on_the_gpu_in_bfloat16(tiny_lm, tmp_path):
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    corpus_file = write_text_corpus(tmp_path / "c.txt")
    run, state = _train_tiny(tiny_lm, corpus_file, tmp_path / "w", max_steps=4, device="cuda", precision="bfloat16")
    assert run.device == "cuda" and run.steps == 4 and run.loss == run.loss
    assert all(v.device.type == "cuda" for v in state.values())
