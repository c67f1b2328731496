"""Keywords renamed in 0.2 so that each has one meaning across the library:

- ``encoder=``: the encoder a metric embeds text with (a ``SentenceEncoder``, a model
  directory or an installed model package; for a ``ReferenceIndex``, any object with
  ``transform(texts)``);
- ``lm=``: the language model a metric reads probabilities from;
- ``model=``: a metric's own trained model (an AM-FM model, a trained Deep AM-FM or
  evaluator directory), or, first argument of a ``load``, what to load.

The old name keeps working for one release, with a ``DeprecationWarning`` naming the new one.
"""
from __future__ import annotations

import warnings

NOT_GIVEN = object()   # the old keyword's default: tells "not given" from any value


def renamed_keyword(where: str, old: str, new: str, old_value, new_value, new_default):
    """``new_value``, or ``old_value`` where only the old keyword was given."""
    if old_value is NOT_GIVEN:
        return new_value
    if new_value is not new_default:
        raise TypeError(f"{where}: give {new}= only ({old}= is its name before 0.2)")
    warnings.warn(f"{where}({old}=) is {where}({new}=) since 0.2; {old}= will be removed in a later release",
                  DeprecationWarning, stacklevel=3)
    return old_value
