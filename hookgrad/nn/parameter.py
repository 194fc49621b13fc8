"""``Parameter`` and ``Buffer``: tensors that a ``Module`` registers when they are assigned
to one of its attributes."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.graph import history
from hookgrad.tensor import Tensor

__all__ = ["Buffer", "Parameter"]


class Parameter(Tensor):
    """A leaf tensor that is a module parameter: assigning it to a ``Module`` attribute
    registers it. It shares memory with ``data``, requires grad unless
    ``requires_grad=False``, and prints as ``Parameter containing:``.

    Example::

        w = nn.Parameter(hookgrad.randn(3, 4))
        frozen = nn.Parameter(hookgrad.zeros(3), requires_grad=False)
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            self._data = np.zeros((0,), np.float32)
        elif isinstance(data, Tensor):
            self._data = data._data
            history.share_version(self, data)
        else:
            self._data = Tensor(data)._data
        if requires_grad:
            if self._data.dtype.kind not in "fc":
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            history.set_requires_grad(self, True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        # As torch: a copy of the data with the same requires_grad; ``.grad`` is not copied.
        copy = Parameter(Tensor._make(self._data.copy()), self._requires_grad)
        memo[id(self)] = copy
        return copy

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _rebuild_parameter(data: np.ndarray, requires_grad: bool) -> Parameter:
    return Parameter(Tensor._make(data), requires_grad)


class Buffer(Tensor):
    """Marks a tensor as a module buffer: assigning ``Buffer(t)`` to a ``Module``
    attribute registers ``t`` (detached) as a buffer, part of the ``state_dict`` unless
    ``persistent=False``. What the module stores is a plain tensor, as in torch.

    Example::

        module.running_mean = nn.Buffer(hookgrad.zeros(4))
    """

    def __new__(cls, data: Any = None, *, persistent: bool = True) -> Any:  # type: ignore[misc]
        tensor = Tensor._make(np.zeros((0,), np.float32)) if data is None else data.detach()
        if data is not None and data.requires_grad:
            tensor.requires_grad_(True)
        tensor.__dict__.update(_is_buffer=True, _buffer_persistent=persistent)
        return tensor


def is_buffer(value: Any) -> bool:
    """Whether ``value`` was made by ``Buffer(...)``."""
    return isinstance(value, Tensor) and value.__dict__.get("_is_buffer", False)
