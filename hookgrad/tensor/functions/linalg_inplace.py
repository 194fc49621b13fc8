"""The in-place matrix products: ``addmm_``, ``addmv_``, ``addr_``, ``baddbmm_``,
``addbmm_`` (``input = beta * input + alpha * product``).

Each runs the out-of-place product (its checks, its kernel, its node: ``addmm_`` records
``AddmmBackward0`` as torch does) on a stand-in for ``input`` and writes the result into
``input``'s memory (see ``hookgrad.tensor.functions.inplace``). As torch's, ``input`` must
already have the product's shape: it is not broadcast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookgrad.tensor.functions.inplace import run_inplace
from hookgrad.tensor.functions.linalg import addbmm, addmm, addmv, addr, baddbmm

__all__ = ["addmv_"]


def _product_(
    input: Any, product: Callable[..., Any], others: tuple[Any, Any], beta: Any, alpha: Any
) -> Any:
    """``input = product(input, *others, beta=beta, alpha=alpha)`` in place."""

    def function(x: Any, a: Any, b: Any) -> Any:
        out = product(x, a, b, beta=beta, alpha=alpha)
        if out._data.shape != x._data.shape:
            raise RuntimeError(
                f"Bad in-place call: input tensor size {list(x._data.shape)} and output tensor "
                f"size {list(out._data.shape)} should match"
            )
        return out

    return run_inplace(input, function, others)


def addmm_(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``input = beta * input + alpha * (mat1 @ mat2)`` in place; returns ``input``.

    Example: ``c.addmm_(a, b, beta=0.5)`` with ``c`` of shape ``(n, m)``.
    """
    return _product_(input, addmm, (mat1, mat2), beta, alpha)


def addmv_(input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``input = beta * input + alpha * (mat @ vec)`` in place; returns ``input``.

    Example: ``hookgrad.addmv_(y, m, v, alpha=2)``.
    """
    return _product_(input, addmv, (mat, vec), beta, alpha)


def addr_(input: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``input = beta * input + alpha * outer(vec1, vec2)`` in place (``input`` a
    matrix); returns ``input``."""
    if input._data.ndim != 2:
        raise RuntimeError(f"2D tensor expected, got {input._data.ndim}D tensor for input")
    return _product_(input, addr, (vec1, vec2), beta, alpha)


def baddbmm_(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``input = beta * input + alpha * bmm(batch1, batch2)`` in place; returns ``input``."""
    return _product_(input, baddbmm, (batch1, batch2), beta, alpha)


def addbmm_(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``input = beta * input + alpha * sum_b batch1[b] @ batch2[b]`` in place; returns
    ``input``."""
    return _product_(input, addbmm, (batch1, batch2), beta, alpha)


class LinalgInplaceMethods:
    """The in-place matrix products as ``Tensor`` methods."""

    addmm_ = addmm_
    addmv_ = addmv_
    addr_ = addr_
    baddbmm_ = baddbmm_
    addbmm_ = addbmm_
