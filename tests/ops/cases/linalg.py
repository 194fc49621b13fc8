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
