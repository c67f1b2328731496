"""sacrebleu's TER: out of scope of fastamfm.compat (fastamfm has no TER); the names
exist so that code importing them fails with a clear message where it uses them."""
from __future__ import annotations

MESSAGE = ("TER is not part of fastamfm.compat.sacrebleu (fastamfm implements BLEU and chrF only); "
           "use sacrebleu itself for TER")


class _Unavailable:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(MESSAGE)


class TER(_Unavailable):
    """Raises NotImplementedError."""


class TERScore(_Unavailable):
    """Raises NotImplementedError."""
