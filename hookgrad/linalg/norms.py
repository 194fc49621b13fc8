"""``torch.linalg``'s norms and products: ``norm``, ``vector_norm``, ``matrix_norm``,
``cross``, ``vecdot``, ``multi_dot``, ``vander``, ``diagonal``, ``matmul``. Matrix norms
are torch's composites (a vector norm, then ``amax``/``amin``; or singular values), so a
graph holds torch's nodes (``LinalgVectorNormBackward0``, ``LinalgSvdBackward0`` ...)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hookgrad.linalg.checks import check_floating, check_matrix, check_tensor, type_name, with_out
from hookgrad.linalg.factorizations import svdvals
from hookgrad.ops import linalg as linalg_ops
from hookgrad.ops import reduction as reduction_ops
from hookgrad.ops.util import wrap_dim, wrap_dims
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, broadcast_shapes
from hookgrad.tensor.functions.reduction import check_inf_norm, saved_dims

__all__ = [
    "cross",
    "diagonal",
    "matmul",
    "matrix_norm",
    "multi_dot",
    "norm",
    "vander",
    "vecdot",
    "vector_norm",
]


# ---------------------------------------------------------------- norms


def _check_norm_dtype(dtype: Any, input: Any, api: str) -> Any:
    """torch's ``check_linalg_norm_dtype``; returns the NumPy dtype (or None)."""
    if dtype is None:
        return None
    target = dtypes.to_dtype(dtype)
    name = dtypes.legacy_name(target)
    if not (target.is_floating_point or target.is_complex):
        raise RuntimeError(f"{api}: dtype should be floating point or complex, but got {name}")
    complex_input = input._data.dtype.kind == "c"
    if complex_input != target.is_complex:
        kind = "complex" if complex_input else "real"
        raise RuntimeError(f"{api}: dtype should be {kind} for {kind} inputs, but got {name}")
    if dtypes.promote_types(input.dtype, target) is not target:
        raise RuntimeError(
            f"{api}: the dtype of the input ({dtypes.legacy_name(input.dtype)}) should be "
            f"convertible without narrowing to the specified dtype ({name})"
        )
    return target.np


def _check_out_dtype(result: Any, out: Any, api: str | None) -> None:
    """torch's norms write only into an ``out`` of the result's dtype (``api`` names the
    function in the message; None: the message of ``linalg.vector_norm``)."""
    if out is None or not hasattr(out, "dtype") or out.dtype is result.dtype:
        return
    if api is None:
        raise RuntimeError(
            f"Expected out tensor to have dtype {dtypes.cpp_name(result.dtype)}, but got "
            f"{dtypes.cpp_name(out.dtype)} instead"
        )
    raise RuntimeError(
        f"{api} expected out tensor dtype {dtypes.legacy_name(result.dtype)} but got: "
        f"{dtypes.legacy_name(out.dtype)}"
    )


