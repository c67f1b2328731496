"""The generation metrics beside the tools people use for them, scores asserted equal:
sacreBLEU corpus and sentence BLEU beside sacrebleu and bleuscore (Rust), chrF beside
sacrebleu and fastchrf (1,024 x 1,024 pairwise), rouge-score's ROUGE beside rouge-score,
Self-BLEU beside fast-bleu (and NLTK's loop), token-id sentence BLEU beside TensorBLEU
(rxlm) on CPU tensors. DSTC-6 (20 systems x 2000 responses x 11 references) where the
shared data is present.

Run: ``python3 benchmarks/run.py generation`` (the suite, bench.py) or
``python3 benchmarks/run.py generation SCRIPT`` with SCRIPT one of compare (the speed
table), exactness (max |difference| to every peer, with counts) (each one's docstring
gives its options).
"""
