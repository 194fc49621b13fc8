"""The nodes of ``torch.linalg``'s factorizations and solvers, named and saving as torch's.

Each node is hand-written: its forward returns several outputs (``LU`` and ``pivots``
beside a determinant, ``Q`` and ``R`` ...), and its backward is one of torch's
``FunctionsManual`` formulas (``linalg_det_backward``, ``svd_backward``,
``linalg_eig_backward`` ...), written with tensor operations so that a
``create_graph=True`` gradient records a graph and higher derivatives follow. Where
torch's formula takes a shortcut when no graph is recorded (``det``, ``slogdet`` and
``solve`` reuse the forward's LU factors), so does this one, as the two paths give
different values at singular inputs.

The forwards are LAPACK's: ``numpy.linalg`` where it returns what torch returns, else
``hookgrad.ops.lapack`` (LU with pivots, triangular solves, Cholesky's ``info`` ...). As
torch, a real C-contiguous ``A`` is factored as ``A^T`` by ``det`` and ``slogdet``
(LAPACK sees its memory so), so their saved ``LU`` is ``A^T``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import lapack
from hookgrad.ops.base import Op
from hookgrad.ops.reduction import _prod_safe_zeros_backward
from hookgrad.ops.table import ENTRIES


def mH(x: Any) -> Any:
    """The conjugate transpose of the last two dims (a tensor)."""
    return x.mT.conj() if x.is_complex() else x.mT


def _times(x: Any, number: float) -> Any:
    """``number * x`` as torch's C++ writes it (a ``double`` times a tensor: the Scalar
    overload, ``MulBackward1``)."""
    return x._apply_op(ENTRIES["mul.Scalar"](number))


def _real_eps(array: np.ndarray) -> float:
    return float(np.finfo(array.real.dtype if array.dtype.kind == "c" else array.dtype).eps)


def _use_transpose(a: np.ndarray) -> bool:
    """torch factors ``A^T`` when ``A`` is real and C-contiguous (``use_A_T``)."""
    return a.dtype.kind != "c" and a.flags.c_contiguous


# ---------------------------------------------------------------- tensor-level helpers


def solve_triangular(a: Any, b: Any, upper: bool, left: bool = True, unit: bool = False) -> Any:
    """``linalg.solve_triangular`` on tensors, recorded as its node."""
    return a._apply_op(LinalgSolveTriangular(upper, left, unit), b)


def solve(a: Any, b: Any, left: bool = True) -> Any:
    """``linalg.solve`` on tensors (``LinalgSolveExBackward0``)."""
    return a._apply_op(LinalgSolveEx(left), b)[0]


def lu_solve(lu: Any, pivots: Any, b: Any, left: bool = True, adjoint: bool = False) -> Any:
    """``linalg.lu_solve`` on tensors (``LinalgLuSolveBackward0``)."""
    return lu._apply_op(LinalgLuSolve(left, adjoint), pivots, b)


def lu_unpack(lu: Any, pivots: Any) -> tuple[Any, Any, Any]:
    """``lu_unpack`` on tensors: ``(P, L, U)``."""
    l_factor, u_factor, p = lu._apply_op(LuUnpack(), pivots)
    return p, l_factor, u_factor


def _diag_matrices(values: Any, pivots: Any) -> Any:
    """``diag_embed(values.unsqueeze(-1).expand_as(pivots)).mT``: ``values * I``."""
    return values.unsqueeze(-1).expand(*pivots.shape).diag_embed().mT


# ---------------------------------------------------------------- determinants


def _perm_sign(pivots: np.ndarray) -> np.ndarray:
    steps = np.arange(1, pivots.shape[-1] + 1, dtype=pivots.dtype)
    return np.where(np.sum(pivots != steps, axis=-1) % 2 == 1, -1, 1)


class LinalgDet(Op):
    """``det(A)`` from LU factors, with torch's ``linalg_det_backward``."""

    node_name = "LinalgDetBackward0"
    input_names = ("A",)
    output_names = ("result", "LU", "pivots")
    differentiable_outputs = 1
    saves = ("A", "LU", "pivots", "result")

    def forward(self, a: Any) -> Any:
        self.use_a_t = _use_transpose(a)
        lu, pivots, _ = lapack.lu_factor(np.swapaxes(a, -1, -2) if self.use_a_t else a)
        diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
        det = np.prod(diagonal, axis=-1) * _perm_sign(pivots).astype(a.dtype)
        return det.astype(a.dtype), lu, pivots

    def backward(self, grad: Any) -> Any:
        a, lu, pivots, det = self.unpack()
        if a.numel() == 0:
            return None
        d = _diag_matrices(grad * det.conj(), pivots)
        if not grad_mode.is_grad_enabled():
            return lu_solve(_perturbed(lu), pivots, d, True, not self.use_a_t)
        eps = _real_eps(a._data)
        singular = (det.abs() < 100 * eps)._data
        if not singular.any():
            return solve(mH(a), d)
        if singular.all():
            return _det_backward_singular(a, grad)
        out = grad.new_zeros(tuple(a.shape))
        keep = grad.new_tensor(singular, dtype=np.bool_)
        out[~keep] = solve(mH(a[~keep]), d[~keep])
        out[keep] = _det_backward_singular(a[keep], grad[keep])
        return out


def _perturbed(lu: Any) -> Any:
    """``LU + diag_embed(where(diag(LU) == 0, eps, 0))``: a non-singular approximation."""
    array = lu._data.copy()
    diagonal = np.einsum("...ii->...i", array)
    diagonal[diagonal == 0] = _real_eps(array)
    return lu.new_tensor(array)


def _det_backward_singular(a: Any, grad: Any) -> Any:
    """The adjugate's formula, through an SVD (torch's ``singular`` branch)."""
    u, s, vh = a._apply_op(LinalgSvd(False, True))
    det_u = u._apply_op(LinalgDet())[0]
    det_vh = vh._apply_op(LinalgDet())[0]
    alpha = (det_u * det_vh).conj() * grad
    d = _prod_safe_zeros_backward(alpha.unsqueeze(-1), s, s.ndim - 1)
    return (u * d.unsqueeze(-2)).matmul(vh)


