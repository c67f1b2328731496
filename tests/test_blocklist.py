"""The decontamination blocklist ships inside the package (issue 37): training decontaminates
against the DSTC-10 rated sets from any directory, ``--blocklist FILE`` adds a list, and
``--no-blocklist`` trains on everything. The packaged file is the builder's derived form of
the shared data's list and blocks exactly what that list blocks."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import fastamfm
import pytest
from conftest import SHARED_DATA
from fastamfm.training import Blocklist, DialogueCorpus, read_dialogues, utterance_hash
from fastamfm.training.blocklist import PACKAGED, PACKAGED_NAME, read_hex_list, read_packed
from fastamfm.training.build_blocklist import build_blocklist

SOURCE = SHARED_DATA / "dstc10_blocklist" / "utterances.sha256"
REPO = Path(__file__).resolve().parents[1]


def _source() -> Path:
    if not SOURCE.is_file():
        pytest.skip(f"{SOURCE} is absent (tests on real data need ../shared/data beside the checkout)")
    return SOURCE


def test_the_packaged_list_ships_in_the_package_and_is_checked():
    blocklist = Blocklist.packaged()
    assert PACKAGED.parent.name == "data" and PACKAGED.parent.parent == Path(fastamfm.__file__).parent
    assert len(blocklist) == 8945 and blocklist.sources[0]["name"] == PACKAGED_NAME
    assert PACKAGED.stat().st_size < 100_000            # 8-byte prefixes, not the 64-character list
    prefixes, header = read_packed(PACKAGED)
    assert prefixes == blocklist.prefixes and len(header["source_sha256"]) == 64


def test_a_damaged_packaged_file_is_a_format_error(tmp_path):
    data = bytearray(PACKAGED.read_bytes())
    data[-3] ^= 0x40
    damaged = tmp_path / "damaged.bin"
    damaged.write_bytes(bytes(data))
    with pytest.raises(fastamfm.FormatError, match="damaged blocklist file"):
        read_packed(damaged)
    (tmp_path / "other.bin").write_bytes(b"something else\n")
    with pytest.raises(fastamfm.FormatError, match="not a fastamfm blocklist file"):
        read_packed(tmp_path / "other.bin")


@pytest.mark.shared_data
def test_the_packaged_form_blocks_exactly_what_the_source_list_blocks(tmp_path):
    source = _source()
    hashes, digest = read_hex_list(source)
    packaged = Blocklist.packaged()
    full = Blocklist.load(source)
    # The shipped file is what the builder derives from today's source list, byte for byte.
    rebuilt = build_blocklist(source.parent, tmp_path / "rebuilt.bin")
    assert rebuilt.read_bytes() == PACKAGED.read_bytes()
    assert packaged.sources[0]["sha256"] == digest and len(packaged) == len(hashes)
    # Every listed hash is blocked, and on real dialogues the two lists drop the same ones:
    # Topical-Chat's four splits (the source README's counts) and the rated sets themselves.
    assert all(int(h[:16], 16) in packaged.prefixes for h in hashes)
    counts = []
    for split in ("test_freq", "test_rare", "valid_freq", "valid_rare"):
        conversations = json.loads((SHARED_DATA / "topical_chat" / f"{split}.json").read_text())
        blocked = []
        for conversation in conversations.values():
            turns = [m["message"] for m in conversation["content"]]
            by_full = any(utterance_hash(t) in hashes for t in turns)
            assert packaged.blocks(turns) == by_full == full.blocks(turns)
            blocked.append(by_full)
        counts.append(sum(blocked))
    assert counts == [81, 43, 104, 43]
    read = dropped = 0
    for path in sorted((SHARED_DATA / "dstc10_dev").glob("*.json")):
        for turns, _ in read_dialogues(path):
            read += 1
            dropped += packaged.blocks(turns)
    assert read > 0 and dropped == read           # every rated dialogue is blocked by the packaged list


def test_training_decontaminates_by_default_from_any_directory(tmp_path, monkeypatch):
    """No shared data needed, no environment variable, any working directory: the packaged
    list applies, and the provenance names it."""
    monkeypatch.delenv("FASTAMFM_BLOCKLIST", raising=False)
    monkeypatch.chdir(tmp_path)
    corpus_file = tmp_path / "c.txt"
    # "hello , how are you today ?" is an utterance of the DSTC-10 rated sets.
    corpus_file.write_text("hello , how are you today ?\ni am fine , thank you very much .\n\n"
                           "i like hiking and reading books .\nthat sounds lovely .\n")
    corpus = DialogueCorpus([corpus_file], held_out=0.0)
    described = corpus.describe()
    assert [s["name"] for s in described["blocklist"]] == [PACKAGED_NAME]
    assert described["blocklist_hashes"] == 8945 and len(described["blocklist_sha256"]) == 64
    assert corpus.scan().dropped_blocklist == 1 and corpus.scan().training_dialogues == 1
    none = DialogueCorpus([corpus_file], blocklist=False, held_out=0.0).describe()
    assert none["blocklist"] == [] and none["blocklist_hashes"] == 0
    # The old upward search for a shared/data folder is gone: the default is the packaged file.
    from fastamfm.training.blocklist import default_blocklist_path

    assert default_blocklist_path() == PACKAGED


def test_a_blocklist_file_adds_to_the_packaged_list(tmp_path, monkeypatch):
    monkeypatch.delenv("FASTAMFM_BLOCKLIST", raising=False)
    corpus_file = tmp_path / "c.txt"
    corpus_file.write_text("i like hiking and reading books .\ni am fine .\n\nmy own secret test utterance\nok then\n")
    mine = tmp_path / "mine.sha256"
    mine.write_text(utterance_hash("My own SECRET test utterance!") + "\n")
    corpus = DialogueCorpus([corpus_file], blocklist=mine, held_out=0.0)
    assert corpus.scan().dropped_blocklist == 1 and corpus.scan().training_dialogues == 1
    described = corpus.describe()
    assert [s.get("name", s.get("path")) for s in described["blocklist"]] == [PACKAGED_NAME, str(mine.resolve())]
    assert described["blocklist_hashes"] == 8946
    monkeypatch.setenv("FASTAMFM_BLOCKLIST", str(mine))
    assert DialogueCorpus([corpus_file], held_out=0.0).scan().dropped_blocklist == 1


@pytest.mark.shared_data
def test_the_builder_command(tmp_path):
    source = _source()
    out = tmp_path / "b.bin"
    proc = subprocess.run([sys.executable, "-m", "fastamfm.training.build_blocklist", str(source.parent), "--out",
                           str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "8945 hashes" in proc.stdout and out.read_bytes() == PACKAGED.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "fastamfm.training.build_blocklist", str(tmp_path / "absent")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "build_blocklist: error:" in proc.stderr


def test_the_shared_list_is_not_committed():
    """Data from ../shared is never committed: only the derived file is in the package."""
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    assert not [p for p in tracked if p.endswith("utterances.sha256")]
    assert "python/fastamfm/data/dstc10_blocklist.bin" in tracked
