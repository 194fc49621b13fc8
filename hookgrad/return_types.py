"""``hookgrad.return_types``: the named tuples that ``max``, ``min`` and ``median`` along a
dim return (``values``, ``indices``)."""

from hookgrad.tensor.functions.reduction import _RETURN_TYPES

max = _RETURN_TYPES["max"]  # noqa: A001
min = _RETURN_TYPES["min"]  # noqa: A001
median = _RETURN_TYPES["median"]

__all__ = ["max", "median", "min"]
