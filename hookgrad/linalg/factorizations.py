"""``torch.linalg``'s factorizations: Cholesky, QR, eigendecompositions, SVD, LU, LDL^T
and Householder products. Each checks its input as torch does, then runs one node of
``hookgrad.ops.decompositions`` (torch's node, with its saved values and gradient)."""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.linalg.checks import (
    LinAlgError,
    check_floating,
    check_matrix,
    check_square,
    check_tensor,
    raise_for_info,
    requires_grad,
    type_name,
    with_out,
)
from hookgrad.ops.factorizations import (
    LdlFactor,
    LinalgCholeskyEx,
    LinalgEig,
    LinalgEigh,
    LinalgHouseholderProduct,
    LinalgQr,
    LinalgSvd,
)
from hookgrad.ops.lu import LinalgLu, LinalgLuFactorEx
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.named_tuples import return_type

__all__ = [
    "cholesky",
    "cholesky_ex",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "ldl_factor",
    "ldl_factor_ex",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "qr",
    "svd",
    "svdvals",
]

linalg_cholesky_ex = return_type("linalg_cholesky_ex", ("L", "info"))
linalg_qr = return_type("linalg_qr", ("Q", "R"))
linalg_eig = return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_eigh = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_svd = return_type("linalg_svd", ("U", "S", "Vh"))
linalg_lu = return_type("linalg_lu", ("P", "L", "U"))
linalg_lu_factor = return_type("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_ldl_factor = return_type("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


def check_kernel_dtype(tensor: Any, kernel: str) -> None:
    """The error of a LAPACK kernel that has no version for ``tensor``'s dtype."""
    data = tensor._data
    if data.dtype.kind not in "fc" or data.dtype.itemsize < 4:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(tensor)}'")


# ---------------------------------------------------------------- Cholesky


def cholesky_ex(
    input: Any, *, upper: bool = False, check_errors: bool = False, out: Any = None
) -> Any:
    """``(L, info)``: the Cholesky factor of a Hermitian positive-definite ``A`` (a batch),
    and per matrix 0, or the order of its first leading minor that is not
    positive-definite (``L`` is then partial). ``upper`` returns ``U = L^H``.

    Example::

        L, info = hookgrad.linalg.cholesky_ex(hookgrad.tensor([[4.0, 2.0], [2.0, 2.0]]))
        L       # tensor([[2., 0.], [1., 1.]]); info: tensor(0, dtype=torch.int32)
    """
    factor, info = _cholesky(input, upper, "linalg.cholesky_ex")
    if check_errors:
        raise_for_info(info._data, "linalg.cholesky_ex", "cholesky")
    return with_out("linalg_cholesky_ex", (input,), linalg_cholesky_ex((factor, info)), out)


def cholesky(input: Any, *, upper: bool = False, out: Any = None) -> Any:
    """The Cholesky factor ``L`` (lower triangular, positive diagonal) with
    ``A = L L^H``, for a Hermitian positive-definite ``A`` or a batch; only its lower
    triangle is read. ``upper=True`` returns ``L^H`` (from the upper triangle). Raises
    ``LinAlgError`` if a matrix is not positive-definite.

    Example::

        A = hookgrad.tensor([[4.0, 2.0], [2.0, 2.0]], requires_grad=True)
        L = hookgrad.linalg.cholesky(A)       # tensor([[2., 0.], [1., 1.]])
        L.grad_fn                              # <LinalgCholeskyExBackward0>
    """
    factor, info = _cholesky(input, upper, "linalg.cholesky")
    raise_for_info(info._data, "linalg.cholesky", "cholesky")
    return with_out("linalg_cholesky", (input,), factor, out)


def _cholesky(A: Any, upper: bool, api: str) -> Any:
    check_tensor(A, api.replace(".", "_"), "A", 1)
    check_square(A, api)
    check_floating(A, api, low_precision=False)
    check_kernel_dtype(A, "cholesky_cpu")
    return apply(LinalgCholeskyEx(upper), A)


# ---------------------------------------------------------------- QR


