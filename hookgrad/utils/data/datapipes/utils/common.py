"""Helpers shared by DataPipes: checking a function against ``input_col``, warning about
functions pickle cannot carry to workers, file listing and opening, ``StreamWrapper``
(a file object that closes itself), and torch's deprecation messages."""

from __future__ import annotations

import fnmatch
import functools
import inspect
import os
import warnings
from collections.abc import Callable, Iterable
from io import IOBase
from typing import Any, NoReturn

__all__ = [
    "StreamWrapper",
    "get_file_binaries_from_pathnames",
    "get_file_pathnames_from_root",
    "match_masks",
    "validate_input_col",
    "validate_pathname_binary_tuple",
]


def validate_input_col(fn: Callable[..., Any], input_col: int | tuple | list | None) -> None:
    """Check that ``fn`` takes as many positional arguments as ``input_col`` selects
    (torch's ``ValueError`` otherwise). Example: ``validate_input_col(lambda a, b: a, [0, 1])``."""
    try:
        signature = inspect.signature(fn)
    except ValueError:  # a builtin without a signature
        return
    size = len(input_col) if isinstance(input_col, (list, tuple)) else 1
    positional = []
    var_positional = False
    keyword_only = []
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            positional.append(parameter)
        elif parameter.kind is parameter.VAR_POSITIONAL:
            var_positional = True
        elif parameter.kind is parameter.KEYWORD_ONLY and parameter.default is parameter.empty:
            keyword_only.append(parameter)
    target = fn.func if isinstance(fn, functools.partial) else fn
    name = getattr(target, "__name__", repr(target))
    if keyword_only:
        raise ValueError(
            f"The function {name} takes {len(keyword_only)} non-default keyword-only "
            "parameters, which is not allowed."
        )
    if len(signature.parameters) < size:
        if not var_positional:
            raise ValueError(
                f"The function {name} takes {len(signature.parameters)} parameters, but {size} "
                "are required."
            )
    elif len(positional) > size:
        if any(p.default is p.empty for p in positional[size:]):
            raise ValueError(
                f"The function {name} takes {len(positional)} positional parameters, but {size} "
                "are required."
            )
    elif len(positional) < size and not var_positional:
        raise ValueError(
            f"The function {name} takes {len(positional)} positional parameters, but {size} are "
            "required."
        )


def _is_local_fn(fn: Any) -> bool:
    if hasattr(fn, "__code__"):
        return bool(fn.__code__.co_flags & inspect.CO_NESTED)
    if hasattr(fn, "__qualname__"):
        return "<locals>" in fn.__qualname__
    return "<locals>" in getattr(type(fn), "__qualname__", "")


def _check_unpickable_fn(fn: Callable[..., Any]) -> None:
    """A TypeError for a non-callable; a warning for a lambda or local function (pickle
    cannot send them to DataLoader workers)."""
    if not callable(fn):
        raise TypeError(f"A callable function is expected, but {type(fn)} is provided.")
    if isinstance(fn, functools.partial):
        fn = fn.func
    if _is_local_fn(fn):
        warnings.warn(
            "Local function is not supported by pickle, please use regular python function or "
            "functools.partial instead.",
            stacklevel=2,
        )
        return
    if getattr(fn, "__name__", None) == "<lambda>":
        warnings.warn(
            "Lambda function is not supported by pickle, please use regular python function or "
            "functools.partial instead.",
            stacklevel=2,
        )


def match_masks(name: str, masks: str | list[str]) -> bool:
    """Whether ``name`` matches a glob mask (any, for a list; every name for none)."""
    if not masks:
        return True
    if isinstance(masks, str):
        return fnmatch.fnmatch(name, masks)
    return any(fnmatch.fnmatch(name, mask) for mask in masks)


def get_file_pathnames_from_root(
    root: str,
    masks: str | list[str],
    recursive: bool = False,
    abspath: bool = False,
    non_deterministic: bool = False,
) -> Iterable[str]:
    """The files under ``root`` (or ``root`` itself) matching ``masks``, sorted unless
    ``non_deterministic``; subdirectories too with ``recursive``."""

    def onerror(error: OSError) -> NoReturn:
        warnings.warn(f"{error.filename} : {error.strerror}", stacklevel=2)
        raise error

    if os.path.isfile(root):
        path = os.path.abspath(root) if abspath else root
        if match_masks(os.path.basename(path), masks):
            yield path
        return
    for path, dirs, files in os.walk(root, onerror=onerror):
        if abspath:
            path = os.path.abspath(path)
        if not non_deterministic:
            files.sort()
        for file in files:
            if match_masks(file, masks):
                yield os.path.join(path, file)
        if not recursive:
            break
        if not non_deterministic:
            dirs.sort()


def get_file_binaries_from_pathnames(
    pathnames: Iterable[Any], mode: str, encoding: str | None = None
) -> Any:
    """``(pathname, StreamWrapper(open file))`` for each pathname."""
    if not isinstance(pathnames, Iterable):
        pathnames = [pathnames]
    if mode in ("b", "t"):
        mode = "r" + mode
    for pathname in pathnames:
        if not isinstance(pathname, str):
            raise TypeError(f"Expected string type for pathname, but got {type(pathname)}")
        yield pathname, StreamWrapper(open(pathname, mode, encoding=encoding))  # noqa: SIM115