def vector_norm(
    x: Any,
    ord: float = 2,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Any:
    """The vector ``ord``-norm ``(sum |x|^ord)^(1/ord)`` over ``dim`` (all elements if
    None): ``ord`` any real, ``inf`` (largest |x|), ``-inf`` (smallest), 0 (the number of
    non-zeros). ``dtype`` computes in that dtype. The result is real.

    Example::

        hookgrad.linalg.vector_norm(hookgrad.tensor([3.0, -4.0]))          # tensor(5.)
        hookgrad.linalg.vector_norm(hookgrad.tensor([3.0, -4.0]), ord=1)   # tensor(7.)
    """
    check_tensor(x, "linalg_vector_norm", "x", 1)
    check_floating(x, "linalg.vector_norm", low_precision=False)
    np_dtype = _check_norm_dtype(dtype, x, "linalg.vector_norm")
    dims = None if dim is None else wrap_dims(dim, x.ndim)
    if math.isinf(ord):
        check_inf_norm(x, dims or None)
    op = reduction_ops.VectorNorm(ord, saved_dims(dim), keepdim, np_dtype)
    result = apply(op, x)
    _check_out_dtype(result, out, None)
    return with_out("linalg_vector_norm", (x,), result, out)


def _backshift(dim0: int, dim1: int, ndim: int) -> list[int]:
    """torch's ``create_dim_backshift_permutation``: ``dim0``, ``dim1`` moved last."""
    return [d for d in range(ndim) if d not in (dim0, dim1)] + [dim0, dim1]


def _inverse(permutation: list[int]) -> list[int]:
    inverse = [0] * len(permutation)
    for position, value in enumerate(permutation):
        inverse[value] = position
    return inverse


def matrix_norm(
    input: Any,
    ord: Any = "fro",
    dim: Sequence[int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Any:
    """A matrix norm over the two dims ``dim``: ``'fro'`` (Frobenius), ``'nuc'`` (sum of
    singular values), 2 / -2 (largest / smallest singular value), 1 / -1 (largest /
    smallest column sum of |A|), ``inf`` / ``-inf`` (row sums).

    Example::

        A = hookgrad.tensor([[1.0, -2.0], [3.0, 4.0]])
        hookgrad.linalg.matrix_norm(A, ord=1)      # tensor(6.)
    """
    check_tensor(input, "linalg_matrix_norm", "A", 1)
    api = "linalg.matrix_norm"
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{api}: Order {ord} not supported.")
        low_precision = ord == "nuc"
    else:
        if abs(ord) not in (1, 2, math.inf):
            raise RuntimeError(f"{api}: Order {_number(ord)} not supported.")
        low_precision = abs(ord) != 2
    check_matrix(input, api)
    check_floating(input, api, low_precision=low_precision)
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) != 2:
        shown = " ".join(str(d) for d in dims)
        raise RuntimeError(f"{api}: dim must be a 2-tuple. Got {shown}")
    dims = [wrap_dim(d, input.ndim) for d in dims]
    if dims[0] == dims[1]:
        raise RuntimeError(f"{api}: dims must be different. Got ({dims[0]}, {dims[1]})")
    _check_norm_dtype(dtype, input, api)
    if ord == "fro":
        result = vector_norm(input, 2, dims, keepdim, dtype=dtype)
    elif ord == "nuc" or abs(ord) == 2:
        result = _singular_value_norm(input, ord, dims, keepdim, dtype)
    else:
        if math.isinf(ord):
            dims = dims[::-1]
        if not keepdim and dims[0] < dims[1]:
            dims[1] -= 1
        columns = vector_norm(input, 1.0, [dims[0]], keepdim, dtype=dtype)
        result = columns.amax(dims[1], keepdim) if ord > 0 else columns.amin(dims[1], keepdim)
    _check_out_dtype(result, out, api)
    return with_out("linalg_matrix_norm", (input,), result, out)


def _singular_value_norm(A: Any, ord: Any, dims: list[int], keepdim: bool, dtype: Any) -> Any:
    permutation = _backshift(dims[0], dims[1], A.ndim)
    source = A if dtype is None else A.to(dtype)
    values = svdvals(source.permute(*permutation))
    if ord == "nuc":
        result = values.sum(-1, keepdim)
    else:
        result = values.amax(-1, keepdim) if ord > 0 else values.amin(-1, keepdim)
    if keepdim:
        result = result.unsqueeze(-1).permute(*_inverse(permutation))
    return result


def _number(value: Any) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return str(value)


def norm(
    input: Any,
    ord: Any = None,
    dim: Any = None,
    keepdim: bool = False,
    *,
    out: Any = None,
    dtype: Any = None,
) -> Any:
    """A vector or matrix norm: a matrix norm (:func:`matrix_norm`) when ``ord`` is given
    and ``dim`` is a 2-tuple (or ``A`` is 2-D without ``dim``), else a vector norm
    (:func:`vector_norm`; ``ord=None`` is the 2-norm over all elements).

    Example::

        A = hookgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        hookgrad.linalg.norm(A)              # tensor(5.4772): Frobenius
        hookgrad.linalg.norm(A, ord=2)       # tensor(5.4650): largest singular value
    """
    check_tensor(input, "linalg_norm", "input", 1)
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}"
            )
    else:
        dims = None
        if ord is not None and input.ndim not in (1, 2):
            raise RuntimeError(
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                f"Got {input.ndim}D."
            )
    if isinstance(ord, str) or (
        ord is not None
        and ((dims is not None and len(dims) == 2) or (dims is None and input.ndim == 2))
    ):
        matrix_dims = dims if dims is not None else [0, 1]
        result = matrix_norm(input, ord, matrix_dims, keepdim, dtype=dtype)
    else:
        result = vector_norm(input, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    _check_out_dtype(result, out, "linalg.norm")
    return with_out("linalg_norm", (input,), result, out)


# ---------------------------------------------------------------- products


def cross(input: Any, other: Any, *, dim: int = -1, out: Any = None) -> Any:
    """The cross product of 3-vectors along ``dim`` (batch dims broadcast).

    Example::

        hookgrad.linalg.cross(hookgrad.tensor([1.0, 0.0, 0.0]), hookgrad.tensor([0.0, 1.0, 0.0]))
        # tensor([0., 0., 1.])
    """
    check_tensor(input, "linalg_cross", "input", 1)
    check_tensor(other, "linalg_cross", "other", 2)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    wrapped = wrap_dim(dim, input.ndim)
    a_size, b_size = input._data.shape[wrapped], other._data.shape[wrapped]
    if a_size != 3 or b_size != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a_size} and {b_size}"
        )
    broadcast_shapes(input._data.shape, other._data.shape)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"expected scalar type {type_name(input)} but found {type_name(other)}")
    result = apply(linalg_ops.LinalgCross(dim), input, other)
    return with_out("linalg_cross", (input, other), result, out)


