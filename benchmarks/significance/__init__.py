"""significance: paired bootstrap of systems' differences beside sacrebleu's ``--paired-bs``
(DSTC-6, 20 systems, 1,000 resamples; BLEU with sacrebleu's own tokenisation, plus METEOR,
ROUGE-L and CIDEr), and the DSTC-6 / dstc10_dev significance tables (``dstc6``,
``dstc10_metrics``)."""