def validate_pathname_binary_tuple(data: tuple[str, IOBase]) -> None:
    """Check that ``data`` is ``(pathname, stream)`` (torch's TypeErrors otherwise)."""
    if not isinstance(data, tuple):
        raise TypeError(f"pathname binary data should be tuple type, but it is type {type(data)}")
    if len(data) != 2:
        raise TypeError(f"pathname binary stream tuple length should be 2, but got {len(data)}")
    if not isinstance(data[0], str):
        raise TypeError(
            "pathname within the tuple should have string type pathname, but it is type "
            f"{type(data[0])}"
        )
    if not isinstance(data[1], (IOBase, StreamWrapper)):
        raise TypeError(
            "binary stream within the tuple should have IOBase orits subclasses as type, but it "
            f"is type {type(data[1])}"
        )


# Deprecated functional names of DataPipes (none in torch 2.13), and their messages.
_iter_deprecated_functional_names: dict[str, dict[str, Any]] = {}
_map_deprecated_functional_names: dict[str, dict[str, Any]] = {}


def _deprecation_warning(
    old_class_name: str,
    *,
    deprecation_version: str,
    removal_version: str,
    old_functional_name: str = "",
    old_argument_name: str = "",
    new_class_name: str = "",
    new_functional_name: str = "",
    new_argument_name: str = "",
    deprecate_functional_name_only: bool = False,
) -> None:
    """torch's FutureWarning for a deprecated DataPipe, functional name or argument."""
    message = f"`{old_class_name}()`"
    if deprecate_functional_name_only and old_functional_name:
        message += f"'s functional API `.{old_functional_name}()` is"
    elif old_functional_name:
        message += f" and its functional API `.{old_functional_name}()` are"
    elif old_argument_name:
        message = f"The argument `{old_argument_name}` of {message} is"
    else:
        message += " is"
    message += (
        f" deprecated since {deprecation_version} and will be removed in {removal_version}."
        "\nSee https://github.com/pytorch/data/issues/163 for details."
    )
    if new_class_name or new_functional_name:
        message += "\nPlease use"
        if new_class_name:
            message += f" `{new_class_name}()`"
        if new_class_name and new_functional_name:
            message += " or"
        if new_functional_name:
            message += f" `.{new_functional_name}()`"
        message += " instead."
    if new_argument_name:
        message += f"\nPlease use `{old_class_name}({new_argument_name}=)` instead."
    warnings.warn(message, FutureWarning, stacklevel=2)


class StreamWrapper:
    """A file object that DataPipes pass around: closed when garbage collected, and (with
    ``autoclose``) when its last child stream closes. Attributes are the file's."""

    session_streams: dict[Any, int] = {}
    debug_unclosed_streams: bool = False

    def __init__(self, file_obj: Any, parent_stream: Any = None, name: str | None = None) -> None:
        self.file_obj = file_obj
        self.child_counter = 0
        self.parent_stream = parent_stream
        self.close_on_last_child = False
        self.name = name
        self.closed = False
        if parent_stream is not None:
            if not isinstance(parent_stream, StreamWrapper):
                raise RuntimeError(
                    f"Parent stream should be StreamWrapper, {type(parent_stream)} was given"
                )
            parent_stream.child_counter += 1
        if StreamWrapper.debug_unclosed_streams:
            StreamWrapper.session_streams[self] = 1

    @classmethod
    def close_streams(cls, v: Any, depth: int = 0) -> None:
        """Close every ``StreamWrapper`` inside ``v`` (lists, tuples, dicts; 10 deep)."""
        if depth > 10:
            return
        if isinstance(v, StreamWrapper):
            v.close()
        elif isinstance(v, dict):
            for value in v.values():
                cls.close_streams(value, depth=depth + 1)
        elif isinstance(v, (list, tuple)):
            for value in v:
                cls.close_streams(value, depth=depth + 1)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["file_obj"], name)

    def close(self, *args: Any, **kwargs: Any) -> None:
        if self.closed:
            return
        if StreamWrapper.debug_unclosed_streams:
            del StreamWrapper.session_streams[self]
        parent = self.__dict__.get("parent_stream")
        if parent is not None:
            parent.child_counter -= 1
            if not parent.child_counter and parent.close_on_last_child:
                parent.close()
        try:
            self.file_obj.close(*args, **kwargs)
        except AttributeError:
            pass
        self.closed = True

    def autoclose(self) -> None:
        """Close now if no child stream is open, else when the last one closes."""
        self.close_on_last_child = True
        if self.child_counter == 0:
            self.close()

    def __dir__(self) -> list[str]:
        names = list(self.__dict__) + list(StreamWrapper.__dict__) + dir(self.file_obj)
        return list(set(names))

    def __del__(self) -> None:
        if not self.__dict__.get("closed", True):
            self.close()

    def __iter__(self) -> Any:
        yield from self.file_obj

    def __next__(self) -> Any:
        return next(self.file_obj)

    def __repr__(self) -> str:
        if self.name is None:
            return f"StreamWrapper<{self.file_obj!r}>"
        return f"StreamWrapper<{self.name},{self.file_obj!r}>"

    def __getstate__(self) -> Any:
        return self.file_obj

    def __setstate__(self, obj: Any) -> None:
        self.file_obj = obj
