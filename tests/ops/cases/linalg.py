"""Op cases: linalg ops (mm, matmul in every shape case, bmm, mv, dot, addmm ..., einsum)."""

from tests.ops.cases.spec import OpCase

# (input, other) shapes covering each of torch's matmul cases.
MATMUL_SHAPES = [
    ((3,), (3,)),  # dot
    ((2, 3), (3,)),  # mv
    ((3,), (3, 4)),  # vector @ matrix
    ((2, 3), (3, 4)),  # mm
    ((5, 2, 3), (3, 4)),  # batch @ matrix: folded into one mm
    ((5, 2, 3), (3,)),  # batch @ vector
    ((2, 3), (5, 3, 4)),  # matrix @ batch
    ((3,), (5, 3, 4)),  # vector @ batch
    ((5, 2, 3), (5, 3, 4)),  # bmm
    ((5, 1, 2, 3), (4, 3, 2)),  # broadcast batch dims
    ((1, 2, 3), (5, 3, 4)),  # batch of one
    ((2, 2, 3), (1, 3, 4)),
    ((2, 1, 2, 3), (3,)),
    ((3,), (2, 1, 3, 4)),
]

EINSUM = [
    ("ij,jk->ik", ((2, 3), (3, 4))),  # matrix product
    ("ij,jk", ((2, 3), (3, 4))),  # implicit output
    ("bij,bjk->bik", ((3, 2, 3), (3, 3, 4))),  # batch
    ("i,j->ij", ((3,), (4,))),  # outer
    ("ii", ((3, 3),)),  # trace
    ("ii->i", ((3, 3),)),  # diagonal
    ("iij->ji", ((3, 3, 2),)),  # diagonal of a 3-D tensor
    ("ij->ji", ((2, 3),)),  # transpose
    ("ij->j", ((2, 3),)),  # sum over an index
    ("ij->", ((2, 3),)),  # sum of all
    ("ij,ij->i", ((2, 3), (2, 3))),  # row-wise dot
    ("ij,kj->ik", ((2, 3), (4, 3))),  # a @ b.T
    ("...ij,...jk->...ik", ((5, 2, 3), (3, 4))),  # ellipsis
    ("...ij,...jk", ((2, 1, 2, 3), (4, 3, 2))),  # ellipsis broadcasting
    ("b...->...b", ((2, 3, 4),)),  # ellipsis transpose
    ("...i->i", ((2, 3, 4),)),  # ellipsis summed away
    ("ij,jk,kl->il", ((2, 3), (3, 4), (4, 2))),  # chain of three
    ("i,i,i->", ((3,), (3,), (3,))),  # three-way dot
    ("ij,j->ij", ((2, 3), (1,))),  # size-1 broadcast of a label
    ("ij,jk->ik", ((2, 1), (3, 4))),  # broadcast of a summed label
    ("i,->i", ((3,), ())),  # scalar operand
    ("iji->j", ((2, 3, 2),)),  # repeated label around another
    ("ij,ik->jk", ((2, 3), (2, 4))),  # a.T @ b
    ("bn,anm,bm->ba", ((2, 3), (4, 3, 5), (2, 5))),  # bilinear
]

