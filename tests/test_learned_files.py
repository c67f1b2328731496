"""Learned-scorer files whose checksum was recomputed after editing them (issue 29):
every field is checked after the checksum -- numbers finite, scales positive, shapes
against the settings, dims against the arrays -- and ``fit`` refuses absurd ratings and
too few samples for the reduction. Crafted files are written with the real container
(``checked_file``) so that only the meaning of their values is wrong."""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from fastamfm.learned import LearnedScorer
from fastamfm.learned.scorer_file import read_scorer_file, write_scorer_file
from test_learned import HashEncoder, rated_dialogues


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """An ADEM and a stacked combiner, saved."""
    directory = tmp_path_factory.mktemp("scorers")
    y, hyps, refs, contexts = rated_dialogues(60, seed=3)
    adem = directory / "adem.fastamfm"
    LearnedScorer.fit(y, hyps, refs, contexts, encoder=HashEncoder(), dims=5).save(adem)
    stack = directory / "stack.fastamfm"
    LearnedScorer.fit(y, hyps, refs, contexts, kind="stack", metrics=[],
                      columns={"x": np.arange(60.0), "y": np.sin(np.arange(60.0))}).save(stack)
    return {"adem": adem, "stack": stack}


def _edited(path, tmp_path, edit):
    header, arrays = read_scorer_file(path)
    arrays = {k: v.copy() for k, v in arrays.items()}
    edit(header, arrays)
    out = tmp_path / f"edited-{path.name}"
    try:
        write_scorer_file(out, header, arrays)    # a valid checksum over the edited content
    except ValueError:                             # NaN in the header: fastamfm never writes one
        _write_with_nan(out, header, arrays)
    return out


def _write_with_nan(path, header: dict, arrays: dict) -> None:
    """The container as ``checked_file`` writes it, with a header JSON that holds NaN."""
    import hashlib
    import json
    import struct

    entries, offset = [], 0
    for name, array in arrays.items():
        entries.append({"name": name, "dtype": array.dtype.str, "shape": list(array.shape), "offset": offset,
                        "nbytes": array.nbytes})
        offset += array.nbytes
    raw = json.dumps({**header, "arrays": entries}).encode()
    body = (struct.pack("<16sIQ", b"FASTAMFM-LEARNED", 1, len(raw)) + raw
            + b"".join(a.tobytes() for a in arrays.values()))
    path.write_bytes(body + hashlib.sha256(body).digest())


