"""``hookgrad.overrides``: torch's ``__torch_function__`` protocol helpers, for libraries
that implement it on their own tensor-like types (``torch.overrides``).

What is supported: a library's function can call ``has_torch_function(args)`` and
``handle_torch_function(fn, args, *args, **kwargs)`` (or wrap itself with
``wrap_torch_function``) so that an argument whose type defines ``__torch_function__``
handles the call, with torch's precedence (subclasses first, then left to right) and its
``TypeError`` when every handler returns ``NotImplemented``. hookgrad's own functions and
``Tensor`` do not dispatch through ``__torch_function__`` (there are no ``Tensor``
subclasses with it, and no torch function modes): for hookgrad tensors
``has_torch_function`` is False. ``get_ignored_functions``, ``get_overridable_functions``,
``get_testing_overrides`` and ``resolve_name`` describe hookgrad's namespace as torch's
describe torch's (names printed as ``torch.<name>``, as elsewhere in hookgrad).

Example::

    class Logged:
        def __init__(self, value): self.value = value

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return f"called {func.__name__}"

    def double(x):
        if has_torch_function((x,)):
            return handle_torch_function(double, (x,), x)
        return x * 2

    double(Logged(1))     # "called double"
"""

from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from hookgrad.tensor.tensor import Tensor

__all__ = [
    "enable_reentrant_dispatch",
    "get_ignored_functions",
    "get_overridable_functions",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "redispatch_function",
    "resolve_name",
    "wrap_torch_function",
]


def _handler_types(relevant_args: Iterable[Any]) -> list[Any]:
    """The arguments whose ``__torch_function__`` to call, in torch's order: one per
    distinct type, a subclass before its superclass, otherwise left to right."""
    seen: set[type] = set()
    overloaded: list[Any] = []
    for arg in relevant_args:
        kind = type(arg)
        if kind in seen or getattr(kind, "__torch_function__", None) is None:
            continue
        seen.add(kind)
        index = len(overloaded)
        for position, earlier in enumerate(overloaded):
            if issubclass(kind, type(earlier)):
                index = position
                break
        overloaded.insert(index, arg)
    return overloaded


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether any of ``relevant_args`` has a type that defines ``__torch_function__``
    (never a hookgrad tensor). Example: ``has_torch_function((x, y))``."""
    return any(getattr(type(arg), "__torch_function__", None) is not None for arg in relevant_args)


def has_torch_function_unary(arg: Any) -> bool:
    """``has_torch_function((arg,))``."""
    return getattr(type(arg), "__torch_function__", None) is not None


def has_torch_function_variadic(*args: Any) -> bool:
    """``has_torch_function(args)``."""
    return has_torch_function(args)


def handle_torch_function(
    public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any, **kwargs: Any
) -> Any:
    """Call ``public_api`` through the ``__torch_function__`` of ``relevant_args``:
    ``handler(public_api, types, args, kwargs)`` for each handler in torch's order, until
    one returns something other than ``NotImplemented``.

    Raises torch's ``TypeError`` when all return ``NotImplemented``.
    """
    overloaded = _handler_types(relevant_args)
    kinds = tuple(type(arg) for arg in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, kinds, args, kwargs)
        if result is not NotImplemented:
            return result
    name = resolve_name(public_api) or f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(
        f"no implementation found for '{name}' on types that implement __torch_function__: "
        f"{[type(arg) for arg in overloaded]}"
    )


def redispatch_function(func: Callable[..., Any], types: Any, args: Any, kwargs: Any = None) -> Any:
    """Call ``func`` itself from a ``__torch_function__`` handler (one level of dispatch
    skipped): ``func(*args, **kwargs)``."""
    return func(*args, **(kwargs or {}))


def wrap_torch_function(dispatcher: Callable[..., Iterable[Any]]) -> Callable[..., Any]:
    """A decorator: the wrapped function goes through ``handle_torch_function`` when an
    argument ``dispatcher(*args, **kwargs)`` names has ``__torch_function__``.

    Example::

        @wrap_torch_function(lambda x, y: (x, y))
        def add(x, y): return x + y
    """

    def decorator(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return function(*args, **kwargs)

        return wrapped

    return decorator


@contextlib.contextmanager
def enable_reentrant_dispatch() -> Iterator[None]:
    """torch's guard for re-entering dispatch from a handler; nothing to guard here."""
    yield


def is_tensor_like(inp: Any) -> bool:
    """Whether ``inp`` is a hookgrad tensor or has a type defining
    ``__torch_function__``. Example: ``is_tensor_like(hookgrad.ones(2))`` is True."""
    return isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")


def is_tensor_method_or_property(func: Callable[..., Any]) -> bool:
    """Whether ``func`` is a ``Tensor`` method (or a property's ``__get__``), as handed
    to ``__torch_function__``. Example: True for ``hookgrad.Tensor.add``, False for
    ``hookgrad.add``."""
    return func in _tensor_methods() or getattr(func, "__name__", None) == "__get__"