def vecdot(x: Any, y: Any, *, dim: int = -1, out: Any = None) -> Any:
    """The dot product ``sum(conj(x) * y)`` along ``dim`` (batch dims broadcast).

    Example: ``hookgrad.linalg.vecdot(hookgrad.ones(2, 3), hookgrad.ones(3))`` is
    ``tensor([3., 3.])``.
    """
    check_tensor(x, "linalg_vecdot", "x", 1)
    check_tensor(y, "linalg_vecdot", "y", 2)
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{type_name(x)} and y of type {type_name(y)} instead"
        )
    check_floating(x, "linalg.vecdot", low_precision=False)
    product = (x.conj() if x.is_complex() else x) * y
    return with_out("linalg_vecdot", (x, y), product.sum(dim), out)


def multi_dot(tensors: Sequence[Any], *, out: Any = None) -> Any:
    """The product of a chain of matrices, multiplied in the order that needs the fewest
    operations; the first may be a row vector and the last a column vector (1-D).

    Example: ``multi_dot([ones(10, 100), ones(100, 5), ones(5)])`` has shape (10,).
    """
    tensors = list(tensors)
    count = len(tensors)
    if count < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {count}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for index in range(1, count - 1):
        if tensors[index].ndim != 2:
            raise RuntimeError(
                f"multi_dot(): tensor {index} must be 2D but got {tensors[index].ndim}D"
            )
    for index in range(1, count):
        if tensors[index]._data.dtype != first._data.dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{dtypes.cpp_name(first.dtype)} and tensor {index} "
                f"{dtypes.cpp_name(tensors[index].dtype)}"
            )
    out_shape = []
    if first.ndim == 2:
        out_shape.append(first.shape[0])
    if last.ndim == 2:
        out_shape.append(last.shape[1])
    matrices = list(tensors)
    if first.ndim == 1:
        matrices[0] = first.unsqueeze(0)
    if last.ndim == 1:
        matrices[-1] = last.unsqueeze(-1)
    for index in range(1, count):
        left, right = matrices[index - 1], matrices[index]
        if left.shape[-1] != right.shape[0]:
            shown = [tensors[index - 1], tensors[index]]
            raise RuntimeError(
                f"multi_dot(): tensors {index - 1} and {index} with shapes "
                f"{list(shown[0].shape)} and {list(shown[1].shape)} cannot be multiplied"
            )
    result = _chain(matrices)
    return with_out("linalg_multi_dot", tuple(tensors), result.view(*out_shape), out)


def _chain(matrices: list[Any]) -> Any:
    """torch's ``multi_dot_impl``: two or three matrices compared directly, more by the
    textbook dynamic programme over the chain's split points."""
    count = len(matrices)
    if count == 2:
        return matrices[0].mm(matrices[1])
    if count == 3:
        a, b, c = matrices[0].shape[0], matrices[1].shape[0], matrices[2].shape[0]
        d = matrices[2].shape[1]
        cost_1 = (a * c) * (b + d)
        cost_2 = (b * d) * (a + c)
        if cost_1 > cost_2:
            return matrices[0].mm(matrices[1].mm(matrices[2]))
        return matrices[0].mm(matrices[1]).mm(matrices[2])
    sizes = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if q < cost[i][j]:
                    cost[i][j] = q
                    split[i][j] = k

    def multiply(i: int, j: int) -> Any:
        if i == j:
            return matrices[i]
        return multiply(i, split[i][j]).mm(multiply(split[i][j] + 1, j))

    return multiply(0, count - 1)


def vander(x: Any, N: int | None = None) -> Any:
    """The Vandermonde matrix with increasing powers ``x^0 ... x^(N-1)`` along a new last
    dim (``N`` defaults to ``x.shape[-1]``).

    Example::

        hookgrad.linalg.vander(hookgrad.tensor([1.0, 2.0, 3.0]))
        # tensor([[1., 1., 1.], [1., 2., 4.], [1., 3., 9.]])
    """
    check_tensor(x, "linalg_vander", "x", 1)
    if x.ndim == 0:
        raise RuntimeError("N must be greater than 1.")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    ones = x.new_ones((*x.shape, 1))
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    if powers.dtype != x.dtype:
        ones = ones.to(powers.dtype)
    return ones._cat([ones, powers], -1)


def diagonal(A: Any, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """The diagonal ``offset`` of the matrices over dims ``dim1``, ``dim2`` (a view), as
    the last dim: ``torch.diagonal`` with defaults for batches of matrices.

    Example: ``hookgrad.linalg.diagonal(hookgrad.eye(3).expand(2, 3, 3))`` has shape (2, 3).
    """
    check_tensor(A, "linalg_diagonal", "A", 1)
    return A.diagonal(offset, dim1, dim2)


def matmul(input: Any, other: Any, *, out: Any = None) -> Any:
    """The matrix product, as :func:`torch.matmul`."""
    check_tensor(input, "linalg_matmul", "input", 1)
    check_tensor(other, "linalg_matmul", "other", 2)
    return with_out("linalg_matmul", (input, other), input.matmul(other), out)
