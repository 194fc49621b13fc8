"""torch's top-level linear-algebra functions (``torch.det``, ``torch.svd``,
``torch.cholesky_solve``, ``torch.cdist`` ...), also ``Tensor`` methods.

Most are ``torch.linalg`` functions under older names or with older conventions
(``torch.svd`` returns ``V``, not ``Vh``; ``torch.qr`` takes ``some``); the rest are the
legacy solvers (``triangular_solve``, ``cholesky_solve``, ``lu_solve``), Householder
helpers (``geqrf``, ``orgqr``, ``ormqr``), norms and distances (``cdist``, ``pdist``,
``dist``). The fused ``addcmul``/``addcdiv`` are in ``fused_pointwise.py``.
``hookgrad.tensor.functions.linalg`` exports them.

Example: ``hookgrad.svd(hookgrad.eye(2)).V`` is the 2x2 identity.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from hookgrad.linalg import factorizations, norms, solvers
from hookgrad.linalg.checks import (
    check_floating,
    check_square,
    check_tensor,
    raise_for_info,
    type_name,
    with_out,
)
from hookgrad.ops import linalg as linalg_ops
from hookgrad.ops.factorizations import Cholesky, CholeskyInverse, CholeskySolve, Geqrf, Ormqr
from hookgrad.ops.lu import LuUnpack, TriangularSolve
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, broadcast_shapes
from hookgrad.tensor.functions.inplace import run_inplace_op
from hookgrad.tensor.named_tuples import return_type

__all__ = [
    "cdist",
    "chain_matmul",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "cross",
    "det",
    "dist",
    "eig",
    "frobenius_norm",
    "geqrf",
    "inverse",
    "logdet",
    "lstsq",
    "lu",
    "lu_solve",
    "lu_unpack",
    "matrix_exp",
    "matrix_power",
    "norm",
    "nuclear_norm",
    "orgqr",
    "ormqr",
    "pdist",
    "pinverse",
    "qr",
    "renorm",
    "slogdet",
    "solve",
    "svd",
    "symeig",
    "triangular_solve",
    "vander",
]

slogdet_result = return_type("slogdet", ("sign", "logabsdet"))
qr_result = return_type("qr", ("Q", "R"))
svd_result = return_type("svd", ("U", "S", "V"))
lu_unpack_result = return_type("lu_unpack", ("P", "L", "U"))
lu_with_info = return_type("_lu_with_info", ("LU", "pivots", "info"))
triangular_solve_result = return_type("triangular_solve", ("solution", "cloned_coefficient"))
geqrf_result = return_type("geqrf", ("a", "tau"))


def _warn(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=3)


# ---------------------------------------------------------------- determinants, inverses


def det(input: Any) -> Any:
    """The determinant of a square matrix (batch): :func:`hookgrad.linalg.det`.

    Example: ``hookgrad.tensor([[2.0, 1.0], [1.0, 3.0]]).det()`` is ``tensor(5.)``.
    """
    return solvers.det(input)


def logdet(input: Any) -> Any:
    """``log(det(input))``: NaN where the determinant is negative, ``-inf`` where it is 0
    (computed from :func:`hookgrad.linalg.slogdet`, so it does not overflow).

    Example: ``hookgrad.eye(3).mul(2).logdet()`` is ``tensor(2.0794)``.
    """
    check_tensor(input, "logdet", "input", 1)
    check_square(input, "logdet")
    check_floating(input, "logdet", low_precision=False)
    sign, logabsdet = solvers.slogdet(input)
    if input.is_complex():
        return sign.log() + logabsdet
    return logabsdet.new_tensor(math.nan).where(sign == -1, logabsdet)


def slogdet(input: Any) -> Any:
    """``(sign, logabsdet)`` of a square matrix (batch): :func:`hookgrad.linalg.slogdet`."""
    return slogdet_result(solvers.slogdet(input))


def inverse(input: Any, *, out: Any = None) -> Any:
    """The inverse of a square matrix (batch): :func:`hookgrad.linalg.inv`."""
    return solvers.inv(input, out=out)


def pinverse(input: Any, rcond: float = 1e-15) -> Any:
    """The pseudo-inverse, singular values below ``rcond`` times the largest dropped:
    :func:`hookgrad.linalg.pinv` with ``rtol=rcond``."""
    return solvers.pinv(input, rtol=rcond)


def matrix_power(input: Any, n: int, *, out: Any = None) -> Any:
    """``input`` to the integer power ``n``: :func:`hookgrad.linalg.matrix_power`."""
    return solvers.matrix_power(input, n, out=out)


def matrix_exp(input: Any) -> Any:
    """The matrix exponential: :func:`hookgrad.linalg.matrix_exp`."""
    return solvers.matrix_exp(input)


# ---------------------------------------------------------------- factorizations


def qr(input: Any, some: bool = True, *, out: Any = None) -> Any:
    """``(Q, R)``: :func:`hookgrad.linalg.qr`, reduced if ``some`` else complete."""
    _warn(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
        "torch.linalg.qr(A, 'reduced' if some else 'complete')"
    )
    result = qr_result(factorizations.qr(input, "reduced" if some else "complete"))
    return with_out("qr", (input,), result, out)


def svd(input: Any, some: bool = True, compute_uv: bool = True, *, out: Any = None) -> Any:
    """``(U, S, V)`` with ``input = U diag(S) V^H`` (note: ``V``, where
    :func:`hookgrad.linalg.svd` returns ``Vh``); reduced if ``some``. Without
    ``compute_uv``, ``U`` and ``V`` are zero-filled (m x m and n x n).

    Example::

        U, S, V = hookgrad.svd(hookgrad.randn(4, 3))
        U.shape, S.shape, V.shape      # (4, 3), (3,), (3, 3)
    """
    check_tensor(input, "svd", "input", 1)
    if input.ndim < 2:
        raise RuntimeError(
            "linalg.svd: input should have at least 2 dimensions, but has "
            f"{input.ndim} dimensions instead"
        )
    if compute_uv:
        u, s, vh = factorizations.svd(input, full_matrices=not some)
    else:
        s = factorizations.svdvals(input)
        m, n = input.shape[-2:]
        u = input.new_zeros((*input.shape[:-1], m))
        vh = input.new_zeros((*input.shape[:-2], n, n))
    v = vh.mT.conj() if vh.is_complex() else vh.mT
    return with_out("svd", (input,), svd_result((u, s, v)), out)


def cholesky(input: Any, upper: bool = False, *, out: Any = None) -> Any:
    """The Cholesky factor (``CholeskyBackward0``); deprecated in torch for
    :func:`hookgrad.linalg.cholesky`."""
    _warn(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = "
        "torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced "
        "with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce equivalent results "
        "for all valid (symmetric positive definite) inputs."
    )
    check_tensor(input, "cholesky", "input", 1)
    check_square(input, "cholesky")
    factorizations.check_kernel_dtype(input, "cholesky_cpu")
    op = Cholesky(upper)
    result = apply(op, input)
    raise_for_info(op.info, "cholesky", "cholesky")
    return with_out("cholesky", (input,), result, out)


def lu(A: Any, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    """``(LU, pivots)`` (and ``infos`` if ``get_infos``): LAPACK's packed LU factors, as
    :func:`hookgrad.linalg.lu_factor_ex` (no error for singular matrices)."""
    _warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)"
    )
    factors = factorizations.lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return with_out("lu", (A,), lu_with_info(factors), out)
    return with_out("lu", (A,), (factors[0], factors[1]), out)


def lu_solve(input: Any, LU_data: Any, LU_pivots: Any, *, out: Any = None) -> Any:
    """``X`` with ``A X = b`` from ``A``'s packed LU factors (:func:`hookgrad.linalg.lu_solve`
    with the right-hand side first)."""
    return solvers.lu_solve(LU_data, LU_pivots, input, out=out)


def lu_unpack(
    LU_data: Any,
    LU_pivots: Any,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    out: Any = None,
) -> Any:
    """``(P, L, U)`` from LAPACK's packed LU factors; ``unpack_data``/``unpack_pivots``
    False leave ``L, U``/``P`` empty.

    Example::

        P, L, U = hookgrad.lu_unpack(*hookgrad.linalg.lu_factor(A))   # A == P @ L @ U
    """
    check_tensor(LU_data, "lu_unpack", "LU_data", 1)
    check_tensor(LU_pivots, "lu_unpack", "LU_pivots", 2)
    if LU_data.ndim < 2:
        raise RuntimeError(
            "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(LU_data.shape)} instead"
        )
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"
        )
    lower, upper, p = apply(LuUnpack(unpack_data, unpack_pivots), LU_data, LU_pivots)
    return with_out("lu_unpack", (LU_data,), lu_unpack_result((p, lower, upper)), out)


def geqrf(input: Any, *, out: Any = None) -> Any:
    """``(a, tau)``: LAPACK's ``geqrf`` QR factorization, ``R`` on and above the diagonal
    of ``a`` and the Householder reflectors below it (for :func:`orgqr`, :func:`ormqr`).
    Not differentiable."""
    check_tensor(input, "geqrf", "input", 1)
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    factorizations.check_kernel_dtype(input, "geqrf_cpu")
    return with_out("geqrf", (input,), geqrf_result(apply(Geqrf(), input)), out)


def orgqr(input: Any, input2: Any) -> Any:
    """``Q`` from :func:`geqrf`'s reflectors: :func:`hookgrad.linalg.householder_product`."""
    return factorizations.householder_product(input, input2)


