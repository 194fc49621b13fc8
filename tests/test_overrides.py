"""``hookgrad.overrides``: torch's ``__torch_function__`` protocol helpers for a library's
own tensor-like types, and the description of hookgrad's namespace."""

from __future__ import annotations

from typing import Any

import pytest

import hookgrad
from tests.oracle import outcome


class Logged:
    """A tensor-like type of a library: every call it handles is logged."""

    log: list[str] = []

    def __init__(self, value: Any) -> None:
        self.value = value

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.log.append(f"{cls.__name__}:{func.__name__}")
        return "handled"


class LoggedChild(Logged):
    pass


class Declines:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def _library(t: Any) -> Any:
    """A library function written as torch's documentation shows."""

    def scaled(a: Any, b: Any) -> Any:
        if t.overrides.has_torch_function((a, b)):
            return t.overrides.handle_torch_function(scaled, (a, b), a, b)
        return a * b + 1

    return scaled


def _dispatch(t: Any) -> Any:
    Logged.log = []
    scaled = _library(t)
    plain = scaled(t.tensor([2.0]), t.tensor([3.0]))
    handled = scaled(Logged(1), LoggedChild(2))
    return plain, handled, list(Logged.log)


def _declined(t: Any) -> Any:
    return _library(t)(Declines(), 1)


def _flags(t: Any) -> Any:
    x = t.ones(2)
    return (
        t.overrides.has_torch_function((x, 1)),
        t.overrides.has_torch_function((x, Logged(1))),
        t.overrides.has_torch_function_unary(Logged(1)),
        t.overrides.has_torch_function_variadic(x, x),
        t.overrides.is_tensor_like(x),
        t.overrides.is_tensor_like(Logged(1)),
        t.overrides.is_tensor_like([1]),
        t.overrides.is_tensor_method_or_property(t.Tensor.add),
    )


def _wrapped(t: Any) -> Any:
    Logged.log = []

    @t.overrides.wrap_torch_function(lambda a, b: (a, b))
    def plus(a: Any, b: Any) -> Any:
        return a + b

    return plus(1, 2), plus(Logged(1), 2), list(Logged.log)


def _names(t: Any) -> Any:
    resolve = t.overrides.resolve_name
    return (
        resolve(t.sigmoid),
        resolve(t.nn.functional.relu),
        t.zeros in t.overrides.get_ignored_functions(),
        t.Tensor.new_zeros in t.overrides.get_ignored_functions(),
        t.add in t.overrides.get_ignored_functions(),
        t.add in t.overrides.get_overridable_functions()[t],
        t.overrides.get_testing_overrides()[t.add](1, 2),
    )


@pytest.mark.parametrize(
    "case", [_dispatch, _declined, _flags, _wrapped, _names], ids=lambda f: f.__name__
)
def test_overrides_match_torch(case, torch):
    assert outcome(case, hookgrad) == outcome(case, torch)


def test_ignored_functions_are_torchs_that_hookgrad_has(torch):
    """Each function hookgrad ignores is one torch ignores, and each function torch ignores
    that hookgrad has is ignored (torch's list also holds its tensor metaclass)."""
    ignored = torch.overrides.get_ignored_functions()
    ours = hookgrad.overrides.get_ignored_functions()
    expected = set()
    for namespace, torch_namespace in ((hookgrad, torch), (hookgrad.Tensor, torch.Tensor)):
        for name in dir(torch_namespace):
            theirs = getattr(torch_namespace, name, None)
            mine = getattr(namespace, name, None)
            if name != "__class__" and mine is not None and any(theirs is f for f in ignored):
                expected.add(mine)
    assert ours == expected
