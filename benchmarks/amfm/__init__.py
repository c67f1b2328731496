"""AM-FM end to end beside the toolkit-style pipeline (scikit-learn + numpy + kenlm);
reproduce_dstc6: Table 1 of the AM-FM paper on DSTC-6 (all metrics x 20 systems, human
correlations).

Run: ``python3 benchmarks/run.py amfm`` (the suite, bench.py) or
``python3 benchmarks/run.py amfm SCRIPT`` with SCRIPT one of compare, reproduce_dstc6
(each one's docstring gives its options).
"""
