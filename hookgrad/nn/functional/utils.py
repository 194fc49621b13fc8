"""The helpers ``torch.nn.functional`` also exports: ``boolean_dispatch`` (one function
that calls one of two by a bool argument), ``BroadcastingList1/2/3`` (TorchScript's
annotations of an int-or-list argument), ``assert_int_or_pair``, and the
``__torch_function__`` checks of ``hookgrad.overrides``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookgrad.overrides import (
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "BroadcastingList1",
    "BroadcastingList2",
    "BroadcastingList3",
    "Tensor",
    "assert_int_or_pair",
    "boolean_dispatch",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
]

# For each function ``boolean_dispatch`` made: the two it chooses between and how.
boolean_dispatched: dict[Callable[..., Any], dict[str, Any]] = {}


def boolean_dispatch(
    arg_name: str,
    arg_index: int,
    default: bool,
    if_true: Callable[..., Any],
    if_false: Callable[..., Any],
    module_name: str | None,
    func_name: str | None,
) -> Callable[..., Any]:
    """A function that calls ``if_true`` or ``if_false`` with its arguments, by the bool
    argument ``arg_name`` (keyword) or at position ``arg_index`` (``default`` when not
    given). It takes the docstring of whichever has one (only one may). Example::

        max_pool1d = boolean_dispatch("return_indices", 6, False,
                                      max_pool1d_with_indices, _max_pool1d,
                                      __name__, "max_pool1d")
    """

    def fn(*args: Any, **kwargs: Any) -> Any:
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        doc = if_true.__doc__ = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        doc = if_false.__doc__ = if_true.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is None:
        doc = None
    else:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    boolean_dispatched[fn] = {
        "if_true": if_true,
        "if_false": if_false,
        "index": arg_index,
        "default": default,
        "arg_name": arg_name,
    }
    return fn


class BroadcastingListCls:
    """TorchScript's annotation of an argument given as one value or a list of them
    (``BroadcastingList2[int]``); outside TorchScript, subscripting gives None."""

    def __getitem__(self, types: Any) -> None:
        return None


BroadcastingList1 = BroadcastingListCls()
BroadcastingList2 = BroadcastingList1
BroadcastingList3 = BroadcastingList1


def assert_int_or_pair(arg: Any, arg_name: str, message: str) -> None:
    """Raise ``AssertionError(message.format(arg_name))`` unless ``arg`` is an int or a
    pair. Example: ``assert_int_or_pair((2, 2), "kernel_size", "{} must be a pair")``."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
