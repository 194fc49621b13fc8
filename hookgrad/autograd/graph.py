"""``hookgrad.autograd.graph``: graph nodes and hooks spanning several tensors."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from hookgrad import engine
from hookgrad.graph.node import Node
from hookgrad.hooks import MultiHandle, RemovableHandle

__all__ = [
    "GradientEdge",
    "Node",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
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
                fn(grads)

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
        fn(grad)

    return [t.register_hook(hook) for t in tensors if t.requires_grad]


def increment_version(tensor: Any) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor in a sequence), as an
    in-place change does; saved tensors then detect the change."""
    for t in (tensor,) if hasattr(tensor, "_data") else tensor:
        t._bump_version()


class GradientEdge(NamedTuple):
    """Where gradients for a tensor flow: ``node`` (its grad_fn or leaf accumulator)."""

    node: Node
    output_nr: int


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