def ormqr(
    input: Any,
    input2: Any,
    input3: Any,
    left: bool = True,
    transpose: bool = False,
    *,
    out: Any = None,
) -> Any:
    """``op(Q) other`` (``left``) or ``other op(Q)`` for ``Q`` given by :func:`geqrf`'s
    reflectors, ``op`` the conjugate transpose if ``transpose``, without forming ``Q``.

    Example::

        a, tau = hookgrad.geqrf(A)
        hookgrad.ormqr(a, tau, B, transpose=True)    # Q^H @ B
    """
    api = "torch.ormqr"
    arguments = (("input", input), ("input2", input2), ("input3", input3))
    for position, (name, value) in enumerate(arguments):
        check_tensor(value, "ormqr", name, position + 1)
    if input.ndim < 2:
        raise RuntimeError(f"{api}: input must have at least 2 dimensions.")
    if input3.ndim < 2:
        raise RuntimeError(f"{api}: input3 must have at least 2 dimensions.")
    rows = input3.shape[-2] if left else input3.shape[-1]
    if rows != input.shape[-2]:
        side = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"{api}: {side} must be equal to input.shape[-2]")
    if input2.shape[-1] > input.shape[-1]:
        raise RuntimeError(f"{api}: input2.shape[-1] must be less than or equal to input.shape[-1]")
    if input2.shape[-1] != min(rows, input.shape[-1]):
        raise RuntimeError(
            f"{api}: input2.shape[-1] must be equal to min(input3.shape[{-2 if left else -1}], "
            "input.shape[-1])"
        )
    for name, value in (("tau", input2), ("other", input3)):
        if value._data.dtype != input._data.dtype:
            raise RuntimeError(
                f"{api}: Expected input and {name} to have the same dtype, but input has dtype "
                f"{type_name(input)} and {name} has dtype {type_name(value)}"
            )
    factorizations.check_kernel_dtype(input, "ormqr_cpu")
    result = apply(Ormqr(left, transpose), input, input2, input3)
    return with_out("ormqr", (input, input2, input3), result, out)


