"""The LM judges (``followup``, ``lm_judge``; extra deep): the shared prefix computed once
(``fastamfm.neural.continuations``: KV cache, prefix tree) beside scoring each follow-up
or aspect as a sequence of its own and beside DeepAMFM's reference-free rate, on the same
DSTC-10 responses with their contexts; their correlation with people on the shared DSTC-10
development sets, every reference-free component and combination judged leave-one-set-out.

Run: ``python3 benchmarks/run.py judge`` (the suite, bench.py) or ``python3 benchmarks/run.py
judge SCRIPT`` with SCRIPT one of compare (responses/s side by side, and the largest
difference in ln p between the methods), correlation (the dstc10_dev table and the
leave-one-set-out choice of the reference-free default; raw log-probs cached under /tmp),
larger_lm (the tables with a larger packaged LM). README.md here has the measured tables.
"""
