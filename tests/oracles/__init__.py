"""Readable reference implementations the fast code is tested against.

Each module is a deliberately plain Python (numpy) version of one metric family's
formulas, written from the reference tools' documented behaviour, so a failing
comparison points at the fast path, never at a clever oracle.
"""
