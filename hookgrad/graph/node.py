"""``Node``: one recorded operation of the backward graph, with its hooks.

A Node is created when an operation on tensors that require grad runs with grad mode on.
It knows where the gradients it computes go (``next_functions``), the shape and dtype
each of those gradients must have (``_input_meta``), and its sequence number, which
orders execution in the engine (higher runs first). The engine calls ``_apply``; what a
node computes is up to its subclass (an op, a custom Function, ``AccumulateGrad``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, NamedTuple, Optional

from hookgrad.hooks import HookDict, RemovableHandle, add_hook

Edge = tuple[Optional["Node"], int]


class GradientEdge(NamedTuple):
    """Where gradients for a tensor flow: ``node`` (its grad_fn or leaf accumulator) and
    which of its inputs. Example: ``get_gradient_edge(x * 2).node.name()`` is
    ``'MulBackward0'``."""

    node: Node
    output_nr: int


_sequence = itertools.count()


def next_sequence_nr() -> int:
    """A fresh, increasing sequence number (atomic under the GIL)."""
    return next(_sequence)


class Node:
    """A node of the backward graph.

    Attributes:
        next_functions: one ``(node, input_nr)`` edge per input of the forward
            operation; ``(None, 0)`` for inputs that do not require grad.
        metadata: a dict for the user's own annotations.
    """

    # NOTE: defaults live on the class, so creating a node (one per recorded op) costs
    # no attribute writes; an instance stores only what differs.
    _seq: int = -1
    next_functions: tuple[Edge, ...] = ()
    # One ``(shape, NumPy dtype)`` per input that gets a gradient, else None.
    _input_meta: tuple[Any, ...] = ()
    # False: the engine skips the node when every incoming gradient is None (custom
    # Functions set True: their backward runs anyway, as in torch).
    _runs_without_grads = False
    # True for a node whose inputs are one list argument (cat, stack): as in torch, it
    # computes the gradients of all of them (constants too) when any one is needed.
    _list_input = False
    _num_outputs = 1
    _pre_hooks: HookDict | None = None
    _post_hooks: HookDict | None = None
    _tensor_pre_hooks: list[tuple[int, HookDict]] | None = None
    _retain_grad_hooks: dict[int, Callable[[Any], None]] | None = None
    _metadata: dict[str, Any] | None = None

    # -- identity -------------------------------------------------------------------------
    def name(self) -> str:
        """The node's name as torch prints it, e.g. ``MulBackward0``."""
        return type(self).__name__

    def _sequence_nr(self) -> int:
        """torch's ``node._sequence_nr()``: the creation order; higher runs first."""
        return self._seq

    @property
    def metadata(self) -> dict[str, Any]:
        """A dict for user annotations; empty until something is stored."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"

    # -- hooks ----------------------------------------------------------------------------
    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """Register ``fn(grad_inputs, grad_outputs)``, called after this node ran.

        ``grad_inputs`` are the gradients the node computed for its inputs (one per
        ``next_functions`` entry), ``grad_outputs`` those it received. Returning a tuple
        replaces ``grad_inputs``. Example::

            y.grad_fn.register_hook(lambda gi, go: print(gi))
        """
        if self._post_hooks is None:
            self._post_hooks = HookDict("node_post")
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """Register ``fn(grad_outputs)``, called before this node runs.

        Returning a tuple replaces ``grad_outputs``. Example::

            y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        """
        if self._pre_hooks is None:
            self._pre_hooks = HookDict("node_pre")
        return add_hook(self._pre_hooks, fn)

    def _register_tensor_hooks(self, output_nr: int, hooks: HookDict) -> None:
        """Bind a tensor's ``_backward_hooks`` dict to output ``output_nr``.

        Several tensors may share an output (e.g. a saved result unpacked again); each
        dict runs, in the order the tensors got their first hook.
        """
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = []
        self._tensor_pre_hooks.append((output_nr, hooks))

    def _register_retain_grad(self, output_nr: int, fn: Callable[[Any], None]) -> None:
        if self._retain_grad_hooks is None:
            self._retain_grad_hooks = {}
        self._retain_grad_hooks[output_nr] = fn

    # -- execution (called by the engine) -------------------------------------------------
    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        """Compute the gradients for ``next_functions`` from ``grad_outputs``."""
        raise NotImplementedError(f"{self.name()} does not implement backward")

    def _release_variables(self) -> None:
        """Free saved tensors once the graph is not retained (default: none saved)."""
