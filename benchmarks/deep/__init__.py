"""The neural metrics (extra deep): SentenceEncoder, Deep AM and BERTScore beside
sentence-transformers and bert-score; compare_neural_lm: the NeuralLM engines;
correlation, amfm_correlation, amfm_calibration: human correlation and DeepAMFM's
calibration on the shared data; model_load_times: loading the packaged models with
full-content fingerprints; context_trimming: building a request whose context must be
trimmed.

Run: ``python3 benchmarks/run.py deep`` (the suite, bench.py) or
``python3 benchmarks/run.py deep SCRIPT`` with SCRIPT one of compare, amfm_calibration,
amfm_correlation, compare_neural_lm, context_trimming, correlation, model_load_times (each one's docstring gives its options).
"""
