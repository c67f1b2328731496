"""Models on disk and in memory: the model directory every trained model is written as
(``directory``), where a neural model lives (``location``: a local path or an installed
model package), reading one without trusting it (``safe_loading``), file fingerprints
(``file_digest``), caches derived from a model and verified before use (``derived_cache``),
and the models of a process loaded once and shared (``loaded_once``).
"""