# ---------------------------------------------------------------- legacy solvers


def _check_legacy_solver(b: Any, A: Any, api: str, kind: str) -> None:
    if b.ndim < 2:
        if kind == "triangular_solve":
            raise RuntimeError(
                f"{api}: Expected b to have at least 2 dimensions, but it has {b.ndim} "
                "dimensions instead"
            )
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {b.ndim} dimensions instead"
        )
    if A.ndim < 2:
        raise RuntimeError(
            f"A should have at least 2 dimensions, but has {A.ndim} dimensions instead"
        )
    rows, cols = A.shape[-2:]
    if rows != cols:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {rows} by {cols} matrices"
        )
    if b.shape[-2] != rows:
        raise RuntimeError(
            f"Incompatible matrix sizes for {kind}: each A matrix is {rows} by {cols} but each "
            f"b matrix is {b.shape[-2]} by {b.shape[-1]}"
        )
    if b._data.dtype != A._data.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {type_name(b)} and A "
            f"of type {type_name(A)} instead."
        )
    broadcast_shapes(b.shape[:-2], A.shape[:-2])


def triangular_solve(
    input: Any,
    A: Any,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
    *,
    out: Any = None,
) -> Any:
    """``(solution, cloned_coefficient)``: ``X`` with ``op(A) X = b`` for triangular ``A``
    (``op`` transposes if ``transpose``), and a copy of ``A`` broadcast to the batch.
    Deprecated in torch for :func:`hookgrad.linalg.solve_triangular`."""
    _warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will "
        "be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
        "arguments reversed and does not return a copy of one of the inputs.\nX = "
        "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
        "torch.linalg.solve_triangular(A, B)."
    )
    check_tensor(input, "triangular_solve", "input", 1)
    check_tensor(A, "triangular_solve", "A", 2)
    _check_legacy_solver(input, A, "torch.triangular_solve", "triangular_solve")
    factorizations.check_kernel_dtype(A, "triangular_solve_cpu")
    op = TriangularSolve(upper, transpose, unitriangular)
    result = triangular_solve_result(apply(op, input, A))
    return with_out("triangular_solve", (input, A), result, out)


