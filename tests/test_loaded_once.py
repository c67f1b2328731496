"""fastamfm.models.loaded_once: one model per key and process, loaded once however many
threads ask at once, and at most ``capacity`` kept (least recently asked for out first), so
that a server whose clients each send other settings holds a bounded number of models."""
from __future__ import annotations

import threading
import time

import pytest
from fastamfm.models.loaded_once import LoadedOnce


class Model:
    loads = 0

    def __init__(self, key):
        Model.loads += 1
        self.key = key


def _loader(key):
    return lambda: Model(key)


def test_one_model_per_key_loaded_once_by_threads_asking_together():
    cache: LoadedOnce = LoadedOnce()
    barrier, got = threading.Barrier(16), []

    def ask():
        barrier.wait()
        got.append(cache.get("a", lambda: (time.sleep(0.05), Model("a"))[1]))

    before = Model.loads
    threads = [threading.Thread(target=ask) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Model.loads - before == 1 and len({id(m) for m in got}) == 1


def test_at_most_capacity_models_kept_the_least_recently_asked_for_out_first():
    cache: LoadedOnce = LoadedOnce(capacity=2)
    a = cache.get("a", _loader("a"))
    cache.get("b", _loader("b"))
    assert cache.get("a", _loader("a")) is a          # asked again: now the most recent
    cache.get("c", _loader("c"))                      # evicts b, the least recently asked for
    assert len(cache) == 2
    assert cache.get("a", _loader("a")) is a
    before = Model.loads
    cache.get("b", _loader("b"))                      # loaded again
    assert Model.loads - before == 1


def test_settings_without_end_keep_the_cache_bounded():
    cache: LoadedOnce = LoadedOnce()
    held = [cache.get(("encoder", ("batch_size", n)), _loader(n)) for n in range(100)]
    assert len(cache) == cache.capacity == 8
    assert held[0].key == 0                           # an evicted model lives on where it is held


def test_capacity_must_be_positive():
    with pytest.raises(ValueError, match="capacity must be at least 1, got 0"):
        LoadedOnce(capacity=0)
