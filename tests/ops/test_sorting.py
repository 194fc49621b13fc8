"""Sorting, searching, selection and counting against torch: values, indices (ties and
NaN included where torch's kernel decides them), result dtypes and shapes, named tuples,
the non-differentiable functions, and torch's errors for bad input.

Each case runs the same program in both libraries and compares what comes out (or the
error's type and message): ``tests.oracle.outcome``.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import hookgrad
import hookgrad.return_types
from tests.oracle import assert_close, outcome

NAN = float("nan")
INF = float("inf")
TIES = [3.0, 1.0, 3.0, NAN, 1.0, 2.0, 3.0, NAN, -INF, INF]
ROWS = [[3.0, 1.0, 3.0, 1.0, 2.0, 1.0, 3.0], [0.0, 5.0, 5.0, 5.0, -1.0, 0.0, 0.0]]
# 40 values with many ties (torch's quickselect has work to do).
MANY_TIES = (np.random.default_rng(3).integers(0, 4, 40) * 1.0).tolist()


def _t(lib, values, dtype=None):
    return lib.tensor(values, dtype=dtype)


CASES = {
    # sort / argsort / msort
    "sort_nan_inf": lambda t: _t(t, TIES).sort(),
    "sort_descending_nan": lambda t: _t(t, TIES).sort(descending=True),
    "sort_stable_descending": lambda t: _t(t, TIES).sort(stable=True, descending=True),
    "sort_rows_stable": lambda t: _t(t, ROWS).sort(dim=1, stable=True),
    "sort_dim0": lambda t: t.sort(_t(t, ROWS), 0, True),
    "sort_int_descending": lambda t: _t(t, [1, 0, 1, 0, 1]).sort(descending=True),
    "sort_bool": lambda t: _t(t, [True, False, True]).sort(stable=True),
    "sort_uint8_descending": lambda t: _t(t, [3, 200, 0], t.uint8).sort(descending=True),
    "sort_0dim": lambda t: _t(t, 2.5).sort(),
    "sort_empty": lambda t: t.zeros(0, 3).sort(0),
    "sort_transposed": lambda t: _t(t, ROWS).t().sort(dim=0, stable=True),
    "sort_complex": lambda t: t.zeros(2, dtype=t.complex64).sort(),
    "sort_bad_dim": lambda t: _t(t, ROWS).sort(2),
    "argsort": lambda t: _t(t, ROWS).argsort(stable=True),
    "argsort_descending": lambda t: t.argsort(_t(t, TIES), descending=True, stable=True),
    "argsort_0dim": lambda t: _t(t, 1.0).argsort(),
    "msort": lambda t: t.msort(_t(t, ROWS).t()),
    # topk
    "topk": lambda t: _t(t, ROWS).topk(3),
    "topk_smallest": lambda t: _t(t, ROWS).topk(2, dim=0, largest=False),
    "topk_nan_first": lambda t: _t(t, [1.0, NAN, 3.0, 2.0]).topk(2),
    "topk_int": lambda t: _t(t, [4, 9, 1, 7]).topk(2),
    "topk_zero": lambda t: _t(t, ROWS).topk(0),
    "topk_unsorted": lambda t: _t(t, TIES).topk(4, sorted=False),
    "topk_unsorted_distinct": lambda t: t.arange(20.0).flip(0).topk(5, sorted=False),
    "topk_many_ties": lambda t: _t(t, MANY_TIES).topk(7, largest=False),
    "topk_partial_sort": lambda t: t.tensor(MANY_TIES * 4).topk(2),
    "mode_many_ties": lambda t: _t(t, MANY_TIES).mode(),
    "mode_nan": lambda t: _t(t, [NAN, 1.0, NAN, 2.0, 2.0]).mode(),
    "topk_0dim": lambda t: _t(t, 2.0).topk(1),
    "topk_k_too_big": lambda t: _t(t, ROWS).topk(8),
    "topk_bool": lambda t: _t(t, [True, False]).topk(1),
    "topk_complex": lambda t: t.zeros(2, dtype=t.complex64).topk(1),
    # kthvalue
    "kthvalue_ties": lambda t: [_t(t, ROWS[0]).kthvalue(k) for k in range(1, 8)],
    "kthvalue_many_ties": lambda t: [_t(t, MANY_TIES).kthvalue(k) for k in (1, 7, 20, 33, 40)],
    "kthvalue_nan": lambda t: [_t(t, TIES).kthvalue(k) for k in (1, 5, 9, 10)],
    "kthvalue_rows": lambda t: _t(t, ROWS).kthvalue(4, 1, True),
    "kthvalue_int": lambda t: _t(t, [[5, 1, 5], [2, 2, 0]]).kthvalue(2, 0),
    "kthvalue_0dim": lambda t: _t(t, 3.0).kthvalue(1),
    "kthvalue_k_range": lambda t: _t(t, ROWS).kthvalue(8),
    "kthvalue_k_zero": lambda t: _t(t, ROWS).kthvalue(0, 0),
    "kthvalue_empty": lambda t: t.zeros(0).kthvalue(1),
    "kthvalue_bool": lambda t: _t(t, [True]).kthvalue(1),
    # mode / median / nanmedian
    "mode": lambda t: _t(t, ROWS).mode(),
    "mode_dim0": lambda t: _t(t, ROWS).mode(0, keepdim=True),
    "mode_int": lambda t: t.mode(_t(t, [3, 1, 3, 1, 2]), 0),
    "mode_bool": lambda t: _t(t, [True, False, True]).mode(),
    "mode_0dim": lambda t: _t(t, 2.0).mode(),
    "mode_empty": lambda t: t.zeros(3, 0).mode(1),
    "mode_complex": lambda t: t.zeros(2, dtype=t.complex64).mode(),
    "median_ties": lambda t: _t(t, ROWS).median(1),
    "nanmedian": lambda t: _t(t, [1.0, NAN, 3.0, 2.0]).nanmedian(),
    "nanmedian_all_nan": lambda t: _t(t, [NAN, NAN]).nanmedian(),
    "nanmedian_empty": lambda t: t.zeros(0).nanmedian(),
    "nanmedian_dim": lambda t: _t(t, [[NAN, 2.0, 1.0, 2.0], [NAN, NAN, NAN, NAN]]).nanmedian(1),
    "nanmedian_ties": lambda t: _t(t, ROWS).nanmedian(1, True),
    "nanmedian_empty_dim": lambda t: t.zeros(3, 0).nanmedian(1),
    # cummax / cummin / logcumsumexp
    "cummax_ties_nan": lambda t: _t(t, TIES).cummax(0),
    "cummin_ties_nan": lambda t: _t(t, TIES).cummin(0),
    "cummax_rows": lambda t: t.cummax(_t(t, ROWS), 1),
    "cummin_int": lambda t: _t(t, [[3, 1, 2], [0, 0, 4]]).cummin(0),
    "cummax_bool": lambda t: _t(t, [False, True, False]).cummax(0),
    "cummax_0dim": lambda t: _t(t, 1.5).cummax(0),
    "cummax_complex": lambda t: t.zeros(2, dtype=t.complex64).cummax(0),
    "logcumsumexp": lambda t: _t(t, [[-INF, 0.0, 1000.0], [INF, 1.0, -INF]]).logcumsumexp(1),
    "logcumsumexp_int": lambda t: _t(t, [1, 2]).logcumsumexp(0),
    # aminmax / nansum / nanmean
    "aminmax": lambda t: _t(t, ROWS).aminmax(),
    "aminmax_dim": lambda t: t.aminmax(_t(t, ROWS), dim=0, keepdim=True),
    "aminmax_int": lambda t: _t(t, [[3, 1], [0, 7]]).aminmax(dim=-1),
    "aminmax_keepdim_all": lambda t: t.ones(2, 3).aminmax(keepdim=True),
    "aminmax_0dim": lambda t: _t(t, 2.0).aminmax(dim=0),
    "aminmax_empty": lambda t: t.zeros(0).aminmax(),
    "aminmax_empty_dim": lambda t: t.zeros(3, 0).aminmax(dim=1),
    "aminmax_complex": lambda t: t.zeros(2, dtype=t.complex64).aminmax(),
    "nansum": lambda t: _t(t, [[1.0, NAN], [NAN, 2.0]]).nansum(0),
    "nansum_int": lambda t: _t(t, [1, 2], t.int32).nansum(),
    "nansum_dtype": lambda t: _t(t, [1.5, NAN]).nansum(dtype=t.float64),
    "nansum_complex": lambda t: t.zeros(2, dtype=t.complex64).nansum(),
    "nanmean": lambda t: _t(t, [[1.0, NAN], [NAN, NAN]]).nanmean(1, keepdim=True),
    "nanmean_int": lambda t: _t(t, [1, 2]).nanmean(),
    # searchsorted / bucketize
    "searchsorted": lambda t: t.searchsorted(_t(t, [1, 3, 5, 7]), _t(t, [[3, 6], [0, 9]])),
    "searchsorted_right": lambda t: t.searchsorted(_t(t, [1, 3, 3, 5]), _t(t, [3, 4]), right=True),
    "searchsorted_side": lambda t: t.searchsorted(_t(t, [1.0, 3.0]), _t(t, [3.0]), side="right"),
    "searchsorted_scalar": lambda t: t.searchsorted(_t(t, [1.0, 3.0, 5.0]), 3),
    "searchsorted_rows": lambda t: t.searchsorted(
        _t(t, [[1, 3, 5], [2, 4, 6]]), _t(t, [[3, 4], [1, 6]]), out_int32=True
    ),
    "searchsorted_sorter": lambda t: t.searchsorted(
        _t(t, [5, 1, 3]), _t(t, [2, 4]), sorter=_t(t, [1, 2, 0])
    ),
    "searchsorted_bad_side": lambda t: t.searchsorted(_t(t, [1.0]), _t(t, [1.0]), side="x"),
    "searchsorted_opposites": lambda t: t.searchsorted(
        _t(t, [1.0]), _t(t, [1.0]), side="left", right=True
    ),
    "searchsorted_bad_rows": lambda t: t.searchsorted(_t(t, [[1.0, 2.0]]), _t(t, [1.0])),
    "bucketize": lambda t: t.bucketize(_t(t, [[2, 5], [0, 7]]), _t(t, [1, 3, 5])),
    "bucketize_right": lambda t: t.bucketize(_t(t, [1.0, 3.0]), _t(t, [1.0, 3.0]), right=True),
    "bucketize_scalar": lambda t: t.bucketize(3, _t(t, [1.0, 3.0, 5.0])),
    "bucketize_2d_boundaries": lambda t: t.bucketize(_t(t, [1.0]), _t(t, [[1.0, 2.0]])),
    # unique / unique_consecutive / isin
    "unique": lambda t: t.unique(_t(t, [3, 1, 2, 1, 5, 3])),
    "unique_all": lambda t: t.unique(
        _t(t, [[2, 1], [1, 3]]), return_inverse=True, return_counts=True
    ),
    "unique_unsorted": lambda t: _t(t, [3, 1, 2, 1]).unique(sorted=False, return_inverse=True),
    "unique_nan": lambda t: t.unique(_t(t, [NAN, 1.0, NAN, 1.0])),
    "unique_0dim": lambda t: t.unique(_t(t, 3.0), return_counts=True),
    "unique_dim": lambda t: t.unique(
        _t(t, [[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True, return_counts=True
    ),
    "unique_dim1": lambda t: t.unique(_t(t, [[1, 1, 0], [2, 2, 5]]), dim=1),
    "unique_dim_0dim": lambda t: t.unique(_t(t, 3.0), dim=0),
    "unique_consecutive": lambda t: t.unique_consecutive(
        _t(t, [1, 1, 2, 2, 3, 1, 1]), return_inverse=True, return_counts=True
    ),
    "unique_consecutive_dim": lambda t: _t(t, [[1, 1, 2], [1, 1, 2]]).unique_consecutive(
        return_counts=True, dim=1
    ),
    "unique_consecutive_empty": lambda t: t.unique_consecutive(t.zeros(0), return_counts=True),
    "isin": lambda t: t.isin(_t(t, [[1, 2], [3, 4]]), _t(t, [2.0, 3.5, 4.0])),
    "isin_invert": lambda t: t.isin(_t(t, [1, 2, 3]), _t(t, [2]), invert=True),
    "isin_scalars": lambda t: [t.isin(_t(t, [1, 2]), 2), t.isin(2, _t(t, [1, 2]))],
    "isin_bool": lambda t: t.isin(_t(t, [True]), _t(t, [True])),
    "isin_complex": lambda t: t.isin(t.zeros(2, dtype=t.complex64), _t(t, [1.0])),
    # histc / histogram / histogramdd / bincount
    "histc": lambda t: t.histc(_t(t, [1.0, 2.0, 1.0, 5.0, -1.0]), bins=4, min=0, max=3),
    "histc_data_range": lambda t: _t(t, [1.0, 2.0, 1.0, 4.0]).histc(bins=3),
    "histc_constant": lambda t: t.histc(_t(t, [1.0, 1.0, 1.0]), bins=4),
    "histc_nan": lambda t: t.histc(_t(t, [1.0, 2.0, 3.0, NAN]), bins=3, min=0, max=3),
    "histc_float64": lambda t: t.histc(_t(t, [0.1, 0.2, 0.3, 0.7], t.float64), bins=10, max=1),
    "histc_int": lambda t: t.histc(_t(t, [1, 2])),
    "histc_bins": lambda t: t.histc(_t(t, [1.0]), bins=0),
    "histc_range": lambda t: t.histc(_t(t, [1.0]), min=2, max=1),
    "histc_nan_range": lambda t: t.histc(_t(t, [1.0, NAN])),
    "histogram": lambda t: t.histogram(_t(t, [1.0, 2.0, 1.0]), bins=4),
    "histogram_edges": lambda t: t.histogram(_t(t, [1.0, 2.0, 1.0]), _t(t, [0.0, 1.5, 3.0])),
    "histogram_weighted_density": lambda t: _t(t, [1.0, 2.0, 1.0]).histogram(
        2, range=(0.0, 4.0), weight=_t(t, [1.0, 2.0, 3.0]), density=True
    ),
    "histogram_constant": lambda t: t.histogram(_t(t, [1.0, 1.0]), bins=2),
    "histogramdd": lambda t: t.histogramdd(
        _t(t, [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]]), bins=[3, 2]
    ),
    "histogramdd_range_density": lambda t: t.histogramdd(
        _t(t, [[0.0, 1.0], [1.0, 0.5]]), bins=2, range=[0.0, 2.0, 0.0, 1.0], density=True
    ),
    "bincount": lambda t: t.bincount(_t(t, [1, 1, 3])),
    "bincount_weights": lambda t: _t(t, [1, 1, 3]).bincount(_t(t, [0.5, 1.0, 2.0]), minlength=6),
    "bincount_int_weights": lambda t: t.bincount(_t(t, [0, 2]), _t(t, [1, 2])),
    "bincount_uint8": lambda t: t.bincount(_t(t, [1, 2], t.uint8), minlength=4),
    "bincount_empty": lambda t: t.bincount(t.zeros(0, dtype=t.int64)),
    "bincount_negative": lambda t: t.bincount(_t(t, [-1, 2])),
    "bincount_2d": lambda t: t.bincount(_t(t, [[1, 2]])),
    "bincount_float": lambda t: t.bincount(_t(t, [1.0])),
    "bincount_weights_length": lambda t: t.bincount(_t(t, [1, 2]), _t(t, [1.0])),
    "bincount_minlength": lambda t: t.bincount(_t(t, [1]), minlength=-1),
}


def _nan_safe(value):
    """An observation with NaN as a string (NaN compares unequal to itself)."""
    if isinstance(value, (tuple, list)):
        return type(value)(_nan_safe(v) for v in value)
    if isinstance(value, float) and value != value:
        return "nan"
    return value


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_matches_torch(case, torch):
    assert _nan_safe(outcome(case, hookgrad)) == _nan_safe(outcome(case, torch))


def test_return_types_are_torchs(torch):
    """The named tuples: field names, repr and pickling (``torch.return_types``)."""
    for name in ("sort", "topk", "kthvalue", "mode", "cummax", "aminmax", "histogram"):
        ours = getattr(hookgrad.return_types, name)
        theirs = getattr(torch.return_types, name)
        assert ours.__name__ == theirs.__name__
    x, y = hookgrad.tensor([2.0, 1.0]), torch.tensor([2.0, 1.0])
    assert repr(x.sort()) == repr(y.sort())
    assert repr(x.aminmax()) == repr(y.aminmax())
    result = x.aminmax()
    assert (result.min.item(), result.max.item()) == (1.0, 2.0)
    again = pickle.loads(pickle.dumps(x.sort()))
    assert type(again) is hookgrad.return_types.sort
    assert again.indices.tolist() == [1, 0]


def test_unique_records_a_node_without_derivative(torch):
    """``unique`` of a tensor that requires grad records torch's node; its backward fails
    with torch's error."""

    def run(lib):
        x = lib.tensor([3.0, 1.0, 3.0], requires_grad=True)
        values = lib.unique(x)
        names = type(values.grad_fn).__name__
        values.sum().backward()
        return names

    assert outcome(run, hookgrad) == outcome(run, torch)
    node = hookgrad.unique_consecutive(hookgrad.ones(2, requires_grad=True)).grad_fn
    assert type(node).__name__ == "UniqueConsecutiveBackward0"


def test_sorted_values_pass_gradients_to_their_positions(torch):
    """The gradient of sort, topk and kthvalue goes back to where each value came from,
    ties included."""
    for fn in (
        lambda t, x: x.sort(1, descending=True)[0] * t.arange(7.0, dtype=t.float64),
        lambda t, x: x.topk(3, 1)[0] * t.arange(3.0, dtype=t.float64),
        lambda t, x: x.kthvalue(4, 1)[0],
        lambda t, x: x.mode(1)[0],
        lambda t, x: x.cummax(1)[0],
        lambda t, x: x.aminmax().max,
    ):
        grads = []
        for lib in (hookgrad, torch):
            x = lib.tensor(ROWS, dtype=lib.float64, requires_grad=True)
            fn(lib, x).sum().backward()
            grads.append(x.grad)
        assert_close(*grads)
