"""Plugins: where the registry finds its metrics and training recipes.

Every metric, fastamfm's own included, is an entry point of the group ``fastamfm.metrics``
naming a ``Metric`` subclass; the entry point's name is the metric's registry name. A
package adds a metric by declaring one in its pyproject.toml (docs/plugins.md)::

    [project.entry-points."fastamfm.metrics"]
    response_length = "my_package.length:ResponseLength"

Training recipes are entry points of the group ``fastamfm.recipes`` named by the model kind
they write (``deep_amfm = "fastamfm.training.deep_amfm:DeepAMFMRecipe"``): ``fastamfm train``
and ``DeepAMFM.train`` find them through the registry (``registry.recipe``).

and installing it: ``fastamfm.evaluate``, ``fastamfm score`` and the Dask workers of
``fastamfm.distributed`` then accept ``metrics=["response_length"]``. Nothing is imported
by ``import fastamfm``: the registry reads the entry points on its first lookup
(``registry.names()``, ``resolve``, ``build``...) and imports each metric's module then.

Order: fastamfm's own metrics first, in the order pyproject.toml declares them (nlg-eval's
metrics first, as nlg-eval lists them), then other distributions' by distribution name.

fastamfm's own entry points come from the distribution that installed the imported
package. A source checkout run without installing (``PYTHONPATH=python`` after the CMake
developer build) has no installed metadata: there they are read from the checkout's
pyproject.toml, the same declaration ``pip install .`` writes into the installed metadata.
An installed fastamfm elsewhere on the path (another version) is never mixed in.
"""
from __future__ import annotations

import sys
from pathlib import Path

METRICS = "fastamfm.metrics"
RECIPES = "fastamfm.recipes"
GROUP = METRICS
DISTRIBUTION = "fastamfm"

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
# python/fastamfm -> the checkout's root, where pyproject.toml declares the entry points
_CHECKOUT_PYPROJECT = _PACKAGE_DIR.parents[1] / "pyproject.toml"


class PluginError(RuntimeError):
    """An entry point that cannot be loaded, or does not name what its group holds."""


def _normalized(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _owns_this_package(distribution) -> bool:
    """Whether ``distribution`` installed the fastamfm package this module belongs to."""
    try:
        init = Path(distribution.locate_file("fastamfm/__init__.py")).resolve()
    except (OSError, TypeError, ValueError):
        return False
    return init == _PACKAGE_DIR / "__init__.py"


def _checkout_entry_points(group: str) -> list:
    """fastamfm's own entry points of ``group`` as the checkout's pyproject.toml declares them."""
    import importlib.metadata

    if not _CHECKOUT_PYPROJECT.is_file():
        raise PluginError(
            f"fastamfm at {_PACKAGE_DIR} is neither installed (no installed metadata for this copy: "
            f"pip install .) nor inside a source checkout (no {_CHECKOUT_PYPROJECT}); its built-in "
            f"metrics are declared as entry points of group {group!r} in pyproject.toml")
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            raise PluginError(f"reading the built-in metrics from {_CHECKOUT_PYPROJECT} (a source checkout, "
                              "not installed) needs Python >= 3.11 or the tomli package; or pip install .") from None
    with open(_CHECKOUT_PYPROJECT, "rb") as f:
        table = tomllib.load(f).get("project", {}).get("entry-points", {}).get(group, {})
    return [importlib.metadata.EntryPoint(name, value, group) for name, value in table.items()]


def _group_entry_points(group: str) -> list:
    """``[(distribution name, EntryPoint)]`` of ``group`` in every installed distribution."""
    import importlib.metadata

    try:
        found = importlib.metadata.entry_points(group=group)
    except TypeError:  # pragma: no cover - Python 3.9: entry_points() takes no selection
        return [(d.metadata["Name"] or "", ep) for d in importlib.metadata.distributions()
                for ep in d.entry_points if ep.group == group]
    return [((ep.dist.metadata["Name"] if ep.dist is not None else "") or "", ep) for ep in found]


def _own_entry_points(group: str) -> list:
    """fastamfm's own entry points of ``group``: those of the distribution that installed
    this package, else (a source checkout) those its pyproject.toml declares."""
    import importlib.metadata

    for distribution in importlib.metadata.distributions(name=DISTRIBUTION):
        if _owns_this_package(distribution):
            return [ep for ep in distribution.entry_points if ep.group == group]
    return _checkout_entry_points(group)


def entry_points(group: str = METRICS) -> list:
    """``[(distribution name, EntryPoint)]`` of every plugin of ``group``, in registry order:
    fastamfm's own in declared order, then the others by distribution name."""
    others = sorted(((name, ep) for name, ep in _group_entry_points(group) if _normalized(name) != DISTRIBUTION),
                    key=lambda item: _normalized(item[0]))   # stable: each one's own order kept
    return [(DISTRIBUTION, ep) for ep in _own_entry_points(group)] + others


def load(distribution: str, entry_point):
    """What ``entry_point`` names, imported; a ``PluginError`` saying which plugin and why
    when it cannot be imported."""
    try:
        return entry_point.load()
    except Exception as exc:
        raise PluginError(f"{describe(distribution, entry_point)} cannot be loaded: {type(exc).__name__}: {exc}") \
            from exc


def describe(distribution: str, entry_point) -> str:
    return f"entry point {entry_point.name} = {entry_point.value!r} of {distribution} (group {entry_point.group!r})"
