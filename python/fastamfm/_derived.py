"""What ``Hypotheses`` and ``References`` share: state derived from their texts, built
once per key on first use and kept on the object it derives from (so its lifetime is
that object's), and their encodings, one per tokenizer."""
from __future__ import annotations

import threading

from .tokenization import make_tokenizer


class DerivedState:
    """Mixin: ``derived(key, build)`` and ``_encoding(tokenizer, max_order, encode)``."""

    def _init_derived(self) -> None:
        self._encodings: dict = {}   # tokenizer description -> encoding (tokens, n-gram counts)
        self._derived: dict = {}     # (metric, settings...) -> state
        self._lock = threading.Lock()

    def derived(self, key, build):
        """The state ``build()`` derives from these texts, built once per ``key``.

        ``key`` names the metric and every setting the state depends on (tokenizer,
        model fingerprint, ...). Two threads asking at once may both build; the first
        stored value is kept and returned to both.
        """
        with self._lock:
            if key in self._derived:
                return self._derived[key]
        value = build()
        with self._lock:
            return self._derived.setdefault(key, value)

    def _encoding(self, tokenizer, max_order: int, encode):
        """The encoding under ``tokenizer`` with n-grams up to at least ``max_order``:
        ``encode(tokenizer, max_order)`` runs once per tokenizer (again only when a
        higher order is asked for)."""
        tokenizer = make_tokenizer(tokenizer)
        key = tokenizer.describe()
        with self._lock:
            current = self._encodings.get(key)
            if current is None or current.max_order < max_order:
                current = encode(tokenizer, max_order)
                self._encodings[key] = current
            return current

    def has_encoding(self, tokenizer) -> bool:
        return make_tokenizer(tokenizer).describe() in self._encodings

    def _encoded_with(self) -> list:
        return sorted(self._encodings) or ["nothing yet"]
