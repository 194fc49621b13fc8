"""``hookgrad.nn``: modules, parameters, the functional API, initialisation and utilities."""

from typing import Any

from hookgrad.nn import attention, common_types, functional, grad, init, modules, parallel, utils
from hookgrad.nn.modules import *  # noqa: F403
from hookgrad.nn.parallel import DataParallel
from hookgrad.nn.parameter import Buffer, Parameter

__all__ = [
    "Buffer",
    "DataParallel",
    "Parameter",
    "attention",
    "common_types",
    "factory_kwargs",
    "functional",
    "grad",
    "init",
    "modules",
    "parallel",
    "utils",
    *modules.__all__,
]


def factory_kwargs(kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """The factory arguments (``device``, ``dtype``, ``memory_format``) among a module's
    ``kwargs``, with those of a ``factory_kwargs`` entry; ``TypeError`` for any other key
    or one given twice. Example::

        class MyModule(nn.Module):
            def __init__(self, **kwargs):
                super().__init__()
                self.weight = nn.Parameter(hookgrad.empty(10, **nn.factory_kwargs(kwargs)))
    """
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in simple_keys:
        if key in kwargs:
            if key in result:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            result[key] = kwargs[key]
    return result
