"""Writers of the three word-vector file formats, for tests and benchmarks.

Values are written with 9 significant digits, which round-trips float32 exactly,
so a loaded file must equal the matrix it was written from bit for bit.
"""
from __future__ import annotations

import numpy as np


def _text_rows(words, matrix) -> str:
    return "".join(w + " " + " ".join(f"{v:.9g}" for v in row) + "\n"
                   for w, row in zip(words, np.asarray(matrix, dtype=np.float32).tolist()))


def write_glove(path, words, matrix) -> None:
    """GloVe text: ``word v1 ... vd`` per line, no header."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(_text_rows(words, matrix))


def write_fasttext(path, words, matrix) -> None:
    """fastText .vec: a ``count dim`` header, then rows with a trailing space (as fastText writes)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    body = _text_rows(words, matrix).replace("\n", " \n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{matrix.shape[0]} {matrix.shape[1]}\n" + body)


def write_word2vec(path, words, matrix) -> None:
    """word2vec binary: header line, then ``word`` + space + little-endian float32 values + newline."""
    matrix = np.asarray(matrix, dtype="<f4")
    with open(path, "wb") as f:
        f.write(f"{matrix.shape[0]} {matrix.shape[1]}\n".encode())
        for w, row in zip(words, matrix):
            f.write(w.encode("utf-8") + b" " + row.tobytes() + b"\n")


WRITERS = {"glove": write_glove, "fasttext": write_fasttext, "word2vec": write_word2vec}
SUFFIX = {"glove": ".txt", "fasttext": ".vec", "word2vec": ".bin"}
