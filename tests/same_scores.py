"""Equality of score dicts across entry points, chunkings and partitionings.

Neural metrics run float32 matrix products whose rounding depends on how sentences are
batched and padded: across chunkings and partitionings they agree to float32 precision,
not to the bit. Every other column must be equal to the bit."""
from __future__ import annotations

import pytest

NEURAL_COLUMNS = ("deep_am", "bertscore_precision", "bertscore_recall", "bertscore_f1", "deep_fm", "deep_amfm_am",
                  "deep_amfm_fm", "deep_amfm", "deep_amfm_normalized")


def assert_same_scores(got: dict, want: dict, what) -> None:
    """The same columns; the neural ones equal to float32 precision, every other one to the bit."""
    assert set(got) == set(want), what
    for column, value in want.items():
        if column in NEURAL_COLUMNS:
            assert got[column] == pytest.approx(value, rel=1e-6), (what, column)
        else:
            assert got[column] == value, (what, column)
