"""What every ``IterDataPipe.__iter__`` is wrapped in (by its metaclass): one valid
iterator per DataPipe, ``reset()`` when a new one starts, a count of samples yielded, a
``record_function`` range per sample while the profiler runs, and the DataPipe named in
any error its iterator raises (torch's messages throughout)."""

from __future__ import annotations

import enum
import functools
import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["hook_iterator"]


class _SnapshotState(enum.Enum):
    """Where a DataPipe is in its life: not iterated yet, restored from a snapshot, or
    iterating (a new iterator then resets it)."""

    NotStarted = 0
    Restored = 1
    Iterating = 2


def _simplify_obj_name(obj: Any) -> str:
    return obj.__name__ if inspect.isfunction(obj) else repr(obj)


def _strip_datapipe_from_name(name: str) -> str:
    return name.replace("IterDataPipe", "").replace("MapDataPipe", "")


def _generate_input_args_string(obj: Any) -> str:
    """``name=value`` for each constructor argument the DataPipe keeps as an attribute."""
    names = set(inspect.signature(obj.__class__).parameters)
    found = [
        (name, _simplify_obj_name(value))
        for name, value in inspect.getmembers(obj)
        if name in names
    ]
    return ", ".join(f"{name}={value}" for name, value in found)


def _generate_iterdatapipe_msg(datapipe: Any, simplify_dp_name: bool = False) -> str:
    message = f"{datapipe.__class__.__name__}({_generate_input_args_string(datapipe)})"
    return _strip_datapipe_from_name(message) if simplify_dp_name else message


def _gen_invalid_iterdatapipe_msg(datapipe: Any) -> str:
    return (
        "This iterator has been invalidated because another iterator has been created from "
        f"the same IterDataPipe: {_generate_iterdatapipe_msg(datapipe)}\nThis may be caused "
        "by multiple references to the same IterDataPipe. We recommend using `.fork()` if "
        "that is necessary."
    )


_FEEDBACK = (
    "\nFor feedback regarding this single iterator per IterDataPipe constraint, feel free to "
    "comment on this issue: https://github.com/pytorch/data/issues/45."
)


def _check_iterator_valid(
    datapipe: Any, iterator_id: Any, next_method_exists: bool = False
) -> None:
    """Raise torch's error when ``iterator_id`` is no longer ``datapipe``'s iterator."""
    if next_method_exists:
        if datapipe._valid_iterator_id is not None and datapipe._valid_iterator_id != 0:
            extra = (
                "\nNote that this exception is raised inside your IterDataPipe's a `__next__` "
                "method"
            )
            raise RuntimeError(_gen_invalid_iterdatapipe_msg(datapipe) + extra + _FEEDBACK)
    elif getattr(datapipe, "_is_child_datapipe", False) is True:
        if not datapipe._check_valid_iterator_id(iterator_id):
            raise RuntimeError(
                "This iterator has been invalidated, because a new iterator has been created "
                "from one of the ChildDataPipes of "
                f"{_generate_iterdatapipe_msg(datapipe.main_datapipe)}." + _FEEDBACK
            )
    elif datapipe._valid_iterator_id != iterator_id:
        raise RuntimeError(_gen_invalid_iterdatapipe_msg(datapipe) + _FEEDBACK)


def _set_datapipe_valid_iterator_id(datapipe: Any) -> int:
    """A new iterator of ``datapipe`` starts: its id, and ``reset()``."""
    if getattr(datapipe, "_is_child_datapipe", False) is True:
        return datapipe._set_main_datapipe_valid_iterator_id()
    datapipe._valid_iterator_id = (
        0 if datapipe._valid_iterator_id is None else datapipe._valid_iterator_id + 1
    )
    datapipe.reset()
    return datapipe._valid_iterator_id


def _profiling() -> bool:
    from hookgrad.autograd import profiler

    return bool(profiler._sessions)


def _record(datapipe: Any) -> Any:
    from hookgrad.autograd import profiler

    if not hasattr(datapipe, "_profile_name"):
        datapipe._profile_name = _generate_iterdatapipe_msg(datapipe, simplify_dp_name=True)
    return profiler.record_function(datapipe._profile_name)


