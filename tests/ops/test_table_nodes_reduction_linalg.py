"""The table's reduction and linear algebra nodes against torch's: the node class, its
``_saved_*`` attributes (names and values) and the graph of a ``create_graph=True``
gradient (the double-backward nodes torch's formulas make)."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, node_names, saved_values

# (id, program over a library and tensors, input shapes)
CASES = [
    ("sum", lambda t, x: x.sum(), [(2, 3)]),
    ("sum_dtype", lambda t, x: x.sum(dtype=t.float32), [(2, 3)]),
    ("sum_dim", lambda t, x: x.sum(1), [(2, 3)]),
    ("sum_dims", lambda t, x: x.sum((0, 2)), [(2, 3, 4)]),
    ("sum_keepdim", lambda t, x: x.sum(1, keepdim=True), [(2, 3)]),
    ("sum_all_keepdim", lambda t, x: x.sum(dim=None, keepdim=True), [(2, 3)]),
    ("sum_empty_dims", lambda t, x: x.sum(()), [(2, 3)]),
    ("mean", lambda t, x: x.mean(), [(2, 3)]),
    ("mean_dim", lambda t, x: x.mean(1), [(2, 3)]),
    ("mean_dims_keepdim", lambda t, x: x.mean((0, 2), keepdim=True), [(2, 3, 4)]),
    ("amax", lambda t, x: x.amax(), [(2, 3)]),
    ("amax_dim", lambda t, x: x.amax(1), [(2, 3)]),
    ("amin_dims", lambda t, x: x.amin((0, 2)), [(2, 3, 4)]),
    ("amin_keepdim", lambda t, x: x.amin(1, keepdim=True), [(2, 3)]),
    ("max", lambda t, x: x.max(), [(2, 3)]),
    ("min", lambda t, x: x.min(), [(2, 3)]),
    ("median", lambda t, x: x.median(), [(2, 3)]),
    ("logsumexp", lambda t, x: x.logsumexp(1), [(2, 3)]),
    ("logsumexp_keepdim", lambda t, x: x.logsumexp((0, 1), keepdim=True), [(2, 3)]),
    ("cumsum", lambda t, x: x.cumsum(1), [(2, 3)]),
    ("mm", lambda t, a, b: a.mm(b), [(2, 3), (3, 4)]),
    ("mm_mat2_t", lambda t, a, b: a.mm(b.t()), [(2, 3), (4, 3)]),
    ("mm_self_t", lambda t, a, b: a.t().mm(b), [(3, 2), (3, 4)]),
    ("matmul_2d", lambda t, a, b: a @ b, [(2, 3), (3, 4)]),
    ("addmm", lambda t, c, a, b: t.addmm(c, a, b), [(4,), (2, 3), (3, 4)]),
    (
        "addmm_scaled",
        lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=2),
        [(2, 4), (2, 3), (3, 4)],
    ),
    ("addmm_weight_t", lambda t, c, a, b: t.addmm(c, a, b.t()), [(4,), (2, 3), (4, 3)]),
    ("bmm", lambda t, a, b: a.bmm(b), [(2, 2, 3), (2, 3, 4)]),
    (
        "baddbmm",
        lambda t, c, a, b: t.baddbmm(c, a, b, alpha=2),
        [(2, 2, 4), (2, 2, 3), (2, 3, 4)],
    ),
    ("mv", lambda t, a, b: a.mv(b), [(2, 3), (3,)]),
    ("addmv", lambda t, c, a, b: t.addmv(c, a, b, beta=2), [(2,), (2, 3), (3,)]),
    ("dot", lambda t, a, b: a.dot(b), [(3,), (3,)]),
    ("vdot", lambda t, a, b: a.vdot(b), [(3,), (3,)]),
    ("addr", lambda t, c, a, b: t.addr(c, a, b, alpha=3), [(2, 3), (2,), (3,)]),
    ("linalg_cross", lambda t, a, b: t.linalg.cross(a, b, dim=1), [(2, 3), (2, 3)]),
    ("addcmul", lambda t, c, a, b: t.addcmul(c, a, b, value=2), [(2, 3), (2, 3), (3,)]),
    ("addcdiv", lambda t, c, a, b: t.addcdiv(c, a, b, value=2), [(2, 3), (2, 3), (3,)]),
    ("dist", lambda t, a, b: t.dist(a, b, 3), [(2, 3), (2, 3)]),
    ("frobenius_norm", lambda t, a: t.frobenius_norm(a, (0, 1)), [(2, 3)]),
    ("renorm", lambda t, a: t.renorm(a, 2, 0, 0.5), [(3, 4)]),
    # Complex results are seen through ``view_as_real``: real output gradients seed them.
    ("fft_rfft", lambda t, x: t.view_as_real(t.fft.rfft(x)), [(2, 5)]),
    ("fft_fft", lambda t, x: t.view_as_real(t.fft.fft(t.view_as_complex(x))), [(2, 4, 2)]),
    ("fft_irfft", lambda t, x: t.fft.irfft(t.view_as_complex(x)), [(4, 2)]),
    ("fft_ihfft2", lambda t, x: t.view_as_real(t.fft.ihfft2(x)), [(3, 4)]),
]
IDS = [case[0] for case in CASES]


def _run(lib, fn, shapes):
    """The output's node, and the node names of each input's second-order gradient
    graph (the output gradient requires grad too, so every formula term shows)."""
    rng = np.random.default_rng(0)
    inputs = [lib.tensor(rng.standard_normal(shape), requires_grad=True) for shape in shapes]
    out = fn(lib, *inputs)
    grad_out = lib.tensor(rng.standard_normal(tuple(out.shape)), requires_grad=True)
    grads = lib.autograd.grad(out, inputs, grad_out, create_graph=True)
    return out.grad_fn, [node_names(grad.grad_fn) for grad in grads]


@pytest.mark.parametrize("fn, shapes", [case[1:] for case in CASES], ids=IDS)
def test_node_class_and_saved_values(fn, shapes, torch):
    ours, _ = _run(hookgrad, fn, shapes)
    theirs, _ = _run(torch, fn, shapes)
    assert type(ours).__name__ == type(theirs).__name__
    saved, expected = saved_values(ours), saved_values(theirs)
    assert sorted(saved) == sorted(expected)
    for name, value in expected.items():
        if isinstance(value, np.ndarray):
            assert_close(saved[name], value, 1e-12, 0)
        elif isinstance(value, tuple):
            assert tuple(saved[name]) == value, name
        else:
            assert saved[name] == value, name


@pytest.mark.parametrize("fn, shapes", [case[1:] for case in CASES], ids=IDS)
def test_double_backward_graph(fn, shapes, torch):
    _, ours = _run(hookgrad, fn, shapes)
    _, theirs = _run(torch, fn, shapes)
    assert ours == theirs


def test_saved_input_only_when_the_other_needs_a_gradient(torch):
    """As torch: ``mm`` saves ``self`` only for ``mat2``'s gradient, and the reverse."""
    for lib in (hookgrad, torch):
        a = lib.ones(2, 3, requires_grad=True)
        b = lib.ones(3, 4)
        node = a.mm(b).grad_fn
        assert node._saved_mat2 is not None
        assert node._saved_self is None
