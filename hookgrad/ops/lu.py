"""The nodes of the LU factorization and of the linear solvers, named and saving as
torch's: ``lu_factor``, ``lu``, ``lu_unpack``, ``lu_solve``, ``solve_triangular`` and the
legacy ``triangular_solve``, ``inv_ex`` and ``solve_ex``; and the tensor-level forms the
other ``torch.linalg`` backwards call (``solve``, ``solve_triangular``, ``lu_solve``,
``lu_unpack``), recorded as their nodes.

As in ``hookgrad.ops.decompositions``, each backward is torch's formula written with
tensor operations; where torch's formula reuses the forward's LU factors when no graph is
recorded (``solve``), so does this one.

Example: ``hookgrad.linalg.solve(a, b)`` runs ``LinalgSolveEx`` (``LinalgSolveExBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import lapack
from hookgrad.ops.base import Op
from hookgrad.ops.linalg_common import mH

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
