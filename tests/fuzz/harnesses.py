"""Fuzz targets: each takes arbitrary bytes, hands them to one fastamfm reader as a file
(or as text), and uses whatever loads. A reader may refuse its input only with a
ValueError (fastamfm.FormatError for files); any other exception, and of course a
crash, is a finding.

The binary formats are checksummed, so random bytes would never get past the
checksum: their harnesses first repair the size and checksum fields of the mutated
file (``repair_*``), which lets the fuzzer reach the structural checks behind them.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import struct
import tempfile

import fastamfm
import numpy as np
from fastamfm import _core, _testing, io
from fastamfm.analysis.ratings import load_rated_turns

SENTENCES = ["w1 w2 w3", "unseenword w2 w1", "", "the cat sat on the mat", "w4 w4 w4 w9"]
METEOR_PAIRS = (["the cats sat on the mat", "a big car"], [["the cat sat on a mat"], ["an automobile"]])

_DIR = tempfile.mkdtemp(prefix="fastamfm-fuzz-")
atexit.register(shutil.rmtree, _DIR, ignore_errors=True)  # the harnesses' files go with the process


def _write(data: bytes, name: str) -> str:
    path = os.path.join(_DIR, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _put(data: bytearray, offset: int, value: int) -> None:
    if len(data) >= offset + 8:
        data[offset:offset + 8] = struct.pack("<Q", value)


# --- checksum repair (the layouts of the C++ headers) --------------------------------

def repair_lm(data: bytes) -> bytes:
    """LM header: file_bytes at 16, checksum at 24 (version 2: of the whole file with the
    field zero; version 1: of the bytes after the 376-byte header)."""
    out = bytearray(data)
    if len(out) < 376:
        return data
    _put(out, 16, len(out))
    _put(out, 24, 0)
    version = struct.unpack_from("<I", out, 8)[0]
    _put(out, 24, _testing.checksum64(bytes(out[376:] if version == 1 else out)))
    return bytes(out)


def repair_lsi(data: bytes) -> bytes:
    """LSI file: the last 8 bytes are the checksum of everything before them."""
    if len(data) < 16:
        return data
    return data[:-8] + struct.pack("<Q", _testing.lsi_checksum(data[:-8]))


def repair_vector_cache(data: bytes) -> bytes:
    """Word-vector cache header (144 bytes): image_bytes at 88, body checksum at 128,
    header checksum (of bytes 0..136) at 136."""
    out = bytearray(data)
    if len(out) < 144:
        return data
    _put(out, 88, len(out))
    _put(out, 128, _testing.checksum64(bytes(out[144:])))
    _put(out, 136, _testing.checksum64(bytes(out[:136])))
    return bytes(out)


def repair_meteor_cache(data: bytes) -> bytes:
    """METEOR cache header (32 bytes): file size at 16, checksum (with the field zero) at 24."""
    out = bytearray(data)
    if len(out) < 32:
        return data
    _put(out, 16, len(out))
    _put(out, 24, 0)
    _put(out, 24, _testing.checksum64(bytes(out)))
    return bytes(out)


def repair_checked_file(data: bytes) -> bytes:
    """A ``fastamfm.io.checked_file``: the last 32 bytes are the SHA-256 of everything before them."""
    if len(data) < 32:
        return data
    return data[:-32] + hashlib.sha256(data[:-32]).digest()


# --- targets ------------------------------------------------------------------------

def tokenizer(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    for preset in fastamfm.TOKENIZER_PRESETS:
        for lowercase in (False, True):
            fastamfm.tokenize([text, text[: len(text) // 2]], preset=preset, lowercase=lowercase, workers=1)
    try:
        fastamfm.tokenize([data], workers=1)  # raw bytes: invalid UTF-8 is a ValueError
    except ValueError:
        pass


def _use_lm(path: str) -> None:
    try:
        lm = fastamfm.NgramLM.load(path)
    except ValueError:
        return
    lm.score(SENTENCES, workers=1)
    lm.token_scores(SENTENCES, workers=1)


def arpa(data: bytes) -> None:
    _use_lm(_write(data, "model.arpa"))


def lm_binary(data: bytes) -> None:
    _use_lm(_write(repair_lm(data), "lm.model"))


def lsi_binary(data: bytes) -> None:
    try:
        lsi = fastamfm.LsiModel.load(_write(repair_lsi(data), "lsi.model"))
    except ValueError:
        return
    lsi.transform(SENTENCES, workers=1)


def _use_vectors(vectors) -> None:
    fastamfm.embedding_average(SENTENCES[:2], [[SENTENCES[3]]] * 2, vectors=vectors, workers=1, empty="zero")
    fastamfm.greedy_matching(SENTENCES[:2], [[SENTENCES[3]]] * 2, vectors=vectors, workers=1, empty="zero")


def _vector_text(fmt: str):
    def target(data: bytes) -> None:
        try:
            vectors = fastamfm.WordVectors.load(_write(data, f"vectors.{fmt}"), format=fmt, cache=False, workers=1)
        except ValueError:
            return
        _use_vectors(vectors)
    target.__name__ = fmt
    return target


def vector_cache(data: bytes) -> None:
    try:
        core = _core.WordVectors.open(_write(repair_vector_cache(data), "vectors.fastamfm-wv"))
    except ValueError:
        return
    np.asarray(core.vectors).sum()
    core.words()


def meteor_cache(data: bytes) -> None:
    try:
        resources = _core.MeteorResources.load(_write(repair_meteor_cache(data), "meteor.bin"))
    except ValueError:
        return
    resources.synonym_sets("cars")
    stages = ("exact", "stem", "synonym", "paraphrase") if resources.has_paraphrases else ("exact", "stem", "synonym")
    fastamfm.meteor(*METEOR_PAIRS, resources=resources, stages=stages, workers=1)


def reference_statistics(data: bytes) -> None:
    """A distributed run's reference statistics (seeds written for the run "fuzz")."""
    from fastamfm.distributed.statistics import read_statistics_file

    try:
        statistics = read_statistics_file(_write(repair_checked_file(data), "reference-statistics.bin"), "fuzz")
    except ValueError:
        return
    for value in statistics.values():
        value.to_json()
        value + value


