"""Finite differences and integrals of sampled functions: ``diff``, ``gradient``,
``trapezoid`` (``trapz``) and ``cumulative_trapezoid``, composites of tensor ops as in
torch (so their graphs are torch's), with torch's checks and errors; and their ``Tensor``
methods (``DifferenceMethods``).

Example: ``hookgrad.trapezoid(hookgrad.tensor([1.0, 2.0, 3.0]))`` is ``tensor(4.)``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from hookgrad.ops.util import wrap_dim
from hookgrad.tensor.dispatch import wrap_constant
from hookgrad.tensor.functions.joining import cat
from hookgrad.tensor.functions.scalar_steps import div_number, mul_number, slice_along
from hookgrad.tensor.promotion import is_scalar
from hookgrad.tensor.tensor import Tensor

__all__ = ["cumulative_trapezoid", "diff", "gradient", "trapezoid", "trapz"]


# ---------------------------------------------------------------- diff


def _check_neighbour(input: Tensor, other: Tensor | None, dim: int) -> None:
    if other is None:
        return
    if other.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(other.ndim):
        if i != dim and other.shape[i] != input.shape[i]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({i}) = "
                f"{input.shape[i]}, but got tensor.size({i}) = {other.shape[i]}"
            )


def diff(
    input: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    """The ``n``-th forward difference along ``dim``: ``out[i] = input[i + 1] - input[i]``
    (``logical_xor`` for bools), applied ``n`` times, after ``prepend`` and ``append``
    (tensors shaped as ``input`` except along ``dim``) are joined on.

    Example::

        hookgrad.tensor([1.0, 4.0, 9.0, 16.0]).diff()        # tensor([3., 5., 7.])
        hookgrad.tensor([1.0, 4.0, 9.0, 16.0]).diff(n=2)     # tensor([2., 2.])
    """
    if input.ndim < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    n = operator.index(n)
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = operator.index(dim)
    wrapped = wrap_dim(dim, input.ndim)
    _check_neighbour(input, prepend, wrapped)
    _check_neighbour(input, append, wrapped)
    if (n == 0 or input.shape[wrapped] == 0) and prepend is None and append is None:
        return input.clone()
    pieces = [t for t in (prepend, input, append) if t is not None]
    combined = cat(pieces, dim) if len(pieces) > 1 else input
    length = combined.shape[wrapped] - 1
    result = combined
    for _ in range(min(n, combined.shape[wrapped])):
        # NOTE: torch's C++ makes the right operand of ``later - earlier`` first.
        earlier = result.narrow(dim, 0, length)
        later = result.narrow(dim, 1, length)
        if result.dtype.is_floating_point or result.dtype.is_complex:
            result = later - earlier
        elif result._data.dtype == np.bool_:
            result = later.logical_xor(earlier)
        else:
            result = later - earlier
        length -= 1
    return result


# ---------------------------------------------------------------- gradient


def _spacing_list(spacing: Any, count: int) -> list[Any]:
    """``spacing`` as one entry per differentiated dim (a number or a 1-D tensor)."""
    if isinstance(spacing, Tensor) and spacing.ndim == 0:
        return [spacing.item()] * count
    if is_scalar(spacing):
        return [spacing] * count
    return list(spacing)


def gradient(
    input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1
) -> tuple[Tensor, ...]:
    """The gradient of the function sampled by ``input``, one tensor per dim (``dim``: an
    int or a tuple of them; all dims by default): central differences inside, one-sided
    ones of ``edge_order`` (1 or 2) at the edges. ``spacing`` is the distance between
    samples: a number, one per dim, or per dim a 1-D tensor of the sample coordinates.

    Example::

        hookgrad.gradient(hookgrad.tensor([1.0, 2.0, 4.0, 8.0]))
        # (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    if input._data.dtype == np.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    dims_given = dim is not None
    if dim is None:
        dims = list(range(input.ndim))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    given = not (is_scalar(spacing) or (isinstance(spacing, Tensor) and spacing.ndim == 0))
    if given and isinstance(spacing, Tensor):
        spacing = [spacing]
    if given and not dims_given and len(spacing) != input.ndim:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got "
            f"a list of length {len(spacing)}"
        )
    if given and dims_given and len(spacing) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}."
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped_dims = [wrap_dim(operator.index(d), input.ndim) for d in dims]
    if len(set(wrapped_dims)) != len(wrapped_dims):
        repeated = next(d for d in wrapped_dims if wrapped_dims.count(d) > 1)
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    for d in wrapped_dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    steps = _spacing_list(spacing, len(dims))
    results = []
    for d, step in zip(dims, steps):
        if isinstance(step, Tensor):
            results.append(_gradient_coordinates(input, step, d, edge_order))
        else:
            results.append(_gradient_uniform(input, step, d, edge_order))
    return tuple(results)


