"""BLEU-1..4, ROUGE-L and CIDEr-D on the 20 DSTC-6 systems beside pycocoevalcap (nlg-eval's
numbers), sacrebleu and rouge-score, scores asserted equal.

Run: ``python3 benchmarks/run.py nlg`` (the suite, bench.py) or
``python3 benchmarks/run.py nlg SCRIPT`` with SCRIPT one of compare
(each one's docstring gives its options).
"""
