"""The derivative table: its machinery, and the nodes its entries build compared with
torch's (class names, ``_saved_*`` attributes, edges, the double-backward graph), the
two ways a formula runs (arrays, tensors), and the generated ``out=`` and in-place
variants."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.ops import table
from tests.oracle import assert_close, saved_values

# ---------------------------------------------------------------- the machinery


def test_signature_parses_torch_schemas():
    signature = table.Signature(
        "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    assert (signature.name, signature.overload) == ("sum", "dim_IntList")
    assert signature.inputs == ["self"]
    assert signature.params == ["dim", "keepdim", "dtype"]
    assert signature.defaults == {"keepdim": False, "dtype": None}


def test_signature_refuses_what_is_not_a_schema():
    with pytest.raises(ValueError, match="not a torch schema"):
        table.Signature("exp self")


@pytest.mark.parametrize(
    "op, expected",
    [
        ("exp", "ExpBackward0"),
        ("log1p", "Log1PBackward0"),
        ("tanh_backward", "TanhBackwardBackward0"),
        ("addmm", "AddmmBackward0"),
        ("exp2", "Exp2Backward0"),
    ],
)
def test_node_names_follow_torchs_code_generator(op, expected):
    assert table.node_name(op) == expected


def test_an_entry_names_only_its_own_inputs():
    with pytest.raises(ValueError, match="unknown inputs"):
        table.entry("twice(Tensor self) -> Tensor", lambda a: 2 * a, other="grad")


def test_what_a_formula_reads_decides_what_is_saved():
    Scaled = table.entry(
        "scaled_test(Tensor self, Tensor other, Scalar factor=2) -> Tensor",
        lambda a, b, factor: a * b * factor,
        self="grad * other * factor",
        other="grad * self.sym_sizes()[0] * self",
    )
    # Inputs by name, then the result; ``self`` is read by one formula only.
    assert Scaled.saves == ("other", "self")
    assert Scaled.saved_for == {"other": ("self",), "self": ("other",)}
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = hookgrad.tensor([3.0, 4.0])
    out = table._apply_node(Scaled(5), x, y)
    node = out.grad_fn
    assert type(node).__name__ == "ScaledTestBackward0"
    assert node._saved_factor == 5
    assert node._saved_other is y
    assert node._saved_self is None  # ``other`` needs no gradient: not saved
    assert "_saved_self_sym_sizes" in dir(node) and "_saved_factor" in dir(node)
    out.sum().backward()
    assert x.grad.tolist() == [15.0, 20.0]


def test_a_helper_runs_on_arrays_and_on_tensors():
    table.helper("cube_plus_test(x, y)", "x.pow(3) + y")
    on_arrays = table.ARRAY_NAMESPACE["cube_plus_test"](np.array([2.0]), 1.0)
    on_tensors = table.TENSOR_NAMESPACE["cube_plus_test"](hookgrad.tensor([2.0]), 1.0)
    assert on_arrays.tolist() == on_tensors.tolist() == [9.0]


# ---------------------------------------------------------------- nodes against torch

# One row per node: what builds it from two float64 tensors ``a`` (in (0.5, 1.5)) and
# ``b`` (in (1, 2)) that require grad.
NODES = [
    ("add", lambda t, a, b: a + b),
    ("add_alpha", lambda t, a, b: t.add(a, b, alpha=2.5)),
    ("add_scalar", lambda t, a, b: a + 2),
    ("sub", lambda t, a, b: a - b),
    ("sub_alpha", lambda t, a, b: t.sub(a, b, alpha=-3)),
    ("rsub", lambda t, a, b: 2 - a),
    ("mul", lambda t, a, b: a * b),
    ("mul_scalar", lambda t, a, b: a * 3),
    ("div", lambda t, a, b: a / b),
    ("div_floor", lambda t, a, b: t.div(a * 4, b, rounding_mode="floor") + a),
    ("neg", lambda t, a, b: -a),
    ("pow_scalar", lambda t, a, b: a**2.5),
    ("pow_tensor", lambda t, a, b: a**b),
    ("rpow", lambda t, a, b: 2**b),
    ("remainder", lambda t, a, b: t.remainder(b, a)),
    ("maximum", lambda t, a, b: t.maximum(a, b)),
    ("minimum", lambda t, a, b: t.minimum(a, b)),
    ("where", lambda t, a, b: t.where(a > 1, a, b)),
    ("exp", lambda t, a, b: a.exp()),
    ("exp2", lambda t, a, b: t.exp2(a)),
    ("expm1", lambda t, a, b: a.expm1()),
    ("log", lambda t, a, b: a.log()),
    ("log2", lambda t, a, b: a.log2()),
    ("log10", lambda t, a, b: a.log10()),
    ("log1p", lambda t, a, b: a.log1p()),
    ("sqrt", lambda t, a, b: a.sqrt()),
    ("rsqrt", lambda t, a, b: a.rsqrt()),
    ("reciprocal", lambda t, a, b: a.reciprocal()),
    ("abs", lambda t, a, b: (a - 1).abs()),
    ("sign", lambda t, a, b: (a - 1).sign()),
    ("sin", lambda t, a, b: a.sin()),
    ("cos", lambda t, a, b: a.cos()),
    ("tan", lambda t, a, b: a.tan()),
    ("asin", lambda t, a, b: (a / 2).asin()),
    ("acos", lambda t, a, b: (a / 2).acos()),
    ("atan", lambda t, a, b: a.atan()),
    ("sinh", lambda t, a, b: a.sinh()),
    ("cosh", lambda t, a, b: a.cosh()),
    ("tanh", lambda t, a, b: a.tanh()),
    ("asinh", lambda t, a, b: a.asinh()),
    ("acosh", lambda t, a, b: b.acosh()),
    ("atanh", lambda t, a, b: (a / 2).atanh()),
    ("sigmoid", lambda t, a, b: a.sigmoid()),
    ("relu", lambda t, a, b: (a - 1).relu()),
    ("clamp", lambda t, a, b: a.clamp(0.8, 1.2)),
    ("clamp_min", lambda t, a, b: a.clamp(min=0.8)),
    ("clamp_max", lambda t, a, b: a.clamp(max=1.2)),
    ("floor", lambda t, a, b: (a * 3).floor()),
    ("ceil", lambda t, a, b: (a * 3).ceil()),
    ("trunc", lambda t, a, b: (a * 3).trunc()),
    ("clamp_min_function", lambda t, a, b: t.clamp_min(a, 0.8)),
    ("clamp_max_function", lambda t, a, b: t.clamp_max(a, 1.2)),
    ("remainder_scalar", lambda t, a, b: t.remainder(b, 0.75)),
    ("slice", lambda t, a, b: a[1:, ::2]),
    ("select", lambda t, a, b: a[0]),
    ("diagonal", lambda t, a, b: a.diagonal()),
    ("round", lambda t, a, b: (a * 3).round()),
    ("round_decimals", lambda t, a, b: a.round(decimals=1)),
    ("frac", lambda t, a, b: (a * 3).frac()),
    ("nan_to_num", lambda t, a, b: a.nan_to_num()),
]
IDS = [name for name, _ in NODES]


def _inputs(lib):
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.uniform(0.5, 1.5, (2, 3)), requires_grad=True)
    b = lib.tensor(rng.uniform(1.0, 2.0, (2, 3)), requires_grad=True)
    return a, b


@pytest.mark.parametrize("name, fn", NODES, ids=IDS)
def test_node_matches_torch(name, fn, torch):
    ours = fn(hookgrad, *_inputs(hookgrad)).grad_fn
    theirs = fn(torch, *_inputs(torch)).grad_fn
    assert type(ours).__name__ == type(theirs).__name__ == ours.name()
    assert len(ours.next_functions) == len(theirs.next_functions)
    ours_saved, theirs_saved = saved_values(ours), saved_values(theirs)
    assert sorted(ours_saved) == sorted(theirs_saved)
    for key, expected in theirs_saved.items():
        actual = ours_saved[key]
        if isinstance(expected, np.ndarray):
            assert_close(np.asarray(actual), expected)
        else:
            assert actual == expected, key


def _graph(node, depth=4):
    """The graph under ``node`` as nested ``(class name, children)``, AccumulateGrad as a
    name only, to ``depth`` levels."""
    if node is None:
        return None
    if depth == 0 or type(node).__name__ == "AccumulateGrad":
        return type(node).__name__
    children = tuple((_graph(child, depth - 1), nr) for child, nr in node.next_functions)
    return (type(node).__name__, children)


@pytest.mark.parametrize("name, fn", NODES, ids=IDS)
def test_double_backward_graph_matches_torch(name, fn, torch):
    def grads(lib):
        a, b = _inputs(lib)
        out = fn(lib, a, b)
        seed = lib.ones_like(out)
        return lib.autograd.grad(out, (a, b), seed, create_graph=True, allow_unused=True)

    ours, theirs = grads(hookgrad), grads(torch)
    for mine, expected in zip(ours, theirs):
        if expected is None:
            assert mine is None
            continue
        assert _graph(mine.grad_fn) == _graph(expected.grad_fn)


@pytest.mark.parametrize("name, fn", NODES, ids=IDS)
def test_formulas_agree_on_arrays_and_on_tensors(name, fn):
    a, b = _inputs(hookgrad)
    out = fn(hookgrad, a, b)
    seed = hookgrad.ones_like(out)
    fast = hookgrad.autograd.grad(out, (a, b), seed, retain_graph=True, allow_unused=True)
    graph = hookgrad.autograd.grad(out, (a, b), seed, create_graph=True, allow_unused=True)
    for x, y in zip(fast, graph):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(x.numpy(), y.detach().numpy(), rtol=1e-12)


# ---------------------------------------------------------------- generated variants

REAL = ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "atan", "log1p", "expm1"]


@pytest.mark.parametrize("name", REAL)
def test_out_argument_as_torch(name, torch):
    for lib in (hookgrad, torch):
        x = lib.tensor([0.25, 0.5, 0.75])
        out = lib.empty(3, dtype=lib.float64)
        assert getattr(lib, name)(x, out=out) is out
    ours, theirs = hookgrad.empty(3, dtype=hookgrad.float64), torch.empty(3, dtype=torch.float64)
    getattr(hookgrad, name)(hookgrad.tensor([0.25, 0.5, 0.75]), out=ours)
    getattr(torch, name)(torch.tensor([0.25, 0.5, 0.75]), out=theirs)
    assert_close(ours, theirs)


def test_out_argument_refuses_autograd_and_bad_casts(torch):
    for lib in (hookgrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support"):
            lib.exp(x, out=lib.empty(2))
        ints = lib.zeros(2, dtype=lib.int64)
        with pytest.raises(RuntimeError, match="result type Float can't be cast"):
            lib.exp(x.detach(), out=ints)
        assert ints.tolist() == [0, 0]


def test_out_argument_resizes_with_torchs_warning(torch):
    messages = []
    for lib in (hookgrad, torch):
        out = lib.zeros(2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.sin(lib.tensor([1.0, 2.0, 3.0]), out=out)
        assert list(out.shape) == [3]
        messages.append(str(caught[0].message).split(" (Triggered")[0])
        empty = lib.zeros(0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.sin(lib.tensor([1.0, 2.0]), out=empty)
        assert list(empty.shape) == [2]
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", REAL)
def test_inplace_variant_as_torch(name, torch):
    def run(lib):
        x = lib.tensor([0.25, 0.5, 0.75], dtype=lib.float64, requires_grad=True)
        y = x * 1.5
        getattr(y, f"{name}_")()
        y.sum().backward()
        return y, x.grad, type(y.grad_fn).__name__

    ours, theirs = run(hookgrad), run(torch)
    assert_close(ours[:2], theirs[:2])
    assert ours[2] == theirs[2]


def test_inplace_real_function_refuses_integers(torch):
    for lib in (hookgrad, torch):
        with pytest.raises(RuntimeError, match="result type Float can't be cast"):
            lib.tensor([1, 2]).exp_()


# ---------------------------------------------------------------- hook tuples


@pytest.mark.parametrize(
    "name, fn",
    [
        ("max_dim", lambda t, x: x.max(1)),
        ("min_dim", lambda t, x: t.min(x, 0)),
        ("split", lambda t, x: x.split(2, 1)),
        ("var_mean", lambda t, x: t.var_mean(x, 1)),
        ("mul", lambda t, x: (x * 2,)),
    ],
)
def test_node_hooks_see_torchs_tuples(name, fn, torch):
    """Node pre- and post-hooks receive one gradient per differentiable output and one
    per edge, with None where torch has None."""

    def run(lib):
        x = lib.tensor(np.arange(12.0).reshape(3, 4) / 7, requires_grad=True)
        first = fn(lib, x)[0]
        node = first.grad_fn
        log = []
        node.register_prehook(lambda go: log.append(("pre", [g is None for g in go])))
        node.register_hook(
            lambda gi, go: log.append(("post", [g is None for g in gi], [g is None for g in go]))
        )
        first.sum().backward()
        return type(node).__name__, log

    assert run(hookgrad) == run(torch)


def test_backward_ops_save_their_inputs_unconditionally(torch):
    """torch never skips saving for a ``*_backward`` op: a saved input changed in place
    later is an error even when its formula's input needed no gradient (fuzz seed 4242)."""
    for lib in (hookgrad, torch):
        x = lib.tensor([[0.8, -0.5], [1.4, 1.4]], requires_grad=True)
        y = x.relu()
        (g,) = lib.autograd.grad(y, x, lib.ones(2, 2), create_graph=True)
        (gg,) = lib.autograd.grad(g, x, lib.ones(2, 2), create_graph=True)
        assert type(gg.grad_fn).__name__ == "ThresholdBackwardBackward0"
        assert gg.grad_fn._saved_self is not None
        y.unsqueeze(0).copy_(lib.ones(1, 2, 2))
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            gg.backward(lib.ones(2, 2), inputs=[gg])


