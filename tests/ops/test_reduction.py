"""Reductions beyond the op table: ties, zeros, non-differentiable points, node names,
return types, result dtypes and errors, each compared with torch."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, outcome

NAN = float("nan")
INF = float("inf")


def _first_float(result):
    outs = result if isinstance(result, tuple) else (result,)
    return next(o for o in outs if o.dtype.is_floating_point)


def _weights(lib, y):
    """Distinct weights for the output elements, so misplaced gradients show."""
    return lib.arange(1, y.numel() + 1, dtype=lib.float64).reshape(tuple(y.shape))


def _grad(lib, fn, data, create_graph=False):
    x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
    y = _first_float(fn(lib, x))
    (g,) = lib.autograd.grad((y * _weights(lib, y)).sum(), x, create_graph=create_graph)
    return x, y, g


def _hessian_vector(lib, fn, data):
    """The gradient of ``sum(w2 * grad)``: one row mix of the Hessian."""
    x, _, g = _grad(lib, fn, data, create_graph=True)
    w2 = lib.tensor(np.linspace(-1.0, 2.0, g.numel()).reshape(tuple(g.shape)))
    (h,) = lib.autograd.grad((g * w2).sum(), x, allow_unused=True)
    return h if h is not None else lib.zeros_like(x)


def _compare(torch, fn, data, second_order=False):
    _, y, g = _grad(hookgrad, fn, data)
    _, expected_y, expected_g = _grad(torch, fn, data)
    assert_close(y, expected_y, 1e-10, 1e-12)
    assert_close(g, expected_g, 1e-10, 1e-12)
    if second_order:
        assert_close(
            _hessian_vector(hookgrad, fn, data), _hessian_vector(torch, fn, data), 1e-10, 1e-12
        )


# ---------------------------------------------------------------- ties


TIES = [1.0, 3.0, 3.0, -2.0, 3.0, 0.5]
TIES_2D = [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0], [-1.0, -1.0, -1.0]]


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, x: x.max(),
        lambda t, x: x.min(),
        lambda t, x: x.max(0),
        lambda t, x: x.min(0),
        lambda t, x: t.max(x.reshape(2, 3), 1, keepdim=True),
        lambda t, x: x.amax(),
        lambda t, x: x.amin(0),
        lambda t, x: x.reshape(3, 2).amax(1),
        lambda t, x: x.median(),
        lambda t, x: x.norm(p=INF),
        lambda t, x: (x - 1).norm(p=-INF),
    ],
    ids=[
        "max",
        "min",
        "max_dim",
        "min_dim",
        "max_keepdim",
        "amax",
        "amin_dim",
        "amax_rows",
        "median",
        "norm_inf",
        "norm_neg_inf",
    ],
)
def test_ties_match_torch(fn, torch):
    _compare(torch, fn, TIES)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, x: x.max(1),
        lambda t, x: x.min(0),
        lambda t, x: x.amax(1),
        lambda t, x: x.amin((0, 1)),
        lambda t, x: x.amax(0, keepdim=True),
        lambda t, x: x.median(1),
        lambda t, x: x.max(),
    ],
)
def test_ties_2d_match_torch(fn, torch):
    _compare(torch, fn, TIES_2D)


def test_full_max_splits_ties_evenly():
    x = hookgrad.tensor([1.0, 3.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == pytest.approx([0.0, 1 / 3, 1 / 3, 1 / 3])


def test_max_along_dim_grad_goes_to_first_occurrence():
    x = hookgrad.tensor([[2.0, 5.0, 5.0], [7.0, 7.0, 1.0]], requires_grad=True)
    values, indices = x.max(1)
    assert indices.tolist() == [1, 0]
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_nan_wins_max_and_gets_the_gradient(torch):
    data = [1.0, NAN, 3.0, NAN]
    _compare(torch, lambda t, x: x.max(), data)
    _compare(torch, lambda t, x: x.max(0), data)
    _compare(torch, lambda t, x: x.min(0), data)
    _compare(torch, lambda t, x: x.median(0), data)


# ---------------------------------------------------------------- zeros: prod, cumprod


ZEROS = {
    "none": [[1.5, -2.0, 0.5], [3.0, 1.0, -1.0]],
    "one": [[1.5, 0.0, 0.5], [3.0, 1.0, -1.0]],
    "two_in_a_row": [[0.0, -2.0, 0.0], [3.0, 0.0, -1.0]],
    "all": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
}
PRODUCTS = {
    "prod": lambda t, x: x.prod(),
    "prod_dim1": lambda t, x: x.prod(1),
    "prod_dim0_keepdim": lambda t, x: x.prod(0, keepdim=True),
    "cumprod_dim1": lambda t, x: x.cumprod(1),
    "cumprod_dim0": lambda t, x: x.cumprod(0),
}


@pytest.mark.parametrize("zeros", list(ZEROS))
@pytest.mark.parametrize("op", list(PRODUCTS))
def test_products_with_zeros_match_torch(op, zeros, torch):
    _compare(torch, PRODUCTS[op], ZEROS[zeros], second_order=True)


@pytest.mark.parametrize("zeros", list(ZEROS))
@pytest.mark.parametrize("op", list(PRODUCTS))
def test_products_with_zeros_gradgradcheck(op, zeros):
    x = hookgrad.tensor(ZEROS[zeros], dtype=hookgrad.float64, requires_grad=True)
    fn = PRODUCTS[op]
    assert hookgrad.autograd.gradcheck(lambda x: fn(hookgrad, x), (x,))
    assert hookgrad.autograd.gradgradcheck(lambda x: fn(hookgrad, x), (x,))


def test_prod_gradient_with_zeros_by_hand():
    x = hookgrad.tensor([2.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]
    y = hookgrad.tensor([0.0, 4.0, 0.0], requires_grad=True)
    y.prod().backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("data", [[0.0, 0.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0], [1.0, 0.0, 0.0, 0.0]])
def test_prod_hessian_with_zeros(data, torch):
    expected = torch.autograd.functional.hessian(torch.prod, torch.tensor(data).double())
    x = hookgrad.tensor(data, dtype=hookgrad.float64, requires_grad=True)
    (g,) = hookgrad.autograd.grad(x.prod(), x, create_graph=True)
    for i in range(len(data)):
        (row,) = hookgrad.autograd.grad(g[i], x, retain_graph=True)
        assert_close(row, expected[i])


# ---------------------------------------------------------------- norm at zero


@pytest.mark.parametrize("p", [2, "fro", 1, 3, 1.5, 0.5, -1, INF, -INF])
def test_norm_at_zero_vector(p, torch):
    _compare(torch, lambda t, x: x.norm(p=p), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("p", [2, 1, 3, 1.5, 0.5, -1, INF, -INF])
def test_norm_with_a_zero_element(p, torch):
    _compare(torch, lambda t, x: x.norm(p=p, dim=1), [[0.0, 1.0, -2.0], [0.0, 0.0, 0.0]])


def test_norm_2_gradient_is_zero_at_zero():
    x = hookgrad.zeros(3, requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_norm_p0_counts_and_has_no_gradient(torch):
    grads = []
    for lib in (hookgrad, torch):
        x = lib.tensor([0.0, 1.5, -2.0], requires_grad=True)
        y = x.norm(p=0)
        assert y.item() == 2.0
        y.backward()
        grads.append(x.grad)
    assert grads == [None, None]


def test_std_gradient_is_zero_for_constant_input():
    x = hookgrad.ones(4, requires_grad=True)
    x.std().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 0.0]


# ---------------------------------------------------------------- stability


@pytest.mark.parametrize(
    "data",
    [[-INF, -INF], [INF, 1.0], [1000.0, 1000.0], [-1000.0, -1001.0], [-INF, 2.0]],
)
def test_logsumexp_extremes_match_torch(data, torch):
    _compare(torch, lambda t, x: x.logsumexp(0), data)


def test_softmax_with_masked_logits_matches_torch(torch):
    data = [[1.0, -INF, 2.0], [-INF, 0.5, 800.0]]
    _compare(torch, lambda t, x: x.softmax(1), data)
    _compare(torch, lambda t, x: x.log_softmax(0)[1:], data)


# ---------------------------------------------------------------- node names


NAMED = [
    lambda t, x: x.sum(),
    lambda t, x: x.sum(1),
    lambda t, x: x.sum(None, keepdim=True),
    lambda t, x: x.sum(dtype=t.float64),
    lambda t, x: x.mean(),
    lambda t, x: x.mean((0, 1)),
    lambda t, x: x.var(1),
    lambda t, x: x.std(),
    lambda t, x: t.var_mean(x, 1)[0],
    lambda t, x: t.std_mean(x)[1],
    lambda t, x: x.prod(),
    lambda t, x: x.prod(1),
    lambda t, x: x.max(),
    lambda t, x: x.max(1)[0],
    lambda t, x: x.min(),
    lambda t, x: x.min(0).values,
    lambda t, x: x.median(),
    lambda t, x: x.median(0)[0],
    lambda t, x: x.amax(1),
    lambda t, x: x.amin(),
    lambda t, x: x.logsumexp(1),
    lambda t, x: x.norm(),
    lambda t, x: x.norm(p=1, dim=0),
    lambda t, x: x.cumsum(1),
    lambda t, x: x.cumprod(0),
    lambda t, x: x.softmax(1),
    lambda t, x: x.log_softmax(0),
    lambda t, x: t.softmax(x, 0, dtype=t.float64),
]


@pytest.mark.parametrize("fn", NAMED)
def test_node_names_match_torch(fn, torch):
    data = np.arange(12.0).reshape(3, 4)
    y = fn(hookgrad, hookgrad.tensor(data, requires_grad=True))
    expected = fn(torch, torch.tensor(data, requires_grad=True))
    assert y.grad_fn.name() == expected.grad_fn.name()
    assert_close(y, expected)


def test_saved_attributes_like_torch():
    x = hookgrad.randn(3, 4, requires_grad=True)
    y = x.sum(-1, keepdim=True)
    assert y.grad_fn._saved_keepdim is True
    assert y.grad_fn._saved_dim == (-1,)  # as given, as torch saves it
    assert x.var(1, correction=0).grad_fn._saved_correction == 0
    assert x.max(1).values.grad_fn._saved_dim == 1


# ---------------------------------------------------------------- return types and dtypes


def test_max_along_dim_returns_named_tuple(torch):
    data = [[1.0, 5.0, 2.0], [4.0, 0.0, 4.0]]
    result = hookgrad.tensor(data).max(dim=1, keepdim=True)
    values, indices = result
    assert result.values is values and result.indices is indices
    assert type(result).__name__ == "max" and isinstance(result, tuple)
    assert repr(result) == repr(torch.tensor(data).max(dim=1, keepdim=True))
    assert_close(result, torch.tensor(data).max(dim=1, keepdim=True))
    assert type(hookgrad.tensor(data).median(0)).__name__ == "median"


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, x: x.argmax(),
        lambda t, x: x.argmin(1),
        lambda t, x: x.argmax(0, keepdim=True),
        lambda t, x: x.argmax(keepdim=True),
        lambda t, x: x.all(),
        lambda t, x: x.any(1),
        lambda t, x: t.all(x, (0, 1), keepdim=True),
        lambda t, x: x.any(()),
        lambda t, x: x.count_nonzero(),
        lambda t, x: t.count_nonzero(x, (0, 1)),
        lambda t, x: x.count_nonzero(1),
        lambda t, x: x.long().sum(),
        lambda t, x: x.int().sum(1),
        lambda t, x: (x > 0).sum(),
        lambda t, x: x.bool().prod(),
        lambda t, x: x.int().prod(1),
        lambda t, x: x.int().cumsum(1),
        lambda t, x: x.long().cumprod(0),
        lambda t, x: x.long().max(),
        lambda t, x: x.long().max(1),
        lambda t, x: x.long().amin(0),
        lambda t, x: x.bool().max(),
        lambda t, x: x.int().logsumexp(1),
        lambda t, x: x.long().cumsum(0, dtype=t.float64),
        lambda t, x: x.int().mean(dtype=t.float32),
        lambda t, x: x.long().softmax(0, dtype=t.float32),
        lambda t, x: x.max(0),
        lambda t, x: t.tensor(2.5).max(0),
        lambda t, x: t.tensor(2.5).argmax(0),
        lambda t, x: t.tensor(2.5).median(-1),
    ],
)
def test_results_and_dtypes_match_torch(fn, torch):
    data = np.array([[0.0, 2.0, -1.0], [3.0, 0.0, 3.0]])
    assert_close(fn(hookgrad, hookgrad.tensor(data)), fn(torch, torch.tensor(data)))


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, x: t.var(x, False),
        lambda t, x: x.var(1, False, True),
        lambda t, x: x.std(0, unbiased=False),
        lambda t, x: t.std(x, (0, 1), correction=2.5),
        lambda t, x: t.var_mean(x, 0, keepdim=True),
        lambda t, x: t.std_mean(x, correction=0),
        lambda t, x: x.var(()),
        lambda t, x: x.amax(()),
        lambda t, x: x.norm(2, 1, True),
        lambda t, x: x.norm(dtype=t.float64),
        lambda t, x: t.norm(x, dim=(0, 1)),
        lambda t, x: x.median(),
        lambda t, x: t.median(x, 1),
    ],
)
def test_argument_forms_match_torch(fn, torch):
    data = np.array([[0.5, 2.0, -1.0, 4.0], [3.0, 0.0, 3.0, -2.5]])
    assert_close(fn(hookgrad, hookgrad.tensor(data)), fn(torch, torch.tensor(data)))


def test_median_is_the_lower_middle_value():
    assert hookgrad.tensor([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0
    assert math.isnan(hookgrad.tensor([1.0, NAN, 0.0]).median().item())


def test_var_warns_without_degrees_of_freedom(torch):
    for lib in (hookgrad, torch):
        with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
            value = lib.tensor([2.0]).var()
        assert math.isnan(value.item())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.tensor([2.0, 3.0]).var()


# ---------------------------------------------------------------- errors


ERRORS = [
    lambda t: t.ones(2, 3).sum(2),
    lambda t: t.ones(2, 3).max(-3),
    lambda t: t.ones(2, 3).softmax(5),
    lambda t: t.ones(2, 3).cumsum(2),
    lambda t: t.ones(()).prod(1),
    lambda t: t.ones(2, 3).amax((0, 0)),
    lambda t: t.tensor([]).max(),
    lambda t: t.tensor([]).min(),
    lambda t: t.zeros(0, 3).max(0),
    lambda t: t.zeros(0, 3).min(-2),
    lambda t: t.zeros(0, 3).amax(),
    lambda t: t.zeros(0, 3).amax(-2),
    lambda t: t.zeros(0, 3).argmax(),
    lambda t: t.zeros(0, 3).argmin(0),
    lambda t: t.zeros(0, 3).median(0),
    lambda t: t.zeros(0, 3).norm(p=INF),
    lambda t: t.arange(3).mean(),
    lambda t: t.arange(3).mean(dtype=t.int64),
    lambda t: t.arange(3).var(),
    lambda t: t.arange(3).std(0),
    lambda t: t.arange(3).norm(),
    lambda t: t.arange(3).softmax(0),
    lambda t: t.arange(6).reshape(2, 3).log_softmax(0),
    lambda t: t.ones(3).var(0, True, correction=1),
    lambda t: t.ones(2, 2, 2).norm(p="fro", dim=(0, 1, 2)),
    lambda t: t.ones(3).norm(p="abc"),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors_match_torch(fn, torch):
    with pytest.raises(Exception) as expected:
        fn(torch)
    with pytest.raises(type(expected.value)) as actual:
        fn(hookgrad)
    if not isinstance(expected.value, TypeError):
        assert str(actual.value) == str(expected.value).split(" (Triggered internally")[0]


# ---------------------------------------------------------------- statistics

MATRIX = [[1.0, 4.0, 2.0, 8.0], [3.0, NAN, 0.5, 2.0], [2.0, 2.0, 2.0, 2.0]]
SAMPLES = [[0.0, 1.0, 3.0, 2.0, 5.0], [2.0, 1.0, 0.5, 0.0, -1.0], [1.0, 1.0, 2.0, 2.0, 0.0]]


def _nan_safe(value):
    """An observation with NaN as a string (NaN compares unequal to itself)."""
    if isinstance(value, (tuple, list)):
        return type(value)(_nan_safe(v) for v in value)
    if isinstance(value, float) and value != value:
        return "nan"
    return value


def _q(t, values):
    return t.tensor(values, dtype=t.float32)


STATISTICS = {
    "quantile_nan": lambda t: t.tensor(MATRIX).quantile(0.5, 1),
    "quantile_all": lambda t: t.tensor(SAMPLES).quantile(_q(t, [0.0, 0.3, 1.0])),
    "quantile_keepdim_all": lambda t: t.tensor(SAMPLES).quantile(0.3, keepdim=True),
    "quantile_modes": lambda t: [
        t.tensor(SAMPLES).quantile(0.4, 1, interpolation=mode)
        for mode in ("linear", "lower", "higher", "midpoint", "nearest")
    ],
    "quantile_nearest_half": lambda t: t.tensor([1.0, 2.0, 3.0]).quantile(
        _q(t, [0.25, 0.75]), interpolation="nearest"
    ),
    "quantile_0dim": lambda t: t.tensor(2.0).quantile(0.5),
    "quantile_float64": lambda t: t.tensor(SAMPLES, dtype=t.float64).quantile(0.7, 0),
    "nanquantile": lambda t: t.tensor(MATRIX).nanquantile(_q(t, [0.1, 0.5]), 1),
    "nanquantile_all_nan": lambda t: t.tensor([NAN, NAN]).nanquantile(0.5),
    "quantile_int": lambda t: t.tensor([1, 2]).quantile(0.5),
    "quantile_q_range": lambda t: t.tensor([1.0]).quantile(1.5),
    "quantile_q_tensor_range": lambda t: t.tensor([1.0]).quantile(_q(t, [0.5, 2.0])),
    "quantile_q_dtype": lambda t: t.tensor([1.0]).quantile(t.tensor([0.5], dtype=t.float64)),
    "quantile_q_2d": lambda t: t.tensor([1.0]).quantile(_q(t, [[0.5]])),
    "quantile_empty": lambda t: t.tensor([]).quantile(0.5),
    "quantile_interpolation": lambda t: t.tensor([1.0]).quantile(0.5, interpolation="foo"),
    "nanmean_dims": lambda t: t.tensor(MATRIX).nanmean((0, 1)),
    "nansum_keepdim": lambda t: t.tensor(MATRIX).nansum(1, keepdim=True),
    "count_nonzero": lambda t: t.tensor(SAMPLES).count_nonzero(1),
    "cov": lambda t: t.cov(t.tensor(SAMPLES)),
    "cov_vector": lambda t: t.cov(t.tensor(SAMPLES[0])),
    "cov_int": lambda t: t.cov(t.tensor([[1, 2, 4], [0, 1, 1]])),
    "cov_correction": lambda t: t.tensor(SAMPLES).cov(correction=0),
    "cov_weights": lambda t: t.cov(
        t.tensor(SAMPLES), fweights=t.tensor([1, 2, 1, 1, 3]), aweights=_q(t, [0.5, 1, 2, 1, 1])
    ),
    "cov_one_observation": lambda t: t.cov(t.tensor([[1.0], [2.0]])),
    "cov_3d": lambda t: t.cov(t.ones(2, 2, 2)),
    "cov_bool": lambda t: t.cov(t.tensor([True, False])),
    "cov_fweights_float": lambda t: t.cov(t.tensor(SAMPLES), fweights=_q(t, [1, 1, 1, 1, 1])),
    "cov_fweights_negative": lambda t: t.cov(
        t.tensor(SAMPLES), fweights=t.tensor([1, -1, 1, 1, 1])
    ),
    "cov_aweights_size": lambda t: t.cov(t.tensor(SAMPLES), aweights=_q(t, [1, 1])),
    "cov_zero_weights": lambda t: t.cov(t.tensor(SAMPLES), aweights=t.zeros(5)),
    "corrcoef": lambda t: t.corrcoef(t.tensor(SAMPLES)),
    "corrcoef_vector": lambda t: t.corrcoef(t.tensor([1.0, 2.0, 4.0])),
    "corrcoef_3d": lambda t: t.corrcoef(t.ones(2, 2, 2)),
    "diff": lambda t: t.tensor(SAMPLES).diff(),
    "diff_n_large": lambda t: t.tensor(SAMPLES).diff(n=7),
    "diff_n_zero": lambda t: t.tensor(SAMPLES).diff(n=0),
    "diff_bool": lambda t: t.tensor([True, False, False, True]).diff(),
    "diff_int": lambda t: t.tensor([[1, 4, 9], [2, 2, 0]]).diff(dim=0),
    "diff_prepend_append": lambda t: t.diff(
        t.tensor(SAMPLES), dim=0, prepend=t.zeros(1, 5), append=t.ones(2, 5)
    ),
    "diff_0dim": lambda t: t.tensor(1.0).diff(),
    "diff_negative_n": lambda t: t.tensor([1.0]).diff(n=-1),
    "diff_prepend_shape": lambda t: t.tensor(SAMPLES).diff(prepend=t.zeros(2, 5)),
    "diff_prepend_ndim": lambda t: t.tensor(SAMPLES).diff(prepend=t.zeros(5)),
    "gradient": lambda t: t.gradient(t.tensor(SAMPLES)),
    "gradient_spacing_list": lambda t: t.gradient(t.tensor(SAMPLES), spacing=[2.0, 0.5]),
    "gradient_coordinates": lambda t: t.gradient(
        t.tensor(SAMPLES), spacing=(t.tensor([0.0, 1.0, 1.5, 3.0, 4.0]),), dim=1, edge_order=2
    ),
    "gradient_int": lambda t: t.gradient(t.tensor([1, 2, 4, 8])),
    "gradient_dims": lambda t: t.gradient(t.tensor(SAMPLES), dim=(1, 0), edge_order=2),
    "gradient_small": lambda t: t.gradient(t.tensor([1.0])),
    "gradient_edge_order": lambda t: t.gradient(t.tensor(SAMPLES), edge_order=3),
    "gradient_spacing_length": lambda t: t.gradient(t.tensor(SAMPLES), spacing=[1.0]),
    "gradient_uint8": lambda t: t.gradient(t.tensor([1, 2], dtype=t.uint8)),
    "trapezoid": lambda t: t.trapezoid(t.tensor(SAMPLES)),
    "trapezoid_dx": lambda t: t.trapezoid(t.tensor(SAMPLES), dx=0.5, dim=0),
    "trapezoid_x": lambda t: t.trapezoid(t.tensor(SAMPLES), t.tensor([0.0, 1.0, 3.0, 4.0, 8.0])),
    "trapezoid_x_2d": lambda t: t.trapezoid(t.tensor(SAMPLES), t.tensor(SAMPLES) * 2),
    "trapezoid_int": lambda t: t.trapezoid(t.tensor([1, 2, 4])),
    "trapezoid_empty": lambda t: t.trapezoid(t.zeros(2, 0)),
    "trapezoid_x_size": lambda t: t.trapezoid(t.tensor(SAMPLES), t.tensor([0.0, 1.0])),
    "trapz": lambda t: t.trapz(t.tensor(SAMPLES), dx=2.0),
    "cumulative_trapezoid": lambda t: t.cumulative_trapezoid(t.tensor(SAMPLES)),
    "cumulative_trapezoid_x": lambda t: t.cumulative_trapezoid(
        t.tensor(SAMPLES), t.tensor([0.0, 1.0, 3.0, 4.0, 8.0])
    ),
    "cumulative_trapezoid_empty": lambda t: t.cumulative_trapezoid(t.zeros(2, 0)),
}


@pytest.mark.parametrize("case", STATISTICS.values(), ids=STATISTICS.keys())
def test_statistics_match_torch(case, torch):
    assert _nan_safe(outcome(case, hookgrad)) == _nan_safe(outcome(case, torch))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_passes_a_gradient_to_q(name, torch):
    """torch's ranks come from ``q``: ``lerp``'s weight carries ``q``'s gradient."""

    def run(lib):
        q = lib.tensor([0.3, 0.8], requires_grad=True)
        x = lib.tensor(MATRIX, requires_grad=True)
        out = getattr(lib, name)(x, q, dim=1)
        (out.nan_to_num() * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return out, q.grad, x.grad

    assert _nan_safe(outcome(run, hookgrad)) == _nan_safe(outcome(run, torch))