CASES = [
    *[OpCase("matmul", lambda t, a, b: t.matmul(a, b), s) for s in MATMUL_SHAPES],
    OpCase("matmul_operator", lambda t, a, b: a @ b, ((4, 2, 3), (3, 2))),
    OpCase("mm", lambda t, a, b: t.mm(a, b), ((2, 3), (3, 4))),
    # Transposed operands (gradients computed in the operand's layout).
    OpCase("matmul_weight_t", lambda t, a, w: a @ w.T, ((2, 3), (4, 3))),
    OpCase("matmul_input_t", lambda t, a, w: a.T @ w, ((3, 2), (3, 4))),
    OpCase("matmul_batch_mt", lambda t, a, w: a.mT @ w.mT, ((5, 3, 2), (5, 4, 3))),
    OpCase(
        "addmm_weight_t", lambda t, c, a, w: t.addmm(c, a, w.t(), alpha=2.0), ((4,), (2, 3), (4, 3))
    ),
    OpCase("bmm_t", lambda t, a, b: t.bmm(a.mT, b), ((2, 3, 2), (2, 3, 4))),
    OpCase("mm_method", lambda t, a, b: a.mm(b), ((4, 1), (1, 3))),
    OpCase("bmm", lambda t, a, b: t.bmm(a, b), ((3, 2, 4), (3, 4, 2))),
    OpCase("mv", lambda t, a, b: t.mv(a, b), ((2, 3), (3,))),
    OpCase("dot", lambda t, a, b: t.dot(a, b), ((4,), (4,))),
    OpCase("vdot", lambda t, a, b: t.vdot(a, b), ((4,), (4,))),
    OpCase("outer", lambda t, a, b: t.outer(a, b), ((3,), (4,))),
    OpCase("ger", lambda t, a, b: a.ger(b), ((2,), (3,))),
    OpCase("inner", lambda t, a, b: t.inner(a, b), ((2, 3), (4, 3))),
    OpCase("inner_1d", lambda t, a, b: t.inner(a, b), ((3,), (3,))),
    OpCase("addmm", lambda t, c, a, b: t.addmm(c, a, b), ((4,), (2, 3), (3, 4))),
    OpCase(
        "addmm_scaled",
        lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=-2.0),
        ((2, 4), (2, 3), (3, 4)),
    ),
    OpCase("addmm_beta0", lambda t, c, a, b: t.addmm(c, a, b, beta=0), ((1, 4), (2, 3), (3, 4))),
    OpCase("addmv", lambda t, c, a, b: t.addmv(c, a, b, alpha=1.5), ((2,), (2, 3), (3,))),
    OpCase(
        "baddbmm",
        lambda t, c, a, b: t.baddbmm(c, a, b, beta=2.0),
        ((2, 4), (3, 2, 3), (3, 3, 4)),
    ),
    OpCase(
        "addbmm", lambda t, c, a, b: t.addbmm(c, a, b, alpha=0.5), ((2, 4), (3, 2, 3), (3, 3, 4))
    ),
    OpCase("addr", lambda t, c, a, b: t.addr(c, a, b, beta=-1.0), ((2, 3), (2,), (3,))),
    OpCase("trace", lambda t, a: t.trace(a), ((3, 3),)),
    OpCase("trace_rect", lambda t, a: a.trace(), ((2, 4),)),
    OpCase("kron", lambda t, a, b: t.kron(a, b), ((2, 3), (2, 2))),
    OpCase("kron_mixed_ndim", lambda t, a, b: t.kron(a, b), ((2,), (3, 2))),
    OpCase("tensordot", lambda t, a, b: t.tensordot(a, b), ((2, 3, 4), (3, 4, 2))),
    OpCase("tensordot_int", lambda t, a, b: t.tensordot(a, b, dims=1), ((2, 3), (3, 4, 2))),
    OpCase("tensordot_0", lambda t, a, b: t.tensordot(a, b, dims=0), ((2,), (3,))),
    OpCase(
        "tensordot_lists",
        lambda t, a, b: t.tensordot(a, b, dims=([2, 0], [0, 1])),
        ((2, 3, 4), (4, 2, 5)),
    ),
    *[
        OpCase(f"einsum[{eq}]", lambda t, *xs, eq=eq: t.einsum(eq, *xs), shapes)
        for eq, shapes in EINSUM
    ],
    OpCase(
        "einsum_sublist",
        lambda t, a, b: t.einsum(a, [..., 0, 1], b, [1, 2], [..., 0, 2]),
        ((3, 2, 3), (3, 4)),
    ),
    OpCase("einsum_list", lambda t, a, b: t.einsum("ij,jk", [a, b]), ((2, 3), (3, 4))),
]


# ---------------------------------------------------------------- torch.linalg and friends
# Inputs are uniform in [-2, 2]; each row builds a well-posed problem from them (a
# well-conditioned or positive-definite matrix, a complex matrix from a trailing pair).
# Decompositions unique only up to signs or phases are compared through what does not
# depend on them, as torch's own tests do: singular values and ``U @ Vh``, eigenvalues
# and eigenprojectors, reconstructions.


def _eye(t, a):
    return t.eye(a.shape[-1], dtype=a.dtype)


