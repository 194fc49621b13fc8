"""``AccumulateGrad``: the node that writes a leaf tensor's ``.grad``."""

from __future__ import annotations

import threading
from typing import Any

from hookgrad.graph.hook_results import check_single_result
from hookgrad.graph.node import Node, next_sequence_nr
from hookgrad.hooks import call_hook

# A leaf's ``_grad_dtype`` while ``grad_dtype`` was never set (its gradients take its dtype).
GRAD_DTYPE_UNSET = object()


def leaf_grad_dtype(variable: Any, default: Any) -> Any:
    """The dtype a gradient for ``variable`` is cast to: ``default`` (the dtype recorded
    for it) unless its ``grad_dtype`` was set; None: no cast."""
    chosen = variable._grad_dtype
    if chosen is GRAD_DTYPE_UNSET:
        return default
    return None if chosen is None else chosen.np


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
            # NOTE: as in torch, a leaf that stopped requiring grad since it was used
            # (``detach_()``, ``requires_grad_(False)``) gets no ``.grad``; its hooks run.
            if variable._requires_grad:
                with _accumulate_lock:
                    variable._accumulate_grad(grad)
            hooks = variable._post_accumulate_grad_hooks
            if hooks:
                _call_post_accumulate_hooks(variable, hooks)
        return ()


def as_grad_dtype(variable: Any, grad: Any) -> Any:
    """``grad`` cast to ``variable.grad_dtype`` where that is set to a dtype (the engine
    does it before the leaf's hooks see it)."""
    chosen = variable._grad_dtype
    if chosen is GRAD_DTYPE_UNSET or chosen is None or grad is None or grad.dtype == chosen:
        return grad
    return grad.to(chosen)


def _call_post_accumulate_hooks(variable: Any, hooks: Any) -> None:
    """Call each ``hook(tensor)``; as torch does, a hook may return the tensor it was
    given (``lambda p: p.add_(p.grad, alpha=-lr)``), which counts as returning None.

    Any other result is checked like a gradient hook's (a tensor of the same dtype and
    shape), passed to the next hooks instead of the tensor, and then an error.
    """
    argument = variable
    replaced = False
    for hook in tuple(hooks.values()):
        result = call_hook("post_accumulate", variable, hook, argument)
        if result is None or result is argument:
            continue
        check_single_result(hook, argument, result)
        argument = result
        replaced = True
    if replaced:
        raise RuntimeError("Tensor post accumulate grad hooks should return None.")


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
