"""The tensor-level entry points of autograd: ``backward`` and ``grad``.

They check the arguments (torch's errors), make the seed gradients, and hand the graph
to the engine.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from hookgrad import engine
from hookgrad.tensor import tensor as _tensor_module

TensorOrTensors = Union[Any, Sequence[Any]]

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak."
)


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, _tensor_module.Tensor):
        return (value,)
    return tuple(value)


def _make_grads(outputs: tuple[Any, ...], grads: tuple[Any, ...]) -> list[Any]:
    """The seed gradient of each output: given, or ones for a one-element output."""
    Tensor = _tensor_module.Tensor
    result = []
    for index, (output, grad) in enumerate(zip(outputs, grads)):
        if isinstance(grad, Tensor):
            if grad._data.shape != output._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{index}] has a shape of {grad.shape} and "
                    f"output[{index}] has a shape of {output.shape}."
                )
            if grad.dtype.is_complex != output.dtype.is_complex:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have "
                    f"the same dtype. Mismatch in dtype: grad_output[{index}] has a dtype of "
                    f"{grad.dtype} and output[{index}] has a dtype of {output.dtype}."
                )
            if grad._data.dtype != output._data.dtype:
                grad = grad.to(output.dtype)
            result.append(grad)
        elif grad is None:
            if output.requires_grad:
                if output._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not output.dtype.is_floating_point:
                    raise RuntimeError(
                        "grad can be implicitly created only for real scalar outputs but got "
                        f"{output.dtype}"
                    )
                result.append(Tensor._make(np.ones(output._data.shape, output._data.dtype)))
            else:
                result.append(None)
        else:
            raise TypeError(
                f"gradients can be either Tensors or None, but got {type(grad).__name__}"
            )
    return result


_warned_create_graph = False


def _warn_create_graph_cycle() -> None:
    """torch's once-per-process warning about ``backward(create_graph=True)``."""
    global _warned_create_graph
    if not _warned_create_graph:
        _warned_create_graph = True
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=4)


def _roots(outputs: tuple[Any, ...]) -> list[Any]:
    roots = []
    for index, output in enumerate(outputs):
        if not output.requires_grad:
            raise RuntimeError(
                f"element {index} of tensors does not require grad and does not have a grad_fn"
            )
        roots.append(output._gradient_edge())
    return roots


def backward(
    tensors: TensorOrTensors,
    grad_tensors: TensorOrTensors | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: TensorOrTensors | None = None,
) -> None:
    """Accumulate gradients of ``tensors`` into the ``.grad`` of the graph's leaves.

    ``grad_tensors``: the gradient of each tensor (may be None for one-element tensors).
    ``retain_graph``: keep saved tensors for another backward (default: ``create_graph``).
    ``create_graph``: record the backward pass, for higher-order derivatives.
    ``inputs``: accumulate only into these tensors (leaves or not).

    Example::

        hookgrad.autograd.backward([y1, y2], [g1, g2])
    """
    outputs = _as_tuple(tensors)
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _make_grads(outputs, grads)
    roots = _roots(outputs)
    input_edges = None
    if inputs is not None:
        input_edges = []
        for tensor in _as_tuple(inputs):
            tensor.retain_grad()
            input_edges.append(tensor._gradient_edge())
    if create_graph:
        _warn_create_graph_cycle()
    engine.run_backward(
        roots,
        seeds,
        keep_graph=retain_graph,
        create_graph=create_graph,
        inputs=input_edges,
        capture=False,
    )


def grad(
    outputs: TensorOrTensors,
    inputs: TensorOrTensors,
    grad_outputs: TensorOrTensors | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    ``allow_unused``: return None (or zeros with ``materialize_grads``) for an input the
    outputs do not depend on, instead of raising.

    Example::

        (dx,) = hookgrad.autograd.grad(y, x, create_graph=True)
        (ddx,) = hookgrad.autograd.grad(dx.sum(), x)
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported by hookgrad")
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    if len(grads) != len(outs):
        raise RuntimeError(
            f"grad requires one grad_output per output: got {len(grads)} "
            f"grad_outputs and {len(outs)} outputs"
        )
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _make_grads(outs, grads)
    roots = _roots(outs)
    for tensor in ins:
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges = [tensor._gradient_edge() for tensor in ins]
    captured = engine.run_backward(
        roots, seeds, keep_graph=retain_graph, create_graph=create_graph, inputs=edges, capture=True
    )
    result = []
    for index, (tensor, value) in enumerate(zip(ins, captured)):
        if value is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {index} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                value = _tensor_module.Tensor._make(np.zeros_like(tensor._data))
        result.append(value)
    return tuple(result)
