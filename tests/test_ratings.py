"""Reading human-rated responses (DSTC-10 JSON and jsonl) with clear errors."""
import json

import numpy as np
import pytest
from fastamfm.analysis.ratings import load_dstc10_dev, load_rated_turns


def test_dstc10_dev_sets(dstc10_dir):
    sets = load_dstc10_dev(dstc10_dir)
    assert {n: len(s) for n, s in sets.items()} == {
        "convai2-grade": 600, "dailydialog-zhao": 900, "empathetic-grade": 300, "fed-turn": 375, "persona-usr": 300}
    assert sets["dailydialog-zhao"].aspect == "appropriateness"
    assert sets["persona-usr"].aspect == "Overall" and sets["persona-usr"].refs is not None
    assert sets["convai2-grade"].refs is None and sets["convai2-grade"].aspect == "relevance"
    assert all(np.isfinite(s.ratings).all() for s in sets.values())


def test_jsonl_and_subset(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"hyp": "a b", "refs": ["a"], "context": "x\ny", "rating": 3, "system": "s1"},
        {"hyp": "c", "refs": ["d", "e"], "context": ["z"], "rating": 1.5}]) + "\n")
    turns = load_rated_turns(path)
    assert turns.contexts == [["x", "y"], ["z"]] and turns.systems == ["s1", "unknown"]
    sub = turns.subset([1])
    assert sub.hyps == ["c"] and sub.refs == [["d", "e"]] and sub.ratings.tolist() == [1.5]


@pytest.mark.parametrize("record, message", [
    ({"hyp": "a", "rating": float("nan")}, "not a finite number"),
    ({"hyp": "a"}, "expected an object with 'hyp' and 'rating'"),
    ({"hyp": "a", "rating": 1, "refs": []}, "refs must be a non-empty list"),
])
def test_bad_jsonl_names_line(tmp_path, record, message):
    path = tmp_path / "r.jsonl"
    first = {"hyp": "ok", "rating": 1, **({"refs": ["r"]} if "refs" in record else {})}
    path.write_text(json.dumps(first) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(ValueError, match=f"r.jsonl:2: .*{message}"):
        load_rated_turns(path)


def test_bad_dstc10_record(tmp_path):
    path = tmp_path / "x_eval.json"
    path.write_text(json.dumps([{"response": "a", "context": "b", "annotations": {"relevance": ["high"]}}]))
    with pytest.raises(ValueError, match="record 1: annotations\\['relevance'\\]: rater score 'high'"):
        load_rated_turns(path)
