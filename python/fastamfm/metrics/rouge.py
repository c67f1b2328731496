"""ROUGE-L as pycocoevalcap 1.2 / nlg-eval compute it (or rouge-score's multi-reference rule)."""
from __future__ import annotations

from .. import _core
from .._validation import check_choice, check_positive, check_workers
from ..registry import Chunk, MeanStatistics, Metric, register
from ..result import MetricResult, make_signature
from ..tokenization import make_tokenizer, prepare_texts

MULTI_REF = ("max-pr", "max-f")


@register
class RougeL(Metric):
    """ROUGE-L F-measure (see ``rouge_l``)."""

    name = "rouge_l"
    columns = ("ROUGE_L",)
    renamed_columns = {"rouge_l": "ROUGE_L"}
    # "rougeL" names rouge-score's column (metric "rouge"), a different number.
    aliases = ("rouge-l",)
    default = True

    def __init__(self, *, beta: float = 1.2, multi_ref: str = "max-pr", tokenize: str = "whitespace",
                 lowercase: bool = False, workers: int = -1):
        self.beta = check_positive(beta, "beta", "rouge_l")
        self.multi_ref = check_choice(multi_ref, "multi_ref", MULTI_REF, "rouge_l")
        self.tokenizer = make_tokenizer(tokenize, lowercase)
        self.workers = check_workers(workers, "rouge_l")
        # pycocoevalcap sees nlg-eval's lines stripped and split on single spaces.
        self.split_like_pycoco = multi_ref == "max-pr" and self.tokenizer.preset == "whitespace"

    def signature(self) -> str:
        return make_signature("rouge_l", beta=self.beta, multi_ref=self.multi_ref, tok=self.tokenizer.describe(),
                              split="pycoco" if self.split_like_pycoco else "tokenizer")

    def _space_split(self, owner, texts, what: str):
        return owner.derived(("rouge_l.split_on_spaces", self.tokenizer.describe()), lambda: _core.split_on_spaces(
            prepare_texts(texts, self.tokenizer, what), self.tokenizer.lowercase, self.workers))

    def update(self, batch) -> Chunk:
        hyps, refs = batch.hyps, batch.refs
        if not refs.reusable:
            # References scored once: straight from text, no token tables kept.
            sentences = _core.rouge_l_text(prepare_texts(hyps.texts, self.tokenizer, "hyps"),
                                           prepare_texts(refs.flat_texts, self.tokenizer, "references"),
                                           refs.segment_offsets, self.tokenizer, self.split_like_pycoco,
                                           self.beta, self.multi_ref, self.workers)
        elif self.split_like_pycoco:
            sentences = _core.rouge_l_split_on_spaces(self._space_split(hyps, hyps.texts, "hyps"),
                                                      self._space_split(refs, refs.flat_texts, "references"),
                                                      refs.segment_offsets, self.beta, self.multi_ref, self.workers)
        else:
            sentences = _core.rouge_l(hyps.encoded(self.tokenizer), refs.encoded_with(self.tokenizer), self.beta,
                                      self.multi_ref, self.workers)
        columns = {"ROUGE_L": sentences}
        return Chunk(columns, MeanStatistics.of(columns))



def rouge_l(hyps, refs, *, beta: float = 1.2, multi_ref: str = "max-pr", tokenize: str = "whitespace",
            lowercase: bool = False, workers: int = -1, layout: str | None = None) -> MetricResult:
    """ROUGE-L F-measure per hypothesis and its mean over the corpus.

    Default: pycocoevalcap's ``Rouge`` (nlg-eval's ROUGE_L): LCS against each reference,
    precision and recall each maximised over references ("max-pr"), then
    ``F = (1 + beta^2) P R / (R + beta^2 P)`` with beta = 1.2. With the whitespace
    preset the text is seen exactly as nlg-eval hands it to pycocoevalcap: stripped,
    then split on single spaces, so a double space leaves an empty token (it lengthens
    the text) and an empty text is one empty token. The corpus score is the correctly
    rounded mean of the sentence scores (the same however the corpus is chunked).

    ``multi_ref="max-f"``: rouge-score's ``score_multi`` (the F of the best reference,
    whitespace-separated tokens, an empty side scores 0). With ``beta=1`` and text that
    rouge-score's tokenizer leaves unchanged (lowercase letters and digits), it equals
    rouge-score's rougeL. The ``amfm`` preset uses its own tokens in either mode.

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    beta : float, default 1.2
        The weight of recall in the F-measure (a positive number).
    multi_ref : {"max-pr", "max-f"}, default "max-pr"
        Several references: precision and recall maximised separately (pycocoevalcap) or
        the F of the best reference (rouge-score).
    tokenize : str, default "whitespace"
        A tokenizer preset (``fastamfm.TOKENIZER_PRESETS``).
    lowercase : bool, default False
        Lowercase before tokenizing.
    workers : int, default -1
        Threads (-1: every core).
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        Column ``ROUGE_L``: ``.sentences["ROUGE_L"]`` (float64 [n]) and its mean ``.corpus["ROUGE_L"]``.

    Raises
    ------
    ValueError
        A ``beta`` that is not a positive number, an unknown ``multi_ref`` or ``tokenize``;
        ``hyps`` empty, of another length than ``refs``, or a response without references.
    TypeError
        ``hyps`` or ``refs`` not a sequence of strings (of sequences of strings).

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.rouge_l(["the cat sat on the mat", "a dog ran"],
    ...                        [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]])
    >>> res.sentences["ROUGE_L"].round(6).tolist()
    [0.833333, 0.557078]
    >>> round(res.corpus["ROUGE_L"], 6)
    0.695205
    """
    return RougeL(beta=beta, multi_ref=multi_ref, tokenize=tokenize, lowercase=lowercase,
                  workers=workers).score(hyps, refs, layout=layout)