def cholesky_solve(input: Any, input2: Any, upper: bool = False, *, out: Any = None) -> Any:
    """``X`` with ``A X = input`` for ``A = L L^H`` given its Cholesky factor ``input2``
    (``U^H U`` if ``upper``).

    Example::

        L = hookgrad.linalg.cholesky(A)
        hookgrad.cholesky_solve(B, L)      # solve(A, B)
    """
    check_tensor(input, "cholesky_solve", "input", 1)
    check_tensor(input2, "cholesky_solve", "input2", 2)
    _check_legacy_solver(input, input2, "cholesky_solve", "cholesky_solve")
    factorizations.check_kernel_dtype(input, "cholesky_solve_cpu")
    result = apply(CholeskySolve(upper), input, input2)
    return with_out("cholesky_solve", (input, input2), result, out)


def cholesky_inverse(input: Any, upper: bool = False, *, out: Any = None) -> Any:
    """``(L L^H)^-1`` from the Cholesky factor ``L`` (``(U^H U)^-1`` if ``upper``).

    Example: ``hookgrad.cholesky_inverse(hookgrad.linalg.cholesky(A))`` is ``inv(A)``.
    """
    check_tensor(input, "cholesky_inverse", "input", 1)
    check_square(input, "cholesky_inverse")
    factorizations.check_kernel_dtype(input, "cholesky_inverse_out_cpu")
    diagonal = np.diagonal(input._data, axis1=-2, axis2=-1)
    zero = diagonal == 0
    info = np.where(zero.any(axis=-1), np.argmax(zero, axis=-1) + 1, 0)
    raise_for_info(info, "cholesky_inverse", "inv")
    return with_out("cholesky_inverse", (input,), apply(CholeskyInverse(upper), input), out)


# ---------------------------------------------------------------- products


def chain_matmul(*matrices: Any, out: Any = None) -> Any:
    """The product of 2-D matrices in the cheapest order; deprecated in torch for
    :func:`hookgrad.linalg.multi_dot`."""
    _warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters."
    )
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for matrix in matrices:
        if matrix.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {matrix.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return with_out("chain_matmul", matrices, matrices[0].clone(), out)
    return norms.multi_dot(matrices, out=out)


def cross(input: Any, other: Any, dim: int | None = None, *, out: Any = None) -> Any:
    """The cross product along ``dim`` (default: the first dim of size 3, with torch's
    warning); :func:`hookgrad.linalg.cross` otherwise."""
    check_tensor(input, "cross", "input", 1)
    check_tensor(other, "cross", "other", 2)
    if dim is None:
        _warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
            "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
            "change to agree with that of linalg.cross in a future release."
        )
        shape = broadcast_shapes(input._data.shape, other._data.shape)
        if 3 not in shape:
            raise RuntimeError("no dimension of size 3 in input")
        dim = list(shape).index(3)
    return norms.cross(input, other, dim=dim, out=out)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """The Vandermonde matrix of a 1-D ``x``: columns ``x^(N-1) ... x^0`` (``increasing``:
    ``x^0 ... x^(N-1)``); ``N`` defaults to ``len(x)``.

    Example::

        hookgrad.vander(hookgrad.tensor([1, 2, 3]))
        # tensor([[1, 1, 1], [4, 2, 1], [9, 3, 1]])
    """
    check_tensor(x, "vander", "x", 1)
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = dtypes.promote_types(x.dtype, dtypes.int64)
    result = x.new_ones((x.shape[0], n), dtype=dtype)
    if n > 1:
        result.narrow(1, 1, n - 1).copy_(x.unsqueeze(1))
        result.narrow(1, 1, n - 1).copy_(result.narrow(1, 1, n - 1).cumprod(1))
    return result if increasing else result.flip(1)


