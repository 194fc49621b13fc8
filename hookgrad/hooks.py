"""Hook registries: ordered dicts of hooks and the handles that remove them.

Every ``register_*`` call in hookgrad stores its hook in an ordered dict keyed by a
unique id and returns a :class:`RemovableHandle`. The handle keeps only a weak
reference to the dict, so a handle never keeps a tensor, node or module alive.
"""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

_next_id = itertools.count()


class RemovableHandle:
    """A handle that removes one hook from the dict(s) it was registered in.

    ``remove()`` is idempotent, and the handle is a context manager that removes the
    hook on exit::

        with tensor.register_hook(print):
            loss.backward()      # the hook fires here, and is gone afterwards
    """

    __slots__ = ("id", "_dict_refs", "__weakref__")

    def __init__(self, hooks_dict: Any, *extra_dicts: Any) -> None:
        self.id = next(_next_id)
        self._dict_refs = tuple(weakref.ref(d) for d in (hooks_dict, *extra_dicts))

    def remove(self) -> None:
        """Remove the hook; calling it again, or after its owner died, does nothing."""
        for ref in self._dict_refs:
            hooks = ref()
            if hooks is not None:
                hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<RemovableHandle id={self.id}>"


class HookDict(OrderedDict):
    """An ordered ``{handle id: hook}`` dict that weak references can point to.

    ``kind`` says what its hooks are registered on (``tensor``, ``node_pre``,
    ``module_forward`` ..., as ``trace_hooks`` names them), so that a hook that never
    fired can be explained from its handle alone.
    """

    def __init__(self, kind: str = "") -> None:
        super().__init__()
        self.kind = kind


def add_hook(hooks: HookDict, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
    """Store ``hook`` in ``hooks`` (first if ``prepend``) and return its handle."""
    if not callable(hook):
        raise TypeError(f"hook must be callable, got {type(hook).__name__}")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class MultiHandle(RemovableHandle):
    """One handle that removes several hooks at once (see ``register_multi_grad_hook``)."""

    __slots__ = ("_handles",)

    def __init__(self, handles: Iterable[RemovableHandle]) -> None:
        self.id = next(_next_id)
        self._dict_refs = ()
        self._handles = tuple(handles)

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()


def hook_name(hook: Callable[..., Any]) -> str:
    """The name torch uses for a hook in error messages."""
    return getattr(hook, "__name__", type(hook).__name__)


# -------------------------------------------------------------------- tracing switch

# The active ``hookgrad.utils.trace_hooks`` recorders (all threads). Every call of a user
# hook goes through ``call_hook``; while this list is empty that costs one truthiness test.
_tracers: list[Any] = []


def call_hook(kind: str, owner: Any, hook: Callable[..., Any], *args: Any) -> Any:
    """Call ``hook(*args)``; inside ``trace_hooks`` the call is also recorded as a firing of
    a ``kind`` hook owned by ``owner`` (a tensor, node, module or saved tensor)."""
    if not _tracers:
        return hook(*args)
    return _tracers[-1].call(kind, owner, hook, args)


def trace_pass(roots: Any, run_node: Callable[..., Any]) -> Callable[..., Any]:
    """Inside ``trace_hooks``: report a backward pass from ``roots`` and each node it runs."""
    tracers = tuple(_tracers)
    for tracer in tracers:
        tracer.pass_started(roots)

    def run(task: Any, node: Any, grads: Any) -> Any:
        for tracer in tracers:
            tracer.node_ran(node)
        return run_node(task, node, grads)

    return run
