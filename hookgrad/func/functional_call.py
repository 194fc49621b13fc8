"""``functional_call`` and ``stack_module_state``: modules as functions of their
parameters, for the transforms (per-example gradients, ensembles of models).

``functional_call`` is ``hookgrad.nn.utils.stateless``'s (one implementation), taking a
dict or a sequence of dicts (parameters, buffers ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookgrad.nn.modules.module import Module
from hookgrad.nn.utils.stateless import _functional_call
from hookgrad.tensor.functions.joining import stack
from hookgrad.tensor.tensor import Tensor

__all__ = ["functional_call", "stack_module_state"]


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with its parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict, or a sequence of dicts with distinct keys)
    replaced by the given tensors for this call; a single ``args`` that is not a tuple is
    one argument. With ``tie_weights`` a tensor given for one name of tied parameters is
    used for all of them; ``strict`` requires a tensor for every parameter and buffer.

    Example (per-example gradients)::

        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(params, x, y):
            out = hookgrad.func.functional_call(model, params, (x.unsqueeze(0),))
            return F.cross_entropy(out, y.unsqueeze(0))

        grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for key in d:
                counts[key] = counts.get(key, 0) + 1
        repeated = [key for key, count in counts.items() if count > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                "ambiguous"
            )
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(parameter_and_buffer_dicts)}"
        )
    return _functional_call(module, tensors, args, kwargs, tie_weights=tie_weights, strict=strict)


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parameters and buffers of ``models`` (same class, same mode), each name's
    tensors stacked along a new dim 0: ``(params, buffers)``, for ``vmap`` over an
    ensemble. The stacked parameters are new leaves (they require grad if the models'
    do), not connected to the models'.

    Example::

        params, buffers = hookgrad.func.stack_module_state(models)

        def run(params, buffers, x):
            return hookgrad.func.functional_call(models[0], (params, buffers), (x,))

        outputs = vmap(run, in_dims=(0, 0, None))(params, buffers, x)   # one per model
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(model.named_parameters()) for model in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(model.named_buffers()) for model in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    requires = [t.requires_grad for t in tensors]
    if any(requires) and not all(requires):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if all(requires):
        result = result.detach().requires_grad_()
    return result
