"""Linalg ops beyond the op table: node names, errors, complex gradients, dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close

# matmul shapes with the torch node each gets (checked against torch below).
MATMUL_NAMES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((5, 2, 3), (3,)),
    ((2, 3), (5, 3, 4)),
    ((3,), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((5, 1, 2, 3), (4, 3, 2)),
    ((1, 2, 3), (5, 3, 4)),
    ((2, 2, 3), (1, 3, 4)),
    ((1, 2, 3), (1, 3, 4)),
    ((1, 1, 2, 3), (5, 3, 4)),
    ((1, 3), (5, 3, 4)),
    ((2, 3), (5, 3, 1)),
    ((0, 2, 3), (3, 4)),
    ((2, 3), (0, 3, 4)),
]


def _pair(lib, shapes, requires_grad=(True, True), dtype="float64"):
    rng = np.random.default_rng(0)
    return [
        lib.tensor(rng.standard_normal(s), dtype=getattr(lib, dtype), requires_grad=g)
        for s, g in zip(shapes, requires_grad)
    ]


@pytest.mark.parametrize("requires_grad", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("shapes", MATMUL_NAMES, ids=str)
def test_matmul_node_name_matches_torch(shapes, requires_grad, torch):
    a, b = _pair(hookgrad, shapes, requires_grad)
    ta, tb = _pair(torch, shapes, requires_grad)
    result, expected = a @ b, ta @ tb
    name = type(expected.grad_fn).__name__
    assert result.grad_fn.name() == name
    assert f"grad_fn=<{name}>" in repr(result)
    assert_close(result, expected, 1e-12, 1e-12)


@pytest.mark.parametrize(
    "call, shapes",
    [
        (lambda t, a, b: t.mm(a, b), ((2, 3), (3, 4))),
        (lambda t, a, b: t.bmm(a, b), ((2, 2, 3), (2, 3, 4))),
        (lambda t, a, b: t.mv(a, b), ((2, 3), (3,))),
        (lambda t, a, b: t.dot(a, b), ((3,), (3,))),
        (lambda t, a, b: t.vdot(a, b), ((3,), (3,))),
        (lambda t, a, b: t.outer(a, b), ((3,), (2,))),
        (lambda t, a: t.trace(a), ((3, 3),)),
        (lambda t, c, a, b: t.addmm(c, a, b), ((4,), (2, 3), (3, 4))),
        (lambda t, c, a, b: t.addmv(c, a, b), ((2,), (2, 3), (3,))),
        (lambda t, c, a, b: t.baddbmm(c, a, b), ((2, 4), (2, 2, 3), (2, 3, 4))),
        (lambda t, c, a, b: t.addbmm(c, a, b), ((2, 4), (2, 2, 3), (2, 3, 4))),
        (lambda t, c, a, b: t.addr(c, a, b), ((2, 3), (2,), (3,))),
    ],
)
def test_node_names_match_torch(call, shapes, torch):
    result = call(hookgrad, *_pair(hookgrad, shapes, (True,) * len(shapes)))
    expected = call(torch, *_pair(torch, shapes, (True,) * len(shapes)))
    assert result.grad_fn.name() == type(expected.grad_fn).__name__


def test_saved_tensors_and_scalars_are_exposed():
    a, b = _pair(hookgrad, ((2, 3), (3, 4)))
    out = hookgrad.addmm(hookgrad.zeros(4, dtype=hookgrad.float64), a, b, beta=0.5, alpha=2)
    assert out.grad_fn._saved_mat1 is a
    assert out.grad_fn._saved_alpha == 2 and out.grad_fn._saved_beta == 0.5
    assert hookgrad.mm(a, b).grad_fn._saved_mat2 is b


# ---------------------------------------------------------------- errors, as torch's

ERRORS = [
    lambda t: t.mm(t.ones(2, 3), t.ones(4, 5)),
    lambda t: t.mm(t.ones(3), t.ones(3, 5)),
    lambda t: t.mm(t.ones(2, 3), t.ones(3)),
    lambda t: t.mm(t.ones(2, 3), t.ones(3, 5, dtype=t.float64)),
    lambda t: t.mm(t.ones(2, 3, dtype=t.int64), t.ones(3, 5)),
    lambda t: t.mm(t.ones(2, 3, dtype=t.bool), t.ones(3, 5, dtype=t.bool)),
    lambda t: t.matmul(t.tensor(1.0), t.ones(2, 3)),
    lambda t: t.matmul(t.ones(2, 3), t.tensor(1.0)),
    lambda t: t.matmul(t.ones(2, 3), t.ones(4, 5)),
    lambda t: t.matmul(t.ones(2, 3), t.ones(3, 5, dtype=t.float64)),
    lambda t: t.matmul(t.ones(3), t.ones(4)),
    lambda t: t.matmul(t.ones(3), t.ones(3, dtype=t.float64)),
    lambda t: t.matmul(t.ones(2, 3), t.ones(4)),
    lambda t: t.matmul(t.ones(2, 3, dtype=t.float64), t.ones(3)),
    lambda t: t.matmul(t.ones(3), t.ones(4, 5)),
    lambda t: t.matmul(t.ones(5, 2, 3), t.ones(4, 5)),
    lambda t: t.matmul(t.ones(5, 2, 3), t.ones(4)),
    lambda t: t.matmul(t.ones(5, 2, 3), t.ones(5, 4, 5)),
    lambda t: t.matmul(t.ones(5, 2, 3), t.ones(5, 3, 4, dtype=t.float64)),
    lambda t: t.matmul(t.ones(7, 5, 2, 3), t.ones(4, 3, 5)),
    lambda t: t.matmul(t.ones(2, 3), t.ones(5, 4, 5)),
    lambda t: t.matmul(t.ones(2, 3, requires_grad=True), t.ones(5, 4, 5)),
    lambda t: t.matmul(t.ones(3, requires_grad=True), t.ones(5, 4, 5)),
    lambda t: t.matmul(t.ones(2, 3, dtype=t.bool), t.ones(3, 2, dtype=t.bool)),
    lambda t: t.matmul(t.ones(2, 3), 3),
    lambda t: t.bmm(t.ones(2, 3), t.ones(2, 3, 4)),
    lambda t: t.bmm(t.ones(2, 2, 3), t.ones(3, 3, 4)),
    lambda t: t.bmm(t.ones(2, 2, 3), t.ones(2, 4, 4)),
    lambda t: t.bmm(t.ones(2, 2, 3), t.ones(2, 3, 4, dtype=t.float64)),
    lambda t: t.mv(t.ones(2, 3), t.ones(4)),
    lambda t: t.mv(t.ones(3), t.ones(3)),
    lambda t: t.mv(t.ones(2, 3), t.ones(3, dtype=t.float64)),
    lambda t: t.dot(t.ones(3), t.ones(4)),
    lambda t: t.dot(t.ones(3, 1), t.ones(3)),
    lambda t: t.dot(t.ones(3), t.ones(3, dtype=t.float64)),
    lambda t: t.vdot(t.ones(3), t.ones(4)),
    lambda t: t.outer(t.ones(3, 1), t.ones(4)),
    lambda t: t.outer(t.ones(3), t.ones(4, 1)),
    lambda t: t.addmm(t.ones(4), t.ones(2, 3), t.ones(3, 3)),
    lambda t: t.addmm(t.ones(1, 2, 3), t.ones(2, 3), t.ones(3, 3)),
    lambda t: t.addmm(t.ones(3), t.ones(2, 3), t.ones(4, 3)),
    lambda t: t.addmm(t.ones(3), t.ones(3), t.ones(3, 3)),
    lambda t: t.addmm(t.ones(3), t.ones(2, 3), t.ones(3, 3, dtype=t.float64)),
    lambda t: t.addmm(t.ones(3), t.ones(2, 3, dtype=t.float64), t.ones(3, 3)),
    lambda t: t.addmv(t.ones(3), t.ones(2, 3), t.ones(3)),
    lambda t: t.addmv(t.ones(2), t.ones(2, 3), t.ones(3, dtype=t.float64)),
    lambda t: t.baddbmm(t.ones(4, 3), t.ones(5, 2, 4), t.ones(5, 4, 3)),
    lambda t: t.baddbmm(t.ones(2, 3), t.ones(2, 2, 3), t.ones(2, 4, 3)),
    lambda t: t.baddbmm(t.ones(2, 3, dtype=t.float64), t.ones(5, 2, 4), t.ones(5, 4, 3)),
    lambda t: t.addbmm(t.ones(2, 3), t.ones(5, 2, 4), t.ones(4, 4, 3)),
    lambda t: t.addbmm(t.ones(2, 3), t.ones(2, 2, 3), t.ones(2, 4, 3)),
    lambda t: t.addr(t.ones(2, 3), t.ones(2, 1), t.ones(3)),
    lambda t: t.trace(t.ones(3)),
    lambda t: t.trace(t.ones(2, 2, dtype=t.bool)),
    lambda t: t.tensordot(t.ones(2, 3, 4), t.ones(4, 4, 5)),
    lambda t: t.tensordot(t.ones(2, 3), t.ones(3, 4), dims=-1),
    lambda t: t.tensordot(t.ones(2, 3), t.ones(3, 4), dims=3),
    lambda t: t.tensordot(t.ones(2, 3, 4), t.ones(4, 3, 5), dims=([1, 2], [1])),
    lambda t: t.inner(t.ones(2, 3), t.ones(4, 4)),
]

EINSUM_ERRORS = [
    ("ij", [(2, 3), (3,)]),
    ("ij,j", [(2, 3)]),
    ("ijk", [(2, 3)]),
    ("ij...k", [(2, 3)]),
    ("i1", [(2, 3)]),
    ("ij->k", [(2, 3)]),
    ("ij->ii", [(2, 3)]),
    ("ij,jk", [(2, 3), (4, 5)]),
    ("ii", [(2, 3)]),
    ("...i...", [(2, 3)]),
    ("i.j", [(2, 3)]),
    ("...ij->......", [(2, 3)]),
    ("ij->j->", [(2, 3)]),
    ("...ij,...jk->...ik", [(5, 2, 2, 3), (4, 3, 4)]),
]


def _error(fn, lib):
    with pytest.raises(Exception) as info:
        fn(lib)
    return type(info.value), str(info.value).split("\n")[0]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors_match_torch(fn, torch):
    assert _error(fn, hookgrad) == _error(fn, torch)


@pytest.mark.parametrize("equation, shapes", EINSUM_ERRORS)
def test_einsum_errors_match_torch(equation, shapes, torch):
    def fn(lib):
        return lib.einsum(equation, *[lib.ones(s) for s in shapes])

    assert _error(fn, hookgrad) == _error(fn, torch)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.einsum("i,i", t.ones(3), t.ones(3, dtype=t.float64)),
        lambda t: t.einsum(3, t.ones(3)),
        lambda t: t.einsum("i"),
        lambda t: t.einsum(t.ones(2, 3), [0, 52]),
    ],
)
def test_einsum_argument_errors_match_torch(fn, torch):
    assert _error(fn, hookgrad) == _error(fn, torch)


# ---------------------------------------------------------------- values and gradients


def test_einsum_forms_match_torch(torch):
    def run(lib):
        x, y = _pair(lib, ((2, 3), (3, 4)))
        return [
            lib.einsum(" i j , j k -> i k ", x, y),
            lib.einsum("iJ,Jk", [x, y]),
            lib.einsum(x, [0, 1], y, [1, 2]),
            lib.einsum("ba,aC", x, y),
        ]

    assert_close(run(hookgrad), run(torch), 1e-12, 1e-12)


def test_einsum_result_does_not_alias_its_operand():
    x = hookgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    hookgrad.einsum("ij->ji", x).numpy()[0, 1] = 10.0
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]


COMPLEX = [
    (lambda t, a, b: t.mm(a, b), ((2, 3), (3, 4))),
    (lambda t, a, b: t.matmul(a, b), ((5, 2, 3), (3,))),
    (lambda t, a, b: t.matmul(a, b), ((2, 1, 2, 3), (4, 3, 2))),
    (lambda t, a, b: t.dot(a, b), ((3,), (3,))),
    (lambda t, a, b: t.vdot(a, b), ((3,), (3,))),
    (lambda t, a, b: t.einsum("ii,ij->j", a, b), ((3, 3), (3, 2))),
    (lambda t, a, b: t.einsum("ij,jk->ik", a, b), ((2, 3), (3, 4))),
    (lambda t, a, b: t.outer(a, b), ((3,), (2,))),
    (lambda t, a, b: t.addmm(a, a, b, beta=0.5, alpha=1.5 - 1j), ((3, 3), (3, 3))),
]


def _complex_grads(lib, call, shapes):
    rng = np.random.default_rng(3)
    tensors = [
        lib.tensor(rng.standard_normal(s) + 1j * rng.standard_normal(s), requires_grad=True)
        for s in shapes
    ]
    out = call(lib, *tensors)
    seed = rng.standard_normal(tuple(out.shape)) + 1j * rng.standard_normal(tuple(out.shape))
    grads = lib.autograd.grad(out, tensors, lib.tensor(np.asarray(seed)))
    return out, grads


@pytest.mark.parametrize("call, shapes", COMPLEX)
def test_complex_gradients_match_torch(call, shapes, torch):
    result, grads = _complex_grads(hookgrad, call, shapes)
    expected, expected_grads = _complex_grads(torch, call, shapes)
    assert_close(result, expected, 1e-10, 1e-12)
    assert_close(grads, expected_grads, 1e-10, 1e-12)


def test_integer_products_match_torch(torch):
    def run(lib):
        a = lib.arange(6).reshape(2, 3)
        b = lib.arange(12, dtype=lib.int32).reshape(3, 4)
        return [a @ a.reshape(3, 2), b.matmul(lib.ones(4, dtype=lib.int32)), lib.trace(b)]

    results = run(hookgrad)
    assert_close(results, run(torch), 0, 0)
    assert all(r.grad_fn is None and not r.requires_grad for r in results)


def test_float32_stays_float32():
    a, b = _pair(hookgrad, ((4, 2, 3), (3, 5)), dtype="float32")
    assert (a @ b).dtype is hookgrad.float32
    assert hookgrad.einsum("bij,jk->bk", a, b).dtype is hookgrad.float32


def test_double_backward_of_matmul_matches_torch(torch):
    def run(lib):
        a, b = _pair(lib, ((3, 2, 3), (3, 4)))
        (grad_a,) = lib.autograd.grad((a @ b).pow(2).sum(), [a], create_graph=True)
        return lib.autograd.grad(grad_a.pow(2).sum(), [a, b])

    assert_close(run(hookgrad), run(torch), 1e-10, 1e-12)


def test_addmm_beta_zero_ignores_nan_input(torch):
    for lib in (hookgrad, torch):
        c = lib.full((2, 4), float("nan"))
        out = lib.addmm(c, lib.ones(2, 3), lib.ones(3, 4), beta=0)
        assert out.tolist() == [[3.0] * 4] * 2


@pytest.mark.parametrize(
    "call",
    [
        lambda x, w, b: x @ w.T + b,
        lambda x, w, b: hookgrad.addmm(b, x, w.t()),
        lambda x, w, b: hookgrad.einsum("ni,oi->no", x, w) + b,
    ],
)
def test_gradient_of_linear_weight_is_contiguous(call):
    """Like torch, ``w.grad`` of ``x @ w.T`` has ``w``'s layout, not a transposed one."""
    x = hookgrad.randn(8, 5, requires_grad=True)
    w = hookgrad.randn(6, 5, requires_grad=True)
    b = hookgrad.randn(6, requires_grad=True)
    call(x, w, b).sum().backward()
    assert w.grad.numpy().flags.c_contiguous
    assert x.grad.numpy().flags.c_contiguous
