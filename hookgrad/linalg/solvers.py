"""``torch.linalg``'s determinants, inverses and solvers: ``det``, ``slogdet``, ``inv``,
``solve``, ``solve_triangular``, ``lstsq``, ``lu_solve``, ``ldl_solve``, ``pinv``,
``matrix_rank``, ``matrix_power``, ``matrix_exp``, ``cond``, ``tensorinv``,
``tensorsolve``. Each checks its arguments as torch does, then runs torch's node (or, for
the composites, torch's sequence of ops, so the graph has torch's nodes)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.linalg import factorizations
from hookgrad.linalg.checks import (
    check_floating,
    check_matrix,
    check_same_dtype,
    check_square,
    check_tensor,
    raise_for_info,
    type_name,
    with_out,
)
from hookgrad.linalg.norms import matrix_norm
from hookgrad.ops.decompositions import LinalgDet, LinalgLstsq, LinalgPinv, LinalgSlogdet
from hookgrad.ops.factorizations import LdlSolve, LinalgMatrixExp
from hookgrad.ops.lu import (
    LinalgInvEx,
    LinalgLuSolve,
    LinalgSolveEx,
    LinalgSolveTriangular,
    vector_rhs,
)
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, broadcast_shapes, wrap_constant
from hookgrad.tensor.named_tuples import return_type
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "cond",
    "det",
    "inv",
    "inv_ex",
    "ldl_solve",
    "lstsq",
    "lu_solve",
    "matrix_exp",
    "matrix_power",
    "matrix_rank",
    "pinv",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "tensorinv",
    "tensorsolve",
]

linalg_slogdet = return_type("linalg_slogdet", ("sign", "logabsdet"))
linalg_inv_ex = return_type("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = return_type("linalg_solve_ex", ("result", "info"))
linalg_lstsq = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


# ---------------------------------------------------------------- determinants


def _check_lu_input(A: Any, api: str, name: str) -> None:
    check_tensor(A, name, "A", 1)
    check_square(A, api)
    check_floating(A, api, low_precision=False)
    factorizations.check_kernel_dtype(A, "lu_cpu")


def det(A: Any, *, out: Any = None) -> Any:
    """The determinant of a square matrix (or of each in a batch), from its LU factors.
    Its gradient is ``det(A) * A^-H``, and stays finite at singular matrices (the
    adjugate).

    Example::

        A = hookgrad.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
        hookgrad.linalg.det(A)      # tensor(5., grad_fn=<LinalgDetBackward0>)
    """
    _check_lu_input(A, "linalg.det", "linalg_det")
    return with_out("linalg_det", (A,), apply(LinalgDet(), A)[0], out)


def slogdet(A: Any, *, out: Any = None) -> Any:
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``, which does not
    overflow; a singular matrix gives ``(0, -inf)``. ``sign`` is complex for complex ``A``.

    Example::

        sign, logabsdet = hookgrad.linalg.slogdet(hookgrad.tensor([[-2.0, 0.0], [0.0, 3.0]]))
        sign, logabsdet     # tensor(-1.), tensor(1.7918)
    """
    _check_lu_input(A, "linalg.slogdet", "linalg_slogdet")
    sign, logabsdet, _, _ = apply(LinalgSlogdet(), A)
    return with_out("linalg_slogdet", (A,), linalg_slogdet((sign, logabsdet)), out)


# ---------------------------------------------------------------- inverse


def inv_ex(A: Any, *, check_errors: bool = False, out: Any = None) -> Any:
    """``(inverse, info)``: the inverse without raising for singular matrices (their
    ``info`` is the 1-based index of the first zero pivot; the inverse is then inf/nan).
    See :func:`inv`."""
    inverse, info = _inv(A, "linalg.inv_ex", "linalg_inv_ex")
    if check_errors:
        raise_for_info(info._data, "linalg.inv_ex", "inv")
    return with_out("linalg_inv_ex", (A,), linalg_inv_ex((inverse, info)), out)


