"""``hookgrad.autograd.graph``: graph nodes and hooks spanning several tensors."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from hookgrad import engine
from hookgrad.graph import saved
from hookgrad.graph.node import GradientEdge, Node
from hookgrad.hooks import MultiHandle, RemovableHandle, call_hook

__all__ = [
    "GradientEdge",
    "Node",
    "disable_saved_tensors_hooks",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
]


def register_multi_grad_hook(
    tensors: Sequence[Any],
    fn: Callable[..., Any],
    *,
    mode: str = "all",
) -> RemovableHandle:
    """Register ``fn`` to run once per backward pass for a group of tensors.

    ``mode="all"``: ``fn(grads)`` runs after the gradients of all ``tensors`` that the
    pass computes are known; ``grads`` has one entry per tensor, None for those the pass
    does not reach. ``mode="any"``: ``fn(grad)`` runs once, with the first gradient
    computed. The return value of ``fn`` is ignored. Example::

        register_multi_grad_hook((a, b), lambda grads: print([g is None for g in grads]))
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "all":
        return MultiHandle(_register_all(tensors, fn))
    return MultiHandle(_register_any(tensors, fn))


def _register_all(tensors: tuple[Any, ...], fn: Callable[..., Any]) -> list[RemovableHandle]:
    for tensor in tensors:
        if not tensor.requires_grad:
            raise AssertionError("Expected gradient function to be set")
    lock = threading.Lock()
    nodes = [t._gradient_edge()[0] for t in tensors]
    # Per backward pass (graph task id): gradients seen so far, and how many to expect.
    pending: dict[int, list[Any]] = {}
    expected: dict[int, int] = {}
    seen: dict[int, int] = {}

    def make_hook(index: int) -> Callable[[Any], None]:
        def hook(grad: Any) -> None:
            task = engine.current_graph_task_id()
            with lock:
                if task not in pending:
                    pending[task] = [None] * len(tensors)
                    seen[task] = 0
                    expected[task] = sum(map(engine.will_engine_execute_node, nodes))
                pending[task][index] = grad
                seen[task] += 1
                done = seen[task] == expected[task]
                if done:
                    grads = pending.pop(task)
                    del seen[task], expected[task]
            if done:
                call_hook("multi_grad", tensors, fn, grads)

        return hook

    return [t.register_hook(make_hook(i)) for i, t in enumerate(tensors)]


def _register_any(tensors: tuple[Any, ...], fn: Callable[..., Any]) -> list[RemovableHandle]:
    lock = threading.Lock()
    fired: set[int] = set()

    def hook(grad: Any) -> None:
        task = engine.current_graph_task_id()
        with lock:
            if task in fired:
                return
            fired.add(task)
        call_hook("multi_grad", tensors, fn, grad)

    return [t.register_hook(hook) for t in tensors if t.requires_grad]


def increment_version(tensor: Any) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor in a sequence), as an
    in-place change does; saved tensors then detect the change."""
    for t in (tensor,) if hasattr(tensor, "_data") else tensor:
        t._bump_version()


def get_gradient_edge(tensor: Any) -> GradientEdge:
    """The ``(node, output_nr)`` that gradients for ``tensor`` flow into.

    Example::

        edge = get_gradient_edge(y)      # GradientEdge(node=<MulBackward0 ...>, output_nr=0)
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    return GradientEdge(*tensor._gradient_edge())


# ---------------------------------------------------------------- saved-tensor hooks


class saved_tensors_hooks:
    """Context manager: tensors saved for backward inside it go through a pair of hooks.

    ``pack_hook(tensor) -> Any`` runs (with grad mode off) each time an op or a custom
    ``Function`` saves a tensor; only its result is kept in the graph. ``unpack_hook(packed)
    -> Tensor`` runs each time the saved tensor is needed (backward, ``grad_fn._saved_*``)
    and must return a tensor with the original's values. The hooks are per thread; when
    contexts nest, the innermost pair is used. Example (offload saved tensors to NumPy)::

        with saved_tensors_hooks(lambda t: t.detach().numpy(), hookgrad.from_numpy):
            y = x.exp() * x
        y.sum().backward()

    A pack hook must not modify its input in place, and should not return the tensor
    itself (``lambda t: t``) when it is an output, which would make a reference cycle.
    """

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved.push_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: object) -> None:
        saved.pop_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward.

    hookgrad runs on the CPU only, so without ``pin_memory`` the tensor itself is kept
    (no copy, as torch does for CPU tensors); with ``pin_memory=True`` a copy is kept.
    ``device_type`` is accepted for compatibility. Example::

        with save_on_cpu():
            y = (a * b).sum()
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple[Any, Any]:
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            return (tensor.device, tensor.clone())

        def unpack_from_cpu(packed: tuple[Any, Any]) -> Any:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Context manager under which saved-tensor default hooks are an error.

    Entering ``saved_tensors_hooks`` (or saving a tensor while an outer one is active)
    raises ``RuntimeError(error_message)``; ``SavedTensor.register_hooks`` still works.
    For features that cannot work with such hooks. Example::

        with disable_saved_tensors_hooks("no hooks here"):
            with save_on_cpu():    # RuntimeError: no hooks here
                pass
    """
    state = saved.hooks_state
    previous = state.disabled_message
    state.disabled_message = error_message
    try:
        yield
    finally:
        state.disabled_message = previous
