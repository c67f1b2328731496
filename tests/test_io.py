"""File readers: line files, parallel files, jsonl, DSTC json, atomic writes."""
from __future__ import annotations

import json
import os

import fastamfm
import pytest
from fastamfm import _core, io


def test_read_lines_strips_terminators_and_keeps_empty_lines(tmp_path):
    p = tmp_path / "h.txt"
    p.write_bytes(b"one\r\n\ntwo\nthree")
    assert io.read_lines(p) == ["one", "", "two", "three"]
    assert _core.count_lines(str(p)) == 4


def test_read_lines_spanning_many_buffers(tmp_path):
    lines = [f"sentence number {i} " + "x" * (i % 300) for i in range(50_000)]
    p = tmp_path / "big.txt"
    p.write_text("\n".join(lines) + "\n")
    assert io.read_lines(p) == lines
    assert _core.count_lines(str(p)) == 50_000


def test_invalid_utf8_names_file_and_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_bytes(b"fine\nalso fine\nbro\xffken\n")
    with pytest.raises(fastamfm.FormatError, match=r"bad.txt:3:4: invalid UTF-8 at byte 3"):
        io.read_lines(p)
    with pytest.raises(ValueError):  # FormatError is a ValueError
        io.read_lines(p)


def test_huge_line_is_a_clear_error(tmp_path):
    p = tmp_path / "huge.txt"
    p.write_bytes(b"short\n" + b"y" * 5000 + b"\n")
    with pytest.raises(fastamfm.FormatError, match=r"huge.txt:2: line longer than 1000 bytes"):
        io.read_lines(p, max_line_bytes=1000)
    assert len(io.read_lines(p)[1]) == 5000


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        io.read_lines(tmp_path / "nope.txt")


def test_parallel_files_must_have_equal_line_counts(tmp_path):
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    (tmp_path / "b.txt").write_text("1\n2\n")
    with pytest.raises(ValueError, match=r"a.txt: 3 lines, .*b.txt: 2 lines"):
        io.read_parallel_files([tmp_path / "a.txt", tmp_path / "b.txt"])


def test_parallel_chunks_stream_in_lockstep(tmp_path):
    for name in "ab":
        (tmp_path / f"{name}.txt").write_text("".join(f"{name}{i}\n" for i in range(10)))
    chunks = list(io.iter_parallel_chunks([tmp_path / "a.txt", tmp_path / "b.txt"], chunk_lines=4))
    assert [len(c[0]) for c in chunks] == [4, 4, 2]
    assert chunks[2] == [["a8", "a9"], ["b8", "b9"]]


def test_jsonl_records_and_errors(tmp_path):
    p = tmp_path / "ok.jsonl"
    p.write_text(json.dumps({"hyp": "h", "refs": ["r1", "r2"]}) + "\n\n" + json.dumps({"hyp": "g", "refs": "r"}) + "\n")
    assert io.read_jsonl(p) == (["h", "g"], [["r1", "r2"], ["r"]])
    cases = {
        '{"hyp": "h"}': r":1: record has no 'refs' key",
        '{"hyp": 3, "refs": ["a"]}': r":1: 'hyp' must be a string",
        '{"hyp": "h", "refs": []}': r":1: 'refs' is empty",
        '{"hyp": "h", "refs": [1]}': r":1: 'refs' must be a list of strings",
        '{"hyp": "h", "refs": ["a"]': r":1: invalid JSON",
        '[1, 2]': r":1: expected a JSON object",
    }
    for text, msg in cases.items():
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text + "\n")
        with pytest.raises(ValueError, match=msg):
            io.read_jsonl(bad)
    bad.write_bytes(b'{"hyp": "\xff", "refs": ["a"]}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:1:10: invalid UTF-8"):
        io.read_jsonl(bad)


def test_dstc_json_array_and_jsonl(tmp_path):
    records = [{"context": ["hi"], "response": "hello", "reference": "hey"},
               {"context": ["q"], "response": "a", "reference": ["b", "c"]}]
    p = tmp_path / "d.json"
    p.write_text(json.dumps(records))
    assert io.read_dstc_json(p) == ([["hi"], ["q"]], ["hello", "a"], [["hey"], ["b", "c"]])
    q = tmp_path / "d.jsonl"
    q.write_text("\n".join(json.dumps(r) for r in records))
    assert io.read_dstc_json(q) == io.read_dstc_json(p)
    p.write_text(json.dumps([{"context": [], "response": "x"}]))
    with pytest.raises(ValueError, match="record 1: record has no 'reference' key"):
        io.read_dstc_json(p)


def test_atomic_write_replaces_whole_file(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old")
    io.write_text_atomic(p, "new content")
    assert p.read_text() == "new content"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_writer_leaves_old_file_on_error(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("finished output")
    with pytest.raises(RuntimeError):
        with io.AtomicWriter(p) as f:
            f.write("half of a new ")
            raise RuntimeError("interrupted")
    assert p.read_text() == "finished output"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_to_missing_directory_is_clear(tmp_path):
    with pytest.raises(RuntimeError, match="cannot create"):
        io.write_text_atomic(tmp_path / "no" / "such" / "dir.txt", "x")


# --- every binary loader reads its file the same way (src/io/mapped_file) -------------------
_LOADERS = {
    "LSI model": lambda p, mmap: fastamfm._core.LsiModel.load(p, mmap),
    "language model": lambda p, mmap: fastamfm._core.NgramModel.load(p, mmap=mmap),
    "word-vector cache": lambda p, mmap: fastamfm._core.WordVectors.open(p, mmap=mmap),
    "METEOR resource cache": lambda p, mmap: fastamfm._core.MeteorResources.load(p, mmap),
    "line reader": lambda p, mmap: fastamfm._core.LineReader(p, 0),
}


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("what", sorted(_LOADERS))
def test_a_file_that_cannot_be_opened_is_the_oserror_of_its_errno(tmp_path, what, mmap):
    """Missing and directory paths give FileNotFoundError / IsADirectoryError naming the path,
    from every loader alike (they used to differ: RuntimeError in three, ValueError in one)."""
    import errno

    missing = tmp_path / "absent.bin"
    with pytest.raises(FileNotFoundError) as info:
        _LOADERS[what](str(missing), mmap)
    assert info.value.filename == str(missing) and info.value.errno == errno.ENOENT
    assert "cannot open" in info.value.strerror
    with pytest.raises(IsADirectoryError) as info:
        _LOADERS[what](str(tmp_path), mmap)
    assert info.value.filename == str(tmp_path)
