"""The move to one argument order, ``(hyps, refs=None, contexts=None)``, for the scorers
that took ``(hyps, contexts, refs)`` before 0.2 (``LMJudge``, ``Evaluator``,
``FollowupScorer``: their ``score`` and ``reward``).

Calls by keyword mean the same in both orders. A positional call is where the two
orders disagree, and a scorer must never read references as contexts without a word:
- ``score(hyps, x)``: these scorers cannot score without contexts, so the new reading
  (``refs=x``) could only fail; ``x`` is read as the contexts it was, with a
  ``DeprecationWarning`` that names the keyword to write.
- ``score(hyps, x, y)``: both readings could run and give different numbers, so the call
  is refused (``TypeError``) with the keywords that say which is meant. From 0.3 these
  positional calls take the new order, as every other scorer does.
"""
from __future__ import annotations

import functools
import warnings

NEW_ORDER_SINCE = "0.2"
POSITIONAL_NEW_ORDER_FROM = "0.3"


def refs_before_contexts(method):
    """Wraps ``method(self, hyps, refs=None, contexts=None, **options)`` of a scorer that
    needs contexts, for callers of its old ``(hyps, contexts, refs)`` order."""
    where = method.__qualname__

    @functools.wraps(method)
    def wrapper(self, hyps, *positional, **keywords):
        if len(positional) == 1 and "contexts" not in keywords:
            warnings.warn(f"{where}(hyps, contexts) is the order before {NEW_ORDER_SINCE}; the order is now "
                          f"(hyps, refs=None, contexts=None): write {where}(hyps, contexts=...)",
                          DeprecationWarning, stacklevel=2)
            return method(self, hyps, contexts=positional[0], **keywords)
        if len(positional) >= 2:
            raise TypeError(f"{where}: refs and contexts changed places in {NEW_ORDER_SINCE} (the order is now "
                            f"(hyps, refs=None, contexts=None)); until {POSITIONAL_NEW_ORDER_FROM} pass them by "
                            f"keyword, {where}(hyps, refs=..., contexts=...), so that neither is read as the other")
        return method(self, hyps, *positional, **keywords)

    return wrapper
