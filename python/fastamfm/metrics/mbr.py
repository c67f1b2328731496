"""Minimum Bayes risk (MBR) selection: per source, the candidate with the highest expected
utility against pseudo-references (by default the other candidates: the consensus).

The utility of candidate i is the mean of ``pairwise(candidates, references, metric=...)[i]``;
with the candidates as their own references (``references=None``) a candidate is not
compared with itself (``exclude_self``), as in sampling-based MBR (Freitag et al. 2022).
Ties go to the first candidate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import as_text_list
from .pairwise import pairwise


@dataclass(frozen=True)
class MbrSelection:
    """``index[s]``: the chosen candidate of source s; ``text[s]`` its text;
    ``utility[s]``: its expected utility; ``utilities[s]``: every candidate's.

    The result of ``mbr_select``.

    Parameters
    ----------
    index : numpy.ndarray
        int [S]: per source, the index of the chosen candidate.
    text : list of str
        Per source, the chosen candidate.
    utility : numpy.ndarray
        float64 [S]: its expected utility.
    utilities : list of numpy.ndarray
        Per source, the expected utility of every candidate.

    Examples
    --------
    >>> import fastamfm
    >>> selection = fastamfm.mbr_select(["the cat sat on the mat", "the cat sat on a mat", "a dog ran"])
    >>> selection.text, selection.utilities[0].round(4).tolist()
    (['the cat sat on the mat'], [39.7461, 36.8658, 4.7098])
    """

    index: np.ndarray
    text: list
    utility: np.ndarray
    utilities: list


def mbr_select(candidates, references=None, *, metric: str = "chrf", exclude_self: bool = True,
               workers: int = -1, **options) -> MbrSelection:
    """The consensus candidate of each source.

    ``candidates``: per source a list of candidate texts (or one list: a single source);
    ``references``: per source a list of pseudo-references (None: the candidates
    themselves); ``metric`` and ``options`` as ``fastamfm.pairwise``.

    Parameters
    ----------
    candidates : sequence of sequences of str, or sequence of str
        Per source its candidates; one list of strings is a single source.
    references : sequence of sequences of str, or sequence of str, optional
        Per source its pseudo-references (as many sources as ``candidates``); None: the
        candidates of each source against each other.
    metric : str, default "chrf"
        The utility: a metric with a pairwise form (see ``fastamfm.pairwise``).
    exclude_self : bool, default True
        With ``references=None``, leave each candidate's score against itself out of its mean.
    workers : int, default -1
        Threads (-1: every core).
    **options
        The metric's own options, as ``fastamfm.pairwise`` takes them.

    Returns
    -------
    MbrSelection
        Per source (one entry for a single source): the chosen ``index``, its ``text``, its
        expected ``utility`` and every candidate's ``utilities``; ties go to the first candidate.

    Raises
    ------
    ValueError
        ``candidates`` (or a source's) empty, as many sources of references as of
        candidates not given, or what ``fastamfm.pairwise`` rejects.
    TypeError
        Candidates or references that are not strings.

    Examples
    --------
    >>> import fastamfm
    >>> selection = fastamfm.mbr_select([["the cat sat on the mat", "the cat sat on a mat", "a dog ran"],
    ...                                  ["yes", "yes sure", "no"]])
    >>> selection.index.tolist(), selection.text
    ([0, 1], ['the cat sat on the mat', 'yes sure'])
    >>> selection.utility.round(4).tolist()
    [39.7461, 35.1182]
    """
    candidates = as_text_list(candidates, "candidates")
    single = all(isinstance(c, str) for c in candidates)
    sources = [candidates] if single else [as_text_list(c, f"candidates[{s}]") for s, c in enumerate(candidates)]
    if references is None:
        ref_sets: list[list[str] | None] = [None] * len(sources)
    else:
        references = as_text_list(references, "references")
        ref_sets = [references] if single else [as_text_list(r, f"references[{s}]")
                                                for s, r in enumerate(references)]
        if len(ref_sets) != len(sources):
            raise ValueError(f"mbr_select: {len(sources)} sources of candidates but {len(ref_sets)} of references")
    index, text, utility, utilities = [], [], [], []
    for s, (cands, refs) in enumerate(zip(sources, ref_sets)):
        matrix = pairwise(cands, refs, metric=metric, workers=workers, **options).astype(np.float64)
        if refs is None and exclude_self and len(cands) > 1:
            np.fill_diagonal(matrix, 0.0)
            expected = matrix.sum(axis=1) / (len(cands) - 1)
        else:
            expected = matrix.mean(axis=1)
        best = int(np.argmax(expected))
        index.append(best)
        text.append(cands[best])
        utility.append(expected[best])
        utilities.append(expected)
    return MbrSelection(np.asarray(index), text, np.asarray(utility), utilities)
