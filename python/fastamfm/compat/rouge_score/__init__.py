"""A drop-in for Google's rouge-score (``rouge_score``), every score from fastamfm's
ROUGE (``fastamfm.metrics.rouge_score`` and the C++ core).

``from fastamfm.compat.rouge_score import rouge_scorer, scoring``, then as with
rouge-score::

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeLsum"], use_stemmer=True)
    scores = scorer.score(target, prediction)          # the target first, as rouge-score
    scores["rouge1"].fmeasure
    aggregator = scoring.BootstrapAggregator()
    aggregator.add_scores(scores)
    aggregator.aggregate()["rouge1"].mid

Submodules as in rouge-score: ``rouge_scorer``, ``scoring``, ``tokenize``,
``tokenizers``. Out of scope: ``io`` (CSV files) and rouge-score's private LCS helpers.
"""