def inv(A: Any, *, out: Any = None) -> Any:
    """The inverse of a square matrix (or batch); ``LinAlgError`` if one is singular.
    The gradient is ``-A^-H grad A^-H``.

    Example::

        hookgrad.linalg.inv(hookgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
        # tensor([[0.5000, 0.0000], [0.0000, 0.2500]])
    """
    inverse, info = _inv(A, "linalg.inv", "linalg_inv")
    raise_for_info(info._data, "linalg.inv", "inv")
    return with_out("linalg_inv", (A,), inverse, out)


def _inv(A: Any, api: str, name: str) -> Any:
    check_tensor(A, name, "A", 1)
    check_square(A, api)
    check_floating(A, api)
    return apply(LinalgInvEx(), A)


# ---------------------------------------------------------------- solve


def _check_solver(A: Any, B: Any, left: bool, api: str) -> None:
    """torch's ``checkInputsSolver``: ``A`` square, ``B`` a matrix of matching size."""
    check_square(A, api)
    check_matrix(B, api, "B")
    a_rows, a_cols = A._data.shape[-2:]
    b_rows, b_cols = B._data.shape[-2:]
    if (a_rows != b_rows) if left else (a_cols != b_cols):
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{api}: Incompatible shapes of A and B for the equation {equation} "
            f"({a_rows}x{a_cols} and {b_rows}x{b_cols})"
        )