def qr(A: Any, mode: str = "reduced", *, out: Any = None) -> Any:
    """``(Q, R)`` with ``A = Q R``, ``Q`` with orthonormal columns and ``R`` upper
    triangular. ``mode``: ``'reduced'`` (``Q`` is m x k, k = min(m, n)), ``'complete'``
    (``Q`` is m x m), ``'r'`` (only ``R``; ``Q`` is empty and not differentiable).

    Example::

        Q, R = hookgrad.linalg.qr(hookgrad.randn(4, 3))
        (Q @ R).shape     # torch.Size([4, 3])
    """
    check_tensor(A, "linalg_qr", "A", 1)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    check_matrix(A, "linalg.qr")
    check_floating(A, "linalg.qr", low_precision=False)
    check_kernel_dtype(A, "geqrf_cpu")
    return with_out("linalg_qr", (A,), linalg_qr(apply(LinalgQr(mode), A)), out)


# ---------------------------------------------------------------- eigenvalues


def _check_eig(A: Any, api: str) -> None:
    check_tensor(A, api.replace(".", "_"), "A", 1)
    check_square(A, api)
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(f"Unknown Complex ScalarType for {type_name(A)}")
    check_kernel_dtype(A, "linalg_eig_out_cpu")
    if not np.all(np.isfinite(A._data)):
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")


def eig(input: Any, *, out: Any = None) -> Any:
    """``(eigenvalues, eigenvectors)`` of a square matrix (or batch), always complex
    (complex64 for float32): ``A V = V diag(L)``, each eigenvector of norm 1. The
    eigenvectors are unique only up to a complex phase each; a function of them must not
    depend on it to be differentiable.

    Example::

        L, V = hookgrad.linalg.eig(hookgrad.tensor([[2.0, 0.0], [0.0, 3.0]]))
        L     # tensor([2.+0.j, 3.+0.j])
    """
    _check_eig(input, "linalg.eig")
    return with_out("linalg_eig", (input,), linalg_eig(apply(LinalgEig(), input)), out)


def eigvals(input: Any, *, out: Any = None) -> Any:
    """The eigenvalues of a square matrix (or batch), complex; see :func:`eig`.

    Example: ``hookgrad.linalg.eigvals(hookgrad.eye(2))`` is ``tensor([1.+0.j, 1.+0.j])``.
    """
    _check_eig(input, "linalg.eig")
    if requires_grad(input):
        values = apply(LinalgEig(), input)[0]
    else:
        data = input._data
        complex_dtype = np.result_type(data.dtype, np.complex64)
        array = np.linalg.eigvals(data) if data.size else np.zeros(data.shape[:-1])
        values = wrap_constant(array.astype(complex_dtype))
    return with_out("linalg_eigvals", (input,), values, out)


def _eigh(A: Any, UPLO: str, api: str) -> Any:
    check_tensor(A, api.replace(".", "_"), "A", 1)
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    check_square(A, api)
    check_kernel_dtype(A, "linalg_eigh_cpu")
    return apply(LinalgEigh(UPLO.upper()), A)


def eigh(input: Any, UPLO: str = "L", *, out: Any = None) -> Any:
    """``(eigenvalues, eigenvectors)`` of a Hermitian (symmetric) matrix or batch, read
    from its lower (``UPLO='L'``) or upper triangle: eigenvalues real and ascending,
    ``A = V diag(L) V^H`` with ``V`` unitary. Eigenvectors are unique up to sign (phase).

    Example::

        L, V = hookgrad.linalg.eigh(hookgrad.tensor([[2.0, 1.0], [1.0, 2.0]]))
        L     # tensor([1., 3.])
    """
    result = linalg_eigh(_eigh(input, UPLO, "linalg.eigh"))
    return with_out("linalg_eigh", (input,), result, out)


def eigvalsh(input: Any, UPLO: str = "L", *, out: Any = None) -> Any:
    """The (real, ascending) eigenvalues of a Hermitian matrix; see :func:`eigh`.

    Example: ``hookgrad.linalg.eigvalsh(hookgrad.tensor([[2.0, 1.0], [1.0, 2.0]]))`` is
    ``tensor([1., 3.])``.
    """
    if requires_grad(input):
        values = _eigh(input, UPLO, "linalg.eigh")[0]
    else:
        check_tensor(input, "linalg_eigvalsh", "A", 1)
        if UPLO not in ("L", "U", "l", "u"):
            raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
        check_square(input, "linalg.eigh")
        check_kernel_dtype(input, "linalg_eigh_cpu")
        data = input._data
        real = np.empty(0, data.dtype).real.dtype
        array = (
            np.linalg.eigvalsh(data, UPLO=UPLO.upper())
            if data.size
            else np.zeros(data.shape[:-1], real)
        )
        values = wrap_constant(array)
    return with_out("linalg_eigvalsh", (input,), values, out)


