"""The ``model=`` option of the metrics computed from an AM-FM scorer (``am``, ``fm``,
``amfm``): "default" (the packaged model), a model directory, or an ``AMFM``."""
from __future__ import annotations

from typing import ClassVar


class FromAMFMModel:
    """Mixin for a ``Metric`` built from an ``AMFM`` scorer by ``of_scorer(scorer, ...)``."""

    # Options besides model= and workers= that of_scorer takes.
    extra_options: ClassVar[tuple] = ()
    model_kind: ClassVar[str | None] = "amfm"

    @classmethod
    def load_model(cls, path, **settings):
        """The AM-FM scorer of directory ``path`` (or "default"), its saved settings
        overridden by ``settings`` (``AMFM.with_settings``)."""
        from .scorer import resolve_model

        scorer = resolve_model(path)
        return scorer.with_settings(**settings) if settings else scorer

    @classmethod
    def option_names(cls) -> tuple:
        return ("model", "workers", *cls.extra_options)

    @classmethod
    def from_options(cls, **options):
        from .scorer import resolve_model

        extra = {k: options[k] for k in cls.extra_options if k in options}
        return cls.of_scorer(resolve_model(options.get("model", "default")), workers=options.get("workers", -1),
                             **extra)

    @classmethod
    def missing(cls, **options) -> str | None:
        if options.get("model", "default") is None:
            return "model=None; pass model='default' (shipped) or an AM-FM model directory"
        return None
