"""``AccumulateGrad``: the node that writes a leaf tensor's ``.grad``."""

from __future__ import annotations

import threading
from typing import Any

from hookgrad.graph.node import Node, next_sequence_nr
from hookgrad.hooks import call_hook

# NOTE: one lock for every leaf: concurrent backward passes sharing a leaf must not
# lose an accumulation; contention is negligible next to the arithmetic.
_accumulate_lock = threading.Lock()


class AccumulateGrad(Node):
    """Accumulates the incoming gradient into ``variable.grad``.

    Runs as soon as it is ready (its sequence number is the largest possible), then
    calls the variable's post-accumulate-grad hooks.
    """

    _seq = 2**64 - 1  # torch's UINT64_MAX: the highest priority

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        if variable._backward_hooks is not None:
            self._register_tensor_hooks(0, variable._backward_hooks)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        grad = grad_outputs[0]
        variable = self.variable
        if grad is not None:
            with _accumulate_lock:
                variable._accumulate_grad(grad)
            hooks = variable._post_accumulate_grad_hooks
            if hooks:
                for hook in tuple(hooks.values()):
                    if call_hook("post_accumulate", variable, hook, variable) is not None:
                        raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return ()


class CopyBackwards(Node):
    """The ``grad_fn`` of a leaf's first ``.grad`` under ``create_graph=True``.

    ``.grad`` is then a copy of the incoming gradient that stays differentiable; the
    gradient flows through to the copied tensor unchanged (torch's node of the same name).
    """

    def __init__(self, source: Any) -> None:
        self.next_functions = ((None, 0), source._gradient_edge())
        self._input_meta = (None, (source._data.shape, source._data.dtype))
        self._seq = next_sequence_nr()

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def __repr__(self) -> str:
        return f"<CopyBackwards object at {id(self):#x}>"

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        return None, grad_outputs[0]
