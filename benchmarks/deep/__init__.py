"""The neural metrics (extra deep): SentenceEncoder, Deep AM and BERTScore beside
sentence-transformers and bert-score; compare_neural_lm: the NeuralLM engines;
correlation, amfm_correlation, amfm_calibration: human correlation and DeepAMFM's
calibration on the shared data.

Run: ``python3 benchmarks/run.py deep`` (the suite, bench.py) or
``python3 benchmarks/run.py deep SCRIPT`` with SCRIPT one of compare, amfm_calibration,
amfm_correlation, compare_neural_lm, correlation (each one's docstring gives its options).
"""
