"""``AccumulateGrad``: the node that writes a leaf tensor's ``.grad``."""

from __future__ import annotations

import math
import threading
from typing import Any

from hookgrad.graph.node import Node

# NOTE: one lock for every leaf: concurrent backward passes sharing a leaf must not
# lose an accumulation; contention is negligible next to the arithmetic.
_accumulate_lock = threading.Lock()


class AccumulateGrad(Node):
    """Accumulates the incoming gradient into ``variable.grad``.

    Runs as soon as it is ready (its sequence number is the largest possible), then
    calls the variable's post-accumulate-grad hooks.
    """

    _sequence_nr = math.inf

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        if variable._backward_hooks is not None:
            self._register_tensor_hooks(0, variable._backward_hooks)

    def name(self) -> str:
        return "AccumulateGrad"

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        grad = grad_outputs[0]
        variable = self.variable
        if grad is not None:
            with _accumulate_lock:
                variable._accumulate_grad(grad)
            hooks = variable._post_accumulate_grad_hooks
            if hooks:
                for hook in tuple(hooks.values()):
                    hook(variable)
        return ()
