"""The nodes of ``torch.linalg``'s determinants (``det``, ``slogdet``), least squares
(``lstsq``) and pseudo-inverse (``pinv``), named and saving as torch's. The nodes of the
factorizations (Cholesky, QR, eigen, SVD, Householder, LDL) are in ``factorizations.py``,
those of LU and the linear solvers in ``lu.py``, and what they share in
``linalg_common.py``; the conventions below hold for all of them.

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

Example: ``hookgrad.linalg.det(a)`` runs ``LinalgDet`` (node ``LinalgDetBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import lapack
from hookgrad.ops.base import Op
from hookgrad.ops.factorizations import LinalgSvd
from hookgrad.ops.linalg_common import (
    diag_matrices,
    mH,
    mH_array,
    real_eps,
    times_scalar,
    use_transpose,
)
from hookgrad.ops.lu import lu_solve, solve, vector_rhs
from hookgrad.ops.reduction import prod_safe_zeros_backward

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
        self.use_a_t = use_transpose(a)
        lu, pivots, _ = lapack.lu_factor(np.swapaxes(a, -1, -2) if self.use_a_t else a)
        diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
        det = np.prod(diagonal, axis=-1) * _perm_sign(pivots).astype(a.dtype)
        return det.astype(a.dtype), lu, pivots

    def backward(self, grad: Any) -> Any:
        a, lu, pivots, det = self.unpack()
        if a.numel() == 0:
            return None
        d = diag_matrices(grad * det.conj(), pivots)
        if not grad_mode.is_grad_enabled():
            return lu_solve(_perturbed(lu), pivots, d, True, not self.use_a_t)
        eps = real_eps(a._data)
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
    diagonal[diagonal == 0] = real_eps(array)
    return lu.new_tensor(array)


def _det_backward_singular(a: Any, grad: Any) -> Any:
    """The adjugate's formula, through an SVD (torch's ``singular`` branch)."""
    u, s, vh = a._apply_op(LinalgSvd(False, True))
    det_u = u._apply_op(LinalgDet())[0]
    det_vh = vh._apply_op(LinalgDet())[0]
    alpha = (det_u * det_vh).conj() * grad
    d = prod_safe_zeros_backward(alpha.unsqueeze(-1), s, s.ndim - 1)
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
        self.use_a_t = use_transpose(a)
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
        d = diag_matrices(g, pivots)
        if not grad_mode.is_grad_enabled():
            return lu_solve(lu, pivots, d, True, not self.use_a_t)
        return solve(mH(a), d)


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
            return ((v * inverse[..., None, :]) @ mH_array(v)).astype(a.dtype)
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        largest = s[..., :1]
        tol = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * largest)
        inverse = np.where(s > tol, 1 / s, 0).astype(s.dtype)
        return ((mH_array(vh) * inverse[..., None, :]) @ mH_array(u)).astype(a.dtype)


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
                term = times_scalar((g_l * r).matmul(mH(x_m)), 2)
                grad_a = term if grad_a is None else grad_a + term
            if needs_b:
                term = times_scalar(g_l, -2) * r
                term = term.squeeze(-1) if vector else term
                grad_b = term if grad_b is None else grad_b + term
        return grad_a, grad_b


def _gels(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LAPACK's ``gels`` (full rank assumed): through ``A = QR`` for tall ``A``, through
    ``A^H = QR`` (the minimum-norm solution) for wide ``A``."""
    m, n = a.shape[-2:]
    if m >= n:
        q, r = np.linalg.qr(a)
        return lapack.solve_triangular(r, mH_array(q) @ b, upper=True)
    q, r = np.linalg.qr(mH_array(a))
    return q @ lapack.solve_triangular(mH_array(r), b, upper=False)


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
        solution = mH_array(vh) @ (inverse[..., None] * (mH_array(u) @ rhs))
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
