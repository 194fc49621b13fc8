"""Every op of the table: values and gradients against torch, gradcheck, gradgradcheck."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from tests.ops.cases import ALL_CASES
from tests.ops.cases.spec import Const
from tests.oracle import assert_close

IDS = [case.id for case in ALL_CASES]


def _tensors(lib, case, dtype):
    tensors = []
    for spec, array in zip(case.inputs, case.arrays()):
        if isinstance(spec, Const):
            tensors.append(lib.from_numpy(np.array(array)))
        else:
            tensors.append(lib.tensor(array, dtype=dtype, requires_grad=True))
    return tensors


def _outputs(result):
    outs = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in outs if o.dtype.is_floating_point or o.dtype.is_complex]


def _run(lib, case, dtype):
    """Forward, then backward with a fixed random weighting of every output element."""
    tensors = _tensors(lib, case, dtype)
    result = case.fn(lib, *tensors)
    outs = _outputs(result)
    rng = np.random.default_rng(1)
    seeds = [lib.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in outs]
    wrt = [t for t in tensors if t.requires_grad]
    diff = [(o, s) for o, s in zip(outs, seeds) if o.requires_grad]
    grads = lib.autograd.grad([o for o, _ in diff], wrt, [s for _, s in diff], allow_unused=True)
    return result, grads


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", ALL_CASES, ids=IDS)
def test_matches_torch(case, dtype_name, torch):
    result, grads = _run(hookgrad, case, getattr(hookgrad, dtype_name))
    expected, expected_grads = _run(torch, case, getattr(torch, dtype_name))
    rtol, atol = (case.rtol32, case.atol32) if dtype_name == "float32" else (1e-7, 1e-9)
    assert_close(result, expected, rtol, atol)
    assert_close(grads, expected_grads, rtol, atol)


def _float64_function(case):
    tensors = _tensors(hookgrad, case, hookgrad.float64)

    def fn(*args):
        return tuple(_outputs(case.fn(hookgrad, *args)))

    return fn, tensors


@pytest.mark.parametrize("case", ALL_CASES, ids=IDS)
def test_gradcheck(case):
    fn, tensors = _float64_function(case)
    assert hookgrad.autograd.gradcheck(fn, tuple(tensors))


@pytest.mark.parametrize(
    "case", [c for c in ALL_CASES if c.gradgrad], ids=[c.id for c in ALL_CASES if c.gradgrad]
)
def test_gradgradcheck(case):
    fn, tensors = _float64_function(case)
    assert hookgrad.autograd.gradgradcheck(fn, tuple(tensors))
