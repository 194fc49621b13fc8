"""``hookgrad.linalg`` and torch's top-level linear-algebra functions against torch:
what bad or singular input gets (error type and message, or the ``_ex`` variants' info),
the named tuples, dtypes and edge cases (``tests.oracle.outcome``), and each hand-written
node's class, ``_saved_*`` values and double-backward graph. Values and gradients of
well-posed inputs are rows of the op table (``tests/ops/cases/linalg.py``)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, node_names, outcome, saved_values

SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
NOT_PD = [[1.0, 2.0], [2.0, 1.0]]
A3 = [[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.0, 1.5, 1.0]]


def _t(lib, values, dtype=None):
    return lib.tensor(values, dtype=dtype or lib.float32)


# (id, program over a library): the outcome (values and dtypes, or the error) is torch's.
PROGRAMS = [
    # singular and indefinite matrices: LinAlgError with torch's message, or info
    ("inv_singular", lambda t: t.linalg.inv(_t(t, SINGULAR))),
    ("inv_singular_batch", lambda t: t.linalg.inv(t.stack([t.eye(2), _t(t, SINGULAR)]))),
    ("inverse_singular", lambda t: t.inverse(_t(t, SINGULAR))),
    ("inv_ex_singular", lambda t: t.linalg.inv_ex(_t(t, SINGULAR))),
    ("inv_ex_check_errors", lambda t: t.linalg.inv_ex(_t(t, SINGULAR), check_errors=True)),
    ("solve_singular", lambda t: t.linalg.solve(_t(t, SINGULAR), t.ones(2))),
    (
        "solve_singular_batch",
        lambda t: t.linalg.solve(t.stack([t.eye(2), _t(t, SINGULAR)]), t.ones(2)),
    ),
    ("solve_ex_singular", lambda t: t.linalg.solve_ex(_t(t, SINGULAR), t.ones(2))),
    ("cholesky_not_pd", lambda t: t.linalg.cholesky(_t(t, NOT_PD))),
    ("cholesky_not_pd_batch", lambda t: t.linalg.cholesky(t.stack([t.eye(2), _t(t, NOT_PD)]))),
    ("cholesky_ex_not_pd", lambda t: t.linalg.cholesky_ex(_t(t, NOT_PD), upper=True)),
    ("cholesky_ex_check", lambda t: t.linalg.cholesky_ex(-t.eye(2), check_errors=True)),
    ("lu_factor_singular", lambda t: t.linalg.lu_factor(t.zeros(2, 2))),
    ("lu_factor_ex_singular", lambda t: t.linalg.lu_factor_ex(_t(t, SINGULAR))),
    ("lu_singular_no_error", lambda t: t.lu(_t(t, SINGULAR), get_infos=True)),
    ("det_singular", lambda t: t.linalg.det(_t(t, SINGULAR))),
    ("slogdet_singular", lambda t: t.linalg.slogdet(_t(t, SINGULAR))),
    ("logdet_negative", lambda t: t.logdet(-t.eye(3)).isnan()),
    ("cond_singular", lambda t: t.linalg.cond(_t(t, SINGULAR), 1)),
    ("cholesky_inverse_zero", lambda t: t.cholesky_inverse(t.zeros(2, 2))),
    ("svd_nan", lambda t: t.linalg.svd(t.full((2, 2), math.nan))),
    ("eig_nan", lambda t: t.linalg.eig(t.full((2, 2), math.nan))),
    (
        "lstsq_gels_rank_deficient",
        lambda t: t.linalg.lstsq(t.ones(3, 2), t.ones(3, 1), driver="gels"),
    ),
    ("ldl_factor_ex_singular", lambda t: t.linalg.ldl_factor_ex(t.zeros(2, 2))),
    # wrong arguments
    ("inv_int", lambda t: t.linalg.inv(t.eye(2, dtype=t.int64))),
    ("inv_1d", lambda t: t.linalg.inv(t.ones(3))),
    ("inv_not_square", lambda t: t.linalg.inv(t.ones(2, 3, dtype=t.int64))),
    ("inv_half", lambda t: t.linalg.inv(t.eye(2).half())),
    ("det_int", lambda t: t.linalg.det(t.eye(2, dtype=t.int64))),
    ("det_half", lambda t: t.linalg.det(t.eye(2).half())),
    ("slogdet_not_square", lambda t: t.linalg.slogdet(t.ones(2, 3))),
    ("solve_shapes", lambda t: t.linalg.solve(t.eye(2), t.ones(3))),
    ("solve_dtypes", lambda t: t.linalg.solve(t.eye(2), t.ones(2, dtype=t.float64))),
    ("solve_int", lambda t: t.linalg.solve(t.eye(2, dtype=t.int64), t.ones(2, dtype=t.int64))),
    ("solve_batch", lambda t: t.linalg.solve(t.eye(2).expand(3, 2, 2), t.ones(2, 2, 1))),
    ("solve_triangular_1d", lambda t: t.linalg.solve_triangular(t.eye(2), t.ones(2), upper=True)),
    (
        "solve_triangular_shapes",
        lambda t: t.linalg.solve_triangular(t.eye(2), t.ones(3, 1), upper=True, left=False),
    ),
    (
        "solve_triangular_singular",
        lambda t: t.linalg.solve_triangular(t.zeros(2, 2), t.ones(2, 1), upper=True).isinf(),
    ),
    ("cholesky_int", lambda t: t.linalg.cholesky(t.eye(2, dtype=t.int32))),
    ("cholesky_not_square", lambda t: t.linalg.cholesky(t.ones(2, 3, dtype=t.int64))),
    ("qr_mode", lambda t: t.linalg.qr(t.eye(2), mode="bad")),
    ("qr_int", lambda t: t.linalg.qr(t.eye(2, dtype=t.int64))),
    ("qr_r", lambda t: t.linalg.qr(_t(t, A3), mode="r")),
    ("qr_empty", lambda t: t.linalg.qr(t.zeros(3, 0), mode="complete")),
    ("eig_int", lambda t: t.linalg.eig(t.eye(2, dtype=t.int64))),
    ("eig_real_input", lambda t: t.linalg.eigvals(_t(t, A3))),
    ("eigh_uplo", lambda t: t.linalg.eigh(t.eye(2), UPLO="X")),
    ("eigh_int", lambda t: t.linalg.eigvalsh(t.eye(2, dtype=t.int64))),
    ("eigh_upper", lambda t: t.linalg.eigvalsh(_t(t, A3), UPLO="U")),
    ("svd_driver", lambda t: t.linalg.svd(t.eye(2), driver="gesvd")),
    ("svd_int", lambda t: t.linalg.svdvals(t.eye(2, dtype=t.int64))),
    ("svd_empty", lambda t: t.linalg.svd(t.zeros(3, 0))),
    ("torch_svd_no_uv", lambda t: t.svd(_t(t, A3)[:, :2], compute_uv=False)),
    ("pinv_1d", lambda t: t.linalg.pinv(t.ones(2))),
    ("pinv_tolerances", lambda t: t.linalg.pinv(_t(t, A3), atol=0.6, rtol=t.tensor(0.1))),
    ("pinv_rcond", lambda t: t.linalg.pinv(_t(t, SINGULAR), 0.1)),
    ("lstsq_shapes", lambda t: t.linalg.lstsq(t.ones(3, 2), t.ones(2, 1))),
    ("lstsq_driver", lambda t: t.linalg.lstsq(t.ones(3, 2), t.ones(3, 1), driver="xx")),
    ("lstsq_dtypes", lambda t: t.linalg.lstsq(t.ones(3, 2), t.ones(3, 1, dtype=t.float64))),
    ("lstsq_gelsy", lambda t: t.linalg.lstsq(_t(t, A3), t.ones(3, 2))),
    ("lstsq_gelsd_tall", lambda t: t.linalg.lstsq(_t(t, A3)[:, :2], t.ones(3, 1), driver="gelsd")),
    ("lstsq_rank_deficient", lambda t: t.linalg.lstsq(t.ones(3, 2), t.ones(3), driver="gelss")),
    ("matrix_rank", lambda t: t.linalg.matrix_rank(t.ones(3, 3))),
    ("matrix_rank_tolerance", lambda t: t.linalg.matrix_rank(_t(t, A3), atol=2.0, hermitian=True)),
    ("matrix_rank_int", lambda t: t.linalg.matrix_rank(t.eye(2, dtype=t.int64))),
    ("matrix_power_int", lambda t: t.linalg.matrix_power(t.tensor([[1, 1], [0, 1]]), 3)),
    ("matrix_power_zero", lambda t: t.linalg.matrix_power(_t(t, A3), 0)),
    ("matrix_power_int_negative", lambda t: t.linalg.matrix_power(t.eye(2, dtype=t.int64), -1)),
    ("matrix_exp_int", lambda t: t.linalg.matrix_exp(t.eye(2, dtype=t.int64))),
    ("matrix_exp_empty", lambda t: t.linalg.matrix_exp(t.zeros(0, 0))),
    ("cross_length", lambda t: t.linalg.cross(t.ones(2), t.ones(2))),
    ("cross_ndim", lambda t: t.linalg.cross(t.ones(3), t.ones(2, 3))),
    ("cross_dtype", lambda t: t.linalg.cross(t.ones(3), t.ones(3, dtype=t.float64))),
    ("cross_int", lambda t: t.linalg.cross(t.tensor([1, 0, 0]), t.tensor([0, 1, 0]))),
    ("vecdot_int", lambda t: t.linalg.vecdot(t.ones(3, dtype=t.int64), t.ones(3, dtype=t.int64))),
    ("multi_dot_one", lambda t: t.linalg.multi_dot([t.ones(3)])),
    ("multi_dot_middle_1d", lambda t: t.linalg.multi_dot([t.ones(3), t.ones(3), t.ones(3)])),
    ("multi_dot_shapes", lambda t: t.linalg.multi_dot([t.ones(2, 3), t.ones(2, 2)])),
    ("multi_dot_vectors", lambda t: t.linalg.multi_dot([t.ones(3), t.ones(3)])),
    ("norm_3d_ord", lambda t: t.linalg.norm(t.ones(2, 2, 2), ord=2)),
    ("norm_dims", lambda t: t.linalg.norm(t.ones(2, 2, 2), dim=(0, 1, 2))),
    ("norm_int", lambda t: t.linalg.norm(t.eye(2, dtype=t.int64))),
    ("matrix_norm_order", lambda t: t.linalg.matrix_norm(t.eye(2), ord=3)),
    ("matrix_norm_same_dims", lambda t: t.linalg.matrix_norm(t.ones(2, 2), dim=(0, 0))),
    ("matrix_norm_dtype", lambda t: t.linalg.matrix_norm(t.ones(2, 2), dtype=t.int64)),
    ("vector_norm_complex_dtype", lambda t: t.linalg.vector_norm(t.ones(2), dtype=t.complex64)),
    ("vector_norm_inf_empty", lambda t: t.linalg.vector_norm(t.ones(0), float("inf"))),
    ("cond_order", lambda t: t.linalg.cond(t.eye(2), 3)),
    ("cond_not_square", lambda t: t.linalg.cond(t.ones(2, 3), "fro")),
    ("cond_empty", lambda t: t.linalg.cond(t.ones(0, 0))),
    ("tensorinv_ind", lambda t: t.linalg.tensorinv(t.ones(2, 2), ind=0)),
    ("tensorinv_shape", lambda t: t.linalg.tensorinv(t.ones(2, 3, 5), ind=2)),
    ("tensorsolve_shape", lambda t: t.linalg.tensorsolve(t.ones(2, 3, 5), t.ones(2, 3))),
    ("vander_scalar", lambda t: t.linalg.vander(t.tensor(1.0))),
    ("vander_int", lambda t: t.linalg.vander(t.tensor([1, 2, 3]))),
    ("torch_vander", lambda t: t.vander(t.tensor([1, 2, 3], dtype=t.int32), N=4)),
    ("torch_vander_increasing", lambda t: t.vander(t.tensor([1.0, 2.0]), increasing=True)),
    ("torch_vander_2d", lambda t: t.vander(t.ones(2, 2))),
    ("householder_1d", lambda t: t.linalg.householder_product(t.ones(3), t.ones(1))),
    ("householder_tau", lambda t: t.linalg.householder_product(t.ones(3, 2), t.ones(3))),
    (
        "householder_dtype",
        lambda t: t.linalg.householder_product(t.ones(3, 2), t.ones(2, dtype=t.float64)),
    ),
    ("ormqr_rows", lambda t: t.ormqr(t.ones(3, 2), t.ones(2), t.ones(4, 2))),
    ("lu_solve_pivots", lambda t: t.linalg.lu_solve(t.eye(2), t.ones(2), t.ones(2, 1))),
    (
        "lu_solve_shapes",
        lambda t: t.linalg.lu_solve(t.eye(2), t.ones(2, dtype=t.int32), t.ones(3, 1)),
    ),
    ("lu_unpack_pivots", lambda t: t.lu_unpack(t.eye(3), t.ones(3))),
    ("lu_unpack_flags", lambda t: t.lu_unpack(*t.linalg.lu_factor(_t(t, A3)), unpack_data=False)),
    ("lu_nopivot", lambda t: t.linalg.lu(t.eye(2), pivot=False)),
    ("lu_int", lambda t: t.linalg.lu(t.eye(2, dtype=t.int64))),
    ("ldl_factor_int", lambda t: t.linalg.ldl_factor(t.zeros(2, 2, dtype=t.int64))),
    ("cholesky_solve_1d", lambda t: t.cholesky_solve(t.ones(2), t.eye(2))),
    ("cholesky_solve_shapes", lambda t: t.cholesky_solve(t.ones(3, 1), t.eye(2))),
    (
        "triangular_solve_dtypes",
        lambda t: t.triangular_solve(t.ones(2, 1, dtype=t.float64), t.eye(2)),
    ),
    ("chain_matmul_none", lambda t: t.chain_matmul()),
    ("chain_matmul_1d", lambda t: t.chain_matmul(t.ones(2), t.eye(2))),
    ("torch_cross_no_dim_3", lambda t: t.cross(t.ones(2, 2), t.ones(2, 2))),
    ("cdist_columns", lambda t: t.cdist(t.ones(2, 3), t.ones(2, 2))),
    ("cdist_int", lambda t: t.cdist(t.ones(2, 3, dtype=t.int64), t.ones(2, 3, dtype=t.int64))),
    ("cdist_mode", lambda t: t.cdist(t.ones(2, 3), t.ones(2, 3), compute_mode="bad")),
    ("pdist_3d", lambda t: t.pdist(t.ones(2, 2, 2))),
    ("pdist_one_row", lambda t: t.pdist(t.ones(1, 2))),
    ("dist_int", lambda t: t.dist(t.ones(3, dtype=t.int64), t.zeros(3, dtype=t.int64))),
    ("dist_promotes", lambda t: t.dist(t.ones(3), t.zeros(3, dtype=t.float64))),
    ("renorm_p", lambda t: t.renorm(t.ones(3, 2), -1, 0, 1.0)),
    ("renorm_maxnorm", lambda t: t.renorm(t.ones(3, 2), 2, 0, -1.0)),
    ("renorm_1d", lambda t: t.renorm(t.ones(3), 2, 0, 1.0)),
    ("renorm_inplace", lambda t: t.tensor([[3.0, 4.0], [0.3, 0.4]]).renorm_(2, 0, 1.0)),
    (
        "addcdiv_int",
        lambda t: t.addcdiv(
            t.ones(3, dtype=t.int64), t.ones(3, dtype=t.int64), t.ones(3, dtype=t.int64)
        ),
    ),
    (
        "addcmul_promotes",
        lambda t: t.addcmul(t.ones(3, dtype=t.int64), t.ones(3), t.ones(3, dtype=t.float64)),
    ),
    ("addcmul_inplace", lambda t: t.ones(2, 3).addcmul_(t.ones(3), t.ones(2, 1), value=2)),
    ("addcdiv_inplace_int", lambda t: t.ones(3, dtype=t.int64).addcdiv_(t.ones(3), t.ones(3))),
    ("frobenius_norm_dims", lambda t: t.frobenius_norm(t.ones(2, 3, 3), dim=(0, 1, 2))),
    ("nuclear_norm_keepdim", lambda t: t.nuclear_norm(t.ones(2, 3, 3), dim=(1, 2), keepdim=True)),
    ("pca_lowrank_q", lambda t: t.pca_lowrank(t.ones(3, 4), q=5)),
    ("lobpcg_too_many", lambda t: t.lobpcg(t.eye(4), k=2)),
    # removed in torch 1.9: their messages point to torch.linalg
    ("removed_eig", lambda t: t.eig(t.eye(2))),
    ("removed_symeig", lambda t: t.eye(2).symeig()),
    ("removed_solve", lambda t: t.solve(t.eye(2), t.eye(2))),
    ("removed_lstsq", lambda t: t.eye(2).lstsq(t.eye(2))),
]


@pytest.mark.parametrize("program", [p for _, p in PROGRAMS], ids=[name for name, _ in PROGRAMS])
def test_outcome_matches_torch(program, torch):
    assert outcome(program, hookgrad) == outcome(program, torch)


def test_linalg_error_is_torchs_class():
    assert issubclass(hookgrad.linalg.LinAlgError, RuntimeError)
    assert hookgrad.linalg.LinAlgError.__name__ == "_LinAlgError"
    with pytest.raises(hookgrad.linalg.LinAlgError, match="not positive-definite"):
        hookgrad.linalg.cholesky(hookgrad.tensor(NOT_PD))


def test_return_types_are_named_tuples(torch):
    for lib in (hookgrad, torch):
        result = lib.linalg.slogdet(lib.eye(2))
        assert isinstance(result, tuple)
        assert repr(result).startswith("torch.return_types.linalg_slogdet(\nsign=tensor(1.)")
        assert result.logabsdet is result[1]
    assert repr(hookgrad.slogdet(hookgrad.eye(2))) == repr(torch.slogdet(torch.eye(2)))
    assert repr(hookgrad.linalg.lu_factor_ex(hookgrad.eye(2))) == repr(
        torch.linalg.lu_factor_ex(torch.eye(2))
    )


def test_out_argument(torch):
    for lib in (hookgrad, torch):
        out = lib.empty(0)
        result = lib.linalg.inv(lib.tensor([[2.0, 0.0], [0.0, 4.0]]), out=out)
        assert result is out
        assert out.tolist() == [[0.5, 0.0], [0.0, 0.25]]
        q, r = lib.empty(0), lib.empty(0)
        lib.linalg.qr(lib.eye(2), out=(q, r))
        assert q.shape == (2, 2) and r.shape == (2, 2)


# ---------------------------------------------------------------- gradients at edge cases


def _grads(lib, program, values, create_graph=False):
    x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
    (grad,) = lib.autograd.grad(program(lib, x), x, create_graph=create_graph)
    return grad


@pytest.mark.parametrize("create_graph", [False, True])
def test_det_gradient_at_singular_matrices(create_graph, torch):
    """torch's two paths: the perturbed LU without a graph, the adjugate (through an SVD)
    with one; a batch mixing singular and regular matrices takes both."""
    values = [[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]]
    ours = _grads(hookgrad, lambda t, x: t.linalg.det(x).sum(), values, create_graph)
    theirs = _grads(torch, lambda t, x: t.linalg.det(x).sum(), values, create_graph)
    assert_close(ours, theirs, 1e-10, 1e-12)


def test_complex_phase_dependent_loss_is_refused(torch):
    """A loss that depends on the eigenvectors' phase is ill-defined: torch's error."""
    z = np.array([[2.0, 1.0 + 1.0j], [1.0 - 1.0j, 3.0]])

    def program(lib):
        x = lib.tensor(z, requires_grad=True)
        return lib.autograd.grad(lib.linalg.eigh(x).eigenvectors[0, 0].real, x)

    assert outcome(program, hookgrad) == outcome(program, torch)


def test_qr_mode_r_is_not_differentiable(torch):
    def program(lib):
        x = lib.tensor(A3, requires_grad=True)
        return lib.autograd.grad(lib.linalg.qr(x, mode="r").R.sum(), x)

    assert outcome(program, hookgrad) == outcome(program, torch)


def test_randomized_factorizations_draw_torchs_numbers(torch):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((30, 8)) @ rng.standard_normal((8, 12))
    results = []
    for lib in (hookgrad, torch):
        lib.manual_seed(7)
        u, s, v = lib.svd_lowrank(lib.tensor(data), q=4)
        _, s_pca, _ = lib.pca_lowrank(lib.tensor(data), q=3)
        results.append((s, u @ v.mT, s_pca, lib.randn(3)))
    assert_close(results[0], results[1], 1e-9, 1e-9)


def test_lobpcg_finds_the_extreme_eigenpairs(torch):
    rng = np.random.default_rng(4)
    m = rng.standard_normal((12, 12))
    a = m @ m.T
    ours = hookgrad.lobpcg(hookgrad.tensor(a), k=2)
    theirs = torch.lobpcg(torch.tensor(a), k=2)
    assert_close(ours[0], theirs[0], 1e-6, 1e-6)
    assert_close(ours[1].abs(), theirs[1].abs(), 1e-5, 1e-6)


# ---------------------------------------------------------------- nodes

# (id, program over a library and float64 leaves, input shapes); where the node saves
# factors unique only up to signs, ``gauge`` compares their absolute values.
NODES = [
    ("det", lambda t, a: t.linalg.det(a), [(3, 3)], False),
    ("det_transposed", lambda t, a: t.linalg.det(a.mT), [(3, 3)], False),
    ("slogdet", lambda t, a: t.linalg.slogdet(a)[1], [(3, 3)], False),
    ("inv", lambda t, a: t.linalg.inv(a), [(3, 3)], False),
    ("solve", lambda t, a, b: t.linalg.solve(a, b, left=False), [(3, 3), (2, 3)], False),
    (
        "solve_triangular",
        lambda t, a, b: t.linalg.solve_triangular(a, b, upper=False),
        [(3, 3), (3, 2)],
        False,
    ),
    ("triangular_solve", lambda t, b, a: t.triangular_solve(b, a)[0], [(3, 2), (3, 3)], False),
    ("lstsq", lambda t, a, b: t.linalg.lstsq(a, b)[0], [(4, 3), (4, 2)], False),
    (
        "cholesky_ex",
        lambda t, a: t.linalg.cholesky(a @ a.mT + t.eye(3, dtype=a.dtype)),
        [(3, 3)],
        False,
    ),
    (
        "cholesky",
        lambda t, a: t.cholesky(a @ a.mT + t.eye(3, dtype=a.dtype), upper=True),
        [(3, 3)],
        False,
    ),
    ("qr", lambda t, a: t.linalg.qr(a).R, [(4, 3)], True),
    ("eigh", lambda t, a: t.linalg.eigvalsh(a + a.mT), [(3, 3)], True),
    ("eig", lambda t, a: t.view_as_real(t.linalg.eigvals(a)), [(3, 3)], True),
    ("svd", lambda t, a: t.linalg.svdvals(a), [(4, 3)], True),
    ("pinv", lambda t, a: t.linalg.pinv(a), [(3, 2)], False),
    ("matrix_exp", lambda t, a: t.linalg.matrix_exp(a), [(3, 3)], False),
    ("householder", lambda t, a, tau: t.linalg.householder_product(a, tau), [(4, 3), (2,)], False),
    ("lu_factor", lambda t, a: t.linalg.lu_factor(a)[0], [(3, 3)], False),
    ("lu", lambda t, a: t.linalg.lu(a)[2], [(3, 4)], False),
    (
        "lu_solve",
        lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b, adjoint=True),
        [(3, 3), (3, 2)],
        False,
    ),
    ("lu_unpack", lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a))[1], [(4, 3)], False),
    ("cholesky_solve", lambda t, b, a: t.cholesky_solve(b, a), [(3, 2), (3, 3)], False),
    ("cholesky_inverse", lambda t, a: t.cholesky_inverse(a, upper=True), [(3, 3)], False),
    ("ormqr", lambda t, a, tau, c: t.ormqr(a, tau, c, left=False), [(3, 2), (2,), (4, 3)], False),
    ("cdist", lambda t, a, b: t.cdist(a, b, p=3), [(3, 2), (4, 2)], False),
    (
        "cdist_mm",
        lambda t, a, b: t.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
        [(3, 2), (4, 2)],
        False,
    ),
    ("pdist", lambda t, a: t.pdist(a, 1.5), [(4, 3)], False),
]
IDS = [row[0] for row in NODES]


def _run(lib, program, shapes):
    rng = np.random.default_rng(0)
    leaves = [lib.tensor(rng.standard_normal(shape), requires_grad=True) for shape in shapes]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = program(lib, *leaves)
    return out, leaves


@pytest.mark.parametrize("program, shapes, gauge", [row[1:] for row in NODES], ids=IDS)
def test_node_class_and_saved_values(program, shapes, gauge, torch):
    ours, _ = _run(hookgrad, program, shapes)
    theirs, _ = _run(torch, program, shapes)
    node, expected_node = ours.grad_fn, theirs.grad_fn
    assert type(node).__name__ == type(expected_node).__name__
    saved, expected = saved_values(node), saved_values(expected_node)
    assert sorted(saved) == sorted(expected)
    for name, value in expected.items():
        if isinstance(value, np.ndarray):
            mine = np.abs(saved[name]) if gauge else saved[name]
            assert_close(mine, np.abs(value) if gauge else value, 1e-9, 1e-12)
        else:
            assert saved[name] == value, name


# Nodes whose ``create_graph=True`` gradient records torch's graph node for node. (Not
# listed: eig, whose real-input gradient goes through the engine's complex-to-real step;
# householder, ormqr, cdist and pdist, whose backward is another algorithm than torch's
# in-place updates or dedicated kernels; the values still agree.)
DOUBLE_BACKWARD = [
    "det",
    "det_transposed",
    "slogdet",
    "inv",
    "solve",
    "solve_triangular",
    "triangular_solve",
    "lstsq",
    "cholesky_ex",
    "cholesky",
    "qr",
    "eigh",
    "svd",
    "pinv",
    "matrix_exp",
    "lu_factor",
    "lu",
    "lu_solve",
    "lu_unpack",
    "cholesky_solve",
    "cholesky_inverse",
    "cdist_mm",
]


@pytest.mark.parametrize("name", DOUBLE_BACKWARD)
def test_double_backward_graph(name, torch):
    _, program, shapes, _ = NODES[IDS.index(name)]
    graphs = []
    for lib in (hookgrad, torch):
        out, leaves = _run(lib, program, shapes)
        seed = lib.ones_like(out).requires_grad_()
        grads = lib.autograd.grad(out, leaves, seed, create_graph=True)
        graphs.append([node_names(g.grad_fn) for g in grads])
    assert graphs[0] == graphs[1]


def test_blocked_kernels_beyond_one_block(torch):
    """LU and triangular solves work in blocks of 32 columns: a 40 x 40 batch crosses one."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 40, 40)) + 8 * np.eye(40)
    b = rng.standard_normal((2, 40, 3))
    programs = [
        lambda t, a, b: t.linalg.lu_factor(a),
        lambda t, a, b: t.linalg.solve(a, b),
        lambda t, a, b: t.linalg.slogdet(a),
        lambda t, a, b: t.linalg.solve_triangular(a, b, upper=True),
        lambda t, a, b: t.linalg.solve_triangular(a, b.mT, upper=False, left=False),
    ]
    for program in programs:
        ours = program(hookgrad, hookgrad.tensor(a), hookgrad.tensor(b))
        theirs = program(torch, torch.tensor(a), torch.tensor(b))
        assert_close(ours, theirs, 1e-9, 1e-12)