def _well(t, a):
    """``a`` shifted away from singular matrices."""
    return a + 4 * _eye(t, a)


def _spd(t, a):
    """A symmetric positive-definite matrix made from ``a``."""
    return a @ a.mT + _eye(t, a)


def _cx(t, a):
    """A complex tensor from the trailing (real, imag) pairs of ``a``."""
    return t.view_as_complex(a)


def _hpd(t, a):
    z = _cx(t, a)
    return z @ z.mT.conj() + _eye(t, z)


def _projector(v, k=0):
    """``v_k v_k^H``: an eigenvector's projector, free of its sign or phase."""
    column = v[..., k : k + 1]
    return column @ column.mT.conj()


LINALG = [
    OpCase("linalg.det", lambda t, a: t.linalg.det(a), ((3, 3),)),
    OpCase("linalg.det_batch", lambda t, a: t.linalg.det(a), ((2, 3, 3),)),
    OpCase("linalg.det_complex", lambda t, a: t.linalg.det(_cx(t, a)), ((3, 3, 2),)),
    OpCase("linalg.slogdet", lambda t, a: t.linalg.slogdet(a), ((3, 3),)),
    OpCase("linalg.slogdet_complex", lambda t, a: t.linalg.slogdet(_cx(t, a)), ((2, 2, 2),)),
    OpCase("logdet", lambda t, a: t.logdet(_spd(t, a)), ((3, 3),)),
    OpCase("linalg.inv", lambda t, a: t.linalg.inv(_well(t, a)), ((2, 3, 3),)),
    OpCase("linalg.inv_complex", lambda t, a: t.linalg.inv(_well(t, _cx(t, a))), ((3, 3, 2),)),
    OpCase("linalg.solve", lambda t, a, b: t.linalg.solve(_well(t, a), b), ((3, 3), (3, 2))),
    OpCase(
        "linalg.solve_vector_broadcast",
        lambda t, a, b: t.linalg.solve(_well(t, a), b),
        ((2, 3, 3), (3,)),
    ),
    OpCase(
        "linalg.solve_left_false",
        lambda t, a, b: t.linalg.solve(_well(t, a), b, left=False),
        ((3, 3), (2, 3)),
    ),
    OpCase(
        "linalg.solve_triangular",
        lambda t, a, b: t.linalg.solve_triangular(_well(t, a), b, upper=True),
        ((3, 3), (3, 2)),
    ),
    OpCase(
        "linalg.solve_triangular_right_unit",
        lambda t, a, b: t.linalg.solve_triangular(
            a, b, upper=False, left=False, unitriangular=True
        ),
        ((3, 3), (2, 3)),
    ),
    OpCase("linalg.cholesky", lambda t, a: t.linalg.cholesky(_spd(t, a)), ((3, 3),)),
    OpCase(
        "linalg.cholesky_upper",
        lambda t, a: t.linalg.cholesky(_spd(t, a), upper=True),
        ((2, 3, 3),),
    ),
    OpCase("linalg.cholesky_complex", lambda t, a: t.linalg.cholesky(_hpd(t, a)), ((2, 2, 2),)),
    OpCase("linalg.qr", lambda t, a: t.linalg.qr(a), ((4, 3),)),
    OpCase("linalg.qr_wide", lambda t, a: t.linalg.qr(a), ((2, 3),)),
    OpCase("linalg.qr_complete", lambda t, a: t.linalg.qr(a, mode="complete"), ((3, 3),)),
    OpCase(
        "linalg.eigh",
        lambda t, a: (lambda r: (r.eigenvalues, _projector(r.eigenvectors)))(
            t.linalg.eigh(a + a.mT)
        ),
        ((3, 3),),
    ),
    OpCase("linalg.eigvalsh", lambda t, a: t.linalg.eigvalsh(a + a.mT, UPLO="U"), ((2, 3, 3),)),
    OpCase(
        "linalg.eigh_complex",
        lambda t, a: (lambda r: (r[0], _projector(r[1], 1)))(t.linalg.eigh(_hpd(t, a))),
        ((2, 2, 2),),
    ),
    OpCase("linalg.eigvals", lambda t, a: t.linalg.eigvals(a), ((3, 3),)),
    OpCase(
        "linalg.eig",
        lambda t, a: (lambda r: (r[0], r[1][..., :1] @ t.linalg.inv(r[1])[..., :1, :]))(
            t.linalg.eig(a)
        ),
        ((3, 3),),
    ),
    OpCase(
        "linalg.svd",
        lambda t, a: (lambda r: (r.S, r.U @ r.Vh))(t.linalg.svd(a, full_matrices=False)),
        ((4, 3),),
    ),
    OpCase(
        "linalg.svd_full_wide",
        lambda t, a: (lambda r: (r.S, r.U @ r.Vh[..., :2, :]))(t.linalg.svd(a)),
        ((2, 2, 3),),
    ),
    OpCase(
        "linalg.svd_complex",
        lambda t, a: (lambda r: (r.S, r.U @ r.Vh))(t.linalg.svd(_cx(t, a), full_matrices=False)),
        ((3, 2, 2),),
    ),
    OpCase("linalg.svdvals", lambda t, a: t.linalg.svdvals(a), ((2, 3),)),
    OpCase("linalg.pinv", lambda t, a: t.linalg.pinv(a), ((4, 3),)),
    OpCase(
        "linalg.pinv_wide_hermitian",
        lambda t, a: t.linalg.pinv(_spd(t, a), hermitian=True),
        ((3, 3),),
    ),
    OpCase("pinverse", lambda t, a: t.pinverse(a), ((2, 3),)),
    OpCase(
        "linalg.lstsq",
        lambda t, a, b: t.linalg.lstsq(a, b, driver="gelsd")[:2],
        ((4, 3), (4, 2)),
    ),
    OpCase("linalg.lstsq_vector", lambda t, a, b: t.linalg.lstsq(a, b).solution, ((4, 2), (4,))),
    OpCase("linalg.matrix_exp", lambda t, a: t.linalg.matrix_exp(a), ((3, 3),)),
    OpCase("linalg.matrix_exp_complex", lambda t, a: t.linalg.matrix_exp(_cx(t, a)), ((2, 2, 2),)),
    OpCase("linalg.matrix_power", lambda t, a: t.linalg.matrix_power(a, 5), ((3, 3),)),
    OpCase(
        "linalg.matrix_power_negative",
        lambda t, a: t.linalg.matrix_power(_well(t, a), -2),
        ((3, 3),),
    ),
    OpCase("linalg.cross", lambda t, a, b: t.linalg.cross(a, b), ((2, 3), (1, 3))),
    OpCase("cross_dim", lambda t, a, b: t.cross(a, b, dim=0), ((3, 2), (3, 2))),
    OpCase("linalg.vecdot", lambda t, a, b: t.linalg.vecdot(a, b), ((2, 3), (3,))),
    OpCase(
        "linalg.multi_dot",
        lambda t, a, b, c, d: t.linalg.multi_dot([a, b, c, d]),
        ((3,), (3, 4), (4, 2), (2, 3)),
    ),
    OpCase("linalg.lu_factor", lambda t, a: t.linalg.lu_factor(a).LU, ((3, 3),)),
    OpCase("linalg.lu", lambda t, a: t.linalg.lu(a)[1:], ((3, 3),)),
    OpCase("linalg.lu_wide", lambda t, a: t.linalg.lu(a)[1:], ((2, 3),)),
    OpCase("linalg.lu_tall", lambda t, a: t.linalg.lu(a)[1:], ((3, 2),)),
    OpCase(
        "linalg.lu_solve",
        lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(_well(t, a)), b, adjoint=True),
        ((3, 3), (3, 2)),
    ),
    OpCase(
        "lu_unpack",
        lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a))[1:],
        ((3, 2),),
    ),
    OpCase(
        "linalg.householder_product",
        lambda t, a, tau: t.linalg.householder_product(a, tau),
        ((4, 3), (2,)),
        low=-0.5,
        high=0.5,
    ),
    OpCase(
        "ormqr",
        lambda t, a, tau, c: t.ormqr(a, tau, c, transpose=True),
        ((3, 2), (2,), (3, 2)),
        low=-0.5,
        high=0.5,
    ),
    OpCase("linalg.norm_fro", lambda t, a: t.linalg.norm(a), ((2, 3),)),
    OpCase("linalg.norm_nuc", lambda t, a: t.linalg.norm(a, "nuc"), ((2, 3),)),
    OpCase(
        "linalg.matrix_norm_2", lambda t, a: t.linalg.matrix_norm(a, 2, keepdim=True), ((2, 3, 3),)
    ),
    OpCase(
        "linalg.matrix_norm_neg1",
        lambda t, a: t.linalg.matrix_norm(a, -1),
        ((3, 3),),
        distinct=True,
    ),
    OpCase(
        "linalg.matrix_norm_inf",
        lambda t, a: t.linalg.matrix_norm(a, float("inf"), dim=(0, 2)),
        ((3, 2, 3),),
        distinct=True,
    ),
    OpCase("linalg.vector_norm", lambda t, a: t.linalg.vector_norm(a, 3, dim=1), ((2, 3),)),
    OpCase("linalg.cond", lambda t, a: t.linalg.cond(a), ((3, 3),)),
    OpCase(
        "linalg.tensorinv",
        lambda t, a: t.linalg.tensorinv(_well(t, a.reshape(4, 4)).reshape(2, 2, 4), ind=2),
        ((4, 4),),
    ),
    OpCase(
        "linalg.tensorsolve",
        lambda t, a, b: t.linalg.tensorsolve(_well(t, a).reshape(2, 2, 4), b),
        ((4, 4), (2, 2)),
    ),
    OpCase("linalg.vander", lambda t, x: t.linalg.vander(x, N=4), ((2, 3),)),
    OpCase("svd", lambda t, a: (lambda r: (r.S, r.U @ r.V.mT))(t.svd(a)), ((3, 2),)),
    OpCase(
        "triangular_solve",
        lambda t, b, a: t.triangular_solve(b, _well(t, a), transpose=True),
        ((3, 2), (3, 3)),
    ),
    OpCase(
        "cholesky_solve", lambda t, b, a: t.cholesky_solve(b, _well(t, a.tril())), ((3, 2), (3, 3))
    ),
    OpCase(
        "cholesky_inverse",
        lambda t, a: t.cholesky_inverse(_well(t, a.triu()), upper=True),
        ((3, 3),),
    ),
    OpCase("cholesky", lambda t, a: t.cholesky(_spd(t, a)), ((3, 3),)),
    OpCase("cdist", lambda t, a, b: t.cdist(a, b), ((2, 3, 2), (4, 2))),
    OpCase(
        "cdist_p1",
        lambda t, a, b: t.cdist(a, b, p=1),
        ((3, 2), (4, 2)),
        distinct=True,
        gradgrad=False,
    ),
    OpCase("cdist_p3", lambda t, a, b: t.cdist(a, b, p=3), ((3, 2), (4, 2)), distinct=True),
    # More than 25 rows: through one matrix product (EuclideanDistBackward0).
    OpCase("cdist_mm", lambda t, a, b: t.cdist(a, b), ((26, 2), (3, 2)), gradgrad=False),
    OpCase("pdist", lambda t, a: t.pdist(a), ((4, 3),)),
    OpCase("pdist_p3", lambda t, a: t.pdist(a, 3), ((4, 3),), distinct=True),
    OpCase("dist", lambda t, a, b: t.dist(a, b), ((2, 3), (3,))),
    OpCase("dist_p3", lambda t, a, b: t.dist(a, b, 3), ((2, 3), (2, 3)), distinct=True),
    OpCase("renorm", lambda t, a: t.renorm(a, 2, 0, 1.5), ((3, 4),)),
    OpCase("renorm_1", lambda t, a: a.renorm(1, 1, 2.0), ((3, 2),), distinct=True),
    OpCase("addcmul", lambda t, a, b, c: t.addcmul(a, b, c, value=0.5), ((2, 3), (3,), (2, 1))),
    OpCase("addcdiv", lambda t, a, b, c: t.addcdiv(a, b, c + 3, value=-2), ((2, 3), (2, 3), (3,))),
    OpCase("frobenius_norm", lambda t, a: t.frobenius_norm(a, (0, 1)), ((2, 3),)),
    OpCase("nuclear_norm", lambda t, a: t.nuclear_norm(a), ((3, 2),)),
]
CASES += LINALG
