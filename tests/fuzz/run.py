#!/usr/bin/env python3
"""Runs one fuzz target under atheris (libFuzzer's engine, Python coverage of fastamfm).

    PYTHONPATH=python python tests/fuzz/run.py TARGET [libFuzzer options] [corpus directories]

The first corpus directory receives the new inputs the fuzzer finds; a crash or an
unexpected exception leaves its input as ./crash-<sha1> (replay it by passing the
file instead of a directory). The test suite runs each target for 3 s (tests/test_fuzz.py); for a
long local run, on copies of the committed corpus:

    cp -r tests/fuzz/corpus /tmp/fuzz-corpus
    for t in $(ls tests/fuzz/corpus); do
      PYTHONPATH=python python tests/fuzz/run.py $t -max_total_time=3600 -rss_limit_mb=4096 /tmp/fuzz-corpus/$t
    done

then keep what is worth keeping with

    PYTHONPATH=python python tests/fuzz/run.py TARGET -merge=1 tests/fuzz/corpus/TARGET /tmp/fuzz-corpus/TARGET

(-merge and -jobs start this script again: the target travels in FASTAMFM_FUZZ_TARGET.)
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
with atheris.instrument_imports(include=["fastamfm", "fuzz"]):
    from fuzz.harnesses import HARNESSES


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] in HARNESSES:
        os.environ["FASTAMFM_FUZZ_TARGET"] = args.pop(0)
    target = os.environ.get("FASTAMFM_FUZZ_TARGET")
    if target not in HARNESSES:
        sys.exit(f"usage: run.py TARGET [libFuzzer options] [corpus dirs]; targets: {', '.join(HARNESSES)}")
    atheris.Setup([sys.argv[0], *args], HARNESSES[target])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
