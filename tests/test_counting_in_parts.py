"""Training from a corpus counted in parts (what fastamfm.distributed.train does on a
cluster, here in one process): LSI term-document rows and n-gram counts of parts, added
in corpus order, give the models of the whole corpus bit for bit; the counts survive
pickling; malformed counts are clear errors."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from amfm_helpers import tiny_corpus
from fastamfm import _core
from fastamfm.amfm.lm import NgramLM
from fastamfm.amfm.lsi import LsiModel, count_documents
from fastamfm.tokenize import make_tokenizer

CORPUS = tiny_corpus(2000) + ["", "Ünïcode wörds, here!", "a a a b b", "<s> </s> <unk> x"] * 3
CUTS = [(0, 700), (700, 701), (701, 1500), (1500, len(CORPUS))]


@pytest.mark.parametrize("weighting", ["counts", "tfidf", "log-entropy"])
@pytest.mark.parametrize("tokenize", ["amfm", "whitespace"])
def test_lsi_from_parts_equals_lsi_of_the_whole(weighting, tokenize):
    whole = LsiModel.train(CORPUS, dims=6, weighting=weighting, tokenize=tokenize, workers=2)
    parts = [pickle.loads(pickle.dumps(count_documents(CORPUS[a:b], tokenize=tokenize, workers=1)))
             for a, b in CUTS]
    assert sum(p.num_docs for p in parts) == len(CORPUS)
    spread = LsiModel.train_counted(parts, dims=6, weighting=weighting, tokenize=tokenize, workers=2)
    assert spread.fingerprint == whole.fingerprint
    assert spread.vocabulary == whole.vocabulary


@pytest.mark.parametrize("smoothing", ["kneser-ney", "katz"])
def test_lm_from_merged_parts_equals_lm_of_the_whole(smoothing):
    whole = NgramLM.train(CORPUS, order=4, smoothing=smoothing, workers=2)
    counts = [pickle.loads(pickle.dumps(NgramLM.count(CORPUS[a:b], order=4, workers=1))) for a, b in CUTS]
    # Merging is associative as long as corpus order is kept: ((0 1) (2 3)).
    merged = _core.merge_ngram_counts(_core.merge_ngram_counts(counts[0], counts[1]),
                                      _core.merge_ngram_counts(counts[2], counts[3]))
    assert merged.sentences == len(CORPUS)
    spread = NgramLM.train_counted(merged, smoothing=smoothing, workers=2)
    assert spread.fingerprint == whole.fingerprint
    assert spread.vocabulary == whole.vocabulary
    assert spread.training_stats["tokens"] == whole.training_stats["tokens"]
    with pytest.raises(ValueError, match="already used"):
        NgramLM.train_counted(merged)


def test_closed_vocabulary_parts_merge():
    vocab = ["we", "can", "check", "your", "flight"]
    whole = NgramLM.train(CORPUS, order=3, vocab=vocab)
    counts = [NgramLM.count(CORPUS[a:b], order=3, vocab=vocab) for a, b in CUTS]
    merged = counts[0]
    for part in counts[1:]:
        merged = _core.merge_ngram_counts(merged, part)
    assert NgramLM.train_counted(merged).fingerprint == whole.fingerprint


def _restored(obj, state):
    """``obj``'s class unpickled from ``state`` (as pickle.loads would)."""
    new = type(obj).__new__(type(obj))
    new.__setstate__(state)
    return new


def test_malformed_counts_are_errors():
    counts = NgramLM.count(["a b c", "b c d"], order=2)
    words, orders, sentences, tokens, spilled, closed = counts.__getstate__()
    ids, grams = orders[1]
    with pytest.raises(ValueError, match="not sorted or repeated"):
        _restored(counts, (words, [orders[0], (ids[::-1].copy(), grams[::-1].copy())], sentences, tokens, spilled,
                           closed))
    with pytest.raises(ValueError, match="outside the vocabulary"):
        _restored(counts, (words, [orders[0], (np.full_like(ids, 99), grams)], sentences, tokens, spilled, closed))
    with pytest.raises(ValueError, match="merge n-gram counts of order 2 and 3"):
        _core.merge_ngram_counts(counts, NgramLM.count(["a b"], order=3))
    with pytest.raises(ValueError, match="empty corpus"):
        NgramLM.train_counted(NgramLM.count(["", ""], order=2))
    taken, also_taken = NgramLM.count(["a b c"], order=2), NgramLM.count(["b c d"], order=2)
    NgramLM.train_counted(taken)
    NgramLM.train_counted(also_taken)
    for use in (lambda: NgramLM.train_counted(taken), lambda: _core.merge_ngram_counts(taken, also_taken),
                lambda: _core.merge_ngram_counts(counts, taken)):
        with pytest.raises(ValueError, match="already used to train a model"):  # merging two segfaulted
            use()
    documents = count_documents(["a b", "c"])
    offsets, doc_ids, doc_counts, type_ids, type_words = documents.__getstate__()
    with pytest.raises(ValueError, match="has no word in the type table"):
        _restored(documents, (offsets, doc_ids, doc_counts, type_ids[:1].copy(), type_words[:1]))
    with pytest.raises(TypeError, match="expected CountedDocuments"):
        LsiModel.train_counted([["a b"]], dims=1)


def test_a_finished_counter_refuses_more_work(tmp_path):
    """finish() hands the tables over (emptied, their n-gram length with them): counting
    into a finished counter crashed a worker thread (segfault); now it is a clear error."""
    counter = _core.NgramCounter(3, 1 << 30, str(tmp_path), 2, make_tokenizer("whitespace"), [])
    counter.add(["a b c", "b c d"])
    assert counter.finish().counts() == [7, 7, 6]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a b c d e\n")
    for again in (lambda: counter.add(["a b c d e"]), lambda: counter.add_file(str(corpus)), counter.finish,
                  lambda: _core.NgramModel.train(counter, "kneser-ney", (0.5, 1.0, 1.5), [], [], 0.0, "", 2)):
        with pytest.raises(ValueError, match="NgramCounter was already finished"):
            again()
    assert (counter.sentences, counter.tokens) == (2, 6)
