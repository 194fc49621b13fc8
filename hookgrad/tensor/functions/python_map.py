"""``apply_``, ``map_`` and ``map2_``: a tensor's elements replaced, in place, by a Python
function of Python numbers (slow, one element at a time, as in torch; not for tensors
that require grad).

Example: ``hookgrad.tensor([1.0, 2.0]).apply_(lambda v: v * 2)`` is ``tensor([2., 4.])``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.tensor import dtypes

# ---------------------------------------------------------------- Python functions elementwise


def apply_(input: Any, callable: Any) -> Any:  # noqa: A002 (torch's name)
    """Replace each element ``v`` of ``input`` by ``callable(v)`` (a Python function of
    a Python number), in place; slow, and not for tensors that require grad.

    Example: ``hookgrad.tensor([1.0, 2.0]).apply_(lambda v: v * 2)`` is
    ``tensor([2., 4.])``.
    """
    _check_python_map(input, "apply_")
    return _map_into(input, callable)


def map_(input: Any, tensor: Any, callable: Any) -> Any:  # noqa: A002 (torch's name)
    """``input[i] = callable(input[i], tensor[i])`` for every element, ``tensor``
    broadcast to ``input``'s shape and of its dtype; in place."""
    _check_python_map(input, "map_")
    return _map_into(input, callable, _mapped_operand(input, tensor, "map_", "other"))


def map2_(input: Any, x: Any, y: Any, callable: Any) -> Any:  # noqa: A002 (torch's name)
    """``input[i] = callable(input[i], x[i], y[i])`` for every element (``x``, ``y``
    broadcast to ``input``'s shape, of its dtype); in place."""
    _check_python_map(input, "map2_")
    operands = (_mapped_operand(input, x, "map2_", "x"), _mapped_operand(input, y, "map2_", "y"))
    return _map_into(input, callable, *operands)


def _check_python_map(input: Any, name: str) -> None:
    if input.requires_grad:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."
        )


def _mapped_operand(input: Any, operand: Any, name: str, label: str) -> np.ndarray:
    if operand.dtype is not input.dtype:
        raise TypeError(
            f"{name}: expected {_legacy_type(input)} for '{label}' (got {_legacy_type(operand)})"
        )
    return operand.expand(input._data.shape)._data


def _legacy_type(tensor: Any) -> str:
    return f"torch.{dtypes.legacy_name(tensor.dtype)}Tensor"


def _map_into(input: Any, function: Any, *operands: np.ndarray) -> Any:
    data = input._data
    kind = data.dtype.type
    for index in np.ndindex(data.shape):
        values = (data[index].item(), *(operand[index].item() for operand in operands))
        data[index] = kind(function(*values))
    input._bump_version()
    return input
