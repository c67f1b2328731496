"""The file of a fitted learned scorer: its format, and what its values must be before they
become a scorer.

The format: a ``checked_file`` (magic ``FASTAMFM-LEARNED``, format version 1): a JSON
header saying what the scorer is and its settings, float64/int64 arrays, and a SHA-256
of everything. Only numbers and JSON are stored (no pickle), so a file is safe to load
from anyone and reads the same on any platform; files are written atomically.

The checks: the checksum proves a file was not damaged, not that its writer was
``save``: a file edited and re-checksummed could hold a NaN alpha, a zero beta, shapes
that disagree with the settings or with each other. Every field is checked here --
numbers finite, scales positive, shapes against the sizes the settings give, dims
against the arrays -- and any defect is a ``FormatError`` naming the file and the field.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import format_error
from ..io.checked_file import read_checked_file, write_checked_file
from .adem import PRIORS, REGULARIZATIONS, AdemModel
from .columns import check_columns
from .pca import Pca
from .stack import WEIGHTINGS, StackModel

MAGIC = b"FASTAMFM-LEARNED"
FORMAT_VERSION = 1
# Components of a PCA must be orthonormal columns; this much rounding is allowed.
_ORTHONORMAL_TOLERANCE = 1e-6


def write_scorer_file(path, header: dict, arrays: dict) -> None:
    """Write ``header`` (JSON-serialisable) and ``arrays`` ({name: float64/int64 ndarray})."""
    write_checked_file(path, MAGIC, FORMAT_VERSION, header,
                       {name: _float_or_int(array) for name, array in arrays.items()})


def _float_or_int(array):
    import numpy as np

    array = np.asarray(array)
    return array.astype("<i8" if np.issubdtype(array.dtype, np.integer) else "<f8", copy=False)


def read_scorer_file(path) -> tuple[dict, dict]:
    """-> (header, {name: ndarray}); a damaged or foreign file is a ``FormatError``
    naming the file and the problem."""
    header, arrays = read_checked_file(path, MAGIC, FORMAT_VERSION, "learned-scorer")
    return header, {name: array.copy() for name, array in arrays.items()}


class _Checker:
    def __init__(self, path):
        self.path = path

    def fail(self, what: str):
        return format_error(self.path, f"invalid learned-scorer file: {what}")

    def number(self, value, name: str, *, low: float = -math.inf, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(f"{name} is {value!r}, not a finite number")
        if value < low or (positive and value <= 0):
            raise self.fail(f"{name} is {value!r}, must be {'positive' if positive else f'at least {low:g}'}")
        return float(value)

    def integer(self, value, name: str, low: int = 1) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise self.fail(f"{name} is {value!r}, not an integer of at least {low}")
        return value

    def choice(self, value, allowed, name: str):
        if value not in allowed:
            raise self.fail(f"{name} is {value!r}, not one of {allowed}")
        return value

    def strings(self, value, name: str) -> list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or len(set(value)) != len(value):
            raise self.fail(f"{name} is {value!r}, not a list of distinct strings")
        return value

    def array(self, arrays: dict, name: str, shape: tuple, *, positive: bool = False,
              nonnegative: bool = False) -> np.ndarray:
        if name not in arrays:
            raise self.fail(f"array {name!r} is missing")
        array = arrays[name]
        if array.dtype != np.float64 or array.shape != shape:
            raise self.fail(f"array {name!r} is {array.dtype}{list(array.shape)}, expected float64{list(shape)}")
        if not np.isfinite(array).all():
            raise self.fail(f"array {name!r} holds NaN or infinity")
        if positive and (array <= 0).any():
            raise self.fail(f"array {name!r} holds a value that is not positive")
        if nonnegative and (array < 0).any():
            raise self.fail(f"array {name!r} holds a negative value")
        return array

    def only(self, arrays: dict, names: set) -> None:
        extra = sorted(set(arrays) - names)
        if extra:
            raise self.fail(f"unexpected arrays {extra}")


def checked_adem(path, settings: dict, scalars: dict, arrays: dict) -> AdemModel:
    c = _Checker(path)
    dims = c.integer(settings.get("dims"), "settings.dims")
    c.choice(settings.get("prior"), PRIORS, "settings.prior")
    c.choice(settings.get("regularization"), REGULARIZATIONS, "settings.regularization")
    decay = c.number(settings.get("context_decay"), "settings.context_decay", low=0.0)
    if decay > 1:
        raise c.fail(f"settings.context_decay is {decay!r}, must be in [0, 1]")
    if not isinstance(settings.get("encoder"), str):
        raise c.fail(f"settings.encoder is {settings.get('encoder')!r}, not a string")
    if "pca_mean" not in arrays or arrays["pca_mean"].ndim != 1 or not 1 <= len(arrays["pca_mean"]):
        raise c.fail("array 'pca_mean' is missing or not a non-empty vector")
    width = len(arrays["pca_mean"])
    if dims > width:
        raise c.fail(f"settings.dims is {dims}, more than the {width} dimensions of the PCA")
    mean = c.array(arrays, "pca_mean", (width,))
    components = c.array(arrays, "pca_components", (width, dims))
    if np.abs(components.T @ components - np.eye(dims)).max() > _ORTHONORMAL_TOLERANCE:
        raise c.fail("array 'pca_components' does not hold orthonormal columns")
    present = [name for name in ("context_weights", "reference_weights") if name in arrays]
    if not present:
        raise c.fail("neither 'context_weights' nor 'reference_weights' is present")
    weights = {name: c.array(arrays, name, (dims, dims)) for name in present}
    c.only(arrays, {"pca_mean", "pca_components", *present})
    return AdemModel(Pca(mean, components), weights.get("context_weights"), weights.get("reference_weights"),
                     c.number(scalars.get("alpha"), "model.alpha"),
                     c.number(scalars.get("beta"), "model.beta", positive=True),
                     c.number(scalars.get("penalty"), "model.penalty", low=0.0))


def checked_stack(path, settings: dict, scalars: dict, arrays: dict) -> StackModel:
    c = _Checker(path)
    metrics = c.strings(settings.get("metrics"), "settings.metrics")
    given = c.strings(settings.get("given_columns"), "settings.given_columns")
    for name in ("uses_references", "uses_contexts"):
        if not isinstance(settings.get(name), bool):
            raise c.fail(f"settings.{name} is {settings.get(name)!r}, not true or false")
    if "amfm" not in settings or settings["amfm"] is not None and not isinstance(settings["amfm"], str):
        raise c.fail(f"settings.amfm is {settings.get('amfm', 'missing')!r}, not a string or null")
    # files written before the evaluator columns existed have no "evaluator" entry: None
    if settings.get("evaluator") is not None and not isinstance(settings["evaluator"], str):
        raise c.fail(f"settings.evaluator is {settings['evaluator']!r}, not a string or null")
    try:
        check_columns(metrics, has_refs=settings["uses_references"], has_contexts=settings["uses_contexts"],
                      has_evaluator=settings.get("evaluator") is not None)
    except ValueError as exc:
        raise c.fail(f"settings.metrics: {exc}") from None
    columns = c.strings(scalars.get("columns"), "model.columns")
    if not columns or columns != metrics + given:
        raise c.fail(f"model.columns {columns!r} are not the settings' metrics and given columns in order")
    weighting = c.choice(scalars.get("weighting"), WEIGHTINGS, "model.weighting")
    k = len(columns)
    means = c.array(arrays, "means", (k,))
    scales = c.array(arrays, "scales", (k,), positive=True)
    weights = c.array(arrays, "weights", (k,), nonnegative=weighting == "nonneg")
    c.only(arrays, {"means", "scales", "weights"})
    return StackModel(tuple(columns), means, scales, weights, c.number(scalars.get("intercept"), "model.intercept"),
                      weighting)