def _name_in_error(error: Exception, datapipe: Any) -> None:
    """Append which DataPipe's ``__iter__`` raised ``error`` to its message (once)."""
    where = "thrown by __iter__ of"
    full = f"{where} {datapipe.__class__.__name__}({_generate_input_args_string(datapipe)})"
    if len(error.args) == 0 or not isinstance(error.args[0], str):
        error.args = (f"\nThis exception is {full}",)
    elif (
        where not in error.args[0]
        and "single iterator per IterDataPipe constraint" not in error.args[0]
    ):
        error.args = (error.args[0] + f"\nThis exception is {full}",) + error.args[1:]


class _IteratorDecorator:
    """The iterator returned for an ``__iter__`` that is not a generator function."""

    def __init__(self, iterator: Any, datapipe: Any, iterator_id: int, has_next: bool) -> None:
        self.iterator = iterator
        self.datapipe = datapipe
        self.iterator_id = iterator_id
        self._profiler_enabled = _profiling()
        self.self_and_has_next_method = iterator is datapipe and has_next

    def __iter__(self) -> _IteratorDecorator:
        return self

    def _get_next(self) -> Any:
        _check_iterator_valid(self.datapipe, self.iterator_id)
        result = next(self.iterator)
        if not self.self_and_has_next_method:
            self.datapipe._number_of_samples_yielded += 1
        return result

    def __next__(self) -> Any:
        if self._profiler_enabled:
            with _record(self.datapipe):
                return self._get_next()
        return self._get_next()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.iterator, name)


def hook_iterator(namespace: dict[str, Any]) -> None:
    """Wrap the ``__iter__`` (and ``__next__``) of a class being made from ``namespace``."""
    function = namespace["__iter__"]
    if inspect.isgeneratorfunction(function):
        namespace["__iter__"] = _wrap_generator(function)
        return
    if "__next__" in namespace:
        namespace["__next__"] = _wrap_next(namespace["__next__"])
    has_next = "__next__" in namespace

    @functools.wraps(function)
    def wrap_iter(*args: Any, **kwargs: Any) -> Any:
        iterator = function(*args, **kwargs)
        datapipe = args[0]
        datapipe._snapshot_state = _SnapshotState.Iterating
        if datapipe._fast_forward_iterator:
            iterator, datapipe._fast_forward_iterator = datapipe._fast_forward_iterator, None
            return iterator
        iterator_id = _set_datapipe_valid_iterator_id(datapipe)
        return _IteratorDecorator(iterator, datapipe, iterator_id, has_next)

    namespace["__iter__"] = wrap_iter


def _wrap_next(next_function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(next_function)
    def wrap_next(*args: Any, **kwargs: Any) -> Any:
        datapipe = args[0]
        if _profiling():
            with _record(datapipe):
                result = next_function(*args, **kwargs)
        else:
            result = next_function(*args, **kwargs)
        datapipe._number_of_samples_yielded += 1
        return result

    return wrap_next


def _wrap_generator(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrap_generator(*args: Any, **kwargs: Any) -> Any:
        generator = function(*args, **kwargs)
        datapipe = args[0]
        if datapipe._fast_forward_iterator:
            iterator = datapipe._fast_forward_iterator
            datapipe._fast_forward_iterator = None
            datapipe._snapshot_state = _SnapshotState.Iterating
            yield from iterator
            return
        iterator_id = _set_datapipe_valid_iterator_id(datapipe)
        profiling = _profiling()
        try:
            if profiling:
                with _record(datapipe):
                    response = generator.send(None)
            else:
                response = generator.send(None)
            while True:
                datapipe._number_of_samples_yielded += 1
                request = yield response
                if profiling:
                    with _record(datapipe):
                        _check_iterator_valid(datapipe, iterator_id)
                        response = generator.send(request)
                else:
                    _check_iterator_valid(datapipe, iterator_id)
                    response = generator.send(request)
        except StopIteration:
            return
        except Exception as error:
            _name_in_error(error, datapipe)
            raise

    return wrap_generator
