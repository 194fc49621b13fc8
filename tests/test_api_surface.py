"""torch's and Tensor's public names that no other test runs, against torch: aliases,
in-place variants, comparisons and logical ops, and the low-level functions torch exports
(``grid_sampler``, ``constant_pad_nd``, ``geqrf`` ...), and ``torch.norm``.

Each table row calls hookgrad's name and torch's with the same small inputs and compares
values, dtypes, node names and gradients (float32 and float64), or the exception raised;
the differentiable rows are also checked against float64 finite differences. An alias is
compared with torch's canonical op (``arccosh`` with ``acosh``). An in-place variant runs
on a clone of a leaf and on a view of one: the result must be ``self``, the version
counters must move as torch's, and the graph must be torch's (``CopySlices`` for a view).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import torch

import hookgrad
from tests.oracle import assert_close, outcome

DTYPES = ["float32", "float64"]
TOLERANCE = {"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


# ---------------------------------------------------------------- comparing results


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "_version") and hasattr(value, "detach")


def assert_same(actual: Any, expected: Any, rtol: float, atol: float) -> None:
    """Two results of the two libraries alike: tensors by shape, dtype, values and
    ``requires_grad``; nodes by class name; sequences and dicts element by element; other
    values equal."""
    if _is_tensor(expected):
        assert _is_tensor(actual), (actual, expected)
        assert actual.requires_grad == expected.requires_grad
        if expected.dtype.is_complex:
            assert str(actual.dtype) == str(expected.dtype)
            np.testing.assert_allclose(
                actual.detach().numpy(), expected.detach().numpy(), rtol, atol, equal_nan=True
            )
        else:
            assert_close(actual, expected, rtol, atol)
    elif isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e, rtol, atol)
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected)
        for key in expected:
            assert_same(actual[key], expected[key], rtol, atol)
    elif hasattr(expected, "next_functions"):
        assert type(actual).__name__ == type(expected).__name__
    else:
        assert actual == expected


def _attempt(run: Callable[[], Any]) -> Any:
    """``run()``'s result, or the error it raised as ``(type name, message)``."""
    try:
        return run()
    except Exception as error:  # noqa: BLE001 (the error is the observation)
        return ("error", type(error).__name__, str(error))


def _outputs(result: Any) -> list[Any]:
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [x for x in items if _is_tensor(x) and x.requires_grad]


def _seed(lib: Any, out: Any) -> Any:
    """A fixed random weighting of ``out``'s elements (complex for a complex ``out``)."""
    rng = np.random.default_rng(len(out.shape) + 7)
    values = rng.standard_normal(tuple(out.shape))
    if out.dtype.is_complex:
        values = values + 1j * rng.standard_normal(tuple(out.shape))
    return lib.tensor(values, dtype=out.dtype)


@dataclass(frozen=True)
class Fixed:
    """A float input that is not differentiated (random samples, a constant operand)."""

    values: np.ndarray


def leaves(lib: Any, arrays: list[Any], dtype: str) -> list[Any]:
    """Float arrays as leaves of ``dtype`` that require grad; ``Fixed`` ones as constants
    of ``dtype``; others (indices, masks) as constant tensors of their own dtype."""
    return [
        lib.tensor(a.values, dtype=getattr(lib, dtype))
        if isinstance(a, Fixed)
        else lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        if a.dtype.kind == "f"
        else lib.from_numpy(a.copy())
        for a in arrays
    ]


def forward_backward(lib: Any, fn: Callable[..., Any], arrays: list[np.ndarray], dtype: str):
    """``fn(lib, *leaves)``, its outputs' node names and the gradients of a weighted sum
    of its outputs in the leaves (or the error the backward raises)."""
    inputs = leaves(lib, arrays, dtype)
    result = fn(lib, *inputs)
    outs = _outputs(result)
    names = [type(o.grad_fn).__name__ for o in outs]
    wrt = [x for x in inputs if x.requires_grad]
    grads = _attempt(
        lambda: (
            lib.autograd.grad(outs, wrt, [_seed(lib, o) for o in outs], allow_unused=True)
            if outs
            else ()
        )
    )
    return result, names, grads


def check_against_torch(
    fn: Callable[..., Any],
    arrays: list[np.ndarray],
    dtype: str,
    reference: Callable[..., Any] | None = None,
) -> None:
    """``fn`` on hookgrad against ``reference`` (default ``fn``) on torch."""
    rtol, atol = TOLERANCE[dtype]
    actual = forward_backward(hookgrad, fn, arrays, dtype)
    expected = forward_backward(torch, reference or fn, arrays, dtype)
    assert_same(actual, expected, rtol, atol)


def check_gradients(fn: Callable[..., Any], arrays: list[np.ndarray]) -> None:
    """hookgrad's float64 gradients (and second derivatives) of ``fn`` against finite
    differences."""
    inputs = leaves(hookgrad, arrays, "float64")
    wrt = [x for x in inputs if x.requires_grad]

    def function(*differentiable: Any) -> Any:
        it = iter(differentiable)
        args = [next(it) if x.requires_grad else x for x in inputs]
        return tuple(o for o in _outputs(fn(hookgrad, *args)))

    assert hookgrad.autograd.gradcheck(function, tuple(wrt))


