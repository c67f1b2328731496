"""Flips bits of fastamfm's binary files and checks what a loader makes of each.

Run as a script (in a subprocess, so that a crash is a failed exit status rather than
a dead test run)::

    python binary_corruption.py FORMAT FILE N_BODY_BITS SEED

It flips, one at a time, every bit of the file's header and N_BODY_BITS random bits
of the rest, loads the file after each flip and uses it, then restores the bit. Each
flip must end as ``refused`` (fastamfm.FormatError) or ``same`` (the loaded object
answers exactly as the pristine file does); it prints the counts as JSON, with the
flips that gave different answers (``wrong``) or another exception (``other``).
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys

import fastamfm
import numpy as np
from fastamfm import _core

# Header sizes of the formats (the C++ structs: LmHeader, the LSI header,
# WordVectorsHeader, the METEOR cache header).
HEADER_BYTES = {"lm": 376, "lsi": 96, "vectors": 144, "meteor": 32}

SENTENCES = ["w1 w2 w3", "w3 w2 w1 w5", "unseenword w2", "", "w4 w4 w4 w4 w9 w1", "the cat sat on the mat"]
METEOR_PAIRS = (["the cats sat on the mat", "a big car", "fine day"],
                [["the cat sat on a mat"], ["an automobile that is large"], ["a good day", "nice day"]])


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(np.ascontiguousarray(part).tobytes() if isinstance(part, np.ndarray) else repr(part).encode())
    return h.hexdigest()


def use_lm(path) -> str:
    lm = fastamfm.NgramLM.load(path)
    tokens = lm.token_scores(SENTENCES)
    return _digest(lm.score(SENTENCES), tokens.log10, tokens.ngram_length, tokens.oov, lm.vocabulary)


def use_lsi(path) -> str:
    lsi = fastamfm.LsiModel.load(path)
    return _digest(lsi.transform(SENTENCES), lsi.vocabulary, lsi.global_weights, lsi.settings)


def use_vectors(path) -> str:
    wv = _core.WordVectors.open(path)
    return _digest(np.asarray(wv.vectors), np.asarray(wv.mean), wv.words())


def use_meteor(path) -> str:
    resources = _core.MeteorResources.load(path)
    result = fastamfm.meteor(*METEOR_PAIRS, resources=resources)
    return _digest(np.asarray(result.sentences["METEOR"]), resources.synonym_sets("car"), resources.num_paraphrases)


USE = {"lm": use_lm, "lsi": use_lsi, "vectors": use_vectors, "meteor": use_meteor}


def flip(fd: int, bit: int) -> None:
    byte = os.pread(fd, 1, bit // 8)[0]
    os.pwrite(fd, bytes([byte ^ (1 << (bit % 8))]), bit // 8)


def run(fmt: str, path: str, n_body_bits: int, seed: int) -> dict:
    use = USE[fmt]
    expected = use(path)
    size_bits = os.path.getsize(path) * 8
    header_bits = min(HEADER_BYTES[fmt] * 8, size_bits)
    rng = random.Random(seed)
    body = rng.sample(range(header_bits, size_bits), min(n_body_bits, size_bits - header_bits))
    counts = {"format": fmt, "file_bytes": size_bits // 8, "tried": 0, "refused": 0, "same": 0, "wrong": [],
              "other": []}
    fd = os.open(path, os.O_RDWR)
    try:
        for bit in [*range(header_bits), *body]:
            flip(fd, bit)
            try:
                answer = use(path)
            except fastamfm.FormatError:
                counts["refused"] += 1
            except Exception as exc:  # noqa: BLE001 - any other exception type is a finding
                counts["other"].append([bit, f"{type(exc).__name__}: {exc}"[:200]])
            else:
                if answer == expected:
                    counts["same"] += 1
                else:
                    counts["wrong"].append(bit)
            finally:
                flip(fd, bit)
            counts["tried"] += 1
    finally:
        os.close(fd)
    assert use(path) == expected, "the file was not restored"
    return counts


if __name__ == "__main__":
    fmt_arg, path_arg, bits_arg, seed_arg = sys.argv[1:5]
    print(json.dumps(run(fmt_arg, path_arg, int(bits_arg), int(seed_arg))))
