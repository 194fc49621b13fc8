"""``gradcheck`` and ``gradgradcheck``: autograd's Jacobians against finite differences.

The numerical Jacobian perturbs one input element at a time by ``±eps`` (central
differences) and reads every output in float64; the analytical one asks autograd for
one vector-Jacobian product per output element. Both are compared per pair (output,
input) with ``allclose(analytical, numerical, rtol, atol)``, as torch's slow mode does.

Complex numbers follow torch's convention: a complex output is checked twice, as its
imaginary part and as its real part (the seed gradient is ``1j`` or ``1``); for a
complex input the Jacobian entry is ``d/d(real) + 1j * d/d(imag)`` of that real value,
which is what autograd's conjugate Wirtinger gradient gives.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hookgrad.graph.node import Node, next_sequence_nr
from hookgrad.tensor import Tensor
from hookgrad.tensor.backward import grad as autograd_grad

# One output seen as real numbers: (index among the outputs requiring grad, part).
View = tuple[int, str]

_UNDEFINED_NOTE = (
    'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
)


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when the analytical and numerical Jacobians differ."""


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
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    ``inputs``: a tensor or a tuple of arguments; the tensors that require grad are
    checked (they should be float64 or complex128), other arguments are passed as they
    are. Outputs that do not require grad are ignored (if none does, the numerical
    gradient must be zero). Besides the Jacobians it checks, as torch does, that
    backward is deterministic (up to ``nondet_tol``), that a zero ``grad_output``
    gives zero gradients, and (``check_undefined_grad``) that backward accepts
    undefined (None) output gradients. ``fast_mode`` runs the same full check.

    Returns True, or raises ``GradcheckError`` naming the output and input whose
    Jacobians differ and showing both (returns False with ``raise_exception=False``).
    Example::

        x = hookgrad.randn(3, dtype=hookgrad.float64, requires_grad=True)
        hookgrad.autograd.gradcheck(hookgrad.sin, (x,))
    """
    if check_batched_grad or check_forward_ad:
        raise NotImplementedError(
            "gradcheck: hookgrad has no batched-gradient or forward-mode check "
            "(check_batched_grad, check_forward_ad)"
        )
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    if not check_backward_ad:
        return True
    try:
        _check_backward(
            func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, check_undefined_grad
        )
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


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
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    fast_mode: bool = False,
) -> bool:
    """Check second derivatives: ``gradcheck`` of the function that maps
    ``(inputs, grad_outputs)`` to the vector-Jacobian products of ``func``
    (computed with ``create_graph=True``).

    ``grad_outputs``: one per output of ``func`` that requires grad; by default
    random values in [-1, 1) that require grad (non-contiguous arrays with
    ``gen_non_contig_grad_outputs``). Example::

        hookgrad.autograd.gradgradcheck(hookgrad.tanh, (x,))
    """
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            _random_like(o, rng, gen_non_contig_grad_outputs)
            for o in _outputs_requiring_grad(func(*inputs))
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)

    def first_derivative(*args: Any) -> tuple[Any, ...]:
        inner_inputs, seeds = args[:n_inputs], args[n_inputs:]
        outputs = _outputs_requiring_grad(func(*inner_inputs))
        targets = [x for x in inner_inputs if isinstance(x, Tensor) and x.requires_grad]
        grads = autograd_grad(outputs, targets, seeds, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivative,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        fast_mode=fast_mode,
    )


# -- the checks, in torch's order ---------------------------------------------------------
def _check_inputs(inputs: tuple[Any, ...]) -> None:
    required = False
    for index, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        required = True
        if x.dtype.name not in ("float64", "complex128"):
            warnings.warn(
                f"Input #{index} requires gradient and is not a double precision floating "
                "point or complex. This check will likely fail if all the inputs are not of "
                "double precision floating point or complex. ",
                stacklevel=3,
            )
        if any(stride == 0 and size > 1 for stride, size in zip(x._data.strides, x.shape)):
            raise RuntimeError(
                f"The {index}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical "
                "gradients correctly. You should call .contiguous on the input before "
                "passing it to gradcheck."
            )
    if not required:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of the them have requires_grad=True."
        )


def _check_backward(
    func: Callable[..., Any],
    inputs: tuple[Any, ...],
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
    check_grad_dtypes: bool,
    check_undefined_grad: bool,
) -> None:
    wrt = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    results = _as_tuple(func(*inputs))
    outputs = _outputs_requiring_grad(results)
    if not outputs:
        _check_no_differentiable_outputs(func, inputs, wrt, results, eps)
        return
    views = _views(outputs)
    numerical = _numerical_jacobians(
        lambda: _outputs_requiring_grad(func(*inputs)),
        wrt,
        views,
        [o.numel() for o in outputs],
        eps,
    )
    for view, numerical_rows in zip(views, numerical):
        output = outputs[view[0]]
        analytical_rows = _analytical_jacobians(output, view[1], wrt, nondet_tol, check_grad_dtypes)
        for index, (analytical, expected) in enumerate(zip(analytical_rows, numerical_rows)):
            if not np.allclose(analytical, expected, rtol=rtol, atol=atol):
                raise GradcheckError(_mismatch_message(view, output, index, expected, analytical))
    _check_backward_multiplies_by_grad_output(outputs, wrt)
    if check_undefined_grad:
        _check_undefined_grad(func, inputs, outputs, wrt)


def _check_no_differentiable_outputs(
    func: Callable[..., Any],
    inputs: tuple[Any, ...],
    wrt: list[Any],
    results: tuple[Any, ...],
    eps: float,
) -> None:
    tensors = _float_outputs(results)

    def evaluate() -> list[Any]:
        return _float_outputs(func(*inputs))

    sizes = [o.numel() for o in tensors]
    for jacobians in _numerical_jacobians(evaluate, wrt, _views(tensors), sizes, eps):
        if any(np.any(jacobian != 0) for jacobian in jacobians):
            raise GradcheckError("Numerical gradient for function expected to be zero")


def _check_backward_multiplies_by_grad_output(outputs: list[Any], wrt: list[Any]) -> None:
    zeros = [Tensor._make(np.zeros_like(o._data)) for o in outputs]
    grads = autograd_grad(outputs, wrt, zeros, allow_unused=True)
    for grad, x in zip(grads, wrt):
        if grad is None:
            continue
        if np.any(grad._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if grad.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if grad.shape != x.shape:
            raise GradcheckError("grad is incorrect size")


def _check_undefined_grad(
    func: Callable[..., Any], inputs: tuple[Any, ...], outputs: list[Any], wrt: list[Any]
) -> None:
    """Backward must accept None output gradients: all at once, then one at a time.

    Each case runs on fresh outputs: earlier checks may have freed the graph of ``outputs``.
    """
    cases = [[_undefined_grad(o) for o in _outputs_requiring_grad(func(*inputs))]]
    if len(outputs) > 1:
        for undefined in range(len(outputs)):
            fresh = _outputs_requiring_grad(func(*inputs))
            cases.append([_undefined_grad(o) if k == undefined else o for k, o in enumerate(fresh)])
    for case in cases:
        zeros = [Tensor._make(np.zeros_like(o._data)) for o in case]
        try:
            grads = autograd_grad(case, wrt, zeros, allow_unused=True)
        except (RuntimeError, TypeError, AttributeError) as error:
            raise GradcheckError(
                f"Expected backward function to handle undefined output grads. {_UNDEFINED_NOTE}"
            ) from error
        for grad in grads:
            if grad is not None and np.any(grad._data != 0):
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    f"are undefined or zero. {_UNDEFINED_NOTE}"
                )


# -- Jacobians ----------------------------------------------------------------------------
def _numerical_jacobians(
    evaluate: Callable[[], Sequence[Any]],
    wrt: list[Any],
    views: list[View],
    sizes: list[int],
    eps: float,
) -> list[list[np.ndarray]]:
    """Per view, per input: the Jacobian by central differences, one column per input
    element (``d/d(real) + 1j * d/d(imag)`` for a complex input). ``evaluate`` returns
    the outputs, whose sizes are ``sizes``."""
    columns: list[list[list[np.ndarray]]] = [[[] for _ in wrt] for _ in views]
    for j, x in enumerate(wrt):
        # NOTE: perturb the input's own array in place, so ``func`` sees it however it
        # reaches the data; indexing (not a flat reshape) keeps this true for strided arrays.
        data = x._data
        directions = (1, 1j) if np.iscomplexobj(data) else (1,)
        for idx in np.ndindex(data.shape):
            original = data[idx]
            column: list[Any] = [0] * len(views)
            for d in directions:
                data[idx] = original + eps * d
                plus = _values(evaluate())
                data[idx] = original - eps * d
                minus = _values(evaluate())
                data[idx] = original
                for v, (k, part) in enumerate(views):
                    diff = (_part(plus[k], part) - _part(minus[k], part)) / (2 * eps)
                    column[v] = column[v] + d * diff
            for v in range(len(views)):
                columns[v][j].append(column[v])
    return [
        [np.stack(cols, axis=1) if cols else np.zeros((sizes[k], 0)) for cols in per_input]
        for per_input, (k, _) in zip(columns, views)
    ]


def _analytical_jacobians(
    output: Any, part: str, wrt: list[Any], nondet_tol: float, check_grad_dtypes: bool
) -> list[np.ndarray]:
    """Per input: the Jacobian of one output view, one row per output element; computed
    twice to check that backward is deterministic."""
    first = _vjp_rows(output, part, wrt, check_grad_dtypes)
    second = _vjp_rows(output, part, wrt, check_grad_dtypes)
    for a, b in zip(first, second):
        if a.size and np.max(np.abs(a - b)) > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                f"gradient matches numerical gradient.The tolerance for nondeterminism was "
                f"{nondet_tol}."
            )
    return first


def _vjp_rows(output: Any, part: str, wrt: list[Any], check_grad_dtypes: bool) -> list[np.ndarray]:
    rows: list[list[np.ndarray]] = [[] for _ in wrt]
    for k in range(output.numel()):
        seed = np.zeros(output._data.shape, output._data.dtype)
        seed.reshape(-1)[k] = 1j if part == "imag" else 1
        grads = autograd_grad(output, wrt, Tensor._make(seed), retain_graph=True, allow_unused=True)
        for j, (grad, x) in enumerate(zip(grads, wrt)):
            if grad is None:
                rows[j].append(np.zeros(x.numel(), x._data.dtype))
                continue
            if check_grad_dtypes and grad.dtype != x.dtype:
                raise GradcheckError("Gradient has dtype mismatch")
            if grad.shape != x.shape:
                raise GradcheckError("Analytical gradient has incorrect size")
            rows[j].append(np.asarray(grad._data).reshape(-1))
    return [
        np.stack(r) if r else np.zeros((0, x.numel()), x._data.dtype) for r, x in zip(rows, wrt)
    ]


# -- helpers ------------------------------------------------------------------------------
def _as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _outputs_requiring_grad(result: Any) -> list[Any]:
    return [o for o in _as_tuple(result) if isinstance(o, Tensor) and o.requires_grad]


def _views(outputs: list[Any]) -> list[View]:
    """Each output as real values: imaginary parts first, then real parts (torch's order)."""
    views = [(k, "imag") for k, o in enumerate(outputs) if o.is_complex()]
    return views + [(k, "real") for k in range(len(outputs))]


def _float_outputs(result: Any) -> list[Any]:
    return [
        o
        for o in _as_tuple(result)
        if isinstance(o, Tensor) and (o.is_floating_point() or o.is_complex())
    ]


def _values(outputs: Sequence[Any]) -> list[np.ndarray]:
    """The outputs' data as flat float64 / complex128 copies."""
    return [
        np.array(o._data, dtype=np.complex128 if o.is_complex() else np.float64).reshape(-1)
        for o in outputs
    ]


def _part(values: np.ndarray, part: str) -> np.ndarray:
    return values.imag if part == "imag" else values.real


def _mismatch_message(
    view: View, output: Any, input_index: int, numerical: np.ndarray, analytical: np.ndarray
) -> str:
    output_index, part = view
    prefix = ""
    if output.is_complex():
        name = "imaginary" if part == "imag" else "real"
        prefix = f"While considering the {name} part of complex outputs only, "
    return (
        f"{prefix}Jacobian mismatch for output {output_index} with respect to input "
        f"{input_index},\nnumerical:{_show(numerical)}\nanalytical:{_show(analytical)}\n"
    )


def _show(matrix: np.ndarray) -> str:
    # torch prints the Jacobian with one row per input element.
    return repr(Tensor._make(np.ascontiguousarray(matrix.T)))


def _random_like(output: Any, rng: np.random.Generator, non_contiguous: bool) -> Any:
    """Random values in [-1, 1) shaped and typed like ``output``, requiring grad."""
    shape = output._data.shape
    values = rng.uniform(-1, 1, shape)
    if output.is_complex():
        values = values + 1j * rng.uniform(-1, 1, shape)
    values = values.astype(output._data.dtype)
    if non_contiguous:
        spread = np.empty(shape + (2,), values.dtype)
        spread[..., 0] = values
        values = spread[..., 0]
    return Tensor._make(np.asarray(values), requires_grad=True)


class _UndefinedGrad(Node):
    """An identity node whose backward sends on an undefined (None) gradient."""

    def name(self) -> str:
        return "torch::autograd::UndefinedGradBackward"

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        return (None,)


def _undefined_grad(tensor: Any) -> Any:
    """``tensor`` seen through an ``_UndefinedGrad`` node."""
    node = _UndefinedGrad()
    node._seq = next_sequence_nr()
    node.next_functions = (tensor._gradient_edge(),)
    node._input_meta = ((tensor._data.shape, tensor._data.dtype),)
    return tensor._as_output_of(node, 0)