def check_outcome(case: Callable[[Any], Any], canonical: Callable[[Any], Any] | None) -> None:
    """The same result (or error) from hookgrad and torch; for an alias, torch's alias and
    torch's canonical op give it too."""
    expected = outcome(case, torch)
    assert outcome(case, hookgrad) == expected
    if canonical is not None:
        assert outcome(canonical, torch) == expected


# ---------------------------------------------------------------- differentiable aliases


@dataclass(frozen=True)
class Alias:
    """``name`` is torch's alias of ``canonical``: both called as
    ``f(*tensors, *extra, **kwargs)`` (``listed``: ``f([*tensors], ...)``), and as a
    method when torch has one."""

    name: str
    canonical: str
    shapes: tuple[tuple[int, ...], ...]
    extra: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    low: float = -2.0
    high: float = 2.0
    method: bool = True
    listed: bool = False
    gradcheck: bool = True
    id: str = ""

    def arrays(self) -> list[np.ndarray]:
        rng = _rng(self.name + self.id)
        return [rng.uniform(self.low, self.high, shape) for shape in self.shapes]

    def call(self, function: Callable[..., Any], tensors: tuple[Any, ...]) -> Any:
        if self.listed:
            return function(list(tensors), *self.extra, **self.kwargs)
        return function(*tensors, *self.extra, **self.kwargs)

    def forms(self, name: str) -> dict[str, Callable[..., Any]]:
        """How to run ``name`` (this alias or its canonical op): function and method."""
        forms = {"function": lambda lib, *xs: self.call(getattr(lib, name), xs)}
        if self.method:
            forms["method"] = lambda lib, x, *xs: self.call(getattr(x, name), (x, *xs)[1:])
        return forms


ALIASES = [
    Alias("arccosh", "acosh", ((2, 3),), low=1.2, high=3.0),
    Alias("arcsin", "asin", ((2, 3),), low=-0.9, high=0.9),
    Alias("arcsinh", "asinh", ((2, 3),)),
    Alias("arctan", "atan", ((2, 3),)),
    Alias("arctanh", "atanh", ((2, 3),), low=-0.9, high=0.9),
    Alias("arctan2", "atan2", ((2, 3), (3,))),
    Alias("divide", "div", ((2, 3), (2, 3)), low=0.5),
    Alias("divide", "div", ((2, 3), (3,)), kwargs={"rounding_mode": "floor"}, id="floor"),
    Alias("divide", "div", ((2, 3),), extra=(0.7,), kwargs={"rounding_mode": "trunc"}, id="t"),
    Alias("true_divide", "div", ((2, 3), (1, 3)), low=0.5),
    Alias("multiply", "mul", ((2, 3), (2, 1))),
    Alias("multiply", "mul", ((2, 3),), extra=(2.5,), id="number"),
    Alias("subtract", "sub", ((2, 3), (3,)), kwargs={"alpha": 2}),
    Alias("subtract", "sub", ((2, 3),), extra=(1.5,), id="number"),
    Alias("moveaxis", "movedim", ((2, 3, 4),), extra=((0, 1), (2, 0))),
    Alias("moveaxis", "movedim", ((2, 3, 4),), extra=(-1, 0), id="int"),
    Alias("row_stack", "vstack", ((3,), (2, 3)), method=False, listed=True),
]
ALIAS_IDS = [f"{row.name}{'_' + row.id if row.id else ''}" for row in ALIASES]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("row", ALIASES, ids=ALIAS_IDS)
def test_alias_gives_torchs_canonical_op(row, dtype):
    canonical = row.forms(row.canonical)
    for form, function in row.forms(row.name).items():
        check_against_torch(function, row.arrays(), dtype, canonical[form])
        # torch's own alias agrees with its canonical op (what the row claims)
        check_against_torch(canonical[form], row.arrays(), dtype, function)


@pytest.mark.parametrize("row", [r for r in ALIASES if r.gradcheck], ids=ALIAS_IDS)
def test_alias_gradcheck(row):
    check_gradients(row.forms(row.name)["function"], row.arrays())


# ---------------------------------------------------------------- comparisons, logical, bitwise

A = np.array([[0.25, -1.5, 0.0], [2.0, -0.5, 3.0]])
INTS = np.array([[1, -2, 0], [0, 5, -6]])
BOOLS = np.array([True, False, True])


def _t(lib: Any, values: Any, dtype: str | None = None) -> Any:
    return lib.tensor(values, dtype=None if dtype is None else getattr(lib, dtype))


