"""Comparison and predicate functions beyond the operators: the in-place comparisons
(``eq_``, ``ne_``, ``lt_``, ``le_``, ``gt_``, ``ge_``, and their aliases ``greater_``,
``not_equal_`` ...), the in-place logical and bitwise ops
(``logical_and_`` ..., ``bitwise_and_`` ..., ``&=``), the bitwise methods, and the
predicates ``is_nonzero``, ``is_same_size``, ``is_signed`` and ``isreal``.

An in-place comparison writes 1 where it holds (else 0) in the tensor's own dtype and
records torch's node (``EqBackward0`` for a number, ``EqBackward1`` for a tensor), whose
gradient is zero. The logical and bitwise ones record nothing: as in torch, a tensor keeps
its ``grad_fn`` through them.

Example::

    x = hookgrad.tensor([1.0, 2.0, 3.0])
    x.gt_(1.5)                  # tensor([0., 1., 1.])
    hookgrad.tensor([5]).is_nonzero()   # True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.ops import comparison as ops
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import wrap_constant, write_inplace
from hookgrad.tensor.functions.arithmetic import (
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
)
from hookgrad.tensor.functions.inplace import prepare_inplace, run_inplace_op
from hookgrad.tensor.promotion import binary_arrays, check_operand
from hookgrad.tensor.tensor import Tensor

__all__ = ["is_nonzero", "is_same_size", "is_signed", "isreal"]


# ---------------------------------------------------------------- in-place comparisons


def _compare_(name: str, ufunc: Any, ordering: bool, input: Tensor, other: Any) -> Tensor:
    check_operand(other)
    a, b = binary_arrays(input, other)
    if ordering and np.asarray(a).dtype.kind == "c":
        name_of = dtypes.legacy_name(dtypes.from_numpy_dtype(np.asarray(a).dtype))
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{name_of}'")
    if isinstance(other, Tensor):
        return run_inplace_op(input, ops.CompareInplace(name, ufunc, 1), (other,), (a, b))
    return run_inplace_op(input, ops.CompareScalarInplace(name, ufunc, b), (), (a,))


def eq_(input: Tensor, other: Any) -> Tensor:
    """In-place ``input == other``: 1 where equal, else 0, in ``input``'s dtype."""
    return _compare_("eq", np.equal, False, input, other)


def ne_(input: Tensor, other: Any) -> Tensor:
    """In-place ``input != other``; see :func:`eq_`."""
    return _compare_("ne", np.not_equal, False, input, other)


def lt_(input: Tensor, other: Any) -> Tensor:
    """In-place ``input < other``; see :func:`eq_`."""
    return _compare_("lt", np.less, True, input, other)


def le_(input: Tensor, other: Any) -> Tensor:
    """In-place ``input <= other``; see :func:`eq_`."""
    return _compare_("le", np.less_equal, True, input, other)


def gt_(input: Tensor, other: Any) -> Tensor:
    """In-place ``input > other``; see :func:`eq_`."""
    return _compare_("gt", np.greater, True, input, other)


def ge_(input: Tensor, other: Any) -> Tensor:
    """In-place ``input >= other``; see :func:`eq_`."""
    return _compare_("ge", np.greater_equal, True, input, other)


# ---------------------------------------------------------------- in-place logical / bitwise


def _untracked_(function: Callable[..., Any], input: Tensor, *others: Any) -> Tensor:
    """``input`` overwritten with ``function(input, *others)``, recording nothing (torch has
    no derivative for these ops: the tensor keeps its ``grad_fn``)."""
    prepare_inplace(input, others)
    write_inplace(input, function(input, *others)._data)
    return input


def logical_and_(input: Tensor, other: Any) -> Tensor:
    """In-place :func:`logical_and`, as 0/1 in ``input``'s dtype."""
    return _untracked_(logical_and, input, other)


def logical_or_(input: Tensor, other: Any) -> Tensor:
    """In-place :func:`logical_or`."""
    return _untracked_(logical_or, input, other)