def _broadcast_batch(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return broadcast_shapes(a, b)


def _solve(A: Any, B: Any, left: bool, name: str) -> Any:
    api = "linalg.solve"
    check_tensor(A, name, "A", 1)
    check_tensor(B, name, "B", 2)
    check_same_dtype(A, B, api)
    vector = vector_rhs(tuple(A._data.shape), tuple(B._data.shape))
    b_matrix = B.unsqueeze(-1) if vector else B
    _check_solver(A, b_matrix, left, api)
    _broadcast_batch(b_matrix._data.shape[:-2], A._data.shape[:-2])
    if not left and vector:
        raise RuntimeError(
            "linalg.solve: Vector broadcasting of the left hand side is not supported for "
            "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    check_floating(A, api)
    result, _, _, info = apply(LinalgSolveEx(left), A, B)
    return result, info


def solve_ex(
    A: Any, B: Any, *, left: bool = True, check_errors: bool = False, out: Any = None
) -> Any:
    """``(result, info)``: :func:`solve` without raising for singular ``A`` (``info`` > 0
    marks them; their result is inf/nan)."""
    result, info = _solve(A, B, left, "linalg_solve_ex")
    if check_errors:
        raise_for_info(info._data, "torch.linalg.solve_ex", "solve")
    return with_out("linalg_solve_ex", (A, B), linalg_solve_ex((result, info)), out)


def solve(A: Any, B: Any, *, left: bool = True, out: Any = None) -> Any:
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for square ``A``; batch dims
    broadcast, and ``B`` may be a (batch of) vector(s). ``LinAlgError`` if ``A`` is
    singular.

    Example::

        A = hookgrad.tensor([[3.0, 1.0], [1.0, 2.0]])
        hookgrad.linalg.solve(A, hookgrad.tensor([9.0, 8.0]))   # tensor([2., 3.])
    """
    result, info = _solve(A, B, left, "linalg_solve")
    raise_for_info(info._data, "torch.linalg.solve", "solve")
    return with_out("linalg_solve", (A, B), result, out)


def solve_triangular(
    input: Any,
    B: Any,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out: Any = None,
) -> Any:
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for triangular ``A``, reading
    only its ``upper`` or lower triangle (ones on the diagonal if ``unitriangular``).
    A zero on the diagonal gives inf/nan, as in torch (no error).

    Example::

        A = hookgrad.tensor([[2.0, 1.0], [0.0, 4.0]])
        hookgrad.linalg.solve_triangular(A, hookgrad.tensor([[4.0], [8.0]]), upper=True)
        # tensor([[1.], [2.]])
    """
    api = "linalg.solve_triangular"
    check_tensor(input, "linalg_solve_triangular", "A", 1)
    check_tensor(B, "linalg_solve_triangular", "B", 2)
    _check_solver(input, B, left, api)
    _broadcast_batch(B._data.shape[:-2], input._data.shape[:-2])
    factorizations.check_kernel_dtype(input, "triangular_solve_cpu")
    if B._data.dtype != input._data.dtype:
        B = B.to(input.dtype)
    op = LinalgSolveTriangular(upper, left, unitriangular)
    return with_out("linalg_solve_triangular", (input, B), apply(op, input, B), out)


def lu_solve(
    LU: Any, pivots: Any, B: Any, *, left: bool = True, adjoint: bool = False, out: Any = None
) -> Any:
    """``X`` with ``op(A) X = B`` (``left=False``: ``X op(A) = B``) from the factors of
    :func:`lu_factor`; ``op(A)`` is ``A^H`` if ``adjoint``.

    Example::

        LU, pivots = hookgrad.linalg.lu_factor(A)
        X = hookgrad.linalg.lu_solve(LU, pivots, B)    # solve(A, B)
    """
    api = "linalg.lu_solve"
    check_tensor(LU, "linalg_lu_solve", "LU", 1)
    check_tensor(pivots, "linalg_lu_solve", "pivots", 2)
    check_tensor(B, "linalg_lu_solve", "B", 3)
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"{api}: Expected LU and B to have the same dtype, but found LU of type "
            f"{type_name(LU)} and B of type {type_name(B)} instead"
        )
    check_floating(LU, "torch.linalg.lu_solve")
    _check_solver(LU, B, left, api)
    if pivots._data.dtype != np.int32:
        raise RuntimeError(f"{api}: pivots should be a Tensor of scalar type torch.int32")
    if pivots._data.shape[:-1] != LU._data.shape[:-2]:
        raise RuntimeError(f"{api}: Expected LU.shape[:-2] == pivots.shape[:-1]")
    if pivots._data.shape[-1] != LU._data.shape[-1]:
        raise RuntimeError(
            f"{api}: Number of pivots per batch should be same as the dimension of the matrix"
        )
    op = LinalgLuSolve(left, adjoint)
    return with_out("linalg_lu_solve", (LU, B), apply(op, LU, pivots, B), out)


def ldl_solve(LD: Any, pivots: Any, B: Any, *, hermitian: bool = False, out: Any = None) -> Any:
    """``X`` with ``A X = B`` from the factors of :func:`ldl_factor` (not differentiable).

    Example::

        LD, pivots = hookgrad.linalg.ldl_factor(A)
        X = hookgrad.linalg.ldl_solve(LD, pivots, B)
    """
    api = "torch.linalg.ldl_solve"
    check_tensor(LD, "linalg_ldl_solve", "LD", 1)
    check_tensor(pivots, "linalg_ldl_solve", "pivots", 2)
    check_tensor(B, "linalg_ldl_solve", "B", 3)
    check_square(LD, api, "LD")
    if pivots._data.dtype.kind not in "iu":
        raise RuntimeError(f"{api}: Expected pivots to be integers. Got {type_name(pivots)}")
    # torch's ``linearSolveCheckInputs``: the dtypes, then the sizes (a 1-D B has no -2 dim)
    if LD._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {type_name(B)} and A "
            f"of type {type_name(LD)} instead."
        )
    rows = B.shape[wrap_dim(-2, B.ndim)]
    if rows != LD.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for {api}: each A matrix is {LD.shape[-1]} by "
            f"{LD.shape[-1]} but each b matrix is {rows} by {B.shape[-1]}"
        )
    pivots = pivots if pivots._data.dtype == np.int32 else pivots.to(dtypes.int32)
    op = LdlSolve(hermitian)
    return with_out("linalg_ldl_solve", (LD, B), apply(op, LD, pivots, B), out)


