"""The cache directory (issue 37): the tests' own temporary one, ``fastamfm cache`` listing
and clearing it by kind, METEOR's cache named by content (so environments share one file),
and processes building the same cache at once taking turns."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import fastamfm
import pytest
from fastamfm.cli import main
from fastamfm.io.cache_dir import CACHE_KINDS, cache_dir, cache_entries, clear_cache


def test_the_tests_use_a_temporary_cache_not_the_users():
    here = Path(os.environ["FASTAMFM_CACHE_DIR"])
    assert cache_dir() == here and here.is_dir()
    if not os.environ.get("FASTAMFM_TEST_CACHE_DIR"):
        assert here.name.startswith("fastamfm-test-cache-")
    assert Path.home() / ".cache" / "fastamfm" not in (here, *here.parents)


def _fake_cache(root: Path) -> dict:
    (root / "gguf" / "a1b2").mkdir(parents=True)
    (root / "gguf" / "a1b2" / "model.safetensors").write_bytes(b"x" * 3000)
    (root / "onnx" / "enc-layer6").mkdir(parents=True)
    (root / "onnx" / "enc-layer6" / "hidden.onnx").write_bytes(b"x" * 200)
    (root / "digests").mkdir()
    (root / "digests" / "0123.json").write_text("{}")
    (root / "meteor-1.5-en-0123456789abcdef0123.bin").write_bytes(b"m" * 5000)
    (root / "glove.txt.0123.fastamfm-wv").write_bytes(b"v" * 100)
    (root / ".partial-xyz").mkdir()
    (root / ".locks").mkdir()
    (root / ".locks" / "meteor-1.5-en-0123456789abcdef0123.bin.0123.lock").write_bytes(b"")
    (root / "mine.txt").write_text("not fastamfm's: never touched")
    return {"meteor": 1, "gguf": 1, "onnx": 1, "vectors": 1, "digests": 1}


def test_cache_command_lists_and_clears_by_kind(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FASTAMFM_CACHE_DIR", str(tmp_path))
    counts = _fake_cache(tmp_path)
    assert {k: sum(e.kind == k for e in cache_entries()) for k in CACHE_KINDS} == counts
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"fastamfm cache: {tmp_path} ($FASTAMFM_CACHE_DIR)"
    for kind in CACHE_KINDS:
        assert f"  {kind} " in out
    assert "meteor-1.5-en-0123456789abcdef0123.bin" in out and "4.9 KB" in out
    assert "remove with: fastamfm cache clear" in out
    assert main(["cache", "clear", "meteor", "gguf"]) == 0
    assert "removed 2 cache entries (7.8 KB)" in capsys.readouterr().out
    assert not (tmp_path / "meteor-1.5-en-0123456789abcdef0123.bin").exists() and not (tmp_path / "gguf").exists()
    assert (tmp_path / "onnx" / "enc-layer6" / "hidden.onnx").exists()
    assert main(["cache", "clear"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]
    assert main(["cache", "list", "nonsense"]) == 1
    assert "fastamfm: error: unknown cache kind(s) ['nonsense']; the kinds are" in capsys.readouterr().err


def test_clear_cache_of_a_missing_directory_is_nothing(tmp_path):
    assert clear_cache(directory=tmp_path / "absent") == (0, 0)
    assert cache_entries(directory=tmp_path / "absent") == []


def _meteor_files():
    from fastamfm.metrics import meteor_resources

    try:
        return meteor_resources.locate()
    except meteor_resources.MeteorResourcesNotFound as exc:
        pytest.skip(str(exc))


def test_meteor_cache_is_named_by_content_not_place(tmp_path):
    """Two installs of the same pycocoevalcap (other paths, other modification times) share
    one cache file; a changed table gets another."""
    from fastamfm.metrics import meteor_resources

    jar, paraphrase = _meteor_files()
    copies = []
    for name in ("venv-a", "venv-b"):
        folder = tmp_path / name / "meteor"
        (folder / "data").mkdir(parents=True)
        shutil.copy(jar, folder / jar.name)
        shutil.copy(paraphrase, folder / "data" / paraphrase.name)
        os.utime(folder / jar.name, (1_000_000 + len(copies), 1_000_000 + len(copies)))
        copies.append(meteor_resources.locate(folder))
    assert meteor_resources.cache_path(*copies[0]) == meteor_resources.cache_path(*copies[1]) == \
        meteor_resources.cache_path(jar, paraphrase)
    changed = copies[1][1]
    with open(changed, "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 1]))
    assert meteor_resources.cache_path(*copies[1]) != meteor_resources.cache_path(*copies[0])


def test_processes_building_one_cache_take_turns(tmp_path):
    """Three processes need the same derived cache at once: it is built once, the others
    wait and use it (io.cache_dir.build_lock in models.derived_cache)."""
    log = tmp_path / "builds.log"
    script = textwrap.dedent(f"""
        import os, sys, time
        from pathlib import Path
        from fastamfm.models.derived_cache import verified_cache

        def build(staging):
            with open({str(log)!r}, "a") as f:
                f.write(f"{{os.getpid()}}\\n")
            time.sleep(1.0)
            (staging / "payload.bin").write_bytes(b"built once")

        target = verified_cache(Path({str(tmp_path / 'cache' / 'thing')!r}), "source:1", build, "building a thing")
        print((target / "payload.bin").read_text())
    """)
    # the package under test (installed, or python/ of a developer build), not necessarily this checkout's sources
    package_root = str(Path(fastamfm.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    assert [o[0].strip() for o in outs] == ["built once"] * 3
    assert len(log.read_text().splitlines()) == 1


def test_a_first_time_conversion_says_what_it_does_and_how_long(tmp_path, caplog):
    from fastamfm.models.derived_cache import verified_cache

    def build(staging):
        time.sleep(0.01)
        (staging / "x").write_text("x")

    with caplog.at_level("INFO", logger="fastamfm"):
        verified_cache(tmp_path / "c", "s", build, "converting a thing", duration="about 1 min")
        verified_cache(tmp_path / "c", "s", build, "converting a thing", duration="about 1 min")
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0] == f"converting a thing into {tmp_path / 'c'} (once; about 1 min)"
    assert messages[1].startswith("converting a thing done in") and len(messages) == 2


def test_parallel_workers_share_the_runs_cache_and_heavy_modules_stay_together():
    """The README runs the suite on two pytest-xdist workers: the modules that share a large
    session fixture are grouped (conftest.HEAVY_GROUPS names real modules), and every worker
    sees the one cache directory the run made."""
    import conftest

    tests = Path(__file__).resolve().parent
    for module in conftest.HEAVY_GROUPS:
        assert (tests / f"{module}.py").is_file(), module
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        assert os.environ["FASTAMFM_CACHE_DIR"] == os.environ.get("FASTAMFM_TEST_OWN_CACHE",
                                                                  os.environ["FASTAMFM_CACHE_DIR"])
