"""In-place comparisons, in-place logical and bitwise ops, and the predicates, against
torch: values, dtypes, what autograd records (or keeps), and torch's errors."""

from __future__ import annotations

import pytest

import hookgrad
from tests.oracle import outcome


def _inplace(name, values, other, dtype=None):
    def run(t):
        x = t.tensor(values, dtype=None if dtype is None else getattr(t, dtype))
        y = getattr(x, name)(t.tensor(other) if isinstance(other, list) else other)
        return x, y is x, x._version

    return run


CASES = {
    "eq_scalar": _inplace("eq_", [1.0, 2.0, 3.0], 2.0),
    "ne_tensor": _inplace("ne_", [1.0, 2.0, 3.0], [1.0, 0.0, 3.0]),
    "lt_int_float": _inplace("lt_", [1, 2], [1.5, 1.5]),
    "le_broadcast": _inplace("le_", [[1.0, 2.0], [3.0, 4.0]], [2.0, 3.0]),
    "gt_bool": _inplace("gt_", [True, False], [False, False]),
    "ge_uint8": _inplace("ge_", [0, 5, 9], 5, "uint8"),
    "eq_complex": _inplace("eq_", [1 + 0j, 2 + 1j], 1),
    "greater_": _inplace("greater_", [1.0, 2.0, 3.0], 2.0),
    "greater_equal_": _inplace("greater_equal_", [1.0, 2.0, 3.0], [3.0, 2.0, 1.0]),
    "less_": _inplace("less_", [1, 2, 3], 2),
    "less_equal_": _inplace("less_equal_", [1.0, 2.0], [2.0, 1.0]),
    "not_equal_": _inplace("not_equal_", [1.0, 2.0], [1.0, 1.0]),
    "lt_complex": _inplace("lt_", [1 + 0j], 1),
    "eq_bad_broadcast": _inplace("eq_", [1.0, 2.0], [[1.0, 2.0], [3.0, 4.0]]),
    "logical_and_": _inplace("logical_and_", [1.0, 0.0, 2.0], [1, 1, 0]),
    "logical_or_bool": _inplace("logical_or_", [True, False], [False, False]),
    "logical_xor_": _inplace("logical_xor_", [1, 0, 3], [1, 1, 0]),
    "bitwise_and_": _inplace("bitwise_and_", [1, 2, 7], 3),
    "bitwise_or_tensor": _inplace("bitwise_or_", [1, 2], [4, 4]),
    "bitwise_xor_bool": _inplace("bitwise_xor_", [True, False], [True, True]),
    "bitwise_and_float": _inplace("bitwise_and_", [1.0], 1),
    "bitwise_methods": lambda t: [
        t.tensor([6, 3]).bitwise_and(t.tensor([3, 3])),
        t.tensor([6, 3]).bitwise_or(1),
        t.tensor([6, 3]).bitwise_xor(t.tensor([1, 1])),
    ],
    "bitwise_not_": lambda t: t.tensor([True, False]).bitwise_not_(),
    "logical_not_": lambda t: t.tensor([0.0, 2.0]).logical_not_(),
    "iand": lambda t: _augmented(t, "&"),
    "ior": lambda t: _augmented(t, "|"),
    "ixor": lambda t: _augmented(t, "^"),
    "is_nonzero": lambda t: [t.tensor([5]).is_nonzero(), t.tensor(0.0).is_nonzero()],
    "is_nonzero_many": lambda t: t.tensor([1, 2]).is_nonzero(),
    "is_nonzero_empty": lambda t: t.tensor([]).is_nonzero(),
    "is_same_size": lambda t: [
        t.is_same_size(t.ones(2, 3), t.zeros(2, 3)),
        t.ones(2).is_same_size(t.ones(3)),
    ],
    "is_signed": lambda t: [
        t.ones(1, dtype=d).is_signed() for d in (t.float32, t.int8, t.uint8, t.bool, t.complex64)
    ],
    "isreal": lambda t: [t.isreal(t.tensor([1 + 0j, 1 + 1j])), t.tensor([1.0, 2.0]).isreal()],
}


def _augmented(t, operator):
    x = t.tensor([6, 3])
    y = x
    if operator == "&":
        y &= t.tensor([3, 1])
    elif operator == "|":
        y |= 8
    else:
        y ^= t.tensor([1, 1])
    return x, y is x


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_matches_torch(case, torch):
    assert outcome(case, hookgrad) == outcome(case, torch)


def _graph_after(t, method, other_requires_grad):
    """An in-place op on a non-leaf: the node it records (or the one kept), the gradients
    it passes back."""
    x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = t.tensor([2.0, 2.0, 2.0], requires_grad=other_requires_grad)
    y = x * 1
    getattr(y, method)(w)
    node = type(y.grad_fn).__name__
    y.sum().backward()
    return node, len(y.grad_fn.next_functions), x.grad, w.grad


@pytest.mark.parametrize(
    "method", ["eq_", "lt_", "greater_", "not_equal_", "logical_and_", "logical_xor_"]
)
@pytest.mark.parametrize("other_requires_grad", [False, True])
def test_autograd_records_what_torch_records(method, other_requires_grad, torch):
    def run(t):
        return _graph_after(t, method, other_requires_grad)

    assert outcome(run, hookgrad) == outcome(run, torch)


def test_inplace_comparison_of_leaf_that_requires_grad_fails_as_torchs(torch):
    def run(t):
        return t.ones(2, requires_grad=True).gt_(0.5)

    assert outcome(run, hookgrad) == outcome(run, torch)