# ---------------------------------------------------------------- norms and distances


def norm(
    input: Any,
    p: Any = "fro",
    dim: Any = None,
    keepdim: bool = False,
    out: Any = None,
    dtype: Any = None,
) -> Any:
    """The ``p``-norm of ``input`` over ``dim`` (all elements by default), as torch's
    ``torch.norm``: a vector norm (:func:`hookgrad.linalg.vector_norm`) for a number
    ``p`` (2, 1, ``inf``, ``-inf``, 0 counts non-zeros, any other real; None is 2) and
    for ``'fro'`` over at most two dims; a matrix norm
    (:func:`hookgrad.linalg.matrix_norm`) for ``'nuc'``, the sum of singular values,
    over ``dim`` (two dims; all dims of a matrix by default). ``dtype`` computes in that
    dtype; ``out`` receives the result. At a zero vector the 2-norm's gradient is 0.

    Example::

        hookgrad.tensor([3.0, 4.0]).norm()                         # tensor(5.)
        hookgrad.tensor([3.0, -4.0]).norm(p=float("inf"))          # tensor(4.)
        hookgrad.norm(hookgrad.tensor([[3.0, 0.0], [0.0, -4.0]]), "nuc")   # tensor(7.)
    """
    dims = None if dim is None else [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return norms.vector_norm(input, 2, dims, keepdim, dtype=dtype, out=out)
        # the nuclear norm, or matrix_norm's error for any other order or too many dims
        if dims is None:
            dims = list(range(input.ndim))
        return norms.matrix_norm(input, p, dims, keepdim, dtype=dtype, out=out)
    ord = 2.0 if p is None else p
    return norms.vector_norm(input, ord, dims, keepdim, dtype=dtype, out=out)


def tensor_norm(
    self: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Any:
    """``Tensor.norm``: :func:`norm` of ``self`` (no ``out``; ``dtype`` is the fourth
    argument). Example: ``hookgrad.tensor([3.0, 4.0]).norm()`` is ``tensor(5.)``."""
    return norm(self, p, dim, keepdim, dtype=dtype)


def nuclear_norm(input: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """The sum of singular values over ``dim`` (two dims; default the last two of a 2-D
    input): :func:`hookgrad.linalg.matrix_norm` with ``ord='nuc'``."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    if dim is None:
        check_tensor(input, "nuclear_norm", "input", 1)
        if input.ndim != 2:
            raise RuntimeError(
                f"Expected a tensor with 2 dimensions, but got a tensor with {input.ndim} "
                f"dimension{'s' if input.ndim != 1 else ''} instead."
            )
        dim = (-2, -1)
    return norms.matrix_norm(input, "nuc", dim, keepdim, out=out)


def frobenius_norm(
    input: Any, dim: Any = (-2, -1), keepdim: bool = False, *, out: Any = None
) -> Any:
    """The 2-norm over ``dim`` (one or two dims): ``norm(input, 2, dim)``
    (``NormBackward1``)."""
    check_tensor(input, "frobenius_norm", "input", 1)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead."
        )
    check_floating(input, "linalg.vector_norm", low_precision=False)
    for d in dims:
        wrap_dim(d, input.ndim)
    result = apply(linalg_ops.NormScalarOptDim(2, dims, keepdim), input)
    return with_out("frobenius_norm", (input,), result, out)


def dist(input: Any, other: Any, p: float = 2) -> Any:
    """The ``p``-norm of ``input - other`` (broadcast) over all elements.

    Example: ``hookgrad.dist(hookgrad.tensor([1.0, 1.0]), hookgrad.zeros(2))`` is
    ``tensor(1.4142)``.
    """
    check_tensor(input, "dist", "input", 1)
    check_tensor(other, "dist", "other", 2)
    dtype = dtypes.result_type(input, other)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got "
            f"{dtype.type_name[3:-4]} instead."
        )
    broadcast_shapes(input._data.shape, other._data.shape)
    input, other = (x if x.dtype is dtype else x.to(dtype) for x in (input, other))
    return apply(linalg_ops.Dist(p), input, other)


_COMPUTE_MODES = {
    "use_mm_for_euclid_dist_if_necessary": 0,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}


def cdist(
    x1: Any, x2: Any, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"
) -> Any:
    """The ``p``-norm distance between each row of ``x1`` (…, P, M) and each row of ``x2``
    (…, R, M): (…, P, R). For ``p=2`` with more than 25 rows (or
    ``compute_mode='use_mm_for_euclid_dist'``) it goes through one matrix product, as
    torch's, which is faster and less exact.

    Example: ``hookgrad.cdist(hookgrad.zeros(1, 2), hookgrad.tensor([[3.0, 4.0]]))`` is
    ``tensor([[5.]])``.
    """
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _COMPUTE_MODES[compute_mode]
    check_tensor(x1, "cdist", "x1", 1)
    check_tensor(x2, "cdist", "x2", 2)
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    for name, x in (("X1", x1), ("X2", x2)):
        if x._data.dtype.kind != "f":
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {type_name(x)}"
            )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {type_name(x1)} but found {type_name(x2)}")
    batch = broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    r1, r2 = x1.shape[-2], x2.shape[-2]
    euclidean = p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))
    if x1._data.size == 0 or x2._data.size == 0 or not euclidean:
        return apply(linalg_ops.Cdist(p, mode), x1, x2)
    m = x1.shape[-1]
    count = math.prod(batch)
    a = x1.expand(*batch, r1, m).reshape(count, r1, m) if batch else x1
    b = x2.expand(*batch, r2, m).reshape(count, r2, m) if batch else x2
    return apply(linalg_ops.EuclideanDist(), a, b).view(*batch, r1, r2)


def pdist(input: Any, p: float = 2) -> Any:
    """The ``p``-norm distance between every pair of rows ``i < j`` of a 2-D input, in
    row-major order of the pairs (the upper triangle of ``cdist(input, input)``).

    Example: ``hookgrad.pdist(hookgrad.tensor([[0.0, 0.0], [3.0, 4.0]]))`` is
    ``tensor([5.])``.
    """
    check_tensor(input, "pdist", "input", 1)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return apply(linalg_ops.Pdist(p), input)


def renorm(input: Any, p: float, dim: int, maxnorm: float, *, out: Any = None) -> Any:
    """Each slice along ``dim`` rescaled so that its ``p``-norm is at most ``maxnorm``
    (slices within the bound are left as they are).

    Example::

        hookgrad.renorm(hookgrad.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        # tensor([[0.6000, 0.8000], [0.3000, 0.4000]])
    """
    check_tensor(input, "renorm", "input", 1)
    _check_renorm(input, p, dim, maxnorm)
    result = apply(linalg_ops.Renorm(p, dim, maxnorm), input)
    return with_out("renorm", (input,), result, out)


def _check_renorm(input: Any, p: float, dim: int, maxnorm: float) -> None:
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {_number(maxnorm)}")
    if input.ndim <= 1:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions"
        )
    wrap_dim(dim, input.ndim)
    check_floating(input, "linalg.vector_norm", low_precision=False)


def renorm_(input: Any, p: float, dim: int, maxnorm: float) -> Any:
    """:func:`renorm` in place."""
    _check_renorm(input, p, dim, maxnorm)
    return run_inplace_op(input, linalg_ops.Renorm(p, dim, maxnorm), copy=True)


def _number(value: Any) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# ---------------------------------------------------------------- removed in torch 1.9

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


def eig(input: Any, eigenvectors: bool = False, *, out: Any = None) -> Any:
    """Removed from torch (raises its message): use :func:`hookgrad.linalg.eig`."""
    raise RuntimeError(
        _REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
        "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
        "eigenvectors=True) should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)"
    )


def symeig(input: Any, eigenvectors: bool = False, upper: bool = True, *, out: Any = None) -> Any:
    """Removed from torch (raises its message): use :func:`hookgrad.linalg.eigh`."""
    raise RuntimeError(
        _REMOVED + "The default behavior has changed from using the upper triangular portion of "
        "the matrix by default to using the lower triangular portion.\n\nL, _ = "
        "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, "
        "UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should "
        "be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


def solve(input: Any, A: Any, *, out: Any = None) -> Any:
    """Removed from torch (raises its message): use :func:`hookgrad.linalg.solve`."""
    raise RuntimeError(
        _REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)"
    )


def lstsq(input: Any, A: Any, *, out: Any = None) -> Any:
    """Removed from torch (raises its message): use :func:`hookgrad.linalg.lstsq`."""
    raise RuntimeError(
        _REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution "
        "in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the "
        "returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
        "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ "
        "= torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = "
        "torch.linalg.lstsq(A, B).solution"
    )