class FuzzEncoder:
    """A deterministic sentence encoder for the learned-scorer target (and its seeds)."""

    signature = "fuzz-encoder-8"

    def encode(self, sentences):
        out = np.zeros((len(sentences), 8))
        for i, s in enumerate(sentences):
            for word in s.split():
                out[i, sum(word.encode()) % 8] += 1.0 + len(word) / 10
        return out


def learned_scorer(data: bytes) -> None:
    """A learned-scorer file (ADEM or stacked combiner) read, then used to score."""
    from fastamfm.learned import LearnedScorer

    try:
        scorer = LearnedScorer.load(_write(repair_checked_file(data), "scorer.fastamfm"), encoder=FuzzEncoder())
    except ValueError:
        return
    refs = [[s] for s in SENTENCES[::-1]] if scorer.uses_references else None
    contexts = [[s] for s in SENTENCES] if scorer.uses_contexts else None
    columns = {name: np.arange(len(SENTENCES), dtype=float) for name in scorer.settings.get("given_columns", [])}
    try:
        scorer.score(SENTENCES, refs, contexts, columns=columns or None)
    except ValueError:
        pass  # a stacked combiner naming columns it cannot compute without their inputs


# --- states that __setstate__ takes (a pickle from a Dask worker) ----------------------
# A state travels as fields joined by STATE_SEPARATOR: text fields are lines, array fields
# little-endian integers (a trailing partial item dropped), so every mutation still
# decodes to some state and reaches the checks behind __setstate__.

STATE_SEPARATOR = b"\xff\xfe\xfd"


def encode_state(*fields) -> bytes:
    """Seeds: each field a list of str (lines) or a numpy integer array (its bytes)."""
    return STATE_SEPARATOR.join("\n".join(f).encode() if isinstance(f, list) else f.astype(f.dtype.newbyteorder("<"))
                                .tobytes() for f in fields)


def _fields(data: bytes, count: int) -> list:
    fields = data.split(STATE_SEPARATOR)
    return (fields + [b""] * count)[:count]