# ---------------------------------------------------------------- SVD


def _check_svd(A: Any, driver: Any, api: str = "linalg.svd") -> None:
    check_tensor(A, api.replace(".", "_"), "A", 1)
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )
    check_matrix(A, "linalg.svd")
    check_floating(A, "linalg.svd", low_precision=False)
    check_kernel_dtype(A, "linalg_svd_cpu")
    if not np.all(np.isfinite(A._data)):
        raise LinAlgError(
            "linalg.svd: The algorithm failed to converge because the input matrix contained "
            "non-finite values."
        )


def svd(A: Any, full_matrices: bool = True, *, driver: Any = None, out: Any = None) -> Any:
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``: singular values ``S`` real and
    descending, ``U``/``Vh`` with orthonormal columns/rows (square m x m and n x n if
    ``full_matrices``, else m x k and k x n). The singular vectors are unique up to sign
    (phase); a differentiable function of them must not depend on it.

    Example::

        U, S, Vh = hookgrad.linalg.svd(hookgrad.randn(4, 3), full_matrices=False)
        U.shape, S.shape, Vh.shape    # (4, 3), (3,), (3, 3)
    """
    _check_svd(A, driver)
    result = linalg_svd(apply(LinalgSvd(full_matrices), A))
    return with_out("linalg_svd", (A,), result, out)


def svdvals(A: Any, *, driver: Any = None, out: Any = None) -> Any:
    """The singular values of a matrix (or batch), descending; see :func:`svd`.

    Example: ``hookgrad.linalg.svdvals(hookgrad.tensor([[3.0, 0.0], [0.0, -4.0]]))`` is
    ``tensor([4., 3.])``.
    """
    _check_svd(A, driver)
    compute_uv = requires_grad(A)
    values = apply(LinalgSvd(False, compute_uv), A)[1]
    return with_out("linalg_svdvals", (A,), values, out)


# ---------------------------------------------------------------- LU


def _check_lu(A: Any, pivot: bool, api: str, name: str) -> None:
    check_tensor(A, name, "A", 1)
    if A.ndim < 2:
        raise RuntimeError(
            f"{api}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead"
        )
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    check_kernel_dtype(A, "lu_cpu")


def lu_factor_ex(A: Any, *, pivot: bool = True, check_errors: bool = False, out: Any = None) -> Any:
    """``(LU, pivots, info)``: LAPACK's ``getrf``. ``LU`` packs ``L`` (unit lower, below
    the diagonal) and ``U``; ``pivots`` (int32, 1-based) says which row was swapped with
    row ``i``; ``info`` is the 1-based index of the first zero on U's diagonal (0 if
    none). See :func:`lu_factor`."""
    _check_lu(A, pivot, "torch.lu_factor", "linalg_lu_factor_ex")
    result = apply(LinalgLuFactorEx(pivot), A)
    if check_errors:
        raise_for_info(result[2]._data, "torch.linalg.lu_factor_ex", "lu_factor")
    return with_out("linalg_lu_factor_ex", (A,), linalg_lu_factor_ex(result), out)


def lu_factor(A: Any, *, pivot: bool = True, out: Any = None) -> Any:
    """``(LU, pivots)``: the LU factorization with partial pivoting ``A = P L U`` in
    LAPACK's packed form, for :func:`lu_solve` (``lu_unpack`` gives ``P, L, U``).
    Raises if ``U`` has a zero on its diagonal.

    Example::

        LU, pivots = hookgrad.linalg.lu_factor(hookgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        pivots    # tensor([2, 2], dtype=torch.int32)
    """
    _check_lu(A, pivot, "torch.lu_factor", "linalg_lu_factor")
    lu_data, pivots, info = apply(LinalgLuFactorEx(pivot), A)
    raise_for_info(info._data, "torch.linalg.lu_factor", "lu_factor")
    return with_out("linalg_lu_factor", (A,), linalg_lu_factor((lu_data, pivots)), out)


def lu(A: Any, *, pivot: bool = True, out: Any = None) -> Any:
    """``(P, L, U)`` with ``A = P L U``: ``P`` a permutation matrix, ``L`` unit lower
    triangular (m x k), ``U`` upper triangular (k x n), k = min(m, n).

    Example::

        P, L, U = hookgrad.linalg.lu(hookgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        (P @ L @ U)       # the input back
    """
    _check_lu(A, pivot, "linalg.lu", "linalg_lu")
    lower, upper, p = apply(LinalgLu(pivot), A)
    return with_out("linalg_lu", (A,), linalg_lu((p, lower, upper)), out)


# ---------------------------------------------------------------- LDL^T


def ldl_factor_ex(
    input: Any, *, hermitian: bool = False, check_errors: bool = False, out: Any = None
) -> Any:
    """``(LD, pivots, info)``: LAPACK's Bunch-Kaufman ``sytrf`` of a symmetric (Hermitian
    if ``hermitian``) matrix, from its lower triangle; ``info`` > 0 marks a singular ``D``.
    Not differentiable. See :func:`ldl_factor`."""
    api = "torch.linalg.ldl_factor_ex"
    check_tensor(input, "linalg_ldl_factor_ex", "A", 1)
    check_square(input, api)
    check_floating(input, api, low_precision=False)
    check_kernel_dtype(input, "ldl_factor_cpu")
    result = apply(LdlFactor(hermitian), input)
    if check_errors and np.any(result[2]._data):
        raise RuntimeError(
            f"torch.linalg.ldl_factor_ex: Unknown error code: {int(result[2]._data.flat[0])}."
        )
    return with_out("linalg_ldl_factor_ex", (input,), linalg_ldl_factor_ex(result), out)


def ldl_factor(input: Any, *, hermitian: bool = False, out: Any = None) -> Any:
    """``(LD, pivots)``: the LDL^T factorization with Bunch-Kaufman pivoting of a
    symmetric (or Hermitian) matrix, as LAPACK packs it, for :func:`ldl_solve`.

    Example::

        LD, pivots = hookgrad.linalg.ldl_factor(hookgrad.tensor([[4.0, 2.0], [2.0, 3.0]]))
    """
    ld, pivots, info = ldl_factor_ex(input, hermitian=hermitian)
    if np.any(info._data):
        raise RuntimeError(
            "torch.linalg.ldl_factor: Unknown error code: "
            f"{int(info._data.reshape(-1)[np.flatnonzero(info._data)[0]])}."
        )
    return with_out("linalg_ldl_factor", (input,), linalg_ldl_factor((ld, pivots)), out)


# ---------------------------------------------------------------- Householder products


def householder_product(input: Any, tau: Any, *, out: Any = None) -> Any:
    """The first ``n`` columns of ``H_1 ... H_k`` (LAPACK's ``orgqr``), with
    ``H_i = I - tau_i v_i v_i^H`` and ``v_i`` column ``i`` of ``A`` below the diagonal (1
    on it): ``Q`` from :func:`torch.geqrf`'s output.

    Example::

        a, tau = hookgrad.geqrf(hookgrad.randn(4, 3))
        Q = hookgrad.linalg.householder_product(a, tau)    # Q of the QR factorization
    """
    api = "torch.linalg.householder_product"
    check_tensor(input, "linalg_householder_product", "input", 1)
    check_tensor(tau, "linalg_householder_product", "tau", 2)
    check_householder(input, tau, api)
    check_kernel_dtype(input, "orgqr_cpu")
    result = apply(LinalgHouseholderProduct(), input, tau)
    return with_out("linalg_householder_product", (input, tau), result, out)


def check_householder(A: Any, tau: Any, api: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{api}: input must have at least 2 dimensions.")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    m, n = A._data.shape[-2:]
    if m < n:
        raise RuntimeError(
            f"{api}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if n < tau._data.shape[-1]:
        raise RuntimeError(f"{api}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(
            f"{api}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {tau.ndim} and input.ndim is equal to {A.ndim}"
        )
    if tuple(tau._data.shape[:-1]) != tuple(A._data.shape[:-2]):
        raise RuntimeError(
            f"{api}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(tau._data.shape[:-1])}"
        )
    if tau._data.dtype != A._data.dtype:
        raise RuntimeError(
            f"{api}: tau dtype {type_name(tau)} does not match input dtype {type_name(A)}"
        )
