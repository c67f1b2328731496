"""Fuzzing of fastamfm's readers: harnesses.py (the targets), run.py (atheris runner),
make_seeds.py (the seed corpus), corpus/<target>/ (seeds and inputs worth keeping)."""
