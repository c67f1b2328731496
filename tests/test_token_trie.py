"""The prefix tree behind tree-attention scoring: every node is in a row with all its
ancestors, rows respect their capacity, shared prefixes are stored once."""
from __future__ import annotations

import numpy as np
from fastamfm.neural.token_trie import TokenTrie
from hypothesis import given, settings
from hypothesis import strategies as st

sequences = st.lists(st.lists(st.integers(0, 4), min_size=1, max_size=9).map(tuple), min_size=1, max_size=25)


def check_rows(trie: TokenTrie, rows, capacity: int) -> None:
    deepest = max(trie.depth) + 1
    seen = set()
    for row in rows:
        assert len(row) <= max(capacity, deepest)
        assert len(set(row.nodes.tolist())) == len(row)
        index = {int(n): i for i, n in enumerate(row.nodes)}
        for i, node in enumerate(row.nodes):
            parent = trie.parent[node]
            assert row.parents[i] == (index[parent] if parent >= 0 else -1)   # the parent is in the row, before it
            assert row.parents[i] < i
            assert row.tokens[i] == trie.token[node] and row.positions[i] == trie.depth[node]
        seen.update(index)
    assert seen == set(range(len(trie)))


@settings(max_examples=200, deadline=None)
@given(sequences, st.integers(1, 12), st.booleans())
def test_rows_cover_every_node_with_its_ancestors(seqs, capacity, shared):
    trie = TokenTrie(seqs, shared=shared)
    check_rows(trie, trie.pack(capacity), capacity)
    for seq, path in zip(seqs, trie.paths):
        assert [trie.token[n] for n in path] == list(seq)
        assert all(trie.parent[b] == a for a, b in zip(path, path[1:]))


def test_shared_prefixes_are_stored_once():
    seqs = [(0, 5, 6, 7), (0, 5, 6, 8), (0, 5, 6, 7), (0, 9)]
    trie = TokenTrie(seqs)
    assert len(trie) == 6                    # 0, 5, 6, 7, 8, 9
    assert trie.paths[0] == trie.paths[2]
    assert len(TokenTrie(seqs, shared=False)) == sum(map(len, seqs))


def test_ancestor_mask():
    trie = TokenTrie([(1, 2, 3), (1, 4)])
    (row,) = trie.pack(16)
    mask = row.ancestor_mask()
    tokens = row.tokens.tolist()
    at = {t: i for i, t in enumerate(tokens)}
    assert mask[at[3]].nonzero()[0].tolist() == sorted([at[1], at[2], at[3]])
    assert mask[at[4]].nonzero()[0].tolist() == sorted([at[1], at[4]])
    np.testing.assert_array_equal(np.diag(mask), True)


def test_a_sequence_deeper_than_the_capacity_gets_a_row_of_its_own():
    trie = TokenTrie([tuple(range(10)), (0, 1, 99)])
    rows = trie.pack(4)
    check_rows(trie, rows, 4)
    assert max(len(r) for r in rows) == 10


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 600), min_size=0, max_size=40), st.integers(1, 4096),
       st.one_of(st.none(), st.floats(0, 0.5)))
def test_padded_batches_cover_the_rows_in_order_within_the_budgets(lengths, budget, max_padding):
    """Rows sorted longest first fall into consecutive batches; each within the padded-token
    budget (or a single row) and, with ``max_padding``, at most that share padding."""
    from fastamfm.neural.batching import padded_batches

    lengths = sorted(lengths, reverse=True)
    batches = padded_batches(lengths, budget, max_padding)
    assert [i for b in batches for i in b] == list(range(len(lengths)))
    for batch in batches:
        padded = len(batch) * lengths[batch[0]]
        assert len(batch) == 1 or padded <= budget
        if max_padding is not None and len(batch) > 1:
            assert padded - sum(lengths[i] for i in batch) <= max_padding * padded


def test_uneven_rows_get_passes_of_their_own_on_a_cpu():
    """A 499-node row and a 78-node one: one padded pass of 998 tokens without a padding
    limit (a GPU), two passes of 577 real tokens with the CPU's 5%."""
    from fastamfm.neural.batching import padded_batches
    from fastamfm.neural.transformers_engine import CPU_MAX_PADDING

    assert padded_batches([499, 78], 4096) == [[0, 1]]
    assert padded_batches([499, 78], 4096, CPU_MAX_PADDING) == [[0], [1]]
    assert padded_batches([300, 296, 290, 120], 4096, CPU_MAX_PADDING) == [[0, 1, 2], [3]]
