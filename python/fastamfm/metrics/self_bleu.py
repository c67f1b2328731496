"""Self-BLEU (Zhu et al. 2018, Texygen): the diversity of a set of responses, each scored
by sentence BLEU with all the other responses of the set as its references, averaged.
Lower is more diverse.

Convention: Texygen's and fast-bleu's SelfBLEU, i.e. NLTK's ``sentence_bleu(others,
response, weights=(1/max_order,) * max_order, smoothing_function=SmoothingFunction().method1)``
(epsilon 0.1 for a precision without match), over whitespace tokens (``tokenize=``
another fastamfm preset; Texygen tokenizes with NLTK's word_tokenize, fast-bleu takes
token lists). ``self_bleu(texts).sentences[i]`` equals that loop for response i, the
corpus score their (correctly rounded) mean. Without an n x n loop: per n-gram the two
largest counts over the set give each response's clipping limit among the others.

Self-BLEU is a property of the whole set scored in one call: in ``evaluate`` each
response is compared with the other responses of the same call (all of one system's
responses), never with references. A set scored in chunks (``score_files``, Dask
partitions) would compare each response with its chunk only, so those entry points
refuse it.
"""
from __future__ import annotations

from .. import _core
from .._validation import check_int, check_workers
from ..registry import Chunk, MeanStatistics, Metric, register
from ..result import MetricResult, make_signature
from ..tokenization import make_tokenizer, prepare_texts


@register
class SelfBleu(Metric):
    """Self-BLEU of each response against the others of its set (see ``self_bleu``)."""

    name = "self_bleu"
    columns = ("Self-BLEU",)
    renamed_columns = {"self_bleu": "Self-BLEU"}
    aliases = ("selfbleu",)
    needs_references = False
    # The score of a response depends on every other response of the call.
    whole_set = True

    def __init__(self, *, max_order: int = 4, epsilon: float = 0.1, tokenize: str = "whitespace",
                 lowercase: bool = False, workers: int = -1):
        self.max_order = check_int(max_order, "max_order", 1, _core.MAX_NGRAM_ORDER, "self_bleu")
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not epsilon > 0:
            raise ValueError(f"self_bleu: epsilon must be a number > 0, got {epsilon!r}")
        self.epsilon = float(epsilon)
        self.tokenizer = make_tokenizer(tokenize, lowercase)
        self.workers = check_workers(workers, "self_bleu")

    def signature(self) -> str:
        return make_signature("self_bleu", max_order=self.max_order, smooth=f"nltk-method1[{self.epsilon:g}]",
                              tok=self.tokenizer.describe(), refs="the-others")

    def update(self, batch) -> Chunk:
        texts = batch.hyps.texts
        if len(texts) < 2:
            raise ValueError(f"self_bleu: needs at least 2 responses (each is scored against the others), "
                             f"got {len(texts)}")
        scores = _core.self_bleu(prepare_texts(texts, self.tokenizer, "hyps"), self.tokenizer, self.max_order,
                                 self.epsilon, self.workers)
        columns = {"Self-BLEU": scores}
        return Chunk(columns, MeanStatistics.of(columns))



def self_bleu(responses, *, max_order: int = 4, epsilon: float = 0.1, tokenize: str = "whitespace",
              lowercase: bool = False, workers: int = -1) -> MetricResult:
    """Self-BLEU of a set of responses (see the module docstring): ``.sentences["Self-BLEU"][i]``
    each response's BLEU against the others, ``.corpus["Self-BLEU"]`` their mean (0..1; lower
    is more diverse).

    Parameters
    ----------
    responses : sequence of str or Hypotheses
        The set of responses (at least 2), each scored against all the others.
    max_order : int, default 4
        The highest n-gram order (1..16), uniform weights.
    epsilon : float, default 0.1
        NLTK's method1 numerator for a precision without match (a number > 0).
    tokenize : str, default "whitespace"
        A tokenizer preset (``fastamfm.TOKENIZER_PRESETS``).
    lowercase : bool, default False
        Lowercase before tokenizing.
    workers : int, default -1
        Threads (-1: every core).

    Returns
    -------
    MetricResult
        Column ``Self-BLEU``: ``.sentences["Self-BLEU"]`` (float64 [n]) and their mean ``.corpus["Self-BLEU"]``.

    Raises
    ------
    ValueError
        Fewer than 2 responses, ``max_order`` out of range, ``epsilon`` not > 0, an unknown
        ``tokenize``.
    TypeError
        ``responses`` not a sequence of strings.

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.self_bleu(["the cat sat on the mat", "the cat sat on a mat", "a dog ran in the park"])
    >>> res.sentences["Self-BLEU"].round(6).tolist()
    [0.537285, 0.562341, 0.048549]
    >>> round(res.corpus["Self-BLEU"], 6)
    0.382725
    """
    return SelfBleu(max_order=max_order, epsilon=epsilon, tokenize=tokenize, lowercase=lowercase,
                    workers=workers).score(responses)
