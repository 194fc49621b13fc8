"""Linear algebra functions (matmul, mm, bmm, tensordot, addmm ...) and their Tensor
methods (``einsum`` is in ``einsum.py``).

The products check their operands here, with torch's error types and messages, then run
one op of ``hookgrad.ops.linalg``. ``matmul`` is a composite of those ops and views, as
torch's ``at::matmul`` (dot, mv, mm, or folded/broadcast views around mm/mv/bmm), so its
graph has torch's nodes.

torch's other top-level linear-algebra functions (``det``, ``svd``, ``cholesky_solve``,
``cdist``, ``addcmul`` ...) live in ``hookgrad.linalg.toplevel`` beside ``torch.linalg``
and are exported from here, with their ``Tensor`` methods.

Example: ``hookgrad.matmul(hookgrad.ones(2, 3), hookgrad.ones(3))`` is ``tensor([3., 3.])``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from hookgrad.linalg.checks import check_tensor, different_dtypes, type_name
from hookgrad.linalg.fused_pointwise import addcdiv, addcdiv_, addcmul, addcmul_
from hookgrad.linalg.lowrank import lobpcg, pca_lowrank, svd_lowrank
from hookgrad.linalg.toplevel import (
    cdist,
    chain_matmul,
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    cross,
    det,
    dist,
    eig,
    frobenius_norm,
    geqrf,
    inverse,
    logdet,
    lstsq,
    lu,
    lu_solve,
    lu_unpack,
    matrix_exp,
    matrix_power,
    norm,
    nuclear_norm,
    orgqr,
    ormqr,
    pdist,
    pinverse,
    qr,
    renorm,
    renorm_,
    slogdet,
    solve,
    svd,
    symeig,
    tensor_norm,
    triangular_solve,
    vander,
)
from hookgrad.ops import linalg as ops
from hookgrad.ops import shape as views
from hookgrad.ops.strides import torch_strides
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.einsum import einsum, einsum_of
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "addbmm",
    "addcdiv",
    "addcmul",
    "addmm",
    "addmv",
    "addr",
    "baddbmm",
    "bmm",
    "cdist",
    "chain_matmul",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "cross",
    "det",
    "dist",
    "dot",
    "eig",
    "frobenius_norm",
    "geqrf",
    "ger",
    "inner",
    "inverse",
    "kron",
    "lobpcg",
    "logdet",
    "lstsq",
    "lu",
    "lu_solve",
    "lu_unpack",
    "matmul",
    "matrix_exp",
    "matrix_power",
    "mm",
    "mv",
    "norm",
    "nuclear_norm",
    "orgqr",
    "ormqr",
    "outer",
    "pca_lowrank",
    "pdist",
    "pinverse",
    "qr",
    "renorm",
    "slogdet",
    "solve",
    "svd",
    "svd_lowrank",
    "symeig",
    "tensordot",
    "trace",
    "triangular_solve",
    "vander",
    "vdot",
]


def _no_bool(tensor: Any, kernel: str) -> None:
    if tensor._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _check_expandable(input: Any, target: tuple[int, ...]) -> None:
    """torch's ``expand`` errors when ``input`` (``self`` of addmm ...) cannot broadcast."""
    shape = input._data.shape
    if len(shape) > len(target):
        raise RuntimeError(
            f"expand(torch.{type_name(input)}Tensor{{{list(shape)}}}, size={list(target)}): "
            f"the number of sizes provided ({len(target)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(target) - len(shape)
    for i, size in enumerate(shape):
        if size != 1 and size != target[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing "
                f"size ({size}) at non-singleton dimension {lead + i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(shape)}"
            )


def _shape_text(*sizes: int) -> str:
    return "x".join(str(s) for s in sizes)


# ---------------------------------------------------------------- the checks of each kernel


def _check_mm(a_shape: tuple, b_shape: tuple, a: Any, b: Any) -> None:
    """torch's mm checks: inner sizes, then dtypes (``a``/``b`` are the tensors whose
    dtypes count; the shapes may be folded views of them)."""
    if a_shape[1] != b_shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(*a_shape)} and "
            f"{_shape_text(*b_shape)})"
        )
    if different_dtypes(a, b):
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{dtypes.cpp_name(a.dtype)} != {dtypes.cpp_name(b.dtype)}"
        )
    _no_bool(a, "addmm_impl_cpu_")


