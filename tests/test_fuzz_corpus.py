"""Replays the committed fuzz corpus (tests/fuzz/corpus/<target>/*) as ordinary tests,
without atheris: every seed, and every input a fuzz run kept because it reached new
code or once broke a reader, must still end in a result or a ValueError
(fastamfm.FormatError) from its reader. The sanitizer job runs this file under
AddressSanitizer/UBSan, where a memory error in a C++ reader also fails it."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastamfm._testing", reason="fastamfm was built without its test hooks (FASTAMFM_TEST_HOOKS=ON; the README's test command builds them)")

from fuzz.harnesses import HARNESSES  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "fuzz" / "corpus"
CASES = sorted((target.name, path) for target in CORPUS.iterdir() if target.is_dir() for path in target.iterdir())


def test_every_target_has_a_corpus():
    assert {target for target, _ in CASES} == set(HARNESSES)


@pytest.mark.parametrize("target, path", CASES, ids=[f"{t}/{p.name}" for t, p in CASES])
def test_corpus_input(target, path):
    HARNESSES[target](path.read_bytes())
