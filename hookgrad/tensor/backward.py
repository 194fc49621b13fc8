"""The tensor-level entry points of autograd: ``backward`` and ``grad``.

They check the arguments (torch's errors), make the seed gradients, and hand the graph
to the engine.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Union

import numpy as np

from hookgrad import engine
from hookgrad.graph.node import GradientEdge
from hookgrad.tensor.functions.joining import stack
from hookgrad.tensor.tensor import Tensor

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
    if isinstance(value, Tensor):
        return (value,)
    return tuple(value)


def _make_grads(outputs: tuple[Any, ...], grads: tuple[Any, ...]) -> list[Any]:
    """The seed gradient of each output: given, or ones for a one-element output."""
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


def tensor_backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: TensorOrTensors | None = None,
) -> None:
    """``Tensor.backward``: accumulate the gradient of ``self`` into the ``.grad`` of the
    leaves.

    ``gradient`` is required unless the tensor has one element; see ``backward`` for the
    other arguments. Example::

        (x * x).sum().backward()     # x.grad is 2 * x
    """
    backward(
        (self,),
        (gradient,) if gradient is not None else None,
        retain_graph,
        create_graph,
        inputs=inputs,
    )


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
) -> Any:
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    ``inputs``: a tensor, a sequence of tensors or ``GradientEdge``s, or a dict (the
    result is then a dict with the same keys). ``allow_unused``: return None (or zeros
    with ``materialize_grads``, which implies it) for an input the outputs do not depend
    on, instead of raising. ``is_grads_batched``: the first dimension of each
    ``grad_outputs`` entry is a batch of seeds; the result has one gradient per seed,
    stacked (hookgrad runs one backward pass per seed, so hooks fire once per seed).

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
    outs = _as_tuple(outputs)
    ins = _grad_inputs(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn(ONLY_INPUTS_WARNING, FutureWarning, stacklevel=2)
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    if len(grads) != len(outs):
        raise RuntimeError(
            f"grad requires one grad_output per output: got {len(grads)} "
            f"grad_outputs and {len(outs)} outputs"
        )
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outs)
    edges: list[Any] = []
    for tensor in ins:
        if isinstance(tensor, GradientEdge):
            edges.append(tuple(tensor))
            continue
        if not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(tensor._gradient_edge())
    if is_grads_batched:
        captured = _batched_grads(outs, grads, roots, edges, retain_graph, create_graph)
    else:
        seeds = _make_grads(outs, grads)
        captured = engine.run_backward(
            roots,
            seeds,
            keep_graph=retain_graph,
            create_graph=create_graph,
            inputs=edges,
            capture=True,
        )
    result = tuple(
        _unused_grad(index, tensor, allow_unused, materialize_grads, create_graph)
        if value is None
        else value
        for index, (tensor, value) in enumerate(zip(ins, captured))
    )
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result))
    return result


ONLY_INPUTS_WARNING = (
    "only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
    "gradient for other parts of the graph, please use torch.autograd.backward."
)


def _grad_inputs(inputs: Any) -> tuple[Any, ...]:
    """``grad``'s ``inputs`` as a tuple: a tensor or edge, a sequence, or a dict's values."""
    if isinstance(inputs, (Tensor, GradientEdge)):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(
            f"`inputs` argument to `grad()` must be a dict, not {type(inputs).__name__}. "
            "Other Mapping types are not supported."
        )
    return tuple(inputs)


def _unused_grad(
    index: int, tensor: Any, allow_unused: bool, materialize: bool, create_graph: bool
) -> Any:
    """What ``grad`` returns for an input no gradient reached: None, zeros, or an error."""
    if not allow_unused:
        raise RuntimeError(
            f"The differentiated Tensor at index {index} appears to not have been used "
            "in the graph. Set allow_unused=True if this is the desired behavior."
        )
    if not materialize:
        return None
    if isinstance(tensor, GradientEdge):
        raise RuntimeError(
            "materialize_grads cannot be used when the given input is a GradientEdge"
        )
    zeros = Tensor._make(np.zeros_like(tensor._data))
    return zeros.requires_grad_(create_graph)


def _batched_grads(
    outs: tuple[Any, ...],
    grads: tuple[Any, ...],
    roots: list[Any],
    edges: list[Any],
    retain_graph: bool,
    create_graph: bool,
) -> list[Any]:
    """``grad`` with ``is_grads_batched``: one pass per seed, the results stacked."""
    for index, (output, grad) in enumerate(zip(outs, grads)):
        if isinstance(grad, Tensor) and grad.shape[1:] != output.shape:
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions "
                "are expected to match the shape of corresponding output, but a mismatch "
                f"was detected: grad_output[{index}] has a shape of {grad.shape} and "
                f"output[{index}] has a shape of {output.shape}. If you only want some "
                "tensors in `grad_output` to be considered batched, consider using vmap."
            )
    size = next(len(g) for g in grads if isinstance(g, Tensor))
    per_seed = []
    for row in range(size):
        seeds = _make_grads(outs, tuple(None if g is None else g[row] for g in grads))
        keep = retain_graph or row < size - 1
        per_seed.append(
            engine.run_backward(
                roots, seeds, keep_graph=keep, create_graph=create_graph, inputs=edges, capture=True
            )
        )
    return [None if column[0] is None else stack(column) for column in zip(*per_seed)]
