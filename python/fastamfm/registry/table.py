"""The registry's table: every metric by name (its columns and aliases too), the model
kinds they score with, and the training recipes that write those models.

Where they come from: every metric, fastamfm's own included, is a plugin -- an entry point
of the group ``fastamfm.metrics`` naming its ``Metric`` class (``plugins``,
docs/plugins.md) -- and every recipe an entry point of ``fastamfm.recipes``. The table
imports them on its first lookup, never on ``import fastamfm``, and imports no metric or
recipe module by name. ``@register`` adds a metric class defined in the running process.

Models: ``load_model(spec)`` turns a ``model=`` option into a model. A directory is asked
its kind (``fastamfm.models.directory``: ``DIR/<kind>.json``) and loaded by the metric that
declares that ``model_kind``, so ``evaluate``, the CLI and Dask workers load any model --
a plugin's included -- the same way; ``"default"`` is the packaged AM-FM model.
"""
from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterable
from typing import TypeVar

from . import plugins
from .metric import Metric

# ``model="default"`` names the model shipped in the package: the AM-FM model of am/fm/amfm.
DEFAULT_MODEL_KIND = "amfm"

_REGISTRY: dict[str, type[Metric]] = {}
_ALIASES: dict[str, str] = {}

_M = TypeVar("_M", bound="type[Metric]")


def register(cls: _M) -> _M:
    """Class decorator: add a ``Metric`` subclass to the registry under its name, its
    columns (lower-cased) and its aliases."""
    if not cls.name or not cls.columns:
        raise ValueError(f"{cls.__name__}: a registered metric needs a name and columns")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"metric {cls.name!r} is registered twice ({_REGISTRY[cls.name].__name__}, {cls.__name__})")
    for alias in (cls.name, *cls.columns, *cls.aliases):
        taken = _ALIASES.get(alias.lower())
        if taken is not None and taken != cls.name:
            raise ValueError(f"{cls.__name__}: name {alias!r} already belongs to metric {taken!r}")
    _REGISTRY[cls.name] = cls
    for alias in (cls.name, *cls.columns, *cls.aliases):
        _ALIASES[alias.lower()] = cls.name
    return cls


_LOAD_LOCK = threading.RLock()
_plugins = "unloaded"   # -> "loading" -> "loaded"


def _load_plugins() -> None:
    """Register every metric plugin once, on the first lookup: the entry points of the group
    ``fastamfm.metrics``, fastamfm's own metrics among them. The registry then lists them in
    plugin order, followed by metrics registered in this process by ``@register`` alone. A
    third-party plugin that fails to load is left out with a warning; a built-in one that
    fails is an error."""
    global _plugins
    if _plugins == "loaded":
        return
    with _LOAD_LOCK:
        if _plugins != "unloaded":   # loaded meanwhile, or a plugin's import looking up the registry
            return
        _plugins = "loading"
        try:
            loaded = [_load_plugin(distribution, entry_point) for distribution, entry_point in plugins.entry_points()]
        except BaseException:
            _plugins = "unloaded"
            raise
        order = [name for name in loaded if name is not None]
        listed = {name: _REGISTRY[name] for name in order + [n for n in _REGISTRY if n not in order]}
        _REGISTRY.clear()
        _REGISTRY.update(listed)
        _plugins = "loaded"


def _load_plugin(distribution: str, entry_point) -> str | None:
    """Import and register one metric plugin; its name, or None when a third-party plugin
    is left out."""
    try:
        cls = plugins.load(distribution, entry_point)
        where = plugins.describe(distribution, entry_point)
        if not (isinstance(cls, type) and issubclass(cls, Metric)):
            raise plugins.PluginError(f"{where} is not a fastamfm.registry.Metric subclass: {cls!r}")
        if cls.name != entry_point.name:
            raise plugins.PluginError(f"{where} names metric {cls.name!r}: an entry point is named as its metric")
        try:
            register(cls)
        except ValueError as exc:
            raise plugins.PluginError(f"{where}: {exc}") from None
    except plugins.PluginError as exc:
        if distribution == plugins.DISTRIBUTION:
            raise
        warnings.warn(f"metric plugin left out: {exc}", stacklevel=4)
        return None
    return cls.name