def _difference(x: Tensor, dim: int, later: tuple, earlier: tuple) -> Tensor:
    """``slice(x, *later) - slice(x, *earlier)``, the right operand made first (as torch's
    C++ evaluates it)."""
    right = slice_along(x, dim, *earlier)
    return slice_along(x, dim, *later) - right


def _weighted(x: Tensor, dim: int, terms: list[tuple[Any, tuple]], signs: list[int]) -> Tensor:
    """``w0 * slice0 (+|-) w1 * slice1 (+|-) w2 * slice2``, grouped from the left, its
    products made right to left (as torch's C++ evaluates it); ``signs[i]`` joins term
    ``i + 1``."""
    products = [None] * len(terms)
    for index in range(len(terms) - 1, -1, -1):
        weight, bounds = terms[index]
        products[index] = mul_number(weight, slice_along(x, dim, *bounds))
    total = products[0]
    for sign, product in zip(signs, products[1:]):
        total = total + product if sign > 0 else total - product
    return total


def _gradient_uniform(x: Tensor, step: Any, dim: int, edge_order: int) -> Tensor:
    """torch's ``gradient`` along ``dim`` for samples ``step`` apart."""
    center = div_number(_difference(x, dim, (2,), (0, -2)), step)
    if edge_order == 1:
        prepend = div_number(_difference(x, dim, (1, 2), (0, 1)), step)
        append = div_number(_difference(x, dim, (-1,), (-2, -1)), step)
    else:
        first = [(-1.5, (0, 1)), (2, (1, 2)), (0.5, (2, 3))]
        prepend = div_number(_weighted(x, dim, first, [1, -1]), step)
        last = [(0.5, (-3, -2)), (2, (-2, -1)), (1.5, (-1,))]
        append = div_number(_weighted(x, dim, last, [-1, 1]), step)
    return cat([prepend, div_number(center, 2), append], dim)


def _gradient_coordinates(x: Tensor, coordinates: Tensor, dim: int, edge_order: int) -> Tensor:
    """torch's ``gradient`` along ``dim`` for samples at ``coordinates`` (a 1-D tensor)."""
    if coordinates.ndim != 1:
        raise RuntimeError(
            "torch.gradient expected each element of spacing to have one dimension, but got "
            f"an element with {coordinates.ndim} dimensions!"
        )
    shape = [1] * x.ndim
    shape[dim] = -1
    dx = coordinates.diff(1, 0)
    dx1, dx2 = slice_along(dx, 0, 0, -1), slice_along(dx, 0, 1)
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    # NOTE: torch's C++ evaluates the right operand of ``+`` and ``*`` first: the terms
    # are made last to first (the order their nodes save and run in).
    center = _weighted(x, dim, [(a, (0, -2)), (b, (1, -1)), (c, (2,))], [1, 1])
    if edge_order == 1:
        prepend = _difference(x, dim, (1, 2), (0, 1)) / dx[0]
        append = _difference(x, dim, (-1,), (-2, -1)) / dx[-1]
    else:
        a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
        b = (dx[0] + dx[1]) / (dx[0] * dx[1])
        c = -dx[0] / (dx[1] * (dx[0] + dx[1]))
        prepend = _weighted(x, dim, [(a, (0, 1)), (b, (1, 2)), (c, (2, 3))], [1, 1])
        a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
        b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
        c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
        append = _weighted(x, dim, [(a, (-3, -2)), (b, (-2, -1)), (c, (-1,))], [1, 1])
    return cat([prepend, center, append], dim)


