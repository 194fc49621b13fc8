"""The nodes of ``torch.linalg``'s factorizations, named and saving as torch's:
Cholesky (``LinalgCholeskyExBackward0``, ``cholesky_solve``, ``cholesky_inverse``), QR,
the eigendecompositions, the SVD, the matrix exponential, and the Householder forms
(``householder_product``, ``ormqr``, ``geqrf``) and LDL^T (``ldl_factor``, ``ldl_solve``).

As in ``hookgrad.ops.decompositions``, each backward is torch's ``FunctionsManual``
formula (``svd_backward``, ``linalg_eig_backward`` ...) written with tensor operations, so
that a ``create_graph=True`` gradient records a graph; the forwards are LAPACK's
(``numpy.linalg`` or ``hookgrad.ops.lapack``).

Example: ``hookgrad.linalg.qr(a)`` runs ``LinalgQr`` (node ``LinalgQrBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops import lapack
from hookgrad.ops.base import Op
from hookgrad.ops.linalg_common import mH, mH_array, times_scalar
from hookgrad.ops.lu import solve, solve_triangular

# ---------------------------------------------------------------- Cholesky


def cholesky_backward(grad: Any, upper: bool, factor: Any) -> Any:
    """torch's ``cholesky_backward``: ``L^-H phi(L^H gL) L^-1`` symmetrised."""
    lower = mH(factor) if upper else factor
    g = mH(grad) if upper else grad
    g_a = mH(lower).matmul(g).tril()
    g_a = times_scalar(g_a + mH(g_a.tril(-1)), 0.5)
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
        lower = mH_array(factor) if self.upper else factor
        y = lapack.solve_triangular(lower, b, False)
        return lapack.solve_triangular(mH_array(lower), y, True)

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
        lower = mH_array(factor) if self.upper else factor
        n = factor.shape[-1]
        eye = np.broadcast_to(np.eye(n, dtype=factor.dtype), factor.shape)
        inverse_l = lapack.solve_triangular(lower, eye, False)
        return mH_array(inverse_l) @ inverse_l

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
        vh_gv = times_scalar(vh_gv - mH(vh_gv), 0.5)
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
        g_a = g_a + (uhgu.diagonal(0, -2, -1) / times_scalar(s, 2.0)).diag_embed()
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