def logical_xor_(input: Tensor, other: Any) -> Tensor:
    """In-place :func:`logical_xor`."""
    return _untracked_(logical_xor, input, other)


def logical_not_(input: Tensor) -> Tensor:
    """In-place :func:`logical_not`."""
    return _untracked_(logical_not, input)


def _check_integral(name: str, input: Tensor) -> None:
    """torch's error for a bitwise op on a floating or complex tensor."""
    if input._data.dtype.kind in "fc":
        kind = dtypes.legacy_name(input.dtype)
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{kind}'")


def bitwise_and_(input: Tensor, other: Any) -> Tensor:
    """In-place :func:`bitwise_and` (``input &= other``); integers and bools only."""
    _check_integral("bitwise_and", input)
    return _untracked_(bitwise_and, input, other)


def bitwise_or_(input: Tensor, other: Any) -> Tensor:
    """In-place :func:`bitwise_or` (``input |= other``)."""
    _check_integral("bitwise_or", input)
    return _untracked_(bitwise_or, input, other)


def bitwise_xor_(input: Tensor, other: Any) -> Tensor:
    """In-place :func:`bitwise_xor` (``input ^= other``)."""
    _check_integral("bitwise_xor", input)
    return _untracked_(bitwise_xor, input, other)


def bitwise_not_(input: Tensor) -> Tensor:
    """In-place :func:`bitwise_not`."""
    _check_integral("bitwise_not", input)
    return _untracked_(bitwise_not, input)


# ---------------------------------------------------------------- predicates


def is_nonzero(input: Tensor) -> bool:
    """Whether the single element of ``input`` is not zero (torch's error for any other
    number of elements).

    Example: ``hookgrad.tensor([0.5]).is_nonzero()`` is True.
    """
    size = input._data.size
    if size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()) != 0)


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether ``input`` and ``other`` have the same shape.

    Example: ``hookgrad.is_same_size(hookgrad.ones(2), hookgrad.zeros(2))`` is True.
    """
    return input._data.shape == other._data.shape


def is_signed(input: Tensor) -> bool:
    """Whether ``input``'s dtype is signed (not ``uint8`` or ``bool``).

    Example: ``hookgrad.ones(2, dtype=hookgrad.uint8).is_signed()`` is False.
    """
    return input._data.dtype.kind not in "ub"


def isreal(input: Tensor) -> Tensor:
    """Elementwise: whether the value is real (a complex one with zero imaginary part; any
    non-complex one), as a bool tensor.

    Example::

        hookgrad.isreal(hookgrad.tensor([1 + 0j, 1 + 1j]))    # tensor([ True, False])
    """
    data = input._data
    if data.dtype.kind == "c":
        return wrap_constant(data.imag == 0)
    return wrap_constant(np.ones(data.shape, np.bool_))


class ComparisonMethods:
    """In-place comparison, logical and bitwise methods, and predicates of ``Tensor``."""

    eq_ = eq_
    ne_ = ne_
    lt_ = lt_
    le_ = le_
    gt_ = gt_
    ge_ = ge_
    # torch's aliases of the in-place comparisons (they record the same nodes).
    greater_ = gt_
    greater_equal_ = ge_
    less_ = lt_
    less_equal_ = le_
    not_equal_ = ne_
    logical_and_ = logical_and_
    logical_or_ = logical_or_
    logical_xor_ = logical_xor_
    logical_not_ = logical_not_
    bitwise_and = bitwise_and
    bitwise_or = bitwise_or
    bitwise_xor = bitwise_xor
    bitwise_and_ = bitwise_and_
    bitwise_or_ = bitwise_or_
    bitwise_xor_ = bitwise_xor_
    bitwise_not_ = bitwise_not_
    __iand__ = bitwise_and_
    __ior__ = bitwise_or_
    __ixor__ = bitwise_xor_
    is_nonzero = is_nonzero
    is_same_size = is_same_size
    is_signed = is_signed
    isreal = isreal