class LinalgSlogdet(Op):
    """``(sign, log|det|)`` from LU factors, with torch's ``slogdet_backward``."""

    node_name = "LinalgSlogdetBackward0"
    input_names = ("A",)
    output_names = ("sign", "logabsdet", "LU", "pivots")
    differentiable_outputs = 2
    saves = ("A", "LU", "pivots", "sign")
    quiet = True

    def forward(self, a: Any) -> Any:
        self.use_a_t = _use_transpose(a)
        lu, pivots, _ = lapack.lu_factor(np.swapaxes(a, -1, -2) if self.use_a_t else a)
        diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
        size = np.abs(diagonal)
        if a.dtype.kind == "c":
            unit = np.where(size == 0, 0, diagonal / np.where(size == 0, 1, size))
        else:
            unit = np.sign(diagonal)
        sign = (np.prod(unit, axis=-1) * _perm_sign(pivots)).astype(a.dtype)
        logabsdet = np.sum(np.log(size), axis=-1).astype(size.dtype)
        return sign, logabsdet, lu, pivots

    def backward(self, grad_sign: Any, grad_logabsdet: Any) -> Any:
        a, lu, pivots, sign = self.unpack()
        complex_input = a.is_complex()
        if grad_logabsdet is None and (not complex_input or grad_sign is None):
            return None
        g = grad_logabsdet
        if complex_input:
            if grad_sign is not None:
                turn = (grad_sign.conj() * sign).imag * -1j
                g = turn if g is None else g + turn
            else:
                g = g.to(a.dtype)
        d = _diag_matrices(g, pivots)
        if not grad_mode.is_grad_enabled():
            return lu_solve(lu, pivots, d, True, not self.use_a_t)
        return solve(mH(a), d)


# ---------------------------------------------------------------- inverse and solvers


def _solve_arrays(a: np.ndarray, b: np.ndarray, left: bool) -> tuple[np.ndarray, ...]:
    """torch's ``_linalg_solve_ex`` on arrays: ``(X, LU, pivots, info)``, ``LU`` being
    ``A``'s own factors (unlike ``det``'s, torch's ``solve`` does not factor ``A^T``)."""
    lu, pivots, info = lapack.lu_factor(a)
    vector = vector_rhs(a.shape, b.shape)
    rhs = b[..., None] if vector else b
    x = lapack.lu_solve(lu, pivots, rhs, left, False)
    return (x[..., 0] if vector else x), lu, pivots, info


def vector_rhs(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> bool:
    """torch's ``linalg_solve_is_vector_rhs``: ``B`` is a (batch of) vector(s)."""
    return len(b_shape) == 1 or (
        len(a_shape) - 1 == len(b_shape) and tuple(b_shape) == tuple(a_shape[:-1])
    )


class LinalgInvEx(Op):
    """``(inverse, info)``: ``solve_ex(A, I)``; the gradient is ``-A^-H grad A^-H``."""

    node_name = "LinalgInvExBackward0"
    input_names = ("A",)
    output_names = ("inverse", "info")
    saves = ("inverse",)
    quiet = True

    def forward(self, a: Any) -> Any:
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        inverse, _, _, info = _solve_arrays(a, eye, True)
        return inverse.astype(a.dtype, copy=False), info

    def backward(self, grad: Any) -> Any:
        (inverse,) = self.unpack()
        return -mH(inverse).matmul(grad.matmul(mH(inverse)))


class LinalgSolveEx(Op):
    """``(X, LU, pivots, info)`` with ``A X = B`` (``left``) or ``X A = B``;
    torch's ``linalg_solve_backward``."""

    node_name = "LinalgSolveExBackward0"
    input_names = ("A", "B")
    output_names = ("result", "LU", "pivots", "info")
    differentiable_outputs = 1
    saves = ("A", "LU", "pivots", "result")
    saved_attributes = ("left",)
    quiet = True

    def __init__(self, left: bool = True) -> None:
        self.left = left

    def forward(self, a: Any, b: Any) -> Any:
        x, lu, pivots, info = _solve_arrays(a, b, self.left)
        return x.astype(np.result_type(a, b), copy=False), lu, pivots, info

    def backward(self, grad: Any) -> Any:
        a, lu, pivots, x = self.unpack()
        needs_a, needs_b = self.needs_input_grad
        vector = vector_rhs(tuple(lu.shape), tuple(x.shape))
        g = grad.unsqueeze(-1) if vector else grad
        if grad_mode.is_grad_enabled():
            g_b = solve(mH(a), g, self.left)
        else:
            g_b = lu_solve(lu, pivots, g, self.left, True)
        g_a = None
        if needs_a:
            x_m = x.unsqueeze(-1) if vector else x
            g_a = -g_b.matmul(mH(x_m)) if self.left else -mH(x_m).matmul(g_b)
        if not needs_b:
            return g_a, None
        return g_a, (g_b.squeeze(-1) if vector else g_b)


class LinalgSolveTriangular(Op):
    """``X`` with ``A X = B`` (``left``) or ``X A = B`` for triangular ``A``
    (``self``); torch's ``linalg_solve_triangular_backward``."""

    node_name = "LinalgSolveTriangularBackward0"
    input_names = ("self", "B")
    saves = ("self", "result")
    saved_attributes = ("left", "unitriangular", "upper")
    quiet = True

    def __init__(self, upper: bool, left: bool = True, unitriangular: bool = False) -> None:
        self.upper = upper
        self.left = left
        self.unitriangular = unitriangular

    def forward(self, a: Any, b: Any) -> Any:
        return lapack.solve_triangular(a, b, self.upper, self.left, self.unitriangular)

    def backward(self, grad: Any) -> Any:
        a, x = self.unpack()
        needs_a, needs_b = self.needs_input_grad
        g_b = solve_triangular(mH(a), grad, not self.upper, self.left, self.unitriangular)
        if not needs_a:
            return None, g_b
        g_a = -g_b.matmul(mH(x)) if self.left else -mH(x).matmul(g_b)
        diagonal = int(self.unitriangular)
        g_a = g_a.triu(diagonal) if self.upper else g_a.tril(-diagonal)
        return g_a, (g_b if needs_b else None)


class TriangularSolve(Op):
    """The legacy ``triangular_solve(b, A)``: ``(solution, cloned_coefficient)``."""

    node_name = "TriangularSolveBackward0"
    input_names = ("self", "A")
    output_names = ("solution", "cloned_coefficient")
    saves = ("A", "self", "solution")
    saved_attributes = ("transpose", "unitriangular", "upper")
    quiet = True

    def __init__(self, upper: bool = True, transpose: bool = False, unitriangular: bool = False):
        self.upper = upper
        self.transpose = transpose
        self.unitriangular = unitriangular

    def forward(self, b: Any, a: Any) -> Any:
        if self.transpose:
            solution = lapack.solve_triangular(
                np.swapaxes(a, -1, -2), b, not self.upper, True, self.unitriangular
            )
        else:
            solution = lapack.solve_triangular(a, b, self.upper, True, self.unitriangular)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return solution, np.array(np.broadcast_to(a, (*batch, *a.shape[-2:])))

    def backward(self, grad_x: Any, grad_m: Any) -> Any:
        a, b, x = self.unpack()
        needs_b, needs_a = self.needs_input_grad
        grad_b = grad_a = None
        if grad_x is not None:
            op = TriangularSolve(self.upper, not self.transpose, self.unitriangular)
            grad_b = grad_x._apply_op(op, a.conj())[0]
            if needs_a:
                grad_a = -x.conj().matmul(grad_b.mT) if self.transpose else -grad_b.matmul(mH(x))
                unit = int(self.unitriangular)
                grad_a = grad_a.triu(unit) if self.upper else grad_a.tril(-unit)
        if grad_a is None:
            grad_a = a.new_zeros((1,)).expand(*a.shape)
        if grad_b is None:
            grad_b = b.new_zeros((1,)).expand(*b.shape)
        if needs_a and grad_m is not None:
            grad_a = grad_a + grad_m
        return grad_b, grad_a


# ---------------------------------------------------------------- least squares, pinv


def pinv_arrays(a: np.ndarray, atol: Any, rtol: Any, hermitian: bool) -> np.ndarray:
    """torch's ``linalg_pinv`` on arrays: singular values (or |eigenvalues|) at most
    ``max(atol, rtol * largest)`` count as zero; ``rtol`` defaults to ``eps * max(m, n)``
    unless only a positive ``atol`` is given."""
    m, n = a.shape[-2:]
    real = a.real.dtype if a.dtype.kind == "c" else a.dtype
    if rtol is None:
        given_atol = atol is not None and np.any(np.asarray(atol) > 0)
        rtol = 0.0 if given_atol else float(np.finfo(real).eps) * max(m, n)
    atol = 0.0 if atol is None else atol
    if a.size == 0:
        return np.zeros((*a.shape[:-2], n, m), a.dtype)
    with np.errstate(all="ignore"):
        if hermitian:
            w, v = np.linalg.eigh(a)
            largest = np.max(np.abs(w), axis=-1, keepdims=True)
            tol = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * largest)
            inverse = np.where(np.abs(w) > tol, 1 / w, 0).astype(w.dtype)
            return ((v * inverse[..., None, :]) @ _mH(v)).astype(a.dtype)
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        largest = s[..., :1]
        tol = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * largest)
        inverse = np.where(s > tol, 1 / s, 0).astype(s.dtype)
        return ((_mH(vh) * inverse[..., None, :]) @ _mH(u)).astype(a.dtype)