# torch's functions that cannot be overridden (they take no tensor, or set global state),
# by name; ``get_ignored_functions`` returns hookgrad's functions of these names.
_IGNORED = (
    "arange are_deterministic_algorithms_enabled as_tensor asarray bartlett_window "
    "default_generator blackman_window broadcast_shapes compile device dtype empty empty_permuted "
    "empty_strided enable_grad eye finfo from_numpy frombuffer full get_autocast_dtype "
    "get_default_device get_default_dtype get_float32_matmul_precision "
    "get_num_interop_threads get_num_threads get_rng_state hamming_window hann_window iinfo "
    "inference_mode initial_seed is_anomaly_check_nan_enabled is_anomaly_enabled "
    "is_autocast_enabled is_deterministic_algorithms_warn_only_enabled is_grad_enabled "
    "is_inference_mode_enabled is_tensor kaiser_window linspace load logspace manual_seed "
    "memory_format no_grad normal ones promote_types rand rand_like randint randint_like "
    "randn randn_like randperm range result_type save scalar_tensor seed set_anomaly_enabled "
    "set_default_device set_default_tensor_type set_float32_matmul_precision "
    "set_grad_enabled set_num_interop_threads set_num_threads set_printoptions "
    "set_rng_state tensor tril_indices triu_indices use_deterministic_algorithms vander vmap zeros "
    "eig lstsq solve symeig "
    "can_cast fill get_deterministic_debug_mode get_device_module has_lapack has_mkl "
    "has_openmp has_spectral is_warn_always_enabled layout set_deterministic_debug_mode "
    "set_warn_always typename"
).split()
_IGNORED_METHODS = (
    "__delattr__ __dir__ __getattribute__ __hash__ __init__ __iter__ __new__ __setattr__ "
    "as_strided new new_empty new_empty_strided new_full new_ones new_tensor new_zeros stride "
    "unflatten as_subclass reinforce"
).split()


def get_ignored_functions() -> set[Callable[..., Any]]:
    """hookgrad's functions and ``Tensor`` methods that ``__torch_function__`` cannot
    override (those torch ignores: factories and global state). Example:
    ``hookgrad.zeros in get_ignored_functions()``."""
    namespace = _namespace()
    ignored = {getattr(namespace, name) for name in _IGNORED if hasattr(namespace, name)}
    ignored |= {getattr(Tensor, name) for name in _IGNORED_METHODS if hasattr(Tensor, name)}
    return ignored


# The ``hookgrad`` namespace, handed over by ``hookgrad/__init__.py`` once it is complete
# (``bind``): this module sits below it and never imports it.
_bound: list[Any] = []


def bind(namespace: Any) -> None:
    """Called once by ``hookgrad/__init__.py``: the namespace these functions describe."""
    _bound[:] = [namespace]
    _overridable.cache_clear()


def _namespace() -> Any:
    if not _bound:
        raise RuntimeError("hookgrad.overrides: the hookgrad namespace is not bound yet")
    return _bound[0]


def _namespaces() -> list[tuple[Any, str]]:
    """The namespaces whose functions ``__torch_function__`` could override, each with
    torch's name for it."""
    namespace = _namespace()
    found = [(namespace, "torch"), (Tensor, "torch.Tensor")]
    for path in ("nn.functional", "linalg", "special", "fft"):
        module = namespace
        for part in path.split("."):
            module = getattr(module, part, None)
        if module is not None:
            found.append((module, f"torch.{path}"))
    return found


@functools.lru_cache(maxsize=1)
def _overridable() -> tuple[dict[Any, list[Callable[..., Any]]], dict[Callable[..., Any], str]]:
    """The overridable functions by namespace, and each one's name (``torch.add``)."""
    ignored = get_ignored_functions()
    by_namespace: dict[Any, list[Callable[..., Any]]] = {}
    names: dict[Callable[..., Any], str] = {}
    for namespace, prefix in _namespaces():
        functions = []
        for name in sorted(dir(namespace)):
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                continue
            value = getattr(namespace, name, None)
            if isinstance(value, property):
                value = value.__get__
            if not callable(value) or isinstance(value, type) or value in ignored:
                continue
            if not isinstance(value, (types.FunctionType, types.BuiltinFunctionType)) and not (
                getattr(value, "__name__", None) == "__get__"
            ):
                continue
            functions.append(value)
            names.setdefault(value, f"{prefix}.{name}")
        by_namespace[namespace] = functions
    return by_namespace, names


def get_overridable_functions() -> dict[Any, list[Callable[..., Any]]]:
    """The functions ``__torch_function__`` can override, by namespace (``hookgrad``,
    ``hookgrad.Tensor``, ``hookgrad.nn.functional`` ...)."""
    return _overridable()[0]


def resolve_name(f: Callable[..., Any]) -> str | None:
    """A readable name of an overridable function, as torch prints it
    (``"torch.add"``, ``"torch.Tensor.add"``); None for others."""
    return _overridable()[1].get(f)


def get_testing_overrides() -> dict[Callable[..., Any], Callable[..., Any]]:
    """A dummy override (returning -1) per overridable function, for testing a
    ``__torch_function__`` implementation against every function."""

    def dummy(*args: Any, **kwargs: Any) -> int:
        return -1

    return {f: dummy for functions in get_overridable_functions().values() for f in functions}


def _tensor_methods() -> set[Callable[..., Any]]:
    return set(get_overridable_functions().get(Tensor, ()))
