"""Writes the seed inputs of every fuzz target into corpus/<target>/seed-*: small valid
files of each format (built by fastamfm itself for the binary ones), so that mutation
starts from inputs that reach deep into each reader.

    PYTHONPATH=python python tests/fuzz/make_seeds.py
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import fastamfm
import numpy as np
from fastamfm import _core

CORPUS = Path(__file__).resolve().parent / "corpus"
SENTENCES = ["w1 w2 w3", "w2 w3 w1", "the cat sat on the mat", "w1 the cat", "a big car"]
ARPA = ("\\data\\\nngram 1=5\nngram 2=2\n\n\\1-grams:\n-1.0\t<unk>\t0\n-1.0\t<s>\t-0.5\n-0.7\ta\t-0.3\n"
        "-inf\tb\n-1.0\t</s>\t0\n\n\\2-grams:\n-0.5\t<s> a\n-0.2\ta b\n\n\\end\\\n")


def _vectors(words):
    return np.round(np.random.default_rng(0).standard_normal((len(words), 3)), 3).astype(np.float32)


def _reference_statistics(path: Path) -> bytes:
    from fastamfm.distributed.statistics import write_statistics_file

    refs = [[s] for s in SENTENCES]
    statistics = fastamfm.Pipeline.from_names(["bleu", "distinct"]).score(SENTENCES, refs).extra["statistics"]
    write_statistics_file(path, {**statistics, "cider": fastamfm.DocumentFrequencies(max_order=2).update(refs)}, "fuzz")
    return path.read_bytes()


def _learned_scorers(tmp: Path) -> list:
    from fastamfm.learned import LearnedScorer
    from harnesses import FuzzEncoder

    rng = np.random.default_rng(0)
    hyps = [" ".join(rng.choice(SENTENCES[2].split(), 3)) for _ in range(12)]
    refs, contexts, y = [[h[::-1]] for h in hyps], [[h.upper(), "w1"] for h in hyps], rng.normal(size=12)
    LearnedScorer.fit(y, hyps, refs, contexts, encoder=FuzzEncoder(), dims=3).save(tmp / "adem.fastamfm")
    LearnedScorer.fit(y, hyps, None, contexts, encoder=FuzzEncoder(), dims=2).save(tmp / "adem-free.fastamfm")
    LearnedScorer.fit(y, hyps, refs, kind="stack", metrics=[], columns={"x": np.arange(12.0)}).save(
        tmp / "stack.fastamfm")
    return [(tmp / name).read_bytes() for name in ("adem.fastamfm", "adem-free.fastamfm", "stack.fastamfm")]


def _states() -> dict:
    """What __setstate__ takes, as the setstate harnesses decode it (harnesses.encode_state)."""
    from fastamfm.amfm.lsi import count_documents
    from harnesses import encode_state

    words, orders, sentences, tokens, spilled, closed = fastamfm.NgramLM.count(SENTENCES, order=3).__getstate__()
    totals = np.array([sentences, tokens, spilled, closed], dtype=np.uint64)
    counts = encode_state(words, totals, *[array for pair in orders for array in pair])
    offsets, ids, doc_counts, type_ids, type_words = count_documents(SENTENCES, tokenize="whitespace").__getstate__()
    documents = encode_state(offsets, ids, doc_counts, type_ids, type_words)
    keys, df_counts = fastamfm.DocumentFrequencies(max_order=2).update([[s] for s in SENTENCES]).table.entries()
    frequencies = encode_state(keys, df_counts, np.array([len(SENTENCES)], dtype=np.uint64))
    return {"ngram_counts_state": [counts], "counted_documents_state": [documents],
            "document_frequencies_state": [frequencies]}


def seeds() -> dict:
    words = ["the", "cat", "w1", "w2"]
    matrix = _vectors(words)
    text_rows = "".join(w + " " + " ".join(f"{v:.3f}" for v in row) + "\n" for w, row in zip(words, matrix))
    w2v = f"{len(words)} 3\n".encode() + b"".join(w.encode() + b" " + row.astype("<f4").tobytes() + b"\n"
                                                 for w, row in zip(words, matrix))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        fastamfm.NgramLM.train(SENTENCES, order=2).save(tmp / "lm.model")
        fastamfm.LsiModel.train(SENTENCES, dims=2).save(tmp / "lsi.model")
        (tmp / "v.txt").write_text(text_rows)
        cache = fastamfm.WordVectors.load(tmp / "v.txt", cache_dir=tmp / "cache").cache_path
        _core.MeteorResources.build(function_words=b"the\na\n", synsets=b"car\n1 2\nautomobile\n2\n",
                                    exceptions=b"big\nbigger\n", nonbreaking_prefixes=b"Mr\n",
                                    paraphrases=b"0.5\nthank you\nthanks\n").save(str(tmp / "meteor.bin"))
        binary = {name: (tmp / file).read_bytes() for name, file in
                  (("lm_binary", "lm.model"), ("lsi_binary", "lsi.model"), ("meteor_cache", "meteor.bin"))}
        binary["vector_cache"] = Path(cache).read_bytes()
        binary["reference_statistics"] = _reference_statistics(tmp / "reference-statistics.bin")
        binary["learned_scorer"] = _learned_scorers(tmp)
    record = {"hyp": "the cat", "refs": ["a cat", "the dog"]}
    dstc = [{"context": "hi\nhello", "response": "the cat", "reference": ["a cat"]}]
    rated = [{"context": "hi", "response": "ok", "model": "S1", "annotations": {"Overall": [3, 4]}}]
    return {
        "tokenizer": [b"The Cat's 100% well-known, isn't it?", "Ｆｕｌｌ　ｗｉｄｔｈ – ÉTÉ".encode()],
        "text_lines": [b"one line\r\ntwo\n\nthree"],
        "arpa": [ARPA.encode()],
        "glove": [text_rows.encode()],
        "fasttext": [f"{len(words)} 3\n{text_rows}".encode()],
        "word2vec": [w2v],
        "jsonl": [(json.dumps(record) + "\n\n" + json.dumps({"hyp": "x", "refs": "y"}) + "\n").encode()],
        "dstc_json": [json.dumps(dstc).encode(), (json.dumps(dstc[0]) + "\n").encode()],
        "ratings_json": [json.dumps(rated).encode()],
        "ratings_jsonl": [(json.dumps({"hyp": "ok", "rating": 3.5, "refs": ["fine"], "context": ["hi"]}) +
                           "\n").encode()],
        **{name: (data if isinstance(data, list) else [data]) for name, data in binary.items()},
        **_states(),
    }


def main() -> None:
    for target, inputs in seeds().items():
        directory = CORPUS / target
        directory.mkdir(parents=True, exist_ok=True)
        for i, data in enumerate(inputs):
            (directory / f"seed-{i}").write_bytes(data)


if __name__ == "__main__":
    main()
