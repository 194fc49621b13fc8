"""The DataPipe base classes: ``IterDataPipe`` (an iterable of samples), ``MapDataPipe``
(keys to samples), ``DFIterDataPipe``, and ``DataChunk`` (a batch, a list).

A DataPipe class registered with ``functional_datapipe("name")`` becomes a method of every
DataPipe: ``dp.map(fn)`` is ``Mapper(dp, fn)``. An ``IterDataPipe`` has one valid
iterator at a time: making a new one resets the DataPipe and invalidates the old
(torch's single-iterator constraint). Example::

    dp = IterableWrapper(range(10)).map(lambda x: x + 1).filter(lambda x: x % 2 == 0)
    list(dp)   # [2, 4, 6, 8, 10]
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from hookgrad.utils.data.datapipes._hook_iterator import _SnapshotState
from hookgrad.utils.data.datapipes._typing import _DataPipeMeta, _IterDataPipeMeta
from hookgrad.utils.data.datapipes.utils.common import (
    _deprecation_warning,
    _iter_deprecated_functional_names,
    _map_deprecated_functional_names,
)
from hookgrad.utils.data.dataset import Dataset, IterableDataset

__all__ = ["DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe"]

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class DataChunk(list[_T]):
    """A batch of samples (a list) as ``batch``/``groupby`` yield it. Example::

    DataChunk([1, 2]).as_str()   # '[1, 2]'
    """

    def __init__(self, items: Iterable[_T]) -> None:
        items = list(items)
        super().__init__(items)
        self.items = items

    def as_str(self, indent: str = "") -> str:
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def __iter__(self) -> Iterator[_T]:
        yield from super().__iter__()

    def raw_iterator(self) -> Iterator[_T]:
        yield from self.items


def _functional_form(
    registry: dict[str, Callable[..., Any]], deprecated: dict[str, dict], datapipe: Any, name: str
) -> Any:
    """``datapipe.<name>``: the registered function bound to ``datapipe``."""
    if name not in registry:
        # NOTE: torch's message lacks the closing quote.
        raise AttributeError(f"'{datapipe.__class__.__name__}' object has no attribute '{name}")
    if name in deprecated:
        _deprecation_warning(**deprecated[name])
    function = registry[name]
    bound = functools.partial(function, datapipe)
    functools.update_wrapper(wrapper=bound, wrapped=function, assigned=("__doc__",))
    return bound


class _DataPipeBase:
    """What both kinds of DataPipe share: hooks for graph traversal by pickling, names."""

    functions: dict[str, Callable[..., Any]]
    reduce_ex_hook: Callable[..., Any] | None = None
    getstate_hook: Callable[..., Any] | None = None
    str_hook: Callable[..., Any] | None = None
    repr_hook: Callable[..., Any] | None = None
    _kind: type

    @classmethod
    def register_function(cls, function_name: str, function: Callable[..., Any]) -> None:
        cls.functions[function_name] = function

    def __getstate__(self) -> Any:
        """The state to pickle (through ``getstate_hook`` while a graph is traversed)."""
        state = self.__dict__
        hook = self._kind.getstate_hook
        return hook(state) if hook is not None else state

    def __reduce_ex__(self, *args: Any, **kwargs: Any) -> Any:
        hook = self._kind.reduce_ex_hook
        if hook is not None:
            try:
                return hook(self)
            except NotImplementedError:
                pass
        return super().__reduce_ex__(*args, **kwargs)

    @classmethod
    def set_getstate_hook(cls, hook_fn: Callable[..., Any] | None) -> None:
        kind = cls._kind
        if kind.getstate_hook is not None and hook_fn is not None:
            raise RuntimeError("Attempt to override existing getstate_hook")
        kind.getstate_hook = hook_fn

    @classmethod
    def set_reduce_ex_hook(cls, hook_fn: Callable[..., Any] | None) -> None:
        kind = cls._kind
        if kind.reduce_ex_hook is not None and hook_fn is not None:
            raise RuntimeError("Attempt to override existing reduce_ex_hook")
        kind.reduce_ex_hook = hook_fn

    def __repr__(self) -> str:
        if self.repr_hook is not None:
            return self.repr_hook(self)
        return str(self.__class__.__qualname__)

    def __str__(self) -> str:
        if self.str_hook is not None:
            return self.str_hook(self)
        return str(self.__class__.__qualname__)

    def __dir__(self) -> list[str]:
        return list(super().__dir__()) + list(self.functions.keys())


class IterDataPipe(_DataPipeBase, IterableDataset[_T_co], metaclass=_IterDataPipeMeta):
    """Iterable-style DataPipe: a lazily computed stream of samples.

    Subclasses define ``__iter__`` (and ``reset()`` for state to clear when a new iterator
    starts); registered DataPipes are available as methods (``dp.map(fn)``,
    ``dp.batch(4)``, ``dp.shuffle()`` ...). Only one iterator of a DataPipe is valid at a
    time. Example::

        class Squares(IterDataPipe):
            def __init__(self, source):
                self.source = source

            def __iter__(self):
                for x in self.source:
                    yield x * x
    """

    functions: dict[str, Callable[..., Any]] = {}
    reduce_ex_hook: Callable[..., Any] | None = None
    getstate_hook: Callable[..., Any] | None = None
    _valid_iterator_id: int | None = None
    _number_of_samples_yielded: int = 0
    _snapshot_state: _SnapshotState = _SnapshotState.NotStarted
    _fast_forward_iterator: Iterator[Any] | None = None

    def __iter__(self) -> Iterator[_T_co]:
        return self  # type: ignore[return-value]

    def __getattr__(self, attribute_name: str) -> Any:
        return _functional_form(
            IterDataPipe.functions, _iter_deprecated_functional_names, self, attribute_name
        )

    @classmethod
    def register_datapipe_as_function(
        cls, function_name: str, cls_to_register: Any, enable_df_api_tracing: bool = False
    ) -> None:
        """Make ``dp.<function_name>(*args)`` build ``cls_to_register(dp, *args)``."""
        if function_name in cls.functions:
            raise Exception(  # noqa: TRY002 (torch's type)
                f"Unable to add DataPipe function name {function_name} as it is already taken"
            )

        def class_function(source_dp: Any, *args: Any, **kwargs: Any) -> Any:
            return cls_to_register(source_dp, *args, **kwargs)

        functools.update_wrapper(
            wrapper=class_function, wrapped=cls_to_register, assigned=("__doc__",)
        )
        cls.functions[function_name] = class_function

    def reset(self) -> None:
        """Clear state when a new iterator starts (override it; by default nothing)."""


IterDataPipe._kind = IterDataPipe


class DFIterDataPipe(IterDataPipe):
    """An ``IterDataPipe`` of DataFrames (torch's marker class)."""

    def _is_dfpipe(self) -> bool:
        return True


class MapDataPipe(_DataPipeBase, Dataset[_T_co], metaclass=_DataPipeMeta):
    """Map-style DataPipe: samples by key (``__getitem__``, and ``__len__``).

    Registered DataPipes are available as methods (``dp.map(fn)``, ``dp.batch(2)``,
    ``dp.shuffle()`` ...). Example::

        SequenceWrapper(range(10)).map(lambda x: x * 2)[3]   # 6
    """

    functions: dict[str, Callable[..., Any]] = {}
    reduce_ex_hook: Callable[..., Any] | None = None
    getstate_hook: Callable[..., Any] | None = None

    def __getattr__(self, attribute_name: str) -> Any:
        return _functional_form(
            MapDataPipe.functions, _map_deprecated_functional_names, self, attribute_name
        )

    @classmethod
    def register_datapipe_as_function(cls, function_name: str, cls_to_register: Any) -> None:
        """Make ``dp.<function_name>(*args)`` build ``cls_to_register(dp, *args)``."""
        if function_name in cls.functions:
            raise Exception(  # noqa: TRY002 (torch's type)
                f"Unable to add DataPipe function name {function_name} as it is already taken"
            )

        def class_function(source_dp: Any, *args: Any, **kwargs: Any) -> Any:
            return cls_to_register(source_dp, *args, **kwargs)

        functools.update_wrapper(
            wrapper=class_function, wrapped=cls_to_register, assigned=("__doc__",)
        )
        cls.functions[function_name] = class_function


MapDataPipe._kind = MapDataPipe


class _DataPipeSerializationWrapper:
    """A DataPipe as ``DataLoader`` keeps it: pickled as bytes of the DataPipe."""

    def __init__(self, datapipe: Any) -> None:
        self._datapipe = datapipe

    def __getstate__(self) -> Any:
        return (pickle.dumps(self._datapipe), False)

    def __setstate__(self, state: Any) -> None:
        value, _ = state
        self._datapipe = pickle.loads(value)

    def __len__(self) -> int:
        try:
            return len(self._datapipe)
        except Exception as error:
            raise TypeError(f"{type(self).__name__} instance doesn't have valid length") from error


class _IterDataPipeSerializationWrapper(_DataPipeSerializationWrapper, IterDataPipe):
    def __init__(self, datapipe: IterDataPipe[_T_co]) -> None:
        super().__init__(datapipe)
        self._datapipe_iter: Iterator[_T_co] | None = None

    def __iter__(self) -> _IterDataPipeSerializationWrapper:
        self._datapipe_iter = iter(self._datapipe)
        return self

    def __next__(self) -> Any:
        if self._datapipe_iter is None:
            raise AssertionError(
                "Iterator has not been initialized; call __iter__() before __next__()"
            )
        return next(self._datapipe_iter)


class _MapDataPipeSerializationWrapper(_DataPipeSerializationWrapper, MapDataPipe):
    def __getitem__(self, idx: Any) -> Any:
        return self._datapipe[idx]
