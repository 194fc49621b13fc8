"""``gradcheck`` and ``gradgradcheck``: autograd's Jacobians against finite differences.

The numerical Jacobian uses central differences in float64; the analytical one asks
autograd for one vector-Jacobian product per output element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hookgrad.tensor import Tensor
from hookgrad.tensor.backward import grad as autograd_grad


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when the analytical and numerical Jacobians differ."""


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _differentiable(outputs: tuple[Any, ...]) -> list[tuple[int, Any]]:
    return [
        (i, o)
        for i, o in enumerate(outputs)
        if isinstance(o, Tensor) and (o.dtype.is_floating_point or o.dtype.is_complex)
    ]


def _numerical(
    fn: Callable[..., Any], inputs: tuple[Any, ...], index: int, eps: float, out_index: int
) -> np.ndarray:
    """d output[out_index] / d inputs[index], one column per input element."""
    target = inputs[index]
    data = target._data
    flat = data.reshape(-1)
    columns = []
    for k in range(flat.size):
        original = flat[k]
        flat[k] = original + eps
        plus = _evaluate(fn, inputs, out_index)
        flat[k] = original - eps
        minus = _evaluate(fn, inputs, out_index)
        flat[k] = original
        columns.append((plus - minus) / (2 * eps))
    if not columns:
        return np.zeros((0, 0))
    return np.stack(columns, axis=1)


def _evaluate(fn: Callable[..., Any], inputs: tuple[Any, ...], out_index: int) -> np.ndarray:
    # NOTE: not under no_grad: ``fn`` may itself differentiate (gradgradcheck).
    output = _as_tuple(fn(*inputs))[out_index]
    return output._data.astype(np.float64).reshape(-1).copy()


def _analytical(output: Any, inputs: Sequence[Any], index: int) -> np.ndarray:
    rows = []
    for k in range(output.numel()):
        seed = np.zeros(output._data.shape, output._data.dtype)
        seed.reshape(-1)[k] = 1
        (g,) = autograd_grad(
            output, inputs[index], Tensor._make(seed), retain_graph=True, allow_unused=True
        )
        if g is None:
            rows.append(np.zeros(inputs[index].numel()))
        else:
            rows.append(g._data.astype(np.float64).reshape(-1))
    if not rows:
        return np.zeros((0, inputs[index].numel()))
    return np.stack(rows)


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    fast_mode: bool = False,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    Every input that requires grad should be float64. Returns True, or raises
    ``GradcheckError`` (returns False with ``raise_exception=False``) naming the output
    and input whose Jacobians differ and showing both. Example::

        x = hookgrad.randn(3, dtype=hookgrad.float64, requires_grad=True)
        hookgrad.autograd.gradcheck(hookgrad.sin, (x,))
    """
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of the them have requires_grad=True."
        )
    for i in wrt:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                stacklevel=2,
            )
    outputs = _as_tuple(func(*inputs))
    for out_index, output in _differentiable(outputs):
        for i in wrt:
            numerical = _numerical(func, inputs, i, eps, out_index)
            if output.requires_grad:
                analytical = _analytical(output, inputs, i)
            else:
                analytical = np.zeros_like(numerical)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                message = (
                    f"Jacobian mismatch for output {out_index} with respect to input "
                    f"{i},\nnumerical:{_show(numerical)}\nanalytical:{_show(analytical)}\n"
                )
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def _show(matrix: np.ndarray) -> str:
    return repr(Tensor._make(np.ascontiguousarray(matrix.T)))


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
) -> bool:
    """Check second derivatives: ``gradcheck`` of the function that maps
    ``(inputs, grad_outputs)`` to the vector-Jacobian products of ``func``.

    ``grad_outputs`` default to random float64 tensors that require grad.
    """
    inputs = _as_tuple(inputs)
    outputs = _as_tuple(func(*inputs))
    diff_outputs = [o for _, o in _differentiable(outputs) if o.requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._make(
                rng.standard_normal(o._data.shape).astype(o._data.dtype), requires_grad=True
            )
            for o in diff_outputs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)
    wrt = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args: Any) -> Any:
        inner_inputs = args[:n_inputs]
        seeds = args[n_inputs:]
        outs = [o for _, o in _differentiable(_as_tuple(func(*inner_inputs))) if o.requires_grad]
        targets = [x for x in inner_inputs if isinstance(x, Tensor) and x.requires_grad]
        grads = autograd_grad(outs, targets, seeds, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    del wrt
    return gradcheck(
        first_derivative,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
