"""Helpers shared by the ``hookgrad.utils.data`` tests: results of either library as plain
values that keep container types, so that hookgrad's batches compare with torch's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import hookgrad


def structure(value: Any) -> Any:
    """``value`` with every tensor (of either library) replaced by its dtype, shape and
    values, and every container by its type name and contents."""
    if hasattr(value, "_version") and hasattr(value, "tolist"):
        return ("tensor", str(value.dtype), tuple(value.shape), value.tolist())
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.tolist())
    if isinstance(value, Mapping):
        return (type(value).__name__, {key: structure(v) for key, v in value.items()})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [structure(v) for v in value])
    return value


def data_of(lib: Any) -> Any:
    """``lib.utils.data`` of hookgrad or torch."""
    if lib is hookgrad:
        return hookgrad.utils.data
    import torch.utils.data

    return torch.utils.data
