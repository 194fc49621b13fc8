"""Decorators for DataPipes: ``functional_datapipe`` (register a functional form),
``non_deterministic`` and ``guaranteed_datapipes_determinism``, ``argument_validation``,
``runtime_validation`` and ``runtime_validation_disabled`` (torch's; its typing checks are
switched off in torch 2.13, so they fail as torch's do on a DataPipe argument)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import wraps
from typing import Any, get_type_hints

from hookgrad.utils.data.datapipes._typing import _DataPipeMeta
from hookgrad.utils.data.datapipes.datapipe import IterDataPipe, MapDataPipe

__all__ = [
    "argument_validation",
    "functional_datapipe",
    "guaranteed_datapipes_determinism",
    "non_deterministic",
    "runtime_validation",
    "runtime_validation_disabled",
]


class functional_datapipe:
    """Register a DataPipe class as a method of every DataPipe of its kind. Example::

    @functional_datapipe("twice")
    class Twice(IterDataPipe):
        def __init__(self, source):
            self.source = source

        def __iter__(self):
            for x in self.source:
                yield 2 * x

    list(IterableWrapper([1, 2]).twice())   # [2, 4]
    """

    name: str

    def __init__(self, name: str, enable_df_api_tracing: bool = False) -> None:
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls: Any) -> Any:
        if issubclass(cls, IterDataPipe):
            if isinstance(cls, type):
                if not isinstance(cls, _DataPipeMeta):
                    raise TypeError("`functional_datapipe` can only decorate IterDataPipe")
            elif not isinstance(cls, non_deterministic) and not (
                hasattr(cls, "__self__") and isinstance(cls.__self__, non_deterministic)
            ):
                raise TypeError("`functional_datapipe` can only decorate IterDataPipe")
            IterDataPipe.register_datapipe_as_function(
                self.name, cls, enable_df_api_tracing=self.enable_df_api_tracing
            )
        elif issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        return cls


_determinism = False


class guaranteed_datapipes_determinism:
    """Make constructing a ``non_deterministic`` DataPipe an error (a TypeError), from now
    until the ``with`` block (if any) ends. Example::

        with guaranteed_datapipes_determinism():
            pipe = build_pipeline()
    """

    prev: bool

    def __init__(self) -> None:
        global _determinism
        self.prev = _determinism
        _determinism = True

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info: object) -> None:
        global _determinism
        _determinism = self.prev


class non_deterministic:
    """Mark an ``IterDataPipe`` class as non-deterministic (``@non_deterministic``), or as
    non-deterministic for the arguments a function of them says
    (``@non_deterministic(fn)``); building it under ``guaranteed_datapipes_determinism``
    raises. Example::

        @non_deterministic
        class Timed(IterDataPipe): ...
    """

    cls: type[IterDataPipe] | None = None
    deterministic_fn: Callable[..., bool]

    def __init__(self, arg: type[IterDataPipe] | Callable[..., bool]) -> None:
        if isinstance(arg, type):
            if not issubclass(arg, IterDataPipe):
                raise TypeError(
                    "Only `IterDataPipe` can be decorated with `non_deterministic`, but "
                    f"{arg.__name__} is found"
                )
            self.cls = arg
        elif callable(arg):
            self.deterministic_fn = arg
        else:
            raise TypeError(f"{arg} can not be decorated by non_deterministic")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.cls is not None:
            if _determinism:
                raise TypeError(
                    f"{self.cls.__name__} is non-deterministic, but you set "
                    "'guaranteed_datapipes_determinism'. You can turn off determinism for this "
                    "DataPipe if that is acceptable for your application"
                )
            return self.cls(*args, **kwargs)
        if not (isinstance(args[0], type) and issubclass(args[0], IterDataPipe)):
            raise TypeError(
                f"Only `IterDataPipe` can be decorated, but {args[0].__name__} is found"
            )
        self.cls = args[0]
        return self.deterministic_wrapper_fn

    def deterministic_wrapper_fn(self, *args: Any, **kwargs: Any) -> IterDataPipe:
        result = self.deterministic_fn(*args, **kwargs)
        if not isinstance(result, bool):
            raise TypeError(
                "deterministic_fn of `non_deterministic` decorator is required to return a "
                f"boolean value, but {type(result)} is found"
            )
        if _determinism and result:
            name = self.cls.__name__  # type: ignore[union-attr]
            raise TypeError(
                f"{name} is non-deterministic with the inputs, but you set "
                "'guaranteed_datapipes_determinism'. You can turn off determinism for this "
                "DataPipe if that is acceptable for your application"
            )
        return self.cls(*args, **kwargs)  # type: ignore[misc]


def argument_validation(f: Callable[..., Any]) -> Callable[..., Any]:
    """Check, at each call of ``f``, that arguments annotated as a DataPipe class are
    ``IterDataPipe``s (then their type against the annotation's). Example::

        @argument_validation
        def build(source: IterDataPipe): ...
    """
    signature = inspect.signature(f)
    hints = get_type_hints(f)

    @wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            if name in hints and isinstance(hints[name], _DataPipeMeta):
                hint = hints[name]
                if not isinstance(value, IterDataPipe):
                    raise TypeError(
                        f"Expected argument '{name}' as a IterDataPipe, but found {type(value)}"
                    )
                # NOTE: as in torch 2.13, DataPipes have no ``type``: this raises.
                if not value.type.issubtype(hint.type):
                    raise TypeError(
                        f"Expected type of argument '{name}' as a subtype of hint {hint.type}, "
                        f"but found {value.type}"
                    )
        return f(*args, **kwargs)

    return wrapper


_runtime_validation_enabled = True


class runtime_validation_disabled:
    """Turn ``runtime_validation`` checks off, from now until the ``with`` block ends."""

    prev: bool

    def __init__(self) -> None:
        global _runtime_validation_enabled
        self.prev = _runtime_validation_enabled
        _runtime_validation_enabled = False

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc_info: object) -> None:
        global _runtime_validation_enabled
        _runtime_validation_enabled = self.prev


def runtime_validation(f: Callable[..., Any]) -> Callable[..., Any]:
    """Check each sample an ``__iter__`` yields against the DataPipe's type (only
    ``__iter__`` may be decorated). Example::

        class Ints(IterDataPipe):
            @runtime_validation
            def __iter__(self):
                yield from range(3)
    """
    if f.__name__ != "__iter__":
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @wraps(f)
    def wrapper(self: Any) -> Any:
        if not _runtime_validation_enabled:
            yield from f(self)
            return
        for item in f(self):
            # NOTE: as in torch 2.13, DataPipes have no ``type``: this raises.
            if not self.type.issubtype_of_instance(item):
                raise RuntimeError(
                    f"Expected an instance as subtype of {self.type}, but found "
                    f"{item}({type(item)})"
                )
            yield item

    return wrapper