ADEM_EDITS = {
    "NaN alpha": (lambda h, a: h["model"].update(alpha=float("nan")), "unreadable header .*NaN is not a JSON"),
    "alpha a string": (lambda h, a: h["model"].update(alpha="nan"), "model.alpha is 'nan', not a finite number"),
    "zero beta": (lambda h, a: h["model"].update(beta=0.0), "model.beta is 0.0, must be positive"),
    "negative beta": (lambda h, a: h["model"].update(beta=-2.0), "model.beta is -2.0, must be positive"),
    "string penalty": (lambda h, a: h["model"].update(penalty="x"), "model.penalty is 'x'"),
    "negative penalty": (lambda h, a: h["model"].update(penalty=-1.0), "model.penalty is -1.0"),
    "dims above the arrays": (lambda h, a: h["settings"].update(dims=7), r"expected float64\[16, 7\]"),
    "dims zero": (lambda h, a: h["settings"].update(dims=0), "settings.dims is 0"),
    "dims above the vectors": (lambda h, a: h["settings"].update(dims=99), "more than the 16 dimensions"),
    "decay above 1": (lambda h, a: h["settings"].update(context_decay=3), "context_decay is 3.0"),
    "unknown prior": (lambda h, a: h["settings"].update(prior="evil"), "settings.prior is 'evil'"),
    "NaN in M": (lambda h, a: a["context_weights"].__setitem__((0, 0), np.nan), "'context_weights' holds NaN"),
    "inf in the PCA mean": (lambda h, a: a["pca_mean"].__setitem__(3, np.inf), "'pca_mean' holds NaN or inf"),
    "M of the wrong shape": (lambda h, a: a.update(context_weights=np.zeros((5, 4))), r"float64\[5, 5\]"),
    "M and N missing": (lambda h, a: [a.pop("context_weights"), a.pop("reference_weights")],
                        "neither 'context_weights' nor 'reference_weights'"),
    "components not orthonormal": (lambda h, a: a["pca_components"].__imul__(2.0), "not hold orthonormal"),
    "components as integers": (lambda h, a: a.update(pca_components=np.ones((16, 5), dtype=np.int64)),
                               r"int64\[16, 5\]"),
    "an extra array": (lambda h, a: a.update(extra=np.zeros(2)), r"unexpected arrays \['extra'\]"),
    "settings not an object": (lambda h, a: h.update(settings=[1]), "'settings' and 'model' must be objects"),
}
STACK_EDITS = {
    "zero scale": (lambda h, a: a["scales"].__setitem__(0, 0.0), "'scales' holds a value that is not positive"),
    "negative nonneg weight": (lambda h, a: a["weights"].__setitem__(1, -1.0), "'weights' holds a negative value"),
    "infinite intercept": (lambda h, a: h["model"].update(intercept=float("inf")), "Infinity is not a JSON"),
    "intercept null": (lambda h, a: h["model"].update(intercept=None), "model.intercept is None"),
    "columns and arrays disagree": (lambda h, a: h["model"].update(columns=["x"]), "not the settings' metrics"),
    "duplicate columns": (lambda h, a: h["model"].update(columns=["x", "x"]), "not a list of distinct strings"),
    "arrays too long": (lambda h, a: a.update(means=np.zeros(3)), r"expected float64\[2\]"),
    "unknown metric": (lambda h, a: [h["settings"].update(metrics=["EVIL"]),
                                     h["model"].update(columns=["EVIL", "x", "y"])], "unknown metric column 'EVIL'"),
    "unknown weighting": (lambda h, a: h["model"].update(weighting="evil"), "model.weighting is 'evil'"),
    "flag not a bool": (lambda h, a: h["settings"].update(uses_references="yes"), "uses_references is 'yes'"),
}


@pytest.mark.parametrize("kind, edit", [("adem", e) for e in ADEM_EDITS] + [("stack", e) for e in STACK_EDITS])
def test_edited_files_with_a_valid_checksum_are_format_errors(saved, tmp_path, kind, edit):
    change, message = (ADEM_EDITS if kind == "adem" else STACK_EDITS)[edit]
    path = _edited(saved[kind], tmp_path, change)
    with pytest.raises(fastamfm.FormatError, match=message) as info:
        LearnedScorer.load(path, encoder=HashEncoder())
    assert info.value.path == str(path)


def test_unedited_files_still_load(saved):
    y, hyps, refs, contexts = rated_dialogues(10, seed=4)
    assert np.isfinite(LearnedScorer.load(saved["adem"], encoder=HashEncoder()).score(hyps, refs, contexts)
                       .sentences["Learned"]).all()


@pytest.mark.parametrize("value", [1e308, -1e308, 1e10])
def test_fit_refuses_absurd_ratings(value):
    y, hyps, refs, contexts = rated_dialogues(40, seed=5)
    y[7] = value
    for kind in ("adem", "stack"):
        with pytest.raises(ValueError, match=r"ratings\[7\] is .*: ratings must lie within \+-1e\+09"):
            LearnedScorer.fit(y, hyps, refs, contexts, kind=kind, encoder=HashEncoder(), metrics=[],
                              columns={"x": np.arange(40.0)})


def test_fit_refuses_fewer_samples_than_the_reduction_needs():
    y, hyps, refs, contexts = rated_dialogues(7, seed=6)
    with pytest.raises(ValueError, match="dims=7 dimensions: it needs more rated responses than that, got 7"):
        LearnedScorer.fit(y, hyps, refs, contexts, encoder=HashEncoder(), dims=7)
    assert LearnedScorer.fit(y, hyps, refs, contexts, encoder=HashEncoder(), dims=6).kind == "adem"
