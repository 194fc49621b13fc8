"""``compile`` and ``hookgrad.compiler``: torch's compiler entry points, compiling nothing.

hookgrad runs every model eagerly. ``hookgrad.compile(model)`` checks its arguments as
torch does and returns ``model`` itself, uncompiled, so scripts that compile their model
run unchanged (torch returns a wrapper module instead, whose ``state_dict`` keys start
with ``_orig_mod.``; hookgrad's keys are the model's own).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "reset"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(  # noqa: A001 (torch's name)
    model: Callable[..., Any] | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: str | Callable[..., Any] | None = None,
    mode: str | None = None,
    options: dict[str, Any] | None = None,
    name: str | None = None,
    disable: bool = False,
    recompile_limit: int | None = None,
    isolate_recompiles: bool = False,
    shapes_spec: Any = None,
) -> Any:
    """``model`` (a module or function) itself, uncompiled; with no ``model``, a
    decorator that does the same. Keyword arguments as torch's, checked as torch checks
    them and otherwise ignored.

    Example::

        model = hookgrad.compile(model, mode="max-autotune")   # the same model

        @hookgrad.compile(fullgraph=True)
        def step(x):
            return x * 2
    """
    if model is None:
        return functools.partial(
            compile,
            fullgraph=fullgraph,
            dynamic=dynamic,
            backend=backend,
            mode=mode,
            options=options,
            name=name,
            disable=disable,
            recompile_limit=recompile_limit,
            isolate_recompiles=isolate_recompiles,
            shapes_spec=shapes_spec,
        )
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model


def disable(
    fn: Callable[..., Any] | None = None, recursive: bool = True, *, reason: str | None = None
) -> Any:
    """Exclude ``fn`` from compilation: ``fn`` itself (a decorator when ``fn`` is None)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    return fn


def is_compiling() -> bool:
    """False: nothing is ever being compiled."""
    return False


def is_dynamo_compiling() -> bool:
    """False: nothing is ever being compiled."""
    return False


def reset() -> None:
    """Clear compilation caches: there are none."""
