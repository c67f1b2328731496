"""Training the neural metrics (extra train): fastamfm.training's steps (the contrastive
encoder task, the LoRA causal-LM task) beside a plain sentence-transformers / transformers
loop on the same model and batches; and what adaptation buys: the Deep AM-FM seed
experiment on DSTC-6 (seed_experiment), its learning curve over 5k / 20k / 50k TWCS turns
(learning_curve) and the turn-level DSTC-10 development table, adapted vs frozen (turn_level).

Run: ``python3 benchmarks/run.py training`` (the suite, bench.py) or
``python3 benchmarks/run.py training SCRIPT`` with SCRIPT one of compare, learning_curve,
seed_experiment, turn_level, twcs_corpus (each one's docstring gives its options). The
measured tables, with their dates and load averages, are in this folder's README.md.
"""