# ---------------------------------------------------------------- least squares


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(input: Any, b: Any, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """``(solution, residuals, rank, singular_values)`` of ``min ||A X - B||_F``. The CPU
    ``driver`` (default ``'gelsy'``) decides what is filled: ``rank`` for all but
    ``'gels'``, ``singular_values`` for ``'gelsd'``/``'gelss'``, ``residuals`` (the
    squared residual norms) when m > n, the driver is not ``'gelsy'`` and every matrix
    has full rank. Values below ``rcond`` times the largest singular value count as 0.

    Example::

        A = hookgrad.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        hookgrad.linalg.lstsq(A, hookgrad.ones(3, 1)).solution   # tensor([[0.6667], [0.6667]])
    """
    api = "torch.linalg.lstsq"
    check_tensor(input, "linalg_lstsq", "self", 1)
    check_tensor(b, "linalg_lstsq", "b", 2)
    if input.ndim < 2:
        raise RuntimeError(f"{api}: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError(f"{api}: other must have at least 1 dimension.")
    if input._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"{api}: Expected input and other to have the same dtype, but got input's dtype "
            f"{type_name(input)} and other's dtype {type_name(b)}"
        )
    vector = b.ndim == input.ndim - 1
    if b._data.shape[-2 + vector] != input._data.shape[-2]:
        raise RuntimeError(f"{api}: input.size(-2) should match other.size(-{2 - vector})")
    check_floating(input, api)
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(
            f"{api}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    b_batch = b._data.shape[: b.ndim - 1 + vector]
    _broadcast_batch(input._data.shape[:-2], b_batch[:-1] if not vector else b_batch)
    if driver == "gels":
        _check_gels(input, api)
    return linalg_lstsq(apply(LinalgLstsq(rcond, driver), input, b))


def _check_gels(A: Any, api: str) -> None:
    """``gels`` assumes full rank: a zero on R's diagonal is LAPACK's error. NOTE: LAPACK
    tests for an exact zero, which the rounding of another QR may miss; here a diagonal
    entry below ``eps * max(m, n)`` times the largest counts as zero."""
    data = A._data
    m, n = data.shape[-2:]
    if not data.size:
        return
    source = data if m >= n else np.swapaxes(data, -1, -2).conj()
    r = np.linalg.qr(source, mode="r")
    diagonal = np.abs(np.diagonal(r, axis1=-2, axis2=-1))
    real = diagonal.dtype
    tolerance = float(np.finfo(real).eps) * max(m, n) * np.max(diagonal, axis=-1, keepdims=True)
    zero = diagonal <= tolerance
    info = np.where(zero.any(axis=-1), np.argmax(zero, axis=-1) + 1, 0)
    raise_for_info(info, api, "lstsq")


# ---------------------------------------------------------------- pseudo-inverse, rank


def _tolerance(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value._data
    return value


def pinv(
    input: Any,
    rcond: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    out: Any = None,
) -> Any:
    """The Moore-Penrose pseudo-inverse, through the SVD (``eigh`` if ``hermitian``):
    singular values at most ``max(atol, rtol * largest)`` count as zero. ``rtol``
    defaults to ``eps * max(m, n)`` (0 if only ``atol > 0`` is given); ``rcond`` is the
    old name of ``rtol``.

    Example::

        hookgrad.linalg.pinv(hookgrad.tensor([[1.0, 2.0]]))   # tensor([[0.2000], [0.4000]])
    """
    check_tensor(input, "linalg_pinv", "A", 1)
    if input.ndim < 2 or input._data.dtype.kind not in "fc" or input._data.dtype.itemsize < 4:
        raise RuntimeError(
            f"linalg.pinv({type_name(input)}{{{list(input.shape)}}}): expected a tensor with 2 "
            "or more dimensions of float, double, cfloat or cdouble types"
        )
    if rcond is not None:
        rtol = rcond
    op = LinalgPinv(_tolerance(atol), _tolerance(rtol), hermitian)
    return with_out("linalg_pinv", (input,), apply(op, input), out)


def matrix_rank(
    input: Any,
    tol: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    out: Any = None,
) -> Any:
    """The number of singular values (|eigenvalues| if ``hermitian``) above
    ``max(atol, rtol * largest)``, as int64; ``tol`` is the old name of ``atol``.

    Example: ``hookgrad.linalg.matrix_rank(hookgrad.ones(3, 3))`` is ``tensor(1)``.
    """
    check_tensor(input, "linalg_matrix_rank", "A", 1)
    check_matrix(input, "torch.linalg.matrix_rank", "input")
    if input._data.dtype.kind not in "fc" or input._data.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol = tol
    data = input._data
    m, n = data.shape[-2:]
    real = np.empty(0, data.dtype).real.dtype
    if data.size == 0:
        return with_out(
            "linalg_matrix_rank", (input,), wrap_constant(np.zeros(data.shape[:-2], np.int64)), out
        )
    if hermitian:
        values = np.abs(np.linalg.eigvalsh(data))
    else:
        values = np.linalg.svd(data, compute_uv=False)
    atol = _tolerance(atol)
    rtol = _tolerance(rtol)
    if rtol is None:
        given_atol = atol is not None and np.any(np.asarray(atol) > 0)
        rtol = 0.0 if given_atol else float(np.finfo(real).eps) * max(m, n)
    atol = 0.0 if atol is None else atol
    largest = np.max(values, axis=-1, keepdims=True)
    threshold = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * largest)
    rank = np.sum(values > threshold, axis=-1).astype(np.int64)
    return with_out("linalg_matrix_rank", (input,), wrap_constant(rank), out)


# ---------------------------------------------------------------- powers and exponentials


def matrix_power(input: Any, n: int, *, out: Any = None) -> Any:
    """``A`` to the integer power ``n`` by repeated squaring (``n < 0``: of its inverse;
    ``n = 0``: the identity), with torch's sequence of products.

    Example::

        A = hookgrad.tensor([[1.0, 1.0], [0.0, 1.0]])
        hookgrad.linalg.matrix_power(A, 3)     # tensor([[1., 3.], [0., 1.]])
    """
    check_tensor(input, "linalg_matrix_power", "A", 1)
    check_square(input, "linalg.matrix_power")
    if n == 0:
        eye = np.eye(input._data.shape[-1], dtype=input._data.dtype)
        result = input.clone().copy_(input.new_tensor(np.broadcast_to(eye, input.shape)))
        return with_out("linalg_matrix_power", (input,), result, out)
    if n < 0:
        input = inv(input)
        n = -n
    if n == 1:
        return with_out("linalg_matrix_power", (input,), input.clone(), out)
    if n == 2:
        return with_out("linalg_matrix_power", (input,), input.matmul(input), out)
    if n == 3:
        return with_out("linalg_matrix_power", (input,), input.matmul(input).matmul(input), out)
    z = result = None
    while n > 0:
        z = input if z is None else z.matmul(z)
        if n % 2 == 1:
            result = z if result is None else result.matmul(z)
        n //= 2
    return with_out("linalg_matrix_power", (input,), result, out)


def matrix_exp(input: Any) -> Any:
    """The matrix exponential ``sum_k A^k / k!`` of a square matrix (or batch), by
    scaling and squaring with Pade approximants, in double precision.

    Example::

        hookgrad.linalg.matrix_exp(hookgrad.tensor([[0.0, 1.0], [0.0, 0.0]]))
        # tensor([[1., 1.], [0., 1.]])
    """
    check_tensor(input, "linalg_matrix_exp", "A", 1)
    check_square(input, "linalg.matrix_exp")
    check_floating(input, "linalg.matrix_exp", low_precision=False)
    return apply(LinalgMatrixExp(), input)


# ---------------------------------------------------------------- condition numbers


def cond(input: Any, p: Any = None, *, out: Any = None) -> Any:
    """The condition number of a matrix (batch) in the norm ``p``: ``None``/2 (largest
    over smallest singular value), -2 (the reverse), ``'fro'``, ``'nuc'``, ``inf``,
    ``-inf``, 1, -1 (``norm(A) * norm(A^-1)``; inf for singular matrices).

    Example: ``hookgrad.linalg.cond(hookgrad.tensor([[1.0, 0.0], [0.0, 4.0]]))`` is
    ``tensor(4.)``.
    """
    check_tensor(input, "linalg_cond", "A", 1)
    if input.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord_ = 2 if p is None else p
    valid = (
        ord_ in ("fro", "nuc")
        if isinstance(ord_, str)
        else ord_ in (2, -2, 1, -1, math.inf, -math.inf)
    )
    if not valid:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {_ord_text(ord_)}")
    if input._data.size == 0:
        real = np.empty(0, input._data.dtype).real.dtype
        empty = np.zeros(input._data.shape[:-2], real)
        return with_out("linalg_cond", (input,), wrap_constant(empty), out)
    if not isinstance(ord_, str) and abs(ord_) == 2:
        values = factorizations.svdvals(input)
        largest = values.narrow(-1, 0, 1)
        smallest = values.narrow(-1, values.shape[-1] - 1, 1)
        ratio = smallest / largest if ord_ == -2 else largest / smallest
        return with_out("linalg_cond", (input,), ratio.squeeze(-1), out)
    check_square(input, f"linalg.cond(ord={_ord_text(ord_)})")
    inverse, info = inv_ex(input)
    # NOTE: in place, as torch: ``inverse`` is saved by its node, so a gradient through
    # it fails as torch's does.
    singular = inverse.new_tensor(info._data[..., None, None] > 0, dtype=np.bool_)
    inverse.masked_fill_(singular, math.inf)
    result = matrix_norm(input, ord_) * matrix_norm(inverse, ord_)
    return with_out("linalg_cond", (input,), result.nan_to_num(math.inf, math.inf, -math.inf), out)


def _ord_text(ord_: Any) -> str:
    if isinstance(ord_, str):
        return ord_
    if math.isinf(ord_):
        return "inf" if ord_ > 0 else "-inf"
    return str(int(ord_)) if float(ord_).is_integer() else str(ord_)


# ---------------------------------------------------------------- tensor inverse / solve


def tensorinv(input: Any, ind: int = 2, *, out: Any = None) -> Any:
    """The inverse of ``A`` seen as a linear map from its last dims (``A.shape[ind:]``) to
    its first ``ind`` ones, so that ``tensordot(tensorinv(A, ind), A, ind)`` is the
    identity. Example: ``tensorinv(A.reshape(4, 6, 8, 3), ind=2)`` has shape (8, 3, 4, 6).
    """
    check_tensor(input, "linalg_tensorinv", "A", 1)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(input._data.shape)
    end, start = shape[ind:], shape[:ind]
    rows, cols = math.prod(end), math.prod(start)
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {rows} != {cols}"
        )
    inverse, info = _inv(input.reshape(rows, rows), "linalg.inv", "linalg_inv")
    raise_for_info(info._data, "inv", "inv")
    return with_out("linalg_tensorinv", (input,), inverse.reshape(*end, *start), out)


def tensorsolve(
    input: Any, other: Any, dims: Sequence[int] | None = None, *, out: Any = None
) -> Any:
    """``X`` with ``tensordot(A, X, X.ndim) = B``; ``dims`` first moves those dims of
    ``A`` to the end. Example: ``A`` of shape (2, 3, 6) and ``B`` of shape (2, 3) give ``X``
    of shape (6,)."""
    check_tensor(input, "linalg_tensorsolve", "A", 1)
    check_tensor(other, "linalg_tensorsolve", "B", 2)
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        input = input.movedim(dims, list(range(input.ndim - len(dims), input.ndim)))
    result_shape = tuple(input._data.shape[other.ndim :])
    result_size = math.prod(result_shape)
    b_size = math.prod(other._data.shape)
    if result_size != b_size:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {result_size} != {b_size}"
        )
    square = input.reshape(result_size, result_size)
    result = solve(square, other.flatten())
    return with_out("linalg_tensorsolve", (input, other), result.reshape(*result_shape), out)