def _check_mv(mat_shape: tuple, vec_size: int, mat: Any, vec: Any) -> None:
    if mat_shape[1] != vec_size:
        raise RuntimeError(
            f"size mismatch, got input ({mat_shape[0]}), mat ({_shape_text(*mat_shape)}), "
            f"vec ({vec_size})"
        )
    if different_dtypes(mat, vec):
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{type_name(vec)}, {type_name(mat)}, and {type_name(vec)}"
        )
    _no_bool(mat, "addmv_impl_cpu")


def _check_dot(a: Any, b: Any) -> None:
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if different_dtypes(a, b):
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{type_name(a)} and {type_name(b)}"
        )
    n, m = a._data.shape[0], b._data.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    _no_bool(a, "dot")


def _check_bmm(batch: int, a_inner: int, b_rows: int, a: Any, b: Any) -> None:
    if a_inner != b_rows:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch}, {a_inner}] but got: [{batch}, {b_rows}]."
        )
    if different_dtypes(a, b):
        raise RuntimeError(f"expected scalar type {type_name(a)} but found {type_name(b)}")
    _no_bool(a, "bmm")


# ---------------------------------------------------------------- products


def mm(input: Any, mat2: Any) -> Any:
    """The matrix product of two 2-D tensors (no broadcasting; see ``matmul``).

    Example: ``hookgrad.mm(hookgrad.ones(2, 3), hookgrad.ones(3, 4)).shape`` is ``(2, 4)``.
    """
    check_tensor(input, "mm", "input", 1)
    check_tensor(mat2, "mm", "mat2", 2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(input._data.shape, mat2._data.shape, input, mat2)
    return apply(ops.Mm(), input, mat2)


def bmm(input: Any, mat2: Any) -> Any:
    """Batched matrix product of two 3-D tensors ``(b, n, m) @ (b, m, p) -> (b, n, p)``."""
    check_tensor(input, "bmm", "input", 1)
    check_tensor(mat2, "bmm", "mat2", 2)
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (batch, _, inner), (batch2, rows, _) = input._data.shape, mat2._data.shape
    if batch != batch2:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch}, {inner}] but got: [{batch2}, {rows}]."
        )
    _check_bmm(batch, inner, rows, input, mat2)
    return apply(ops.Bmm(), input, mat2)


def mv(input: Any, vec: Any) -> Any:
    """Matrix-vector product ``(n, m) @ (m,) -> (n,)``."""
    check_tensor(input, "mv", "input", 1)
    check_tensor(vec, "mv", "vec", 2)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    _check_mv(input._data.shape, vec._data.shape[0], input, vec)
    return apply(ops.Mv(), input, vec)


def dot(input: Any, tensor: Any) -> Any:
    """The inner product of two 1-D tensors (no complex conjugation; see ``vdot``)."""
    check_tensor(input, "dot", "input", 1)
    check_tensor(tensor, "dot", "tensor", 2)
    _check_dot(input, tensor)
    return apply(ops.Dot(), input, tensor)


def vdot(input: Any, other: Any) -> Any:
    """``sum(conj(input) * other)`` for two 1-D tensors."""
    check_tensor(input, "vdot", "input", 1)
    check_tensor(other, "vdot", "other", 2)
    _check_dot(input, other)
    return apply(ops.Vdot(), input, other)


def matmul(input: Any, other: Any) -> Any:
    """The matrix product with torch's rules for every number of dimensions.

    1-D @ 1-D is a dot product, 2-D @ 1-D a matrix-vector product, 1-D @ 2-D a
    vector-matrix product, 2-D @ 2-D ``mm``; with more dimensions the leading ones are
    batch dimensions and broadcast (a 1-D operand acts as a matrix of one row/column
    that is dropped from the result). ``a @ b`` calls it.

    As torch's ``at::matmul``, it is made of those ops and views around them, so the graph
    has torch's nodes (``x(3,) @ w(3, 1)`` records Unsqueeze, Mm, Squeeze).

    Example::

        x = hookgrad.ones(5, 1, 2, 3)
        w = hookgrad.ones(4, 3, 6)
        (x @ w).shape       # Size([5, 4, 2, 6])
    """
    check_tensor(input, "matmul", "input", 1)
    check_tensor(other, "matmul", "other", 2)
    ndims = (input.ndim, other.ndim)
    if 0 in ndims:
        raise RuntimeError(
            "both arguments to matmul need to be at least 1D, but they are "
            f"{ndims[0]}D and {ndims[1]}D"
        )
    if ndims == (1, 1):
        return dot(input, other)
    if ndims == (2, 1):
        return mv(input, other)
    if ndims == (1, 2):
        # torch squeezes in place (``squeeze_(0)``): SqueezeBackward4, not a view.
        return apply(views.SqueezeDimInplace((0,)), mm(input.unsqueeze(0), other))
    if ndims == (2, 2):
        _check_mm(input._data.shape, other._data.shape, input, other)
        return apply(ops.Mm(), input, other)
    if ndims == (3, 3):
        # torch: a batch of one that requires grad, times a batch of more, is a matrix
        # (then folded: its gradient is one mm).
        batches = (input._data.shape[0], other._data.shape[0])
        if batches[1] == 1 != batches[0] and other.requires_grad:
            other = other.squeeze(0)
        elif batches[0] == 1 != batches[1] and input.requires_grad:
            input = input.squeeze(0)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _batched_matmul(input, other)