def _mH(x: np.ndarray) -> np.ndarray:
    x = np.swapaxes(x, -1, -2)
    return x.conj() if x.dtype.kind == "c" else x


def pinv_backward(grad: Any, pinv: Any, a: Any) -> Any:
    """torch's ``pinv_backward``."""
    m, n = a.shape[-2:]
    pinv_h = mH(pinv)
    grad_h = mH(grad)
    if m <= n:
        k = grad_h.matmul(pinv)
        k_pinv_h = k.matmul(pinv_h)
        return (
            -mH(pinv.matmul(k))
            + k_pinv_h
            - a.matmul(pinv).matmul(k_pinv_h)
            + pinv_h.matmul(pinv).matmul(grad_h - k.matmul(a))
        )
    k = pinv.matmul(grad_h)
    pinv_h_k = pinv_h.matmul(k)
    return (
        -mH(k.matmul(pinv))
        + (grad_h - a.matmul(k)).matmul(pinv).matmul(pinv_h)
        + pinv_h_k
        - pinv_h_k.matmul(pinv).matmul(a)
    )


class LinalgPinv(Op):
    """The pseudo-inverse through an SVD (or ``eigh`` if ``hermitian``)."""

    node_name = "LinalgPinvBackward0"
    input_names = ("self",)
    saves = ("self", "result")
    quiet = True

    def __init__(self, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> None:
        self.atol = atol
        self.rtol = rtol
        self.hermitian = hermitian

    def forward(self, a: Any) -> Any:
        return pinv_arrays(a, self.atol, self.rtol, self.hermitian)

    def backward(self, grad: Any) -> Any:
        a, pinv = self.unpack()
        return pinv_backward(grad, pinv, a)


class LinalgLstsq(Op):
    """``(solution, residuals, rank, singular_values)`` of ``min ||A X - B||``;
    torch's ``linalg_lstsq_backward`` (through the pseudo-inverse)."""

    node_name = "LinalgLstsqBackward0"
    input_names = ("self", "b")
    output_names = ("solution", "residuals", "rank", "singular_values")
    differentiable_outputs = 2
    saves = ("b", "self", "solution")
    quiet = True

    def __init__(self, rcond: float | None, driver: str) -> None:
        self.rcond = rcond
        self.driver = driver

    def forward(self, a: Any, b: Any) -> Any:
        return lstsq_arrays(a, b, self.rcond, self.driver)

    def backward(self, grad_x: Any, grad_residuals: Any) -> Any:
        b, a, x = self.unpack()
        needs_a, needs_b = self.needs_input_grad
        has_residuals = grad_residuals is not None and grad_residuals.numel() > 0
        if grad_x is None and not has_residuals:
            return None, None
        vector = vector_rhs(tuple(a.shape), tuple(b.shape))
        b_m = b.unsqueeze(-1) if vector else b
        grad_a = grad_b = None
        if grad_x is not None:
            g_x = grad_x.unsqueeze(-1) if vector else grad_x
            pinv = a._apply_op(LinalgPinv())
            if needs_a:
                grad_a = pinv_backward(g_x.matmul(mH(b_m)), pinv, a)
            if needs_b:
                grad_b = mH(pinv).matmul(g_x)
                grad_b = grad_b.squeeze(-1) if vector else grad_b
        if has_residuals:
            x_m = x.unsqueeze(-1) if vector else x
            r = a.matmul(x_m) - b_m
            g_l = grad_residuals.unsqueeze(-2)
            if needs_a:
                term = _times((g_l * r).matmul(mH(x_m)), 2)
                grad_a = term if grad_a is None else grad_a + term
            if needs_b:
                term = _times(g_l, -2) * r
                term = term.squeeze(-1) if vector else term
                grad_b = term if grad_b is None else grad_b + term
        return grad_a, grad_b


def _gels(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LAPACK's ``gels`` (full rank assumed): through ``A = QR`` for tall ``A``, through
    ``A^H = QR`` (the minimum-norm solution) for wide ``A``."""
    m, n = a.shape[-2:]
    if m >= n:
        q, r = np.linalg.qr(a)
        return lapack.solve_triangular(r, _mH(q) @ b, upper=True)
    q, r = np.linalg.qr(_mH(a))
    return q @ lapack.solve_triangular(_mH(r), b, upper=False)


def lstsq_arrays(a: np.ndarray, b: np.ndarray, rcond: float | None, driver: str) -> tuple:
    """torch's ``linalg_lstsq`` on arrays (CPU drivers). The solution is the minimum-norm
    one (through an SVD) except for ``gels``, which assumes full rank (QR)."""
    m, n = a.shape[-2:]
    vector = vector_rhs(a.shape, b.shape)
    rhs = b[..., None] if vector else b
    dtype = np.result_type(a, b)
    real = np.empty(0, dtype).real.dtype
    batch = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    a = np.broadcast_to(a, (*batch, m, n))
    rhs = np.broadcast_to(rhs, (*batch, m, rhs.shape[-1]))
    if rcond is None or rcond < 0:
        rcond = float(np.finfo(real).eps) * max(m, n)
    if a.size == 0 or rhs.size == 0:
        solution = np.zeros((*batch, n, rhs.shape[-1]), dtype)
        ranks = np.zeros(batch, np.int64)
        values = np.zeros((*batch, min(m, n)), real)
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        keep = s > rcond * s[..., :1]
        ranks = np.sum(keep, axis=-1).astype(np.int64)
        inverse = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(real)
        solution = _mH(vh) @ (inverse[..., None] * (_mH(u) @ rhs))
        if driver == "gels":
            solution = _gels(a, rhs)
        values = s
    solution = solution.astype(dtype, copy=False)
    full_rank = bool(np.all(ranks == min(m, n)))
    if m > n and driver != "gelsy" and full_rank:
        residuals = np.sum(np.abs(a @ solution - rhs) ** 2, axis=-2).astype(real)
    else:
        residuals = np.zeros(0, real)
    rank = ranks if driver != "gels" else np.zeros(0, np.int64)
    singular_values = values.astype(real) if driver in ("gelsd", "gelss") else np.zeros(0, real)
    if vector:
        solution = solution[..., 0]
    return solution, residuals, rank, singular_values


# ---------------------------------------------------------------- Cholesky


def cholesky_backward(grad: Any, upper: bool, factor: Any) -> Any:
    """torch's ``cholesky_backward``: ``L^-H phi(L^H gL) L^-1`` symmetrised."""
    lower = mH(factor) if upper else factor
    g = mH(grad) if upper else grad
    g_a = mH(lower).matmul(g).tril()
    g_a = _times(g_a + mH(g_a.tril(-1)), 0.5)
    g_a = solve_triangular(mH(lower), g_a, True, True)
    return solve_triangular(lower, g_a, False, False)


class LinalgCholeskyEx(Op):
    """``(L, info)`` with ``A = L L^H`` (``U^H U`` if ``upper``)."""

    node_name = "LinalgCholeskyExBackward0"
    input_names = ("self",)
    output_names = ("L", "info")
    saves = ("L",)
    saved_attributes = ("upper",)

    def __init__(self, upper: bool = False) -> None:
        self.upper = upper

    def forward(self, a: Any) -> Any:
        factor, info = lapack.cholesky(a, self.upper)
        return (np.triu(factor) if self.upper else np.tril(factor)), info

    def backward(self, grad: Any) -> Any:
        (factor,) = self.unpack()
        return cholesky_backward(grad, self.upper, factor)


class Cholesky(Op):
    """The legacy ``torch.cholesky`` (``CholeskyBackward0``); the public function checks
    ``info``."""

    input_names = ("self",)
    saves = ("result",)
    saved_attributes = ("upper",)

    def __init__(self, upper: bool = False) -> None:
        self.upper = upper

    def forward(self, a: Any) -> Any:
        factor, self.info = lapack.cholesky(a, self.upper)
        return np.triu(factor) if self.upper else np.tril(factor)

    def backward(self, grad: Any) -> Any:
        (factor,) = self.unpack()
        return cholesky_backward(grad, self.upper, factor)


class CholeskySolve(Op):
    """``cholesky_solve(B, L)``: ``X`` with ``L L^H X = B`` (``U^H U`` if ``upper``)."""

    input_names = ("self", "input2")
    saves = ("input2", "self", "result")
    saved_attributes = ("upper",)
    quiet = True

    def __init__(self, upper: bool = False) -> None:
        self.upper = upper

    def forward(self, b: Any, factor: Any) -> Any:
        lower = _mH(factor) if self.upper else factor
        y = lapack.solve_triangular(lower, b, False)
        return lapack.solve_triangular(_mH(lower), y, True)

    def backward(self, grad: Any) -> Any:
        factor, _, x = self.unpack()
        needs_b, needs_factor = self.needs_input_grad
        grad_b = grad._apply_op(CholeskySolve(self.upper), factor)
        grad_factor = None
        if needs_factor:
            common = grad_b.matmul(mH(x))
            common = common + mH(common)
            grad_factor = -factor.matmul(common) if self.upper else -common.matmul(factor)
        return (grad_b if needs_b else None), grad_factor


class CholeskyInverse(Op):
    """``(L L^H)^-1`` from a Cholesky factor (``U^H U`` if ``upper``)."""

    input_names = ("self",)
    saves = ("self", "result")
    saved_attributes = ("upper",)
    quiet = True

    def __init__(self, upper: bool = False) -> None:
        self.upper = upper

    def forward(self, factor: Any) -> Any:
        lower = _mH(factor) if self.upper else factor
        n = factor.shape[-1]
        eye = np.broadcast_to(np.eye(n, dtype=factor.dtype), factor.shape)
        inverse_l = lapack.solve_triangular(lower, eye, False)
        return _mH(inverse_l) @ inverse_l

    def backward(self, grad: Any) -> Any:
        factor, inverse = self.unpack()
        common = inverse.matmul((grad + mH(grad)).matmul(inverse))
        return -factor.matmul(common) if self.upper else -common.matmul(factor)


# ---------------------------------------------------------------- QR


class LinalgQr(Op):
    """``(Q, R)``; torch's ``linalg_qr_backward``."""

    node_name = "LinalgQrBackward0"
    input_names = ("A",)
    output_names = ("Q", "R")
    saves = ("Q", "R")
    saved_attributes = ("mode",)

    def __init__(self, mode: str = "reduced") -> None:
        self.mode = mode

    def forward(self, a: Any) -> Any:
        if self.mode == "r":
            return np.zeros((0,), a.dtype), np.linalg.qr(a, mode="r")
        return tuple(np.linalg.qr(a, mode=self.mode))

    def backward(self, grad_q: Any, grad_r: Any) -> Any:
        q, r = self.unpack()
        if self.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when "
                "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                "differentiate through linalg.qr."
            )
        m, n = q.shape[-2], r.shape[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        if grad_q is None and grad_r is None:
            return None
        if grad_q is not None:
            g = -mH(q).matmul(grad_q)
            if grad_r is not None:
                g = grad_r.matmul(mH(r)) + g
        else:
            g = grad_r.matmul(mH(r))
        if m >= n:
            g = g.triu()
            g = g + mH(g)
            # NOTE: in place, as torch (a CopySlices node in a second backward).
            diagonal = g.diagonal(0, -2, -1)
            (diagonal.real if g.is_complex() else diagonal).mul_(0.5)
            g = q.matmul(g)
            if grad_q is not None:
                g = g + grad_q
            return solve_triangular(mH(r), g, False, False)
        skew = (-g - mH(-g)).tril()
        if skew.is_complex():
            skew.diagonal(0, -2, -1).imag.mul_(0.5)
        g = q.matmul(skew)
        g = solve_triangular(mH(r.narrow(-1, 0, m)), g, False, False)
        g = g._cat([g, g.new_zeros((*r.shape[:-1], n - m))], -1)
        if grad_r is not None:
            g = g + q.matmul(grad_r)
        return g


# ---------------------------------------------------------------- eigenvalues


def eig_backward(
    grad_values: Any, grad_vectors: Any, values: Any, vectors: Any, hermitian: bool
) -> Any:
    """torch's ``linalg_eig_backward``."""
    if grad_values is None and grad_vectors is None:
        return None
    if grad_vectors is None:
        if hermitian:
            return (vectors * grad_values.unsqueeze(-2)).matmul(mH(vectors))
        return solve(mH(vectors), grad_values.unsqueeze(-1) * mH(vectors))
    vh_gv = mH(vectors).matmul(grad_vectors)
    diagonal = vh_gv.diagonal(0, -2, -1)
    if vectors.is_complex():
        imaginary = diagonal.imag._data
        if not np.allclose(imaginary, 0, rtol=1e-2, atol=1e-2):
            name = "linalg_eigh_backward" if hermitian else "linalg_eig_backward"
            raise RuntimeError(
                f"{name}: The eigenvectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this "
                "quantity, so it is ill-defined."
            )
    if hermitian:
        vh_gv = _times(vh_gv - mH(vh_gv), 0.5)
    else:
        real = diagonal.real if diagonal.is_complex() else diagonal
        vh_gv = vh_gv - mH(vectors).matmul(vectors * real.unsqueeze(-2))
    conj_values = values.conj()
    gaps = conj_values.unsqueeze(-2) - conj_values.unsqueeze(-1)
    n = values.shape[-1]
    eye = np.eye(n, dtype=bool)
    gaps = gaps.masked_fill(gaps.new_tensor(eye, dtype=np.bool_), 1)
    g_a = vh_gv / gaps
    if grad_values is not None:
        g_a = g_a.diagonal_scatter(grad_values.to(g_a.dtype), 0, -2, -1)
    if hermitian:
        return vectors.matmul(g_a.matmul(mH(vectors)))
    return solve(mH(vectors), g_a.matmul(mH(vectors)))


class LinalgEig(Op):
    """``(eigenvalues, eigenvectors)`` of a general matrix, always complex."""

    node_name = "LinalgEigBackward0"
    input_names = ("self",)
    output_names = ("eigenvalues", "eigenvectors")
    saves = ("eigenvalues", "eigenvectors")

    def forward(self, a: Any) -> Any:
        complex_dtype = np.result_type(a.dtype, np.complex64)
        if a.size == 0:
            n = a.shape[-1]
            return np.zeros(a.shape[:-1], complex_dtype), np.zeros(
                (*a.shape[:-2], n, n), complex_dtype
            )
        values, vectors = np.linalg.eig(a)
        return values.astype(complex_dtype), vectors.astype(complex_dtype)

    def backward(self, grad_values: Any, grad_vectors: Any) -> Any:
        values, vectors = self.unpack()
        return eig_backward(grad_values, grad_vectors, values, vectors, False)


class LinalgEigh(Op):
    """``(eigenvalues, eigenvectors)`` of a Hermitian matrix from one triangle."""

    node_name = "LinalgEighBackward0"
    input_names = ("A",)
    output_names = ("eigenvalues", "eigenvectors")
    saves = ("eigenvalues", "eigenvectors")

    def __init__(self, uplo: str = "L") -> None:
        self.uplo = uplo

    def forward(self, a: Any) -> Any:
        if a.size == 0:
            real = a.real.dtype if a.dtype.kind == "c" else a.dtype
            return np.zeros(a.shape[:-1], real), np.zeros(a.shape, a.dtype)
        return tuple(np.linalg.eigh(a, UPLO=self.uplo))

    def backward(self, grad_values: Any, grad_vectors: Any) -> Any:
        values, vectors = self.unpack()
        return eig_backward(grad_values, grad_vectors, values, vectors, True)


# ---------------------------------------------------------------- SVD


def svd_backward(grad_u: Any, grad_s: Any, grad_vh: Any, u: Any, s: Any, vh: Any) -> Any:
    """torch's ``svd_backward`` (reduced factors)."""
    if grad_s is None and grad_u is None and grad_vh is None:
        return None
    m, n = u.shape[-2], vh.shape[-1]
    if grad_u is None and grad_vh is None:
        if m >= n:
            return u.matmul(grad_s.unsqueeze(-1) * vh)
        return (u * grad_s.unsqueeze(-2)).matmul(vh)
    complex_input = u.is_complex()
    uhgu = None
    vhgv = None
    if grad_u is not None:
        uhgu = mH(u).matmul(grad_u)
        uhgu = uhgu - mH(uhgu)
    if grad_vh is not None:
        vhgv = vh.matmul(mH(grad_vh))
        vhgv = vhgv - mH(vhgv)
    if complex_input:
        zeros = np.zeros(s.shape)
        im_u = zeros if uhgu is None else uhgu.diagonal(0, -2, -1).imag._data
        im_v = zeros if vhgv is None else vhgv.diagonal(0, -2, -1).imag._data
        if not np.allclose(im_u, -im_v, rtol=1e-2, atol=1e-2):
            raise RuntimeError(
                "svd_backward: The singular vectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this phase "
                "term, making it ill-defined."
            )
    s2 = s * s
    gaps = s2.unsqueeze(-2) - s2.unsqueeze(-1)
    k = s.shape[-1]
    gaps = gaps.masked_fill(gaps.new_tensor(np.eye(k, dtype=bool), dtype=np.bool_), 1)
    if uhgu is not None and vhgv is not None:
        g_a = (uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv) / gaps
    elif uhgu is not None:
        g_a = (uhgu / gaps) * s.unsqueeze(-2)
    else:
        g_a = s.unsqueeze(-1) * (vhgv / gaps)
    if grad_s is not None:
        g_a = g_a + grad_s.diag_embed()
    if complex_input and uhgu is not None and vhgv is not None:
        g_a = g_a + (uhgu.diagonal(0, -2, -1) / _times(s, 2.0)).diag_embed()
    if m > n and grad_u is not None:
        g_a = u.matmul(g_a)
        g_u_s = grad_u / s.unsqueeze(-2)
        g_a = g_a + g_u_s - u.matmul(mH(u).matmul(g_u_s))
        return g_a.matmul(vh)
    if m < n and grad_vh is not None:
        g_a = g_a.matmul(vh)
        s_g_vh = grad_vh / s.unsqueeze(-1)
        g_a = g_a + s_g_vh - s_g_vh.matmul(mH(vh)).matmul(vh)
        return u.matmul(g_a)
    if m >= n:
        return u.matmul(g_a.matmul(vh))
    return u.matmul(g_a).matmul(vh)


class LinalgSvd(Op):
    """``(U, S, Vh)``; torch's ``svd_backward`` on the leading ``k`` columns/rows."""

    node_name = "LinalgSvdBackward0"
    input_names = ("A",)
    output_names = ("U", "S", "Vh")
    saves = ("S", "U", "Vh")
    saved_attributes = ("S_sym_argsize_minus_1", "full_matrices")

    def __init__(self, full_matrices: bool = True, compute_uv: bool = True) -> None:
        self.full_matrices = full_matrices
        self.compute_uv = compute_uv

    def forward(self, a: Any) -> Any:
        self.S_sym_argsize_minus_1 = min(a.shape[-2:])
        if not self.compute_uv:
            s = np.linalg.svd(a, compute_uv=False)
            return np.zeros((0,), a.dtype), s, np.zeros((0,), a.dtype)
        return tuple(np.linalg.svd(a, full_matrices=self.full_matrices))

    def backward(self, grad_u: Any, grad_s: Any, grad_vh: Any) -> Any:
        s, u, vh = self.unpack()
        k = s.shape[-1]
        if self.full_matrices:
            grad_u = None if grad_u is None else grad_u.narrow(-1, 0, k)
            grad_vh = None if grad_vh is None else grad_vh.narrow(-2, 0, k)
            u = u.narrow(-1, 0, k)
            vh = vh.narrow(-2, 0, k)
        return svd_backward(grad_u, grad_s, grad_vh, u, s, vh)


# ---------------------------------------------------------------- LU


def lu_backward(grad_l: Any, grad_u: Any, p: Any, lower: Any, upper: Any, pivot: bool) -> Any:
    """torch's ``linalg_lu_backward`` for ``A = P L U``."""
    if grad_l is None and grad_u is None:
        return None
    m, n = lower.shape[-2], upper.shape[-1]
    k = min(m, n)
    if m == n:
        g = None if grad_l is None else mH(lower).matmul(grad_l).tril(-1)
        if grad_u is not None:
            term = grad_u.matmul(mH(upper)).triu()
            g = term if g is None else g + term
        g = solve_triangular(mH(upper), g, False, False)
        g = solve_triangular(mH(lower), g, True, True, True)
    elif m < n:
        u1 = upper.narrow(-1, 0, k)
        g = None if grad_l is None else mH(lower).matmul(grad_l)
        if grad_u is not None:
            term = grad_u.triu().matmul(mH(upper))
            g = -term if g is None else g - term
        g = solve_triangular(mH(u1), g.tril(-1), False, False)
        if grad_u is not None:
            g = g._cat([g + grad_u.narrow(-1, 0, k).triu(), grad_u.narrow(-1, k, n - k)], -1)
        g = solve_triangular(mH(lower), g, True, True, True)
        if grad_u is None:
            g = g._cat([g, upper.narrow(-1, k, n - k).new_zeros((*upper.shape[:-1], n - k))], -1)
    else:
        l1 = lower.narrow(-2, 0, k)
        g = None if grad_u is None else grad_u.matmul(mH(upper))
        if grad_l is not None:
            term = mH(lower).matmul(grad_l.tril(-1))
            g = -term if g is None else g - term
        g = solve_triangular(mH(l1), g.triu(), True, True, True)
        if grad_l is not None:
            g = g._cat([g + grad_l.narrow(-2, 0, k).tril(-1), grad_l.narrow(-2, k, m - k)], -2)
        g = solve_triangular(mH(upper), g, False, False)
        if grad_l is None:
            g = g._cat([g, g.new_zeros((*lower.shape[:-2], m - k, n))], -2)
    return p.matmul(g) if pivot else g


class LinalgLuFactorEx(Op):
    """``(LU, pivots, info)``: LAPACK's packed LU factors."""

    node_name = "LinalgLuFactorExBackward0"
    input_names = ("A",)
    output_names = ("LU", "pivots", "info")
    differentiable_outputs = 1
    saves = ("LU", "pivots")
    saved_attributes = ("pivot",)

    def __init__(self, pivot: bool = True) -> None:
        self.pivot = pivot

    def forward(self, a: Any) -> Any:
        return lapack.lu_factor(a, self.pivot)

    def backward(self, grad: Any) -> Any:
        lu, pivots = self.unpack()
        m, n = lu.shape[-2:]
        k = min(m, n)
        p, lower, upper = lu_unpack(lu, pivots)
        return lu_backward(
            grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), p, lower, upper, self.pivot
        )


class LinalgLu(Op):
    """``(L, U, P)`` of ``A = P L U`` (the public function reorders them as torch's
    ``(P, L, U)``; P has no gradient)."""

    node_name = "LinalgLuBackward0"
    input_names = ("A",)
    output_names = ("L", "U", "P")
    differentiable_outputs = 2
    saves = ("L", "P", "U")
    saved_attributes = ("pivot",)

    def __init__(self, pivot: bool = True) -> None:
        self.pivot = pivot

    def forward(self, a: Any) -> Any:
        lu, pivots, _ = lapack.lu_factor(a, self.pivot)
        p, lower, upper = lapack.lu_unpack(lu, pivots)
        if not self.pivot:
            p = np.zeros((0,), a.dtype)
        return lower, upper, p.astype(a.dtype)

    def backward(self, grad_l: Any, grad_u: Any) -> Any:
        lower, p, upper = self.unpack()
        return lu_backward(grad_l, grad_u, p, lower, upper, self.pivot)


class LuUnpack(Op):
    """``(L, U, P)`` from packed LU factors (reordered to ``(P, L, U)`` by the public
    function; P has no gradient)."""

    input_names = ("LU_data", "LU_pivots")
    non_differentiable = ("LU_pivots",)
    output_names = ("L", "U", "P")
    differentiable_outputs = 2
    saved_attributes = ("LU_data_sym_argsize_minus_1", "LU_data_sym_argsize_minus_2")

    def __init__(self, unpack_data: bool = True, unpack_pivots: bool = True) -> None:
        self.unpack_data = unpack_data
        self.unpack_pivots = unpack_pivots

    def forward(self, lu: Any, pivots: Any) -> Any:
        self.LU_data_sym_argsize_minus_2, self.LU_data_sym_argsize_minus_1 = lu.shape[-2:]
        p, lower, upper = lapack.lu_unpack(lu, pivots)
        empty = np.zeros((0,), lu.dtype)
        if not self.unpack_data:
            lower = upper = empty
        if not self.unpack_pivots:
            p = empty
        return lower, upper, p.astype(lu.dtype)

    def backward(self, grad_l: Any, grad_u: Any) -> Any:
        m, n = self.LU_data_sym_argsize_minus_2, self.LU_data_sym_argsize_minus_1
        k = min(m, n)
        if grad_l is None and grad_u is None:
            return None, None
        if grad_l is not None and grad_u is not None:
            if m == n:
                return grad_l.tril(-1) + grad_u.triu(), None
            a1 = grad_l.narrow(-2, 0, k).tril(-1) + grad_u.narrow(-1, 0, k).triu()
            if m > n:
                return a1._cat([a1, grad_l.narrow(-2, k, m - k)], -2), None
            return a1._cat([a1, grad_u.narrow(-1, k, n - k)], -1), None
        if grad_l is not None:
            if m >= n:
                return grad_l.tril(-1), None
            zeros = grad_l.new_zeros((*grad_l.shape[:-1], n - m))
            return grad_l._cat([grad_l.tril(-1), zeros], -1), None
        if n >= m:
            return grad_u.triu(), None
        zeros = grad_u.new_zeros((*grad_u.shape[:-2], m - n, grad_u.shape[-1]))
        return grad_u._cat([grad_u.triu(), zeros], -2), None


class LinalgLuSolve(Op):
    """``X`` from packed LU factors: ``op(A) X = B`` (``left``) or ``X op(A) = B``."""

    node_name = "LinalgLuSolveBackward0"
    input_names = ("LU", "pivots", "B")
    non_differentiable = ("pivots",)
    saves = ("LU", "pivots", "result")
    saved_attributes = ("adjoint", "left")
    quiet = True

    def __init__(self, left: bool = True, adjoint: bool = False) -> None:
        self.left = left
        self.adjoint = adjoint

    def forward(self, lu: Any, pivots: Any, b: Any) -> Any:
        return lapack.lu_solve(lu, pivots, b, self.left, self.adjoint).astype(
            np.result_type(lu, b), copy=False
        )

    def backward(self, grad: Any) -> Any:
        lu, pivots, x = self.unpack()
        needs_lu, _, needs_b = self.needs_input_grad
        grad_b = lu_solve(lu, pivots, grad, self.left, not self.adjoint) if needs_b else None
        grad_lu = (
            _lu_solve_lu_backward(grad, lu, pivots, x, self.left, self.adjoint)
            if needs_lu
            else None
        )
        return grad_lu, None, grad_b


def _lu_solve_lu_backward(g_x: Any, lu: Any, pivots: Any, x: Any, left: bool, adjoint: bool) -> Any:
    """torch's ``linalg_lu_solve_LU``."""
    p, lower, upper = lu_unpack(lu, pivots)
    if left != adjoint:
        rhs = -(g_x if left else mH(g_x)).matmul(mH(x) if left else x)
        g_r = solve_triangular(mH(upper), rhs, False)
        g_l = solve_triangular(mH(lower), g_r.matmul(mH(upper)), True, True, True).tril(-1)
        return g_l + g_r.triu()
    g_r = -p.mT.matmul(x if left else mH(x)).matmul(mH(g_x) if left else g_x).matmul(p)
    g_r = solve_triangular(mH(lower), g_r, True, False, True)
    g_u = solve_triangular(mH(upper), mH(lower).matmul(g_r), False, False).triu()
    return g_r.tril(-1) + g_u


# ---------------------------------------------------------------- Householder products


def householder_backward(grad: Any, result: Any, v: Any, tau: Any) -> tuple[Any, Any]:
    """The gradients of ``Q = (H_1 ... H_k)[:, :n]``, ``H_i = I - tau_i v_i v_i^H``, with
    respect to the reflectors (below the diagonal of ``v``) and ``tau``: for each ``i``,
    ``gH_i = P_i^H G S_i^H`` with ``P_i`` the product before ``H_i`` and ``S_i`` the one
    after it (times the first ``n`` columns of I); then ``g tau_i = -v_i^H gH_i v_i`` and
    ``g v_i = -conj(tau_i) gH_i v_i - tau_i gH_i^H v_i`` (torch's
    ``householder_product_backward`` computes the same by updating one matrix)."""
    m, n = v.shape[-2:]
    k = tau.shape[-1]
    eye_mn = grad.new_tensor(np.eye(m, n, dtype=v._data.dtype))
    vectors = v.tril(-1) + eye_mn
    eye = grad.new_tensor(np.eye(m, dtype=v._data.dtype))

    def reflector(i: int) -> Any:
        column = vectors.narrow(-1, i, 1)
        return eye - tau.narrow(-1, i, 1).unsqueeze(-1) * column.matmul(mH(column))

    reflectors = [reflector(i) for i in range(k)]
    suffix = [None] * k
    tail = eye.narrow(-1, 0, n)
    for i in range(k - 1, -1, -1):
        suffix[i] = tail
        tail = reflectors[i].matmul(tail)
    prefix = eye
    v_grads = []
    tau_grads = []
    for i in range(k):
        g_h = mH(prefix).matmul(grad).matmul(mH(suffix[i]))
        column = vectors.narrow(-1, i, 1)
        t = tau.narrow(-1, i, 1).unsqueeze(-1)
        tau_grads.append(-(mH(column).matmul(g_h).matmul(column)).squeeze(-1))
        g_v = -t.conj() * g_h.matmul(column) - t * mH(g_h).matmul(column)
        v_grads.append(g_v)
        prefix = prefix.matmul(reflectors[i])
    if k < n:
        v_grads.append(grad.new_zeros((*grad.shape[:-1], n - k)))
    grad_v = v_grads[0]._cat(v_grads, -1).tril(-1) if v_grads else v.new_zeros(tuple(v.shape))
    grad_tau = tau_grads[0]._cat(tau_grads, -1) if tau_grads else tau.new_zeros(tuple(tau.shape))
    return grad_v, grad_tau


class LinalgHouseholderProduct(Op):
    """``orgqr``: the first columns of a product of Householder reflectors."""

    node_name = "LinalgHouseholderProductBackward0"
    input_names = ("input", "tau")
    saves = ("input", "result", "tau")

    def forward(self, v: Any, tau: Any) -> Any:
        return lapack.householder_product(v, tau)

    def backward(self, grad: Any) -> Any:
        v, result, tau = self.unpack()
        if v.numel() == 0 or tau.numel() == 0:
            return None, None
        return householder_backward(grad, result, v, tau)


class Ormqr(Op):
    """``ormqr``: ``op(Q) C`` or ``C op(Q)`` for ``Q`` given as Householder reflectors."""

    input_names = ("self", "input2", "input3")
    saves = ("input2", "input3", "result", "self")
    saved_attributes = ("left", "transpose")

    def __init__(self, left: bool = True, transpose: bool = False) -> None:
        self.left = left
        self.transpose = transpose

    def forward(self, v: Any, tau: Any, c: Any) -> Any:
        return lapack.apply_householder(v, tau, c, self.left, self.transpose)

    def backward(self, grad: Any) -> Any:
        tau, c, _, v = self.unpack()
        needs_v, needs_tau, needs_c = self.needs_input_grad
        grad_c = None
        if needs_c:
            grad_c = v._apply_op(Ormqr(self.left, not self.transpose), tau, grad)
        if not (needs_v or needs_tau):
            return None, None, grad_c
        # The gradient reaching the full m x m product Q of the reflectors.
        if self.left:
            g_q = c.matmul(mH(grad)) if self.transpose else grad.matmul(mH(c))
        else:
            g_q = mH(grad).matmul(c) if self.transpose else mH(c).matmul(grad)
        m, columns = v.shape[-2:]
        padded = v if columns >= m else v._cat([v, v.new_zeros((*v.shape[:-1], m - columns))], -1)
        grad_v, grad_tau = householder_backward(g_q, None, padded, tau)
        return grad_v.narrow(-1, 0, columns), grad_tau, grad_c


class LdlFactor(Op):
    """``(LD, pivots, info)``: Bunch-Kaufman ``sytrf``; torch has no derivative for it
    (its node is ``NotImplemented``)."""

    node_name = "NotImplemented"
    input_names = ("A",)
    output_names = ("LD", "pivots", "info")
    differentiable_outputs = 1

    def __init__(self, hermitian: bool = False) -> None:
        self.hermitian = hermitian

    def forward(self, a: Any) -> Any:
        return lapack.ldl_factor(a, self.hermitian)

    def backward(self, grad: Any) -> Any:
        raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


class LdlSolve(Op):
    """``X`` with ``A X = B`` from LDL^T factors; torch has no derivative for it."""

    node_name = "NotImplemented"
    input_names = ("LD", "pivots", "B")
    non_differentiable = ("pivots",)
    quiet = True

    def __init__(self, hermitian: bool = False) -> None:
        self.hermitian = hermitian

    def forward(self, ld: Any, pivots: Any, b: Any) -> Any:
        return lapack.ldl_solve(ld, pivots, b, self.hermitian)

    def backward(self, grad: Any) -> Any:
        raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


class Geqrf(Op):
    """LAPACK's ``geqrf``: ``(a, tau)``, R above the diagonal and the reflectors below
    it; torch has no derivative for it."""

    input_names = ("self",)
    output_names = ("a", "tau")

    def forward(self, a: Any) -> Any:
        m, n = a.shape[-2:]
        if a.size == 0:
            return a.copy(), np.zeros((*a.shape[:-2], min(m, n)), a.dtype)
        h, tau = np.linalg.qr(a, mode="raw")
        return np.ascontiguousarray(np.swapaxes(h, -1, -2)), tau

    def backward(self, grad_a: Any, grad_tau: Any) -> Any:
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


# ---------------------------------------------------------------- matrix exponential


class LinalgMatrixExp(Op):
    """``exp(A)``; its adjoint differential is the top-right block of
    ``exp([[A^H, G], [0, A^H]])`` (torch's ``linalg_matrix_exp_differential``)."""

    node_name = "LinalgMatrixExpBackward0"
    input_names = ("self",)
    saves = ("self",)

    def forward(self, a: Any) -> Any:
        return lapack.matrix_exp(a)

    def backward(self, grad: Any) -> Any:
        (a,) = self.unpack()
        a_h = mH(a)
        n = a.shape[-1]
        meta = grad.new_zeros((*a.shape[:-2], 2 * n, 2 * n))
        meta.narrow(-2, 0, n).narrow(-1, 0, n).copy_(a_h)
        meta.narrow(-2, n, n).narrow(-1, n, n).copy_(a_h)
        meta.narrow(-2, 0, n).narrow(-1, n, n).copy_(grad)
        return meta._apply_op(LinalgMatrixExp()).narrow(-2, 0, n).narrow(-1, n, n)