# ---------------------------------------------------------------- trapezoid


def _zeros_except(y: Tensor, dim: int) -> Tensor:
    shape = list(y.shape)
    del shape[dim]
    return wrap_constant(np.zeros(shape, y._data.dtype))


def _check_dx(dx: Any) -> None:
    if isinstance(dx, (bool, complex, np.bool_, np.complexfloating)):
        raise RuntimeError("trapezoid: Currently, we only support dx as a real number.")


def _x_differences(y: Tensor, x: Tensor, dim: int, wrapped: int) -> Tensor:
    """``x``'s differences along ``dim`` (``wrapped``: non-negative), viewed to broadcast
    against ``y``'s."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[wrapped]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        sizes = [1] * y.ndim
        sizes[wrapped] = x.shape[0]
        x = x.view(sizes)
    elif x.ndim < y.ndim:
        x = x.view([1] * (y.ndim - x.ndim) + list(x.shape))
    left = slice_along(x, dim, 0, -1)
    return slice_along(x, dim, 1) - left


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The integral of the samples ``y`` along ``dim`` by the trapezoidal rule, at the
    points ``x`` (a tensor) or ``dx`` apart (default 1).

    Example::

        hookgrad.trapezoid(hookgrad.tensor([1.0, 2.0, 3.0]))            # tensor(4.)
        hookgrad.trapezoid(hookgrad.tensor([1.0, 2.0, 3.0]), dx=0.5)    # tensor(2.)
    """
    dim = operator.index(dim)
    wrapped = wrap_dim(dim, y.ndim)
    if isinstance(x, Tensor) and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments: x and dx")
    if y.shape[wrapped] == 0:
        return _zeros_except(y, wrapped)
    if y._data.dtype == np.bool_:
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    if isinstance(x, Tensor):
        if x._data.dtype == np.bool_:
            raise RuntimeError(
                "trapezoid: received a bool input for `x`, but bool is not supported"
            )
        differences = _x_differences(y, x, wrapped, wrapped)
        left, right = slice_along(y, wrapped, 0, -1), slice_along(y, wrapped, 1)
        return div_number(((left + right) * differences).sum(wrapped), 2.0)
    step = 1 if dx is None and x is None else (dx if dx is not None else x)
    _check_dx(step)
    last = y.select(dim, -1)
    ends = mul_number(y.select(dim, 0) + last, 0.5)
    return mul_number(y.sum(dim) - ends, float(step))


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The deprecated name of :func:`trapezoid`."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running integral of ``y`` along ``dim`` by the trapezoidal rule (one element
    fewer than ``y`` along ``dim``); ``x`` and ``dx`` as in :func:`trapezoid`.

    Example::

        hookgrad.cumulative_trapezoid(hookgrad.tensor([1.0, 2.0, 3.0]))  # tensor([1.5000, 4.0000])
    """
    dim = operator.index(dim)
    wrapped = wrap_dim(dim, y.ndim)
    if y._data.dtype == np.bool_:
        raise RuntimeError(
            "cumulative_trapezoid: received a bool input for `y`, but bool is not supported"
        )
    if isinstance(x, Tensor):
        differences = _x_differences(y, x, wrapped, wrapped)
        left, right = slice_along(y, wrapped, 0, -1), slice_along(y, wrapped, 1)
        return div_number(((left + right) * differences).cumsum(wrapped), 2.0)
    step = 1 if dx is None and x is None else (dx if dx is not None else x)
    _check_dx(step)
    return mul_number(
        float(step) / 2.0, slice_along(y, dim, 0, -1) + slice_along(y, dim, 1)
    ).cumsum(dim)


class DifferenceMethods:
    """The difference methods of ``Tensor`` (``diff``)."""

    diff = diff