def _unsafe_view(input: Any, shape: list[int]) -> Any:
    return apply(views.UnsafeView(tuple(shape)), input)


def _should_fold(a: Any, b: Any) -> bool:
    """torch's ``should_fold``: whether the batch dims of the bigger operand (3-D or more)
    fold into matrix rows, for one mm/mv with the other (1-D or 2-D) operand.

    Always when that other operand requires grad (its gradient is then one mm, not a sum
    over a batch); otherwise only without a copy: not for a 2-D ``a`` (its transposed
    product would be copied), and only when the batch dims lie contiguously.
    """
    a_larger = a.ndim >= b.ndim
    t1 = a._data if a_larger else np.swapaxes(b._data, -1, -2)
    small = b if a_larger else a
    if t1.ndim < 3 or small.ndim > 2:
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:
        return False
    if t1.size == 0:
        return True
    shape, strides = t1.shape, torch_strides(t1)
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(t1.ndim - 2))


def _folded_matmul(a: Any, b: Any) -> Any:
    """A batch (3-D or more) times a matrix or vector as one mm/mv of its folded rows
    (``batch @ small``, or ``(small^T @ batch^T)^T``)."""
    transpose = b.ndim > a.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    sizes = t1._data.shape
    output_shape = list(sizes[:-1])
    folded = t1.reshape(math.prod(output_shape), sizes[-1])
    if t2.ndim == 1:
        return _unsafe_view(mv(folded, t2), output_shape)
    output_shape.append(t2._data.shape[1])
    output = _unsafe_view(mm(folded, t2), output_shape)
    return output.mT.contiguous() if transpose else output


def _batched_matmul(a: Any, b: Any) -> Any:
    """Both operands expanded to the broadcast batch dims, flattened to one batch dim,
    multiplied by bmm and viewed in the output's shape."""
    a_shape, b_shape = a._data.shape, b._data.shape
    n = a_shape[-2] if a.ndim > 1 else 1
    p = b_shape[-1] if b.ndim > 1 else 1
    m1 = a_shape[-1]
    m2 = b_shape[-2] if b.ndim > 1 else b_shape[0]
    batch = _broadcast_batch(a_shape[: max(a.ndim - 2, 0)], b_shape[: max(b.ndim - 2, 0)])
    count = math.prod(batch)
    a3 = a.expand(*batch, n, m1).reshape(count, n, m1)
    output_shape = list(batch) + ([n] if a.ndim > 1 else [])
    if b.ndim == 1:
        b3 = b.expand(*batch, m2).reshape(count, m2).unsqueeze(2)
        return _unsafe_view(bmm(a3, b3).squeeze(-1), output_shape)
    b3 = b.expand(*batch, m2, p).reshape(count, m2, p)
    return _unsafe_view(bmm(a3, b3), [*output_shape, p])