# (id, case, the same case with torch's canonical op or None)
OUTCOMES = [
    ("ge", lambda t: t.ge(_t(t, A), 0.1), lambda t: t.greater_equal(_t(t, A), 0.1)),
    ("ge_method_ints", lambda t: _t(t, INTS).ge(_t(t, A)), None),
    ("ge_complex", lambda t: t.ge(_t(t, [1j]), 0), None),
    ("le", lambda t: t.le(_t(t, INTS), _t(t, [0.5, -2.0, 1.0])), None),
    ("le_method", lambda t: _t(t, A).le(0), lambda t: _t(t, A).less_equal(0)),
    ("less", lambda t: t.less(_t(t, INTS), 1), lambda t: t.lt(_t(t, INTS), 1)),
    ("less_method", lambda t: _t(t, A).less(_t(t, A).T[0]), None),
    (
        "ne",
        lambda t: t.ne(_t(t, INTS), _t(t, [1, 5, -6])),
        lambda t: t.not_equal(_t(t, INTS), _t(t, [1, 5, -6])),
    ),
    ("ne_method_complex", lambda t: _t(t, [1j, 0]).ne(0), None),
    ("logical_and", lambda t: t.logical_and(_t(t, A), _t(t, INTS)), None),
    ("logical_and_bools", lambda t: _t(t, BOOLS).logical_and(_t(t, [1.0, 1.0, 0.0])), None),
    ("logical_and_out", lambda t: t.logical_and(_t(t, A), _t(t, INTS), out=t.empty(2, 3)), None),
    ("logical_and_number", lambda t: t.logical_and(_t(t, A), 1), None),
    ("logical_or", lambda t: t.logical_or(_t(t, INTS), _t(t, BOOLS)), None),
    ("logical_or_method", lambda t: _t(t, A).logical_or(_t(t, [0.0, 0.0, 1.0])), None),
    ("logical_xor", lambda t: t.logical_xor(_t(t, INTS), _t(t, [0.0, 1.0, 2.0])), None),
    (
        "logical_xor_out",
        lambda t: t.logical_xor(_t(t, A), _t(t, A), out=t.empty(0, dtype=t.int32)),
        None,
    ),
    ("logical_not", lambda t: t.logical_not(_t(t, INTS)), None),
    ("logical_not_complex", lambda t: _t(t, [0j, 1j]).logical_not(), None),
    ("logical_not_out", lambda t: t.logical_not(_t(t, A), out=t.empty(2, 3, dtype=t.int64)), None),
    ("logical_not_number", lambda t: t.logical_not(3), None),
    ("bitwise_not", lambda t: t.bitwise_not(_t(t, INTS)), None),
    (
        "bitwise_not_bool",
        lambda t: _t(t, BOOLS).bitwise_not(),
        lambda t: _t(t, BOOLS).logical_not(),
    ),
    ("bitwise_not_uint8", lambda t: t.bitwise_not(_t(t, [1, 200], "uint8")), None),
    ("bitwise_not_float", lambda t: t.bitwise_not(_t(t, A)), None),
    ("bitwise_not_complex", lambda t: _t(t, [1j]).bitwise_not(), None),
    ("bitwise_and_float", lambda t: t.bitwise_and(_t(t, A), _t(t, A)), None),
    # integer division: integers stay integers and refuse a zero divisor
    ("floor_divide_ints", lambda t: t.floor_divide(_t(t, [5, -7, 7]), _t(t, [2, 2, -3])), None),
    ("floor_divide_operator", lambda t: (_t(t, [5, -7]) // 2, 7 // _t(t, [2, -3])), None),
    ("floor_divide_int32", lambda t: t.floor_divide(_t(t, [5, -7], "int32"), 2), None),
    (
        "floor_divide_float",
        lambda t: _t(t, A).floor_divide(0.7),
        lambda t: t.div(_t(t, A), 0.7, rounding_mode="floor"),
    ),
    ("floor_divide_zero", lambda t: t.floor_divide(_t(t, [5, -7]), 0), None),
    ("floor_divide_float_zero", lambda t: t.floor_divide(_t(t, [5.0, -1.0]), 0), None),
    ("floor_divide_bool", lambda t: t.floor_divide(_t(t, BOOLS), _t(t, BOOLS)), None),
    ("floor_divide_complex", lambda t: t.floor_divide(_t(t, [5j]), 2), None),
    ("divide_int_floor_zero", lambda t: t.divide(_t(t, [5, -7]), 0, rounding_mode="floor"), None),
    (
        "divide_int_trunc_zero",
        lambda t: t.div(_t(t, [5, -7]), _t(t, [1, 0]), rounding_mode="trunc"),
        None,
    ),
    (
        "divide_bool_trunc",
        lambda t: t.divide(_t(t, BOOLS), _t(t, BOOLS), rounding_mode="trunc"),
        None,
    ),
    ("divide_ints", lambda t: t.divide(_t(t, INTS), 4), lambda t: t.div(_t(t, INTS), 4)),
    ("true_divide_ints", lambda t: _t(t, INTS).true_divide(_t(t, INTS) + 10), None),
    ("remainder_int_zero", lambda t: t.remainder(_t(t, [5, -7]), 0), None),
    ("remainder_bool", lambda t: t.remainder(_t(t, BOOLS), _t(t, BOOLS)), None),
    ("multiply_bools", lambda t: t.multiply(_t(t, BOOLS), _t(t, [True, True, False])), None),
    ("subtract_bools", lambda t: t.subtract(_t(t, BOOLS), _t(t, BOOLS)), None),
    ("moveaxis_strides", lambda t: t.moveaxis(t.zeros(2, 3, 4), 0, -1).stride(), None),
    ("moveaxis_repeated", lambda t: t.moveaxis(t.zeros(2, 3), (0, 0), (0, 1)), None),
    ("row_stack_promotes", lambda t: t.row_stack([_t(t, [1, 2]), _t(t, [3.0, 4.0])]), None),
]


@pytest.mark.parametrize("case,canonical", [c[1:] for c in OUTCOMES], ids=[c[0] for c in OUTCOMES])
def test_same_outcome_as_torch(case, canonical):
    check_outcome(case, canonical)


# floor_divide (and heaviside) have no derivative in torch: the node is ``NotImplemented``,
# with an edge for each input that requires grad, and its backward raises.
NO_DERIVATIVE_GRAPHS = [
    ("tensor_number", lambda t, x, y: t.floor_divide(x, 0.7)),
    ("number_tensor", lambda t, x, y: 3.0 // x),
    ("constant_other", lambda t, x, y: x // y.detach()),
    ("constant_self", lambda t, x, y: t.floor_divide(x.detach(), y)),
    ("both", lambda t, x, y: x.floor_divide(y)),
    ("inplace", lambda t, x, y: (x * 1).floor_divide_(y.detach())),
    ("inplace_other", lambda t, x, y: x.detach().clone().floor_divide_(y)),
    ("heaviside_constant_values", lambda t, x, y: t.heaviside(x, y.detach())),
    ("heaviside_constant_input", lambda t, x, y: t.heaviside(x.detach(), y)),
    ("heaviside_inplace", lambda t, x, y: (x * 1).heaviside_(y.detach())),
]


@pytest.mark.parametrize(
    "fn", [c[1] for c in NO_DERIVATIVE_GRAPHS], ids=[c[0] for c in NO_DERIVATIVE_GRAPHS]
)
def test_no_derivative_graph(fn):
    def graph(lib):
        x = lib.tensor([1.5, -2.0], requires_grad=True)
        y = lib.tensor([0.7, 0.3], requires_grad=True)
        out = fn(lib, x, y)
        node = out.grad_fn
        edges = [None if n is None else type(n).__name__ for n, _ in node.next_functions]
        error = _attempt(lambda: out.sum().backward())
        return type(node).__name__, node.name(), edges, out.detach().tolist(), error

    assert graph(hookgrad) == graph(torch)


# ---------------------------------------------------------------- in-place variants


@dataclass(frozen=True)
class Inplace:
    """``name`` run in place on ``self`` (values in ``[low, high]``) with the arguments
    ``args(lib, dtype)`` (tensors among them may require grad); ``canonical`` is torch's
    name of the same op when ``name`` is an alias. ``function``: torch has
    ``torch.<name>`` as well as the method."""

    name: str
    args: Callable[[Any, Any], tuple[Any, ...]] = lambda lib, dtype: ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    canonical: str | None = None
    low: float = -2.0
    high: float = 2.0
    function: bool = True
    shape: tuple[int, ...] = (3, 4)
    gradcheck: bool = True

    def self_values(self) -> np.ndarray:
        return _rng(self.name).uniform(self.low, self.high, self.shape)

    def call(self, lib: Any, target: Any, args: tuple[Any, ...], form: str, canonical: bool) -> Any:
        name = self.canonical if canonical and self.canonical else self.name
        if form == "function":
            return getattr(lib, name)(target, *args, **self.kwargs)
        return getattr(target, name)(*args, **self.kwargs)


def _arg(values: Any, requires_grad: bool = True) -> Callable[[Any, Any], Any]:
    """An argument tensor of the row's dtype (a leaf that requires grad by default)."""
    return lambda lib, dtype: lib.tensor(values, dtype=dtype, requires_grad=requires_grad)


_OTHER = np.array([[0.75], [-1.25], [1.5]])  # broadcasts to the tensor and to its view
INPLACE = [
    Inplace("acos_", low=-0.9, high=0.9),
    Inplace("arccos_", canonical="acos_", low=-0.9, high=0.9),
    Inplace("asin_", low=-0.9, high=0.9),
    Inplace("arcsin_", canonical="asin_", low=-0.9, high=0.9),
    Inplace("atan_"),
    Inplace("arctan_", canonical="atan_"),
    Inplace("cos_"),
    Inplace("cosh_"),
    Inplace("sinh_"),
    Inplace("tan_", low=-1.2, high=1.2),
    Inplace("erfc_"),
    Inplace("exp2_"),
    Inplace("expm1_"),
    Inplace("log10_", low=0.5, high=3.0),
    Inplace("log1p_", low=-0.5, high=2.0),
    Inplace("log2_", low=0.5, high=3.0),
    Inplace("reciprocal_", low=0.5, high=3.0),
    Inplace("rsqrt_", low=0.5, high=3.0),
    Inplace("negative_", canonical="neg_"),
    Inplace("logit_", low=0.1, high=0.9),
    Inplace("logit_", args=lambda lib, dtype: (0.25,), low=0.0, high=1.0, gradcheck=False),
    Inplace("clip_", args=lambda lib, dtype: (-0.55, 0.95), canonical="clamp_"),
    # torch gives the in-place inverse hyperbolic functions no derivative
    Inplace("acosh_", low=1.2, high=3.0, gradcheck=False),
    Inplace("arccosh_", canonical="acosh_", low=1.2, high=3.0, gradcheck=False),
    Inplace("asinh_", gradcheck=False),
    Inplace("arcsinh_", canonical="asinh_", gradcheck=False),
    Inplace("atanh_", low=-0.9, high=0.9, gradcheck=False),
    Inplace("arctanh_", canonical="atanh_", low=-0.9, high=0.9, gradcheck=False),
    # methods only
    Inplace("absolute_", canonical="abs_", low=0.2, function=False),
    Inplace("triu_", args=lambda lib, dtype: (-1,), function=False),
    Inplace(
        "divide_",
        args=lambda lib, dtype: (_arg(_OTHER)(lib, dtype),),
        canonical="div_",
        function=False,
    ),
    Inplace(
        "divide_",
        args=lambda lib, dtype: (_arg(_OTHER)(lib, dtype),),
        kwargs={"rounding_mode": "trunc"},
        function=False,
        gradcheck=False,
    ),
    Inplace("true_divide_", args=lambda lib, dtype: (0.7,), canonical="div_", function=False),
    Inplace(
        "multiply_",
        args=lambda lib, dtype: (_arg(_OTHER)(lib, dtype),),
        canonical="mul_",
        function=False,
    ),
    Inplace(
        "subtract_",
        args=lambda lib, dtype: (_arg(_OTHER)(lib, dtype),),
        canonical="sub_",
        function=False,
    ),
    Inplace(
        "remainder_", args=lambda lib, dtype: (_arg(_OTHER)(lib, dtype),), low=0.1, function=False
    ),
    Inplace("floor_divide_", args=lambda lib, dtype: (0.7,), function=False, gradcheck=False),
    Inplace(
        "index_copy_",
        args=lambda lib, dtype: (1, lib.tensor([2, 0]), _arg(np.ones((3, 2)) * 0.5)(lib, dtype)),
        function=False,
    ),
    Inplace("index_fill_", args=lambda lib, dtype: (1, lib.tensor([2, 0]), -1.5), function=False),
    Inplace(
        "index_fill_",
        args=lambda lib, dtype: (0, lib.tensor([1]), _arg(0.25)(lib, dtype)),
        function=False,
    ),
    Inplace(
        "put_",
        args=lambda lib, dtype: (lib.tensor([5, 0, 5]), _arg([1.0, 2.0, 3.0])(lib, dtype), True),
        function=False,
    ),
    Inplace(
        "put_",
        args=lambda lib, dtype: (lib.tensor([7, 1]), _arg([1.0, 2.0])(lib, dtype)),
        function=False,
    ),
]
INPLACE_IDS = [f"{row.name}{k}" for k, row in enumerate(INPLACE)]


def _inplace_run(lib: Any, row: Inplace, dtype: str, form: str, on_view: bool, canonical: bool):
    """The observations of one in-place call on a clone of a leaf (or on a strided view
    of it, a 3 x 3 block)."""
    leaf = lib.tensor(row.self_values(), dtype=getattr(lib, dtype), requires_grad=True)
    args = row.args(lib, getattr(lib, dtype))
    base = leaf.clone()
    target = base[:, 1:] if on_view else base
    before = (base._version, target._version)
    out = row.call(lib, target, args, form, canonical)
    observed = [
        out is target,
        base._version - before[0],
        target._version - before[1],
        type(base.grad_fn).__name__,
        base.detach().clone(),
    ]
    wrt = [leaf, *[a for a in args if _is_tensor(a) and a.requires_grad]]
    seed = _seed(lib, base)
    observed.append(_attempt(lambda: lib.autograd.grad(base, wrt, seed, allow_unused=True)))
    return observed


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("row", INPLACE, ids=INPLACE_IDS)
def test_inplace_variant_matches_torch(row, dtype):
    rtol, atol = TOLERANCE[dtype]
    forms = ["method", "function"] if row.function else ["method"]
    for form in forms:
        for on_view in (False, True):
            actual = _inplace_run(hookgrad, row, dtype, form, on_view, canonical=False)
            expected = _inplace_run(torch, row, dtype, form, on_view, canonical=True)
            assert_same(actual, expected, rtol, atol)
            if row.canonical:  # torch's alias is its canonical op
                alias = _inplace_run(torch, row, dtype, form, on_view, canonical=False)
                assert_same(alias, expected, rtol, atol)


@pytest.mark.parametrize(
    "row",
    [r for r in INPLACE if r.gradcheck],
    ids=[i for r, i in zip(INPLACE, INPLACE_IDS) if r.gradcheck],
)
def test_inplace_variant_gradcheck(row):
    def fn(lib, x, *tensors):
        it = iter(tensors)
        args = [
            next(it) if _is_tensor(a) and a.requires_grad else a for a in row.args(lib, x.dtype)
        ]
        return row.call(lib, x.clone(), tuple(args), "method", canonical=False)

    template = row.args(hookgrad, hookgrad.float64)
    extra = [a.detach().numpy() for a in template if _is_tensor(a) and a.requires_grad]
    check_gradients(fn, [row.self_values(), *extra])


@pytest.mark.parametrize(
    "name", sorted({row.name for row in INPLACE if not row.args(torch, torch.float32)})
)
def test_inplace_variant_of_an_integer_tensor(name):
    """A float result cannot be written into an integer tensor: torch's error, and the
    tensor is left as it was."""

    def case(lib):
        x = lib.tensor([1, 2, 3])
        result = _attempt(lambda: getattr(x, name)())
        return result if isinstance(result, tuple) else result is x, x.tolist(), x._version

    assert case(hookgrad) == case(torch)


# ---------------------------------------------------------------- other functions of torch


GRID = np.array([[[[-0.9, 0.3], [0.55, -0.2], [0.1, 0.85]]]])  # (N, H, W, 2): 1 x 1 x 3
IMAGE = np.arange(16.0).reshape(1, 1, 4, 4) / 7 - 1
VOLUME = np.arange(8.0).reshape(1, 1, 2, 2, 2) / 5
GRID_3D = np.array([[[[[-0.7, 0.2, 0.4], [0.6, -0.3, -0.8]]]]])  # (N, D, H, W, 3)
THETA = np.array([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.25]]])
SQUARE = np.array([[1.5, 0.2, -0.3], [0.1, 1.2, 0.4], [-0.2, 0.3, 0.9], [0.5, -0.4, 0.6]])

# (id, fn(lib, *tensors), inputs: float arrays require grad, others are constants)
FUNCTIONS = [
    ("grid_sampler_bilinear", lambda t, x, g: t.grid_sampler(x, g, 0, 0, False), [IMAGE, GRID]),
    (
        "grid_sampler_nearest_border",
        lambda t, x, g: t.grid_sampler(x, g, 1, 1, True),
        [IMAGE, GRID],
    ),
    ("grid_sampler_3d_input", lambda t, x, g: t.grid_sampler(x, g, 0, 2, False), [VOLUME, GRID_3D]),
    ("grid_sampler_2d", lambda t, x, g: t.grid_sampler_2d(x, g, 0, 2, True), [IMAGE, GRID]),
    (
        "grid_sampler_2d_bicubic",
        lambda t, x, g: t.grid_sampler_2d(x, g, 2, 1, False),
        [IMAGE, GRID],
    ),
    ("grid_sampler_3d", lambda t, x, g: t.grid_sampler_3d(x, g, 0, 0, True), [VOLUME, GRID_3D]),
    (
        "affine_grid_generator",
        lambda t, a: t.affine_grid_generator(a, [1, 1, 2, 3], False),
        [THETA],
    ),
    (
        "affine_grid_generator_3d",
        lambda t, a: t.affine_grid_generator(a, [1, 1, 2, 2, 3], True),
        [np.concatenate([THETA, THETA[:, :1] * 0.5], 1)[:, :, [0, 1, 2, 2]]],
    ),
    ("constant_pad_nd", lambda t, x: t.constant_pad_nd(x, (1, 2), 0.5), [SQUARE]),
    ("constant_pad_nd_crop", lambda t, x: t.constant_pad_nd(x, [-1, 1, 1, -2]), [SQUARE]),
    ("orgqr", lambda t, a, tau: t.orgqr(a, tau), [SQUARE, np.array([1.2, 0.5, 1.7])]),
    ("orgqr_method", lambda t, a, tau: a.orgqr(tau), [SQUARE, np.array([0.3, 1.1, 0.0])]),
    ("orgqr_of_geqrf", lambda t, a: t.orgqr(*t.geqrf(a)), [SQUARE]),  # geqrf: no derivative
    ("geqrf", lambda t, a: t.geqrf(a), [SQUARE]),
    ("geqrf_method", lambda t, a: a.T.geqrf(), [SQUARE]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,inputs", [c[1:] for c in FUNCTIONS], ids=[c[0] for c in FUNCTIONS])
def test_function_matches_torch(fn, inputs, dtype):
    check_against_torch(fn, inputs, dtype)


@pytest.mark.parametrize(
    "fn,inputs",
    [c[1:] for c in FUNCTIONS if "geqrf" not in c[0]],
    ids=[c[0] for c in FUNCTIONS if "geqrf" not in c[0]],
)
def test_function_gradcheck(fn, inputs):
    check_gradients(fn, inputs)


FUNCTION_ERRORS = [
    ("constant_pad_nd_odd", lambda t: t.constant_pad_nd(t.zeros(2, 3), (1, 2, 3))),
    ("constant_pad_nd_long", lambda t: t.constant_pad_nd(t.zeros(2, 3), (1,) * 6)),
    ("constant_pad_nd_float", lambda t: t.constant_pad_nd(t.zeros(2, 3), [1.5, 1])),
    ("constant_pad_nd_tensor", lambda t: t.constant_pad_nd(t.zeros(2, 3), t.tensor([1, 1]))),
    ("constant_pad_nd_complex", lambda t: t.constant_pad_nd(t.zeros(2), (1, 1), 1j)),
    ("constant_pad_nd_ints", lambda t: t.constant_pad_nd(t.tensor([1, 2]), (1, 1), value=1.7)),
    ("constant_pad_nd_crop_all", lambda t: t.constant_pad_nd(t.zeros(2, 3), (-3, -1))),
    ("geqrf_vector", lambda t: t.geqrf(t.zeros(3))),
    ("orgqr_dtypes", lambda t: t.orgqr(t.tensor(SQUARE), t.tensor([0.5, 1.2], dtype=t.float32))),
    (
        "affine_grid_generator_size",
        lambda t: t.affine_grid_generator(t.tensor(THETA), [1, 1, 2], False),
    ),
    (
        "affine_grid_generator_batch",
        lambda t: t.affine_grid_generator(t.tensor(THETA), [2, 1, 2, 2], False),
    ),
    (
        "affine_grid_generator_3d_theta",
        lambda t: t.affine_grid_generator(t.tensor(THETA), [1, 1, 2, 2, 2], False),
    ),
    (
        "affine_grid_generator_matrix",
        lambda t: t.affine_grid_generator(t.tensor(THETA[0]), [1, 1, 2, 2], False),
    ),
]


@pytest.mark.parametrize(
    "case", [c[1] for c in FUNCTION_ERRORS], ids=[c[0] for c in FUNCTION_ERRORS]
)
def test_function_outcome_as_torch(case):
    check_outcome(case, None)


def test_embedding_renorm_():
    """Rows picked by the indices are scaled down to ``max_norm`` in place; torch's node
    has no derivative, and a leaf that requires grad is refused outside ``no_grad``."""

    def case(lib, dtype):
        weight = lib.arange(12.0, dtype=dtype).reshape(4, 3)
        version = weight._version
        out = lib.embedding_renorm_(weight, lib.tensor([0, 2, 2]), 5.0, 2.0)
        tracked = lib.arange(12.0, dtype=dtype).reshape(4, 3).requires_grad_() * 1
        lib.embedding_renorm_(tracked, lib.tensor([3]), 1.0, 1.0)
        leaf = lib.ones(2, 3, dtype=dtype, requires_grad=True)
        with lib.no_grad():
            lib.embedding_renorm_(leaf, lib.tensor([1]), 1.0, 2.0)
        return [
            out is weight,
            weight._version - version,
            weight,
            type(tracked.grad_fn).__name__,
            [type(n).__name__ for n, _ in tracked.grad_fn.next_functions],
            tracked.detach(),
            _attempt(lambda: tracked.sum().backward()),
            leaf.detach(),
            _attempt(lambda: lib.embedding_renorm_(leaf, lib.tensor([0]), 1.0, 2.0)),
        ]

    for dtype in DTYPES:
        expected = case(torch, getattr(torch, dtype))
        assert_same(case(hookgrad, getattr(hookgrad, dtype)), expected, *TOLERANCE[dtype])


def test_default_generator_is_torchs_cpu_generator():
    """``default_generator`` is the generator the global seed sets and the random
    functions draw from: seeded, it gives torch's numbers and torch's state."""

    def case(lib):
        state = lib.get_rng_state()
        try:
            generator = lib.default_generator
            generator.manual_seed(7)
            first = lib.rand(3)
            lib.manual_seed(11)
            seeds = (generator.initial_seed(), generator is lib.default_generator)
            draws = lib.randn(2, generator=generator)
            saved = generator.get_state()
            again = lib.rand(2)
            generator.set_state(saved)
            return [type(generator).__name__, first, seeds, draws, again, lib.rand(2), saved]
        finally:
            lib.set_rng_state(state)

    assert_same(case(hookgrad), case(torch), 0.0, 0.0)


def test_set_anomaly_enabled():
    """``set_anomaly_enabled(mode, check_nan=True)`` switches anomaly detection, which then
    names the node whose backward returned NaN."""

    def case(lib):
        seen = []
        try:
            lib.set_anomaly_enabled(True, False)
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            lib.set_anomaly_enabled(True)
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            x = lib.tensor([0.0, 1.0], requires_grad=True)
            with warnings.catch_warnings():  # the forward's traceback, as a warning
                warnings.simplefilter("ignore")
                seen.append(_attempt(lambda: (x / x).sum().backward())[:2])
        finally:
            lib.set_anomaly_enabled(False)
        seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        return seen

    actual, expected = case(hookgrad), case(torch)
    assert actual == expected
    assert expected[2] == ("error", "RuntimeError")


# ---------------------------------------------------------------- torch.norm and Tensor.norm

MATRIX = np.array([[1.5, -0.2, 0.3, 0.8], [0.1, 1.2, -0.4, 0.5], [-0.7, 0.3, 0.9, -1.1]])
BATCH = np.stack([MATRIX, _rng("batch").uniform(-1.0, 1.0, (3, 4))])

NORMS = [
    ("nuc", lambda t, x: t.norm(x, "nuc"), [MATRIX]),
    ("nuc_method_keepdim", lambda t, x: x.norm("nuc", keepdim=True), [MATRIX]),
    ("nuc_dims", lambda t, x: t.norm(x, "nuc", dim=(0, 2)), [BATCH]),
    ("nuc_dims_keepdim", lambda t, x: x.norm(p="nuc", dim=[2, 1], keepdim=True), [BATCH]),
    ("fro_two_dims", lambda t, x: t.norm(x, "fro", (0, 2)), [BATCH]),
    ("fro_one_dim", lambda t, x: x.norm("fro", 1), [BATCH]),
    ("fro_default", lambda t, x: x.norm(), [BATCH]),
    ("none", lambda t, x: t.norm(x, None, 1), [MATRIX]),
    ("p3_list_dim", lambda t, x: t.norm(x, 3, [0, 1]), [BATCH]),
    ("inf", lambda t, x: x.norm(math.inf, -1), [MATRIX]),
    ("dtype", lambda t, x: x.float().norm(2, 1, False, t.float64), [MATRIX]),
    ("nuc_dtype", lambda t, x: t.norm(x.float(), "nuc", dtype=t.float64), [MATRIX]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,inputs", [c[1:] for c in NORMS], ids=[c[0] for c in NORMS])
def test_norm_matches_torch(fn, inputs, dtype):
    check_against_torch(fn, inputs, dtype)


@pytest.mark.parametrize("fn,inputs", [c[1:] for c in NORMS[:5]], ids=[c[0] for c in NORMS[:5]])
def test_norm_gradcheck(fn, inputs):
    check_gradients(fn, inputs)


NORM_OUTCOMES = [
    ("nuc_3d", lambda t: t.norm(t.tensor(BATCH), "nuc")),
    ("nuc_vector", lambda t: t.norm(t.tensor(MATRIX[0]), "nuc")),
    ("nuc_one_dim", lambda t: t.norm(t.tensor(BATCH), "nuc", [0])),
    ("nuc_same_dims", lambda t: t.tensor(BATCH).norm("nuc", (1, -2))),
    ("nuc_ints", lambda t: t.norm(t.tensor([[1, 2], [3, 4]]), "nuc")),
    ("nuc_complex", lambda t: t.norm(t.tensor(MATRIX) * 1j, "nuc")),
    ("fro_three_dims", lambda t: t.norm(t.tensor(BATCH), "fro", (0, 1, 2))),
    ("other_string", lambda t: t.norm(t.tensor(MATRIX), "abc")),
    ("ints", lambda t: t.norm(t.tensor([1, 2]))),
    ("narrowing_dtype", lambda t: t.tensor(MATRIX).norm("fro", dtype=t.float32)),
    ("integer_dtype", lambda t: t.tensor(MATRIX).norm(2, 1, False, t.int64)),
    ("out", lambda t: t.norm(t.tensor(MATRIX), 2, 1, False, t.empty(0, dtype=t.float64))),
    ("out_dtype", lambda t: t.norm(t.tensor(MATRIX), 2, 1, False, t.empty(3))),
    ("nuc_out", lambda t: t.norm(t.tensor(MATRIX), "nuc", out=t.empty((), dtype=t.float64))),
    ("nuc_out_dtype", lambda t: t.norm(t.tensor(MATRIX), "nuc", out=t.empty(()))),
    ("linalg_norm_out_dtype", lambda t: t.linalg.norm(t.tensor(MATRIX), out=t.empty(()))),
    ("functional", lambda t: t.functional.norm(t.tensor(MATRIX), "nuc")),
]


@pytest.mark.parametrize("case", [c[1] for c in NORM_OUTCOMES], ids=[c[0] for c in NORM_OUTCOMES])
def test_norm_outcome_as_torch(case):
    check_outcome(case, None)


def test_nuclear_norm_graph_is_torchs():
    """``norm(x, 'nuc')`` is torch's composite: singular values, then their sum."""

    def names(lib):
        x = lib.tensor(BATCH, requires_grad=True)
        node, seen = x.norm("nuc", dim=(0, 2)).grad_fn, []
        while node is not None and type(node).__name__ != "AccumulateGrad":
            seen.append(type(node).__name__)
            node = node.next_functions[0][0]
        return seen

    assert names(hookgrad) == names(torch)
