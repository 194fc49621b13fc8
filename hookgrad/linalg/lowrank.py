"""Randomized low-rank factorizations, as torch's ``torch._lowrank``: ``svd_lowrank``
(Halko et al. 2009, algorithms 4.4 and 5.1) and ``pca_lowrank``; and ``lobpcg``, the k
extreme eigenpairs of a symmetric (generalized) eigenproblem.

The random matrices come from hookgrad's generator in torch's order, so a seeded
program gets torch's numbers. ``lobpcg`` draws torch's initial ``X`` but then solves the
dense problem directly (``eigh``): it returns the converged eigenpairs LOBPCG iterates
towards (eigenvectors unique up to sign), with ``eigh``'s gradients.
"""

from __future__ import annotations

from typing import Any

from hookgrad.linalg import factorizations, solvers
from hookgrad.tensor import dtypes
from hookgrad.tensor.random import randn

__all__ = ["lobpcg", "pca_lowrank", "svd_lowrank"]


def _mH(x: Any) -> Any:
    return x.mT.conj() if x.is_complex() else x.mT


def _floating_dtype(A: Any) -> Any:
    """torch's ``_utils.get_floating_dtype``: the input's dtype if floating, else float32."""
    dtype = A.dtype
    return dtype if dtype.is_floating_point or dtype.is_complex else dtypes.float32


def get_approximate_basis(A: Any, q: int, niter: int | None = 2, M: Any = None) -> Any:
    """``Q`` with ``q`` orthonormal columns such that ``Q Q^H (A - M)`` approximates
    ``A - M`` (Halko et al., algorithm 4.4: a random projection and ``niter`` subspace
    iterations)."""
    niter = 2 if niter is None else niter
    dtype = A.dtype if A.is_complex() else _floating_dtype(A)
    R = randn(A.shape[-1], q, dtype=dtype)
    X = A.matmul(R)
    if M is not None:
        X = X - M.matmul(R)
    Q = factorizations.qr(X).Q
    for _ in range(niter):
        X = _mH(A).matmul(Q)
        if M is not None:
            X = X - _mH(M).matmul(Q)
        Q = factorizations.qr(X).Q
        X = A.matmul(Q)
        if M is not None:
            X = X - M.matmul(Q)
        Q = factorizations.qr(X).Q
    return Q


def svd_lowrank(A: Any, q: int | None = 6, niter: int | None = 2, M: Any = None) -> Any:
    """``(U, S, V)`` with ``A - M ~ U diag(S) V^H`` of rank ``q``, by a randomized range
    finder (``niter`` subspace iterations) and the SVD of a small matrix. Seed the
    generator for repeatable results.

    Example::

        hookgrad.manual_seed(0)
        U, S, V = hookgrad.svd_lowrank(hookgrad.randn(100, 40), q=5)
        S.shape    # torch.Size([5])
    """
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.expand(*A.shape)
    if m < n:
        A = _mH(A)
        if M is not None:
            M = _mH(M)
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = _mH(Q).matmul(A)
    if M is not None:
        B = B - _mH(Q).matmul(M)
    U, S, Vh = factorizations.svd(B, full_matrices=False)
    V = _mH(Vh)
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def pca_lowrank(A: Any, q: int | None = None, center: bool = True, niter: int = 2) -> Any:
    """A low-rank PCA: :func:`svd_lowrank` of ``A`` minus its column means (``center``),
    ``q`` components (default ``min(6, m, n)``). ``V``'s columns are the principal
    directions, ``S**2 / (m - 1)`` the variances along them.

    Example::

        U, S, V = hookgrad.pca_lowrank(data, q=3)
        projected = data @ V[:, :3]
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=(-2,), keepdim=True)
    return svd_lowrank(A - C, q, niter=niter, M=None)


def lobpcg(
    A: Any,
    k: int | None = None,
    B: Any = None,
    X: Any = None,
    n: int | None = None,
    iK: Any = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker: Any = None,
    ortho_iparams: Any = None,
    ortho_fparams: Any = None,
    ortho_bparams: Any = None,
) -> Any:
    """``(E, X)``: the ``k`` largest (``largest=False``: smallest) eigenvalues and their
    eigenvectors of the symmetric ``A`` (generalized, ``A x = e B x``, with ``B``
    symmetric positive-definite), batched. torch's argument checks and random start
    ``X`` (n >= k columns; at most a third of A's rows); the eigenpairs come from a dense
    solve (see the module docstring). Gradients flow to ``A`` (symmetrised, as torch's).

    Example::

        A = M @ M.T                        # symmetric, 30 x 30
        E, X = hookgrad.lobpcg(A, k=2)     # the two largest eigenpairs
    """
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = _floating_dtype(A)
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={n})"
        )
    largest = True if largest is None else largest
    if X is None:
        batch = 1
        for size in A.shape[:-2]:
            batch *= size
        for _ in range(batch):
            randn((m, n), dtype=dtype)
    if A.requires_grad or (B is not None and B.requires_grad):
        A = (A + A.mT) / 2
        B = None if B is None else (B + B.mT) / 2
    if B is None:
        values, vectors = factorizations.eigh(A)
    else:
        L = factorizations.cholesky(B)
        inverse_l = solvers.inv(L)
        values, y = factorizations.eigh(inverse_l.matmul(A).matmul(_mH(inverse_l)))
        vectors = _mH(inverse_l).matmul(y)
    if largest:
        values = values.flip(-1)
        vectors = vectors.flip(-1)
    return values.narrow(-1, 0, k), vectors.narrow(-1, 0, k)
