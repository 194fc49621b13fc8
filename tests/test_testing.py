"""``hookgrad.testing`` against ``torch.testing``: ``assert_close`` passes and fails on the
same inputs with the same messages; ``make_tensor`` draws torch's values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.oracle import outcome

NAN, INF = float("nan"), float("inf")

# ``fn(t)`` compares with ``t.testing.assert_close``; each row passes or fails alike.
COMPARISONS = {
    "close_float32": lambda t: t.testing.assert_close(
        t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.0, 3.0 + 1e-6])
    ),
    "not_close_float32": lambda t: t.testing.assert_close(
        t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.5, 3.0 + 1e-4])
    ),
    "not_equal_int": lambda t: t.testing.assert_close(
        t.tensor([[1, 2], [3, 4]]), t.tensor([[1, 2], [3, 5]])
    ),
    "not_equal_int32": lambda t: t.testing.assert_close(
        t.tensor([1, 2], dtype=t.int32), t.tensor([1, 5], dtype=t.int32)
    ),
    "not_equal_bool": lambda t: t.testing.assert_close(
        t.tensor([True, False]), t.tensor([True, True])
    ),
    "scalar_tensor": lambda t: t.testing.assert_close(t.tensor(1.0), t.tensor(1.5)),
    "dtype": lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.0], dtype=t.float64)),
    "dtype_unchecked": lambda t: t.testing.assert_close(
        t.tensor([1.0]), t.tensor([1.0 + 1e-7], dtype=t.float64), check_dtype=False
    ),
    "shape": lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.0, 2.0])),
    "stride": lambda t: t.testing.assert_close(t.ones(2, 3).t(), t.ones(3, 2), check_stride=True),
    "nan": lambda t: t.testing.assert_close(t.tensor([NAN]), t.tensor([NAN])),
    "nan_equal": lambda t: t.testing.assert_close(t.tensor([NAN]), t.tensor([NAN]), equal_nan=True),
    "inf": lambda t: t.testing.assert_close(t.tensor([INF]), t.tensor([INF])),
    "relative_to_zero": lambda t: t.testing.assert_close(
        t.tensor([1.0, 0.0]), t.tensor([1.0, 1e-3])
    ),
    "float16": lambda t: t.testing.assert_close(
        t.tensor([1.0, 2.0], dtype=t.float16), t.tensor([1.0, 2.01], dtype=t.float16)
    ),
    "complex": lambda t: t.testing.assert_close(t.tensor([1j, 2]), t.tensor([1j, 2 + 1j])),
    "numpy": lambda t: t.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 3.0])),
    "numbers_types": lambda t: t.testing.assert_close(1, 1.0),
    "numbers": lambda t: t.testing.assert_close(1.0, 1.5),
    "numbers_close": lambda t: t.testing.assert_close(1.0, 1.0 + 1e-9),
    "numpy_number": lambda t: t.testing.assert_close(np.float64(1.0), 2.0),
    "booleans": lambda t: t.testing.assert_close(True, False),
    "none": lambda t: t.testing.assert_close(None, 1),
    "nested": lambda t: t.testing.assert_close(
        [t.tensor([1.0]), {"a": t.tensor([2.0])}], [t.tensor([1.0]), {"a": t.tensor([3.0])}]
    ),
    "lengths": lambda t: t.testing.assert_close([1, 2], [1]),
    "keys": lambda t: t.testing.assert_close({"a": 1}, {"b": 1}),
    "msg": lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([2.0]), msg="custom"),
    "msg_callable": lambda t: t.testing.assert_close(
        t.tensor([1.0]), t.tensor([2.0]), msg=lambda m: m + "!!"
    ),
    "rtol_only": lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([2.0]), rtol=0.1),
    "tolerances": lambda t: t.testing.assert_close(
        t.tensor([1.0]), t.tensor([1.05]), rtol=0.1, atol=0
    ),
    "allclose": lambda t: t.testing.assert_allclose(t.tensor([1.0, 2.0]), [1.0, 2.0001]),
    "allclose_fails": lambda t: t.testing.assert_allclose(t.tensor([1.0, 2.0]), [1.0, 2.1]),
}


@pytest.mark.parametrize("fn", COMPARISONS.values(), ids=COMPARISONS.keys())
def test_assert_close_matches_torch(fn, torch):
    assert outcome(fn, hookgrad) == outcome(fn, torch)


def test_unrelated_types_are_refused():
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs"):
        hookgrad.testing.assert_close(hookgrad.tensor([1.0]), [1.0])


def test_assert_allclose_is_deprecated():
    with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated"):
        hookgrad.testing.assert_allclose(1.0, 1.0)


def _drawn(t: Any) -> Any:
    t.manual_seed(0)
    dtypes = (t.float32, t.int64, t.bool, t.complex64, t.uint8, t.float16)
    plain = [t.testing.make_tensor(3, dtype=d, device="cpu") for d in dtypes]
    t.manual_seed(1)
    special = t.testing.make_tensor(
        (2, 3),
        dtype=t.float64,
        device="cpu",
        low=-1,
        high=1,
        noncontiguous=True,
        requires_grad=True,
        exclude_zero=True,
    )
    return plain, special, special.stride()


MAKE_TENSOR_ERRORS = {
    "requires_grad_int": lambda t: t.testing.make_tensor(
        2, dtype=t.int64, device="cpu", requires_grad=True
    ),
    "low_high": lambda t: t.testing.make_tensor(2, dtype=t.float32, device="cpu", low=2, high=1),
    "nan": lambda t: t.testing.make_tensor(2, dtype=t.float32, device="cpu", low=NAN),
    "interval": lambda t: t.testing.make_tensor(2, dtype=t.uint8, device="cpu", low=-5, high=-1),
}


def test_make_tensor_draws_torchs_values(torch):
    assert outcome(_drawn, hookgrad) == outcome(_drawn, torch)


@pytest.mark.parametrize("fn", MAKE_TENSOR_ERRORS.values(), ids=MAKE_TENSOR_ERRORS.keys())
def test_make_tensor_errors_match_torch(fn, torch):
    assert outcome(fn, hookgrad) == outcome(fn, torch)
