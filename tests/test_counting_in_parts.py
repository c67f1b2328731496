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
from fastamfm.tokenization import make_tokenizer

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


def _with_grams(counts, order, extra):
    """The state of ``counts`` with the n-grams ``extra`` (tuples of words) added to ``order``, kept sorted."""
    words, orders, *totals = counts.__getstate__()
    ids, grams = orders[order - 1]
    have = [tuple(int(w) for w in ids[i * order:(i + 1) * order]) for i in range(len(grams))]
    added = sorted(set(have) | {tuple(words.index(w) for w in gram) for gram in extra})
    new_counts = [int(grams[have.index(g)]) if g in have else 1 for g in added]
    orders = list(orders)
    orders[order - 1] = (np.array([w for g in added for w in g], dtype=ids.dtype), np.array(new_counts, dtype=grams.dtype))
    return (words, orders, *totals)


def test_counts_without_the_prefixes_and_suffixes_of_their_ngrams_are_refused():
    """Kneser-Ney and Katz look up each n-gram's suffix and prefix one order down without a
    check: a pickled state without them indexed past the tables ("double free or
    corruption" on train_counted). __setstate__ now refuses it, naming the n-gram."""
    counts = NgramLM.count(["a b"], order=3)
    with pytest.raises(ValueError, match=r"order 3 holds 'a a a' but order 2 lacks its prefix 'a a' "
                                         r"\(the counts of a corpus hold both\)"):
        _restored(counts, _with_grams(counts, 3, [("a", "a", "a")]))
    with pytest.raises(ValueError, match="order 3 holds '<s> a a' but order 2 lacks its suffix 'a a'"):
        _restored(counts, _with_grams(counts, 3, [("<s>", "a", "a")]))
    # Not counted, but closed (every word is a unigram): accepted, estimation can use it.
    bigrams = NgramLM.count(["a b"], order=2)
    NgramLM.train_counted(_restored(bigrams, _with_grams(bigrams, 2, [("b", "a")])))
    words, orders, *totals = counts.__getstate__()
    zero = (words, [orders[0], (orders[1][0], np.zeros_like(orders[1][1])), orders[2]], *totals)
    with pytest.raises(ValueError, match="with a count of 0"):
        _restored(counts, zero)
    with pytest.raises(ValueError, match="the word 'a' is listed twice"):
        _restored(counts, ([*words[:-1], "a"], orders, *totals))
    # The counts a corpus gives pass, and train as before.
    assert NgramLM.train_counted(_restored(counts, counts.__getstate__())).fingerprint == \
        NgramLM.train(["a b"], order=3).fingerprint


def test_counted_documents_and_document_frequencies_from_a_pickle_are_checked():
    documents = count_documents(["a b", "c"], tokenize="whitespace")
    offsets, ids, counts, type_ids, type_words = documents.__getstate__()
    # An offset far past the ids in the middle (the last one right) was read past them: found by
    # tests/fuzz's counted_documents_state target.
    far = np.array([0, 1 << 40, len(ids)], dtype=offsets.dtype)
    with pytest.raises(ValueError, match="offsets decrease at document 1"):
        _restored(documents, (far, ids, counts, type_ids, type_words))
    with pytest.raises(ValueError, match="type id 0 is not the hash of its word"):
        _restored(documents, (offsets, ids, counts, type_ids, ["x", *type_words[1:]]))
    table = _core.DocumentFrequency(2)
    with pytest.raises(ValueError, match="entry 1: keys must be ascending and distinct"):
        table.add_entries(np.array([5, 5], dtype=np.uint64), np.array([1, 1], dtype=np.uint32), 2)
    with pytest.raises(ValueError, match=r"entry 0: count 3 outside 1..2"):
        table.add_entries(np.array([5], dtype=np.uint64), np.array([3], dtype=np.uint32), 2)
    assert table.num_ngrams == 0  # nothing of a refused table was added


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
