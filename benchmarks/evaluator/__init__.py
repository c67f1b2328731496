"""The trained dialogue evaluator (``fastamfm.evaluator``, extra deep): reference-free scoring
beside DeepAMFM and Deep AM (the packaged models) on the same DSTC-10 responses; its
correlation with people on the shared DSTC-10 development sets beside DeepAMFM, Deep AM,
BLEU-2 and the published evaluators; the training recipe's cost; the ablation of
negatives and sub-scores.

Run: ``python3 benchmarks/run.py evaluator`` (the suite, bench.py: a tiny evaluator trained
in seconds over the packaged encoder, or the trained directory in ``$FASTAMFM_EVALUATOR``)
or ``python3 benchmarks/run.py evaluator SCRIPT`` with SCRIPT one of compare (scoring speed,
side by side), dstc10_table, train_recipe, ablation (each one's docstring gives its
options; README.md here has the measured tables).
"""