def names() -> tuple:
    """Registered metric names: the plugins' in plugin order (fastamfm's own first, nlg-eval's
    metrics first among them), then those registered in this process by ``@register``."""
    _load_plugins()
    return tuple(_REGISTRY)


def default_names() -> tuple:
    """nlg-eval's metric set, the default of ``evaluate`` and ``compute_metrics``."""
    _load_plugins()
    return tuple(n for n, cls in _REGISTRY.items() if cls.default)


def metric_class(name: str) -> type[Metric]:
    _load_plugins()
    key = _ALIASES.get(name.strip().lower()) if isinstance(name, str) else None
    if key is None:
        raise ValueError(f"unknown metric {name!r}; choose from {', '.join(names())}")
    return _REGISTRY[key]


def resolve(metrics: "str | Iterable[str] | None") -> list:
    """Metric names (a comma-separated string or a list; columns and aliases accepted)
    -> canonical registry names, in the order given, without repeats."""
    if metrics is None:
        return list(default_names())
    if isinstance(metrics, str):
        metrics = [m for m in metrics.split(",") if m.strip()]
    out = []
    for m in metrics:
        if not isinstance(m, str):
            raise TypeError(f"metric names must be strings, got {type(m).__name__}")
        name = metric_class(m).name
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError("no metric named")
    return out


def option_names(metric_names) -> set:
    """Every option some metric of ``metric_names`` reads."""
    return {o for n in metric_names for o in metric_class(n).option_names()}


def build(name: str, **options) -> Metric:
    """The registered metric ``name`` configured from ``options``."""
    return metric_class(name).from_options(**options)


# --- models -------------------------------------------------------------------------------

def model_kinds() -> dict:
    """{model kind: the first registered metric that scores with it}."""
    _load_plugins()
    kinds: dict = {}
    for cls in _REGISTRY.values():
        if cls.model_kind is not None:
            kinds.setdefault(cls.model_kind, cls)
    return kinds


def model_kind(path) -> str | None:
    """The kind of model directory ``path`` is (a registered metric's ``model_kind``), or None."""
    from ..models.directory import kind_of

    if not isinstance(path, (str, os.PathLike)) or not os.path.isdir(path):
        return None
    return kind_of(path, model_kinds())


def load_model(spec, **settings):
    """The model a ``model=`` option names: ``"default"`` (the packaged AM-FM model), or a
    model directory of any registered kind, loaded by the metric owning that kind with
    ``settings``. Anything else is returned as given (an already loaded model)."""
    if not isinstance(spec, (str, os.PathLike)):
        return spec
    kinds = model_kinds()
    if spec == "default":
        return kinds[DEFAULT_MODEL_KIND].load_model("default", **settings)
    if not os.path.exists(spec):
        raise FileNotFoundError(f"{os.fspath(spec)}: no such model directory")
    kind = model_kind(spec)
    if kind is None:
        raise ValueError(f"{os.fspath(spec)}: not a model directory of any registered kind (expected one of "
                         + ", ".join(f"{k}.json" for k in kinds) + ")")
    return kinds[kind].load_model(spec, **settings)


# --- training recipes ---------------------------------------------------------------------

_RECIPES: dict = {}


def recipe(kind: str):
    """The training recipe that writes models of ``kind`` (an entry point of the group
    ``fastamfm.recipes``; see ``fastamfm.training.recipe``)."""
    with _LOAD_LOCK:
        if not _RECIPES:
            for distribution, entry_point in plugins.entry_points(plugins.RECIPES):
                _RECIPES.setdefault(entry_point.name, (distribution, entry_point))
    if kind not in _RECIPES:
        raise ValueError(f"no training recipe for model kind {kind!r}; known: {', '.join(_RECIPES) or 'none'}")
    distribution, entry_point = _RECIPES[kind]
    found = plugins.load(distribution, entry_point)
    if getattr(found, "kind", None) != kind or not callable(getattr(found, "train", None)):
        raise plugins.PluginError(f"{plugins.describe(distribution, entry_point)} is not a training recipe of kind "
                                  f"{kind!r} (a class with kind = {kind!r} and a train method)")
    return found