def _broadcast_batch(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of two batch shapes, with torch's error."""
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + tuple(a)
    b = (1,) * (ndim - len(b)) + tuple(b)
    out = []
    for dim, (n, m) in enumerate(zip(a, b)):
        if n != m and n != 1 and m != 1:
            raise RuntimeError(
                f"The size of tensor a ({n}) must match the size of tensor b ({m}) at "
                f"non-singleton dimension {dim}"
            )
        out.append(max(n, m) if n and m else 0)
    return tuple(out)


def outer(input: Any, vec2: Any) -> Any:
    """The outer product ``input[i] * vec2[j]`` of two 1-D tensors (dtypes promote)."""
    check_tensor(input, "outer", "input", 1)
    check_tensor(vec2, "outer", "vec2", 2)
    for name, vector in (("self", input), ("vec2", vec2)):
        if vector.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {vector.ndim}-D")
    return input.reshape(-1, 1) * vec2


ger = outer


def inner(input: Any, other: Any) -> Any:
    """The sum over the last dimension of both: ``out[..., ...] = sum_k a[..., k] b[..., k]``.

    A 0-D operand multiplies instead.
    """
    check_tensor(input, "inner", "input", 1)
    check_tensor(other, "inner", "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    if different_dtypes(input, other):
        raise RuntimeError("both inputs should have same dtype")
    a = ops.LETTERS[: input.ndim - 1]
    b = ops.LETTERS[input.ndim - 1 : input.ndim + other.ndim - 2]
    return einsum(f"{a}z,{b}z->{a}{b}", input, other)


def tensordot(a: Any, b: Any, dims: Any = 2) -> Any:
    """Sum the products over ``dims`` of ``a`` and ``b``: the last ``dims`` dims of ``a``
    with the first ``dims`` of ``b`` (an int), or the listed dims ``([dims_a], [dims_b])``.

    Example: ``tensordot(ones(2, 3, 4), ones(3, 4, 5)).shape`` is ``(2, 5)``.
    """
    check_tensor(a, "tensordot", "a", 1)
    check_tensor(b, "tensordot", "b", 2)
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(dims_a) != len(dims_b):
            raise RuntimeError("both dimension lists should have same length")
    wrapped_a = [wrap_dim(d, a.ndim) for d in dims_a]
    wrapped_b = [wrap_dim(d, b.ndim) for d in dims_b]
    for wrapped in (wrapped_a, wrapped_b):
        for d in wrapped:
            if wrapped.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if different_dtypes(a, b):
        raise RuntimeError("both inputs should have same dtype")
    labels_a = list(ops.LETTERS[: a.ndim])
    labels_b = list(ops.LETTERS[a.ndim : a.ndim + b.ndim])
    for da, db, given_a, given_b in zip(wrapped_a, wrapped_b, dims_a, dims_b):
        size_a, size_b = a._data.shape[da], b._data.shape[db]
        if size_a != size_b:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {size_a} in dim "
                f"{given_a} and second has size {size_b} in dim {given_b}"
            )
        labels_b[db] = labels_a[da]
    out = [c for c in labels_a if c not in labels_b] + [c for c in labels_b if c not in labels_a]
    return einsum(f"{''.join(labels_a)},{''.join(labels_b)}->{''.join(out)}", a, b)


def kron(input: Any, other: Any) -> Any:
    """The Kronecker product: block ``(i, j)`` of the result is ``input[i, j] * other``.

    Operands with fewer dims get leading dims of size 1 first.
    """
    check_tensor(input, "kron", "input", 1)
    check_tensor(other, "kron", "other", 2)
    ndim = max(input.ndim, other.ndim)
    a_shape = (1,) * (ndim - input.ndim) + tuple(input._data.shape)
    b_shape = (1,) * (ndim - other.ndim) + tuple(other._data.shape)
    a = input.reshape([s for n in a_shape for s in (n, 1)])
    b = other.reshape([s for n in b_shape for s in (1, n)])
    return (a * b).reshape([n * m for n, m in zip(a_shape, b_shape)])


def trace(input: Any) -> Any:
    """The sum of the main diagonal of a 2-D tensor."""
    check_tensor(input, "trace", "input", 1)
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    _no_bool(input, "trace")
    return apply(ops.Trace(), input)


# ---------------------------------------------------------------- beta * input + alpha * product


def addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the result.

    With ``beta=0``, ``input`` is ignored (NaN in it does not propagate). ``nn.Linear``
    is ``addmm(bias, x, weight.T)``.
    """
    for i, (name, matrix) in enumerate((("mat1", mat1), ("mat2", mat2))):
        check_tensor(matrix, "addmm", name, i + 2)
        if matrix.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {matrix.ndim}-D tensor")
    (n, k), (k2, m) = mat1._data.shape, mat2._data.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    _check_expandable(input, (n, m))
    _check_add_dtypes(input, mat1, mat2)
    _no_bool(mat1, "addmm_impl_cpu_")
    return apply(ops.Addmm(beta, alpha), input, mat1, mat2)


def _check_add_dtypes(input: Any, mat1: Any, mat2: Any) -> None:
    """addmm's and addbmm's dtype checks, ``self`` against ``mat2`` first."""
    for name, tensor in (("self", input), ("mat1", mat1)):
        if different_dtypes(tensor, mat2):
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got {type_name(tensor)} and "
                f"{type_name(mat2)}"
            )


def addmv(input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * (mat @ vec)``."""
    if input.ndim > 1 or mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}"
        )
    rows, cols = mat._data.shape
    size = input._data.shape[0] if input.ndim else 1
    if cols != vec._data.shape[0] or size not in (1, rows):
        raise RuntimeError(
            f"size mismatch, got input ({size}), mat ({rows}x{cols}), vec ({vec._data.shape[0]})"
        )
    if different_dtypes(input, mat) or different_dtypes(mat, vec):
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{type_name(input)}, {type_name(mat)}, and {type_name(vec)}"
        )
    _no_bool(mat, "addmv_impl_cpu")
    return apply(ops.Addmv(beta, alpha), input, mat, vec)


def baddbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    for name, tensor in (("batch1", batch1), ("batch2", batch2)):
        if tensor.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (batch, n, k), (batch2_size, k2, m) = batch1._data.shape, batch2._data.shape
    _check_expandable(input, (batch, n, m))
    if (batch, k) != (batch2_size, k2):
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch}, {k}] but got: [{batch2_size}, {k2}]."
        )
    if different_dtypes(input, batch1):
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {dtypes.cpp_name(input.dtype)}, "
            f"batch1: {dtypes.cpp_name(batch1.dtype)}, batch2: {dtypes.cpp_name(batch2.dtype)}"
        )
    _check_bmm(batch, k, k2, batch1, batch2)
    return apply(ops.Baddbmm(beta, alpha), input, batch1, batch2)


def addbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``."""
    for name, tensor in (("batch1", batch1), ("batch2", batch2)):
        if tensor.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (batch, n, k), (batch2_size, k2, m) = batch1._data.shape, batch2._data.shape
    _check_expandable(input, (n, m))
    if batch != batch2_size:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {batch} and {batch2_size}"
        )
    if k != k2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {k2}x{m})")
    _check_add_dtypes(input, batch1, batch2)
    _no_bool(batch1, "addbmm")
    return apply(ops.Addbmm(beta, alpha), input, batch1, batch2)


def addr(input: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """``beta * input + alpha * outer(vec1, vec2)`` (dtypes promote)."""
    for name, vector in (("vec1", vec1), ("vec2", vec2)):
        if vector.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vector.ndim}-D")
    _check_expandable(input, (vec1._data.shape[0], vec2._data.shape[0]))
    dtype = dtypes.result_type(input, vec1, vec2)
    tensors = [x if x.dtype is dtype else x.to(dtype) for x in (input, vec1, vec2)]
    return apply(ops.Addr(beta, alpha), *tensors)


class LinalgMethods:
    """Linear algebra methods of ``Tensor``."""

    mm = mm
    bmm = bmm
    mv = mv
    dot = dot
    vdot = vdot
    matmul = matmul
    outer = outer
    ger = outer
    inner = inner
    kron = kron
    trace = trace
    addmm = addmm
    addmv = addmv
    baddbmm = baddbmm
    addbmm = addbmm
    addr = addr
    det = det
    logdet = logdet
    slogdet = slogdet
    inverse = inverse
    pinverse = pinverse
    matrix_power = matrix_power
    matrix_exp = matrix_exp
    qr = qr
    svd = svd
    lu = lu
    lu_solve = lu_solve
    cholesky = cholesky
    cholesky_solve = cholesky_solve
    cholesky_inverse = cholesky_inverse
    triangular_solve = triangular_solve
    geqrf = geqrf
    orgqr = orgqr
    ormqr = ormqr
    cross = cross
    dist = dist
    norm = tensor_norm
    renorm = renorm
    renorm_ = renorm_
    addcmul = addcmul
    addcmul_ = addcmul_
    addcdiv = addcdiv
    addcdiv_ = addcdiv_
    eig = eig
    symeig = symeig
    solve = solve
    lstsq = lstsq

    def _einsum(self, equation: str, *others: Any) -> Any:
        """``einsum(equation, self, *others)``: how backward formulas (in ``hookgrad.ops``,
        which calls only tensor methods) contract tensors."""
        return einsum_of(equation, (self, *others))