def _ints(raw: bytes, dtype: str) -> np.ndarray:
    size = np.dtype(dtype).itemsize
    return np.frombuffer(raw[:len(raw) // size * size], dtype=dtype).copy()


def _lines(raw: bytes) -> list:
    return raw.decode("utf-8", "replace").split("\n") if raw else []


def _restored(cls, state):
    obj = cls.__new__(cls)
    obj.__setstate__(state)
    return obj


def ngram_counts_state(data: bytes) -> None:
    """NgramCounts.__setstate__, then both estimators and a merge. Fields: words, the
    totals (u64 sentences, tokens, spilled runs, closed), then ids (u32) and counts (u64)
    of each order."""
    fields = _fields(data, 2 + 2 * 7)
    words, totals = _lines(fields[0]), _ints(fields[1], "<u8")
    totals = np.concatenate([totals, np.zeros(4, dtype=np.uint64)])[:4]
    orders = [(_ints(fields[2 + 2 * o], "<u4"), _ints(fields[3 + 2 * o], "<u8")) for o in range(7)]
    while orders and not len(orders[-1][1]):
        orders.pop()
    state = (words, orders, int(totals[0]), int(totals[1]), int(totals[2]), bool(totals[3] & 1))
    try:
        counts = [_restored(_core.NgramCounts, state) for _ in range(3)]
    except ValueError:
        return
    for smoothing, part in (("kneser-ney", counts[0]), ("katz", counts[1])):
        try:
            fastamfm.NgramLM.train_counted(part, smoothing=smoothing, workers=1).score(SENTENCES, workers=1)
        except ValueError:
            pass  # an empty corpus, Katz without counts of counts
    try:
        fastamfm.NgramLM.train_counted(_core.merge_ngram_counts(counts[2], _restored(_core.NgramCounts, state)),
                                       workers=1)
    except ValueError:
        pass


def counted_documents_state(data: bytes) -> None:
    """CountedDocuments.__setstate__, then an LSI model trained on the documents. Fields:
    offsets (u64), token ids (u64), counts (u32), type ids (u64), type words."""
    offsets, ids, counts, type_ids, words = _fields(data, 5)
    state = (_ints(offsets, "<u8"), _ints(ids, "<u8"), _ints(counts, "<u4"), _ints(type_ids, "<u8"), _lines(words))
    try:
        documents = _restored(_core.CountedDocuments, state)
    except ValueError:
        return
    try:
        lsi = fastamfm.LsiModel.train_counted([documents, documents], dims=2, workers=1, tokenize="whitespace")
    except ValueError:
        return  # an empty corpus
    lsi.transform(SENTENCES, workers=1)


def document_frequencies_state(data: bytes) -> None:
    """CIDEr's document frequencies as a Dask worker sends them (distributed.statistics),
    then CIDEr-D scored with them and two of them added. Fields: keys (u64), counts (u32),
    the segments they were counted over (u64)."""
    from fastamfm.distributed.statistics import _restore_document_frequencies

    keys, counts, segments = _fields(data, 3)
    segments = _ints(segments, "<u8")
    try:
        df = _restore_document_frequencies(2, "whitespace", False, _ints(keys, "<u8"), _ints(counts, "<u4"),
                                           int(segments[0]) if len(segments) else 0)
    except ValueError:
        return
    if not df.num_segments:
        return  # cider refuses an empty table (a ValueError of its own)
    refs = [[s] for s in SENTENCES[::-1]]
    for table in (df, df + df):
        fastamfm.cider(SENTENCES, refs, max_order=2, document_frequencies=table, workers=1)


def jsonl(data: bytes) -> None:
    try:
        io.read_jsonl(_write(data, "records.jsonl"))
    except ValueError:
        pass


def dstc_json(data: bytes) -> None:
    try:
        io.read_dstc_json(_write(data, "dialogues.json"))
    except ValueError:
        pass


def ratings_json(data: bytes) -> None:
    try:
        load_rated_turns(_write(data, "set_eval.json"))
    except ValueError:
        pass


def ratings_jsonl(data: bytes) -> None:
    try:
        load_rated_turns(_write(data, "ratings.jsonl"))
    except ValueError:
        pass


def text_lines(data: bytes) -> None:
    try:
        io.read_parallel_files([_write(data, "hyp.txt"), _write(data[::-1], "ref.txt")])
    except ValueError:
        pass


HARNESSES = {
    "tokenizer": tokenizer,
    "text_lines": text_lines,
    "arpa": arpa,
    "glove": _vector_text("glove"),
    "fasttext": _vector_text("fasttext"),
    "word2vec": _vector_text("word2vec"),
    "lm_binary": lm_binary,
    "lsi_binary": lsi_binary,
    "vector_cache": vector_cache,
    "meteor_cache": meteor_cache,
    "jsonl": jsonl,
    "reference_statistics": reference_statistics,
    "learned_scorer": learned_scorer,
    "dstc_json": dstc_json,
    "ratings_json": ratings_json,
    "ratings_jsonl": ratings_jsonl,
    "ngram_counts_state": ngram_counts_state,
    "counted_documents_state": counted_documents_state,
    "document_frequencies_state": document_frequencies_state,
}
