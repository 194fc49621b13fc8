"""LAPACK's factorizations on NumPy arrays, where ``numpy.linalg`` has none or hides what
torch returns: LU with partial pivoting (``getrf``'s ``LU``, 1-based ``pivots`` and
``info``), solves from it (``getrs``), triangular solves (``trsm``: no singularity check,
a zero diagonal gives inf/nan as in torch), Cholesky with ``info`` and the partial factor
``potrf`` leaves, Householder products (``orgqr``/``ormqr``), Bunch-Kaufman LDL^T
(``sytf2``), and the matrix exponential (scaling and squaring with Pade approximants).

Every kernel works on a batch (leading dims) at once. The loops run over one matrix
dimension, each step one vectorised NumPy operation over the whole batch: the point is
torch's results (the same pivots and signs as LAPACK, the same ``info``), not speed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def _abs1(x: np.ndarray) -> np.ndarray:
    """LAPACK's pivot magnitude: ``|x|`` for reals, ``|re| + |im|`` for complex (``icamax``)."""
    if x.dtype.kind == "c":
        return np.abs(x.real) + np.abs(x.imag)
    return np.abs(x)


def _batched(a: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """``a`` as a C-ordered copy of shape ``(batch, m, n)``, and its batch shape."""
    batch = a.shape[:-2]
    return np.array(a.reshape(-1, *a.shape[-2:]), order="C"), batch


# ---------------------------------------------------------------- LU


# Columns (rows) handled by the one-at-a-time loops before a block update with a matrix
# product: the loops run once per column, the O(n^3) work is in the products.
_BLOCK = 32


def lu_factor(a: np.ndarray, pivot: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``getrf``: ``A = P L U`` packed in one matrix (L unit lower, below the diagonal).

    Returns ``(LU, pivots, info)``: ``pivots`` int32, 1-based, row ``i`` swapped with row
    ``pivots[i] - 1`` at step ``i``; ``info`` int32, the 1-based index of the first zero
    on U's diagonal (0 if none). Without ``pivot`` no rows are swapped. Blocked as
    LAPACK's: a panel of columns factored column by column (partial pivoting over the
    whole remaining column, rows swapped across the matrix), then ``U12 = L11^-1 A12`` and
    ``A22 -= L21 U12``.
    """
    lu, batch = _batched(a)
    count, m, n = lu.shape
    k = min(m, n)
    pivots = np.tile(np.arange(1, k + 1, dtype=np.int32), (count, 1))
    info = np.zeros(count, np.int32)
    rows = np.arange(count)
    with np.errstate(all="ignore"):
        for start in range(0, k, _BLOCK):
            stop = min(start + _BLOCK, k)
            for j in range(start, stop):
                if pivot:
                    p = j + np.argmax(_abs1(lu[:, j:, j]), axis=1)
                    pivots[:, j] = p + 1
                    swap = p != j
                    if swap.any():
                        which = rows[swap]
                        upper = lu[which, j, :].copy()
                        lu[which, j, :] = lu[which, p[swap], :]
                        lu[which, p[swap], :] = upper
                diagonal = lu[:, j, j]
                zero = diagonal == 0
                info[(info == 0) & zero] = j + 1
                scale = np.where(zero, 1, diagonal)
                lu[:, j + 1 :, j] /= scale[:, None]
                lu[:, j + 1 :, j + 1 : stop] -= (
                    lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 : stop]
                )
            if stop < n:
                lu[:, start:stop, stop:] = solve_triangular(
                    lu[:, start:stop, start:stop], lu[:, start:stop, stop:], False, True, True
                )
                lu[:, stop:, stop:] -= lu[:, stop:, start:stop] @ lu[:, start:stop, stop:]
    return lu.reshape(a.shape), pivots.reshape(*batch, k), info.reshape(batch)


def permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """The row order ``perm`` with ``(P^T A)[i] = A[perm[i]]`` for ``getrf``'s pivots."""
    batch = pivots.shape[:-1]
    flat = pivots.reshape(-1, pivots.shape[-1]).astype(np.int64) - 1
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        target = flat[:, j]
        current = perm[rows, j].copy()
        perm[rows, j] = perm[rows, target]
        perm[rows, target] = current
    return perm.reshape(*batch, m)


def lu_unpack(lu: np.ndarray, pivots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P, L, U)`` from ``getrf``'s packed factors (``A = P L U``)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu[..., :, :k], -1)
    lower[..., np.arange(k), np.arange(k)] = 1
    upper = np.triu(lu[..., :k, :])
    perm = permutation(np.broadcast_to(pivots, (*lu.shape[:-2], pivots.shape[-1])), m)
    eye = np.eye(m, dtype=lu.dtype)
    # Row i of P^T is e_{perm[i]}: P[perm[i], i] = 1.
    p = np.swapaxes(eye[perm], -1, -2)
    return np.ascontiguousarray(p), lower, upper


def lu_solve(
    lu: np.ndarray, pivots: np.ndarray, b: np.ndarray, left: bool = True, adjoint: bool = False
) -> np.ndarray:
    """``getrs``: ``X`` with ``op(A) X = B`` (``left``) or ``X op(A) = B``, where
    ``A = P L U`` and ``op`` is the conjugate transpose when ``adjoint``."""
    if not left:
        # X op(A) = B  <=>  op(A)^H X^H = B^H
        return _mH(lu_solve(lu, pivots, _mH(b), True, not adjoint))
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu = np.broadcast_to(lu, (*batch, *lu.shape[-2:]))
    b = np.broadcast_to(b, (*batch, *b.shape[-2:])).astype(np.result_type(lu, b))
    perm = permutation(np.broadcast_to(pivots, (*batch, pivots.shape[-1])), lu.shape[-1])
    if not adjoint:
        x = np.take_along_axis(b, perm[..., None], axis=-2)
        x = solve_triangular(lu, x, upper=False, unitriangular=True)
        return solve_triangular(lu, x, upper=True)
    x = solve_triangular(_mH(lu), b, upper=False)
    x = solve_triangular(_mH(lu), x, upper=True, unitriangular=True)
    out = np.empty_like(x)
    np.put_along_axis(out, np.broadcast_to(perm[..., None], x.shape), x, axis=-2)
    return out


def _mH(x: np.ndarray) -> np.ndarray:
    x = np.swapaxes(x, -1, -2)
    return x.conj() if x.dtype.kind == "c" else x


# ---------------------------------------------------------------- triangular solve


def solve_triangular(
    a: np.ndarray,
    b: np.ndarray,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
) -> np.ndarray:
    """``trsm``: ``X`` with ``A X = B`` (``left``) or ``X A = B``, reading only the
    ``upper`` or lower triangle of ``A`` (its diagonal taken as ones if
    ``unitriangular``). Batch dims broadcast; a zero on the diagonal gives inf/nan.
    Blocked: the solved rows of a block enter the next by one matrix product."""
    if not left:
        # X A = B  <=>  A^T X^T = B^T
        return np.swapaxes(
            solve_triangular(
                np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper, True, unitriangular
            ),
            -1,
            -2,
        )
    dtype = np.result_type(a, b)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    n, k = b.shape[-2:]
    a = np.broadcast_to(a, (*batch, n, n)).astype(dtype, copy=False)
    x = np.array(np.broadcast_to(b, (*batch, n, k)), dtype=dtype)
    starts = list(range(0, n, _BLOCK))
    with np.errstate(all="ignore"):
        for start in reversed(starts) if upper else starts:
            stop = min(start + _BLOCK, n)
            if upper and stop < n:
                x[..., start:stop, :] -= a[..., start:stop, stop:] @ x[..., stop:, :]
            elif not upper and start > 0:
                x[..., start:stop, :] -= a[..., start:stop, :start] @ x[..., :start, :]
            order = range(stop - 1, start - 1, -1) if upper else range(start, stop)
            for i in order:
                if upper and i + 1 < stop:
                    x[..., i, :] -= np.einsum(
                        "...j,...jk->...k", a[..., i, i + 1 : stop], x[..., i + 1 : stop, :]
                    )
                elif not upper and i > start:
                    x[..., i, :] -= np.einsum(
                        "...j,...jk->...k", a[..., i, start:i], x[..., start:i, :]
                    )
                if not unitriangular:
                    x[..., i, :] /= a[..., i, i, None]
    return x


# ---------------------------------------------------------------- Cholesky


def cholesky(a: np.ndarray, upper: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``potrf`` on the lower triangle: ``(L, info)`` with ``A = L L^H`` (or ``U^H U``
    for ``upper``, read from the upper triangle). ``info`` is the order of the first
    leading minor that is not positive-definite (0 if none); there the factor holds what
    LAPACK leaves: that minor's diagonal value, unsquared, and the untouched rest."""
    source = _mH(a) if upper else a
    try:
        factor = np.linalg.cholesky(source)
        info = np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        factor, info = _cholesky_steps(source)
    return (_mH(factor) if upper else factor), info


def _cholesky_steps(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column-by-column Cholesky (``potf2``) that stops each matrix at its failure."""
    lower, batch = _batched(a)
    count, n, _ = lower.shape
    lower = np.tril(lower)
    info = np.zeros(count, np.int32)
    active = np.ones(count, bool)
    with np.errstate(all="ignore"):
        for j in range(n):
            row = lower[:, j, :j]
            pivot = (lower[:, j, j] - np.einsum("bk,bk->b", row, row.conj())).real
            failed = active & ~(pivot > 0)
            info[failed] = j + 1
            lower[failed, j, j] = pivot[failed]
            active &= ~failed
            if not active.any():
                break
            root = np.sqrt(np.where(active, pivot, 1))
            lower[active, j, j] = root[active]
            below = lower[:, j + 1 :, j] - np.einsum(
                "bik,bk->bi", lower[:, j + 1 :, :j], row.conj()
            )
            lower[active, j + 1 :, j] = (below / root[:, None])[active]
    return lower.reshape(a.shape), info.reshape(batch)


# ---------------------------------------------------------------- Householder products


def householder_product(v: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """``orgqr``: the first ``n`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H``,
    with ``v_i`` column ``i`` of ``v`` below the diagonal and 1 on it."""
    m, n = v.shape[-2:]
    dtype = np.result_type(v, tau)
    batch = np.broadcast_shapes(v.shape[:-2], tau.shape[:-1])
    eye = np.eye(m, n, dtype=dtype)
    q = np.array(np.broadcast_to(eye, (*batch, m, n)))
    return apply_householder(v, tau, q, left=True, transpose=False)


def apply_householder(
    v: np.ndarray, tau: np.ndarray, c: np.ndarray, left: bool, transpose: bool
) -> np.ndarray:
    """``ormqr``: ``op(Q) C`` (``left``) or ``C op(Q)``, ``Q = H_1 ... H_k`` from the
    reflectors in ``v``/``tau``; ``op`` is the conjugate transpose when ``transpose``."""
    k = tau.shape[-1]
    dtype = np.result_type(v, tau, c)
    vectors = np.tril(v.astype(dtype), -1)[..., :, :k]
    vectors[..., np.arange(k), np.arange(k)] = 1
    out = c.astype(dtype, copy=True)
    # Q C applies H_k first; Q^H C applies H_1^H first. C Q applies H_1 first.
    first_to_last = left == transpose
    order = range(k) if first_to_last else range(k - 1, -1, -1)
    for i in order:
        w = vectors[..., :, i : i + 1]
        t = tau[..., i, None, None]
        if transpose:
            t = t.conj()
        if left:
            out = out - (t * w) * (_mH(w) @ out)
        else:
            out = out - (out @ w) * (t * _mH(w))
    return out


# ---------------------------------------------------------------- LDL^T (Bunch-Kaufman)


_ALPHA = (1 + math.sqrt(17)) / 8


def ldl_factor(a: np.ndarray, hermitian: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``sytf2``/``hetf2`` on the lower triangle: ``(LD, pivots, info)`` as LAPACK packs
    them (1x1 and 2x2 diagonal blocks of D; a negative pivot pair marks a 2x2 block)."""
    ld, batch = _batched(a)
    pivots = np.zeros(ld.shape[:2], np.int32)
    info = np.zeros(ld.shape[0], np.int32)
    for index in range(ld.shape[0]):
        info[index] = _sytf2_lower(ld[index], pivots[index], hermitian)
    ld = np.tril(ld)
    return ld.reshape(a.shape), pivots.reshape(*batch, -1), info.reshape(batch)


def _sytf2_lower(a: np.ndarray, ipiv: np.ndarray, hermitian: bool) -> int:
    """One matrix of ``sytf2`` (uplo='L'), in place; returns ``info``."""
    n = a.shape[0]
    info = 0

    def conj(x: Any) -> Any:
        return np.conj(x) if hermitian else x

    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k].real) if hermitian else _abs1(np.asarray(a[k, k]))
        if k < n - 1:
            column = _abs1(a[k + 1 :, k])
            imax = k + 1 + int(np.argmax(column))
            colmax = float(column.max())
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0:
            info = info or k + 1
            kp = k
            if hermitian:
                a[k, k] = a[k, k].real
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                row = _abs1(a[imax, k:imax])
                rowmax = float(row.max()) if row.size else 0.0
                if imax < n - 1:
                    rowmax = max(rowmax, float(_abs1(a[imax + 1 :, imax]).max()))
                akk_imax = (
                    abs(a[imax, imax].real) if hermitian else _abs1(np.asarray(a[imax, imax]))
                )
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif akk_imax >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:
                if kp < n - 1:
                    a[kp + 1 :, kk], a[kp + 1 :, kp] = (
                        a[kp + 1 :, kp].copy(),
                        a[kp + 1 :, kk].copy(),
                    )
                middle = a[kk + 1 : kp, kk].copy()
                a[kk + 1 : kp, kk] = conj(a[kp, kk + 1 : kp])
                a[kp, kk + 1 : kp] = conj(middle)
                if hermitian:
                    a[kp, kk] = np.conj(a[kp, kk])
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1 / (a[k, k].real if hermitian else a[k, k])
                    below = a[k + 1 :, k].copy()
                    update = np.outer(below, conj(below)) * d11
                    a[k + 1 :, k + 1 :] -= np.tril(update)
                    a[k + 1 :, k] = below * d11
            elif k < n - 2:
                d21 = a[k + 1, k]
                if hermitian:
                    d11 = a[k + 1, k + 1].real / d21
                    d22 = a[k, k].real / np.conj(d21)
                    t = 1 / (d11 * d22 - 1).real
                    d21 = t / d21
                else:
                    d11 = a[k + 1, k + 1] / d21
                    d22 = a[k, k] / d21
                    t = 1 / (d11 * d22 - 1)
                    d21 = t / d21
                for j in range(k + 2, n):
                    if hermitian:
                        wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                        wkp1 = np.conj(d21) * (d22 * a[j, k + 1] - a[j, k])
                        a[j:, j] -= a[j:, k] * np.conj(wk) + a[j:, k + 1] * np.conj(wkp1)
                        a[j, j] = a[j, j].real
                    else:
                        wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                        wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
                        a[j:, j] -= a[j:, k] * wk + a[j:, k + 1] * wkp1
                    a[j, k] = wk
                    a[j, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return info


def ldl_solve(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray, hermitian: bool) -> np.ndarray:
    """``sytrs``/``hetrs`` (uplo='L'): ``X`` with ``A X = B`` from ``ldl_factor``'s output."""
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2], pivots.shape[:-1])
    n = ld.shape[-1]
    ld = np.broadcast_to(ld, (*batch, n, n)).reshape(-1, n, n)
    pivots = np.broadcast_to(pivots, (*batch, n)).reshape(-1, n)
    x = np.array(np.broadcast_to(b, (*batch, *b.shape[-2:])), dtype=np.result_type(ld, b))
    x = x.reshape(-1, *b.shape[-2:])
    for index in range(x.shape[0]):
        _sytrs_lower(ld[index], pivots[index], x[index], hermitian)
    return x.reshape(*batch, *b.shape[-2:])


def _sytrs_lower(a: np.ndarray, ipiv: np.ndarray, b: np.ndarray, hermitian: bool) -> None:
    n = a.shape[0]

    def conj(x: Any) -> Any:
        return np.conj(x) if hermitian else x

    k = 0
    while k < n:
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            if k < n - 1:
                b[k + 1 :] -= np.outer(a[k + 1 :, k], b[k])
            b[k] /= a[k, k].real if hermitian else a[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            if k < n - 2:
                b[k + 2 :] -= np.outer(a[k + 2 :, k], b[k])
                b[k + 2 :] -= np.outer(a[k + 2 :, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1 = a[k, k] / conj(akm1k)
            ak = a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1 = b[k] / conj(akm1k)
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if ipiv[k] > 0:
            if k < n - 1:
                b[k] -= conj(a[k + 1 :, k]) @ b[k + 1 :]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                b[k] -= conj(a[k + 1 :, k]) @ b[k + 1 :]
                b[k - 1] -= conj(a[k + 1 :, k - 1]) @ b[k + 1 :]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2


# ---------------------------------------------------------------- matrix exponential

# Higham (2005), "The scaling and squaring method for the matrix exponential revisited":
# the largest 1-norms for which the Pade approximant of each degree is accurate.
_THETA = {3: 1.495585217958292e-2, 5: 2.539398330063230e-1, 7: 9.504178996162932e-1,
          9: 2.097847961257068e0, 13: 5.371920351148152e0}  # fmt: skip
_PADE = {
    3: (120, 60, 12, 1),
    5: (30240, 15120, 3360, 420, 30, 1),
    7: (17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1),
    9: (17643225600, 8821612800, 2075673600, 302702400, 30270240, 2162160, 110880, 3960,
        90, 1),
    13: (64764752532480000, 32382376266240000, 7771770303897600, 1187353796428800,
         129060195264000, 10559470521600, 670442572800, 33522128640, 1323241920, 40840800,
         960960, 16380, 182, 1),
}  # fmt: skip


def matrix_exp(a: np.ndarray) -> np.ndarray:
    """``exp(A)`` of each matrix of a batch, computed in double (complex double) precision
    and returned in ``a``'s dtype."""
    dtype = a.dtype
    work = a.astype(np.complex128 if dtype.kind == "c" else np.float64)
    n = work.shape[-1]
    if work.size == 0:
        return work.astype(dtype)
    flat = work.reshape(-1, n, n)
    out = np.empty_like(flat)
    norms = np.abs(flat).sum(axis=-2).max(axis=-1)
    for index in range(flat.shape[0]):
        out[index] = _expm_one(flat[index], float(norms[index]))
    return out.reshape(work.shape).astype(dtype)


def _expm_one(a: np.ndarray, norm: float) -> np.ndarray:
    eye = np.eye(a.shape[0], dtype=a.dtype)
    if not math.isfinite(norm):
        return np.full_like(a, np.nan)
    for degree in (3, 5, 7, 9):
        if norm <= _THETA[degree]:
            return _pade(a, degree, eye)
    squarings = max(0, math.ceil(math.log2(norm / _THETA[13]))) if norm else 0
    result = _pade(a / 2.0**squarings, 13, eye)
    for _ in range(squarings):
        result = result @ result
    return result


def _pade(a: np.ndarray, degree: int, eye: np.ndarray) -> np.ndarray:
    b = _PADE[degree]
    a2 = a @ a
    if degree == 13:
        a4 = a2 @ a2
        a6 = a4 @ a2
        u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4
                 + b[3] * a2 + b[1] * eye)  # fmt: skip
        v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2
        v = v + b[0] * eye
    else:
        powers = [eye, a2]
        for _ in range(degree // 2 - 1):
            powers.append(powers[-1] @ a2)
        u = a @ sum(b[2 * i + 1] * powers[i] for i in range(len(powers)))
        v = sum(b[2 * i] * powers[i] for i in range(len(powers)))
    return np.linalg.solve(v - u, v + u)