INDEXING_NODES = [
    ("gather", lambda t, x, s, i, m: x.gather(0, i)),
    ("scatter", lambda t, x, s, i, m: x.scatter(0, i, s[:1])),
    ("scatter_value", lambda t, x, s, i, m: x.scatter(0, i, 1.0)),
    ("scatter_add", lambda t, x, s, i, m: x.scatter_add(0, i, s[:1])),
    ("index_select", lambda t, x, s, i, m: x.index_select(0, t.tensor([0, 2]))),
    ("index_add", lambda t, x, s, i, m: x.index_add(0, t.tensor([0]), s[:1])),
    ("masked_fill", lambda t, x, s, i, m: x.masked_fill(m, 0.0)),
    ("masked_fill_tensor", lambda t, x, s, i, m: x.masked_fill(m, s[0, 0])),
    ("masked_select", lambda t, x, s, i, m: x.masked_select(m)),
    ("take", lambda t, x, s, i, m: x.take(t.tensor([0, 5]))),
    ("embedding", lambda t, x, s, i, m: t.nn.functional.embedding(t.tensor([1, 2]), s)),
]


@pytest.mark.parametrize("name, fn", INDEXING_NODES, ids=[row[0] for row in INDEXING_NODES])
def test_indices_and_masks_get_no_edge(name, fn, torch):
    """As torch's, a node has edges for its differentiable inputs only: integer indices and
    boolean masks get none, so node hooks see torch's tuples."""

    def run(lib):
        rng = np.random.default_rng(3)
        x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
        s = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
        out = fn(lib, x, s, lib.tensor([[0, 1, 2, 0]]), x > 0)
        node = out.grad_fn
        log = []
        node.register_hook(lambda gi, go: log.append([g is None for g in gi]))
        out.sum().backward()
        edges = [type(child).__name__ for child, _ in node.next_functions]
        return type(node).__name__, edges, log, x.grad, s.grad

    ours, theirs = run(hookgrad), run(torch)
    assert ours[:3] == theirs[:3]
    assert_close(ours[3:], theirs[3:])
