"""``hookgrad.autograd.functional``: derivatives of whole functions, as torch's module.

``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp`` and ``hvp`` call a user function on
fresh copies of its inputs and ask ``autograd.grad`` for the products they need:

- ``vjp`` is one backward pass; ``jacobian`` is one backward pass per output element,
  or with ``strategy="forward-mode"`` (and ``vectorize=True``, as torch requires) one
  forward-mode pass (``hookgrad.autograd.forward_ad``) per input element;
- ``jvp`` and ``hvp`` use the double-backward trick, as torch's do: the gradient
  ``g(u) = J^T u`` of the outputs for a dummy ``u`` is linear in ``u``, so
  differentiating ``g(u)`` against ``v`` with respect to ``u`` gives ``J v``;
- ``hessian`` is the jacobian of the jacobian (forward over reverse with
  ``outer_jacobian_strategy="forward-mode"``); ``vhp`` a vjp of the gradient.

Results mirror the structure of the arguments: a Tensor where the inputs (or outputs)
were a single Tensor, a tuple where they were a tuple. With ``create_graph=False`` every
result is detached; with ``create_graph=True`` the results are differentiable, also with
respect to the caller's inputs that require grad. ``strict=True`` raises torch's errors
where an output does not depend on an input instead of returning zeros.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Union

from hookgrad.autograd import forward_ad
from hookgrad.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from hookgrad.tensor import Tensor
from hookgrad.tensor.backward import grad as autograd_grad
from hookgrad.tensor.creation import zeros, zeros_like
from hookgrad.tensor.functions.joining import stack

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

TensorOrTensors = Union[Tensor, tuple[Tensor, ...]]

_STRICT_OUTPUT = (
    "Output {i} of the user-provided function does not require gradients. The outputs must "
    "be computed in a differentiable manner from the input when running in strict mode."
)
_STRICT_UNUSED = (
    "The output of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode."
)
_STRICT_CONSTANT_GRAD = (
    "The gradient with respect to input {i} is independent of the inputs of the "
    "user-provided function. This is not allowed in strict mode."
)
_STRICT_CONSTANT_JACOBIAN = (
    "While computing the hessian, found that the jacobian of the user-provided function with "
    "respect to input {i} is independent of the input. This is not allowed in strict mode. "
    "You should ensure that your function is twice differentiable and that the jacobian "
    "depends on the inputs (this would be violated by a linear function for example)."
)
# Messages for a None result of the last backward pass, by the function's kind of pass.
_STRICT_NONE_RESULT = {
    "back": _STRICT_UNUSED,
    "back_trick": (
        "The gradient with respect to the input is independent of entry {i} in the "
        "grad_outputs when using the double backward trick to compute forward mode "
        "gradients. This is not allowed in strict mode."
    ),
    "double_back": (
        "The jacobian of the user-provided function is independent of input {i}. "
        "This is not allowed in strict mode."
    ),
    "double_back_trick": (
        "The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
        "double backward trick to replace forward mode AD."
    ),
}
_STRICT_CONSTANT_RESULT = (
    "The {what} of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode when create_graph=True."
)


# -- arguments and results ---------------------------------------------------------------


def _as_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """``(was it a tuple, the tensors as a tuple)``; a list is not a tuple (as in torch)."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for index, element in enumerate(values):
        if not isinstance(element, Tensor):
            where = f"value at index {index}" if is_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but the {where} has type {type(element)}."
            )
    return is_tuple, values


def _fresh_inputs(inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    """New tensor objects to call the function on, each requiring grad.

    A new object even for an input that already requires grad, so that the function's
    own captured references to that tensor are not mistaken for the argument. With
    ``create_graph`` such an input is viewed, not detached, so that the results stay
    differentiable with respect to it.
    """
    return tuple(
        inp.view_as(inp) if create_graph and inp.requires_grad else inp.detach().requires_grad_()
        for inp in inputs
    )


def _prepare_v(
    v: Any, refs: tuple[Tensor, ...], refs_are_tuple: bool, fn_name: str, create_graph: bool
) -> tuple[Tensor, ...]:
    """Check ``v`` against the tensors ``refs`` it multiplies (count and shapes)."""
    _, vs = _as_tuple(v, "v", fn_name)
    vs = tuple(el.view_as(el) if create_graph and el.requires_grad else el.detach() for el in vs)
    if len(vs) != len(refs):
        if refs_are_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(refs)} but got {len(vs)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (el, ref) in enumerate(zip(vs, refs)):
        if el.size() != ref.size():
            prefix = f"Entry {index} in " if refs_are_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {ref.size()} but got {el.size()}."
            )
    return vs


def _v_for_inputs(
    v: Any, inputs: tuple[Tensor, ...], inputs_tuple: bool, fn_name: str, create_graph: bool
) -> tuple[Tensor, ...] | None:
    """``v`` checked against the inputs; it may be left out for one one-element input."""
    if v is not None:
        return _prepare_v(v, inputs, inputs_tuple, fn_name, create_graph)
    if len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    return None


def _call(
    func: Callable[..., Any], inputs: tuple[Tensor, ...], fn_name: str, strict: bool
) -> tuple[bool, tuple[Tensor, ...]]:
    """Run ``func`` on ``inputs``; ``strict`` requires every output to require grad."""
    is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    if strict:
        for index, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(_STRICT_OUTPUT.format(i=index))
    return is_tuple, outputs


def _check_single_element(outputs_tuple: bool, outputs: tuple[Tensor, ...], fn_name: str) -> None:
    """``hessian``, ``vhp`` and ``hvp`` need a function returning one one-element Tensor."""
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )


def _check_intermediate(grads: Sequence[Tensor | None], strict: bool, message: str) -> None:
    """In strict mode, an intermediate gradient must exist and depend on the inputs."""
    if not strict:
        return
    for index, grad in enumerate(grads):
        if grad is None:
            raise RuntimeError(_STRICT_UNUSED.format(i=index))
        if not grad.requires_grad:
            raise RuntimeError(message.format(i=index))


def _fill_in_zeros(
    grads: Sequence[Tensor | None],
    refs: tuple[Tensor, ...],
    strict: bool,
    create_graph: bool,
    stage: str,
) -> tuple[Tensor, ...]:
    """Zeros shaped like ``refs[i]`` where ``grads[i]`` is None (strict mode: raise)."""
    result = []
    for index, (grad, ref) in enumerate(zip(grads, refs)):
        if grad is None:
            if strict:
                raise RuntimeError(_STRICT_NONE_RESULT[stage].format(i=index))
            grad = zeros_like(ref)
        elif strict and create_graph and not grad.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(_STRICT_CONSTANT_RESULT.format(what=what, i=index))
        result.append(grad)
    return tuple(result)


def _finish(values: Any, create_graph: bool) -> Any:
    """Detach (nested tuples of) results unless the caller asked for a graph."""
    if create_graph:
        return values
    if isinstance(values, Tensor):
        return values.detach()
    return tuple(_finish(value, create_graph) for value in values)


def _unpack(values: tuple[Any, ...], is_tuple: bool) -> Any:
    """The tuple itself, or its only element where the caller gave a single Tensor."""
    return values if is_tuple else values[0]


def _grad(
    outputs: Sequence[Tensor | None],
    inputs: tuple[Tensor, ...],
    grad_outputs: Sequence[Tensor | None] | None = None,
    create_graph: bool = False,
    retain_graph: bool | None = None,
) -> tuple[Tensor | None, ...]:
    """``autograd.grad`` that skips outputs that are None or do not require grad.

    An input no output depends on gets None (also when no output is left at all).
    """
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [
        (out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad
    ]
    if not pairs:
        return (None,) * len(inputs)
    kept_outputs, kept_grads = zip(*pairs)
    return autograd_grad(
        kept_outputs,
        inputs,
        kept_grads,
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


# -- products ------------------------------------------------------------------------------


def vjp(
    func: Callable[..., Any],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    ``v`` has the shapes of the outputs (optional for one one-element output); the
    product has the structure and shapes of ``inputs``. ``create_graph``: make both
    results differentiable. ``strict``: raise if an input does not affect the outputs,
    instead of returning zeros for it.

    Example::

        out, (gx, gy) = vjp(lambda x, y: 2 * x + 3 * y, (x, y), hookgrad.ones(2))
        # gx == [2., 2.], gy == [3., 3.]
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh_inputs(inputs, create_graph)
        outputs_tuple, outputs = _call(func, inputs, "vjp", strict)
        vs = None
        if v is not None:
            vs = _prepare_v(v, outputs, outputs_tuple, "vjp", create_graph)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(outputs, inputs, vs, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (
        _unpack(_finish(outputs, create_graph), outputs_tuple),
        _unpack(_finish(result, create_graph), inputs_tuple),
    )


def jvp(
    func: Callable[..., Any],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), J v)``: the Jacobian-vector product at ``inputs``.

    ``v`` has the shapes of the inputs (optional for one one-element input); the product
    has the structure and shapes of the outputs. Computed with two backward passes (the
    double-backward trick), so ``func``'s ops must be twice differentiable in reverse
    mode. ``create_graph`` and ``strict`` as for ``vjp``.

    Example::

        out, jv = jvp(lambda x: x.exp().sum(dim=1), x, hookgrad.ones(4, 4))
        # jv == out
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh_inputs(inputs, create_graph)
        vs = _v_for_inputs(v, inputs, inputs_tuple, "jvp", create_graph)
        outputs_tuple, outputs = _call(func, inputs, "jvp", strict)
        # NOTE: J^T u is linear in the dummy u, so u's value (zeros) never shows in J v;
        # it only has to be finite.
        dummies = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_intermediate(grad_inputs, strict, _STRICT_CONSTANT_GRAD)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(grad_inputs, dummies, vs, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (
        _unpack(_finish(outputs, create_graph), outputs_tuple),
        _unpack(_finish(result, create_graph), outputs_tuple),
    )


def vhp(
    func: Callable[..., Any],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), v^T H)``: vector times the Hessian of a scalar function.

    ``func`` returns one one-element Tensor; ``v`` has the shapes of the inputs
    (optional for one one-element input), and so has the product. ``create_graph`` and
    ``strict`` as for ``vjp``.

    Example::

        out, vh = vhp(lambda x: x.pow(3).sum(), x, hookgrad.ones(2))
        # vh == 6 * x
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(
    func: Callable[..., Any],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), H v)``: the Hessian of a scalar function times a vector.

    Arguments and results as for ``vhp`` (for a twice continuously differentiable
    ``func`` the two agree). Uses the double-backward trick, so it costs one backward
    pass more than ``vhp``.

    Example::

        out, hv = hvp(lambda x: x.pow(3).sum(), x, hookgrad.ones(2))
        # hv == 6 * x
    """
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(
    func: Callable[..., Any],
    inputs: TensorOrTensors,
    v: TensorOrTensors | None,
    create_graph: bool,
    strict: bool,
    fn_name: str,
) -> tuple[Any, Any]:
    """``vhp`` (``v^T H``, a vjp of the gradient) or ``hvp`` (``H v``, a jvp of it)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        inputs = _fresh_inputs(inputs, create_graph)
        vs = _v_for_inputs(v, inputs, inputs_tuple, fn_name, create_graph)
        outputs_tuple, outputs = _call(func, inputs, fn_name, strict)
        _check_single_element(outputs_tuple, outputs, fn_name)
        gradient = _grad(outputs, inputs, create_graph=True)
        _check_intermediate(gradient, strict, _STRICT_CONSTANT_JACOBIAN)
        if fn_name == "hvp":
            # H v as the double-backward trick: the gradient of u^T H with respect to u.
            dummies = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
            differentiated = _grad(gradient, inputs, dummies, create_graph=True)
            wrt, stage = dummies, "double_back_trick"
        else:
            differentiated, wrt, stage = gradient, inputs, "double_back"
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(differentiated, wrt, vs, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, stage)
    return (
        _unpack(_finish(outputs, create_graph), outputs_tuple),
        _unpack(_finish(result, create_graph), inputs_tuple),
    )


# -- full matrices -------------------------------------------------------------------------


def jacobian(
    func: Callable[..., Any],
    inputs: TensorOrTensors,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``, one backward pass per output element.

    For output ``i`` and input ``j`` the block has shape ``outputs[i].shape +
    inputs[j].shape`` and the input's dtype. The result is a Tensor for a single input
    and output, a tuple over the inputs (or outputs) if only they were a tuple, and
    ``result[i][j]`` if both were. ``strategy="forward-mode"`` computes it with forward
    AD, one pass per input element (torch allows it with ``vectorize=True`` only, and
    without ``create_graph`` or ``strict``); otherwise ``vectorize`` changes nothing
    (hookgrad works row by row). ``create_graph`` and ``strict`` as for ``vjp``.

    Example::

        jacobian(lambda x: x.exp(), hookgrad.zeros(2))  # tensor([[1., 0.], [0., 1.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        return _jacobian_forward(func, inputs, create_graph, strict, vectorize)
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh_inputs(inputs, create_graph)
        outputs_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or `vectorize=False`."
            )
        blocks = tuple(
            _jacobian_of_output(index, out, inputs, create_graph, strict)
            for index, out in enumerate(outputs)
        )
    result = _finish(blocks, create_graph)
    if not inputs_tuple:
        result = tuple(row[0] for row in result)
    return _unpack(result, outputs_tuple)


def _jacobian_forward(
    func: Callable[..., Any],
    inputs: TensorOrTensors,
    create_graph: bool,
    strict: bool,
    vectorize: bool,
) -> Any:
    """``jacobian`` with forward AD: one dual pass per input element, whose tangents are
    a column of every block (torch's checks first)."""
    if create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`strict=False` or `strategy="reverse-mode"`.'
        )
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            # NOTE: torch's words, "isonly" included.
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
            "implemented for `vectorize=True`."
        )
    numels = [inp.numel() for inp in inputs]
    columns: list[tuple[Tensor, ...]] = []
    outputs: tuple[Tensor, ...] = ()
    outputs_tuple = False
    for column in range(max(sum(numels), 1)):
        with forward_ad.dual_level():
            duals = tuple(
                forward_ad.make_dual(inp, _basis_element(inp, column - sum(numels[:j])))
                for j, inp in enumerate(inputs)
            )
            outputs_tuple, results = _as_tuple(
                func(*duals), "outputs of the user-provided function", "jacobian"
            )
            unpacked = [forward_ad.unpack_dual(result) for result in results]
        outputs = tuple(primal for primal, _ in unpacked)
        columns.append(
            tuple(
                zeros_like(primal) if tangent is None else tangent for primal, tangent in unpacked
            )
        )
    # NOTE: as torch's, the blocks come in lists (where reverse mode gives tuples).
    blocks: list[Any] = []
    for index, out in enumerate(outputs):
        if sum(numels):
            matrix = stack([col[index] for col in columns], -1)
        else:
            matrix = zeros(out.shape + (0,), dtype=out.dtype)
        pieces = matrix.split(numels, -1)
        blocks.append([piece.reshape(out.shape + inp.shape) for piece, inp in zip(pieces, inputs)])
    if not inputs_tuple:
        return _unpack(tuple(row[0] for row in blocks), outputs_tuple)
    return blocks if outputs_tuple else blocks[0]


def _basis_element(inp: Tensor, position: int) -> Tensor:
    """Zeros like ``inp`` with a one at flat ``position`` (none if out of range)."""
    tangent = zeros_like(inp)
    if 0 <= position < inp.numel():
        tangent.view(-1)[position] = 1
    return tangent


def _jacobian_of_output(
    index: int, out: Tensor, inputs: tuple[Tensor, ...], create_graph: bool, strict: bool
) -> tuple[Tensor, ...]:
    """The blocks ``d out / d inputs[j]``, each of shape ``out.shape + inputs[j].shape``."""
    rows: list[list[Tensor]] = [[] for _ in inputs]
    flat = out.reshape(-1)
    for element in range(flat.nelement()):
        grads = _grad((flat[element],), inputs, retain_graph=True, create_graph=create_graph)
        for j, (grad, inp) in enumerate(zip(grads, inputs)):
            if grad is None:
                if strict:
                    raise RuntimeError(
                        f"Output {index} of the user-provided function is independent of "
                        f"input {j}. This is not allowed in strict mode."
                    )
                grad = zeros_like(inp)
            elif strict and create_graph and not grad.requires_grad:
                raise RuntimeError(_STRICT_CONSTANT_RESULT.format(what="jacobian", i=j))
            rows[j].append(grad)
    return tuple(
        stack(row).view(out.shape + inp.shape)
        if row
        else zeros(out.shape + inp.shape, dtype=inp.dtype)
        for row, inp in zip(rows, inputs)
    )


def hessian(
    func: Callable[..., Any],
    inputs: TensorOrTensors,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function ``func`` at ``inputs`` (the jacobian of its gradient).

    ``func`` returns one one-element Tensor. For a single input the result is one Tensor
    of shape ``inputs.shape + inputs.shape``; for a tuple of inputs, ``result[i][j]`` is
    the block of shape ``inputs[i].shape + inputs[j].shape``.
    ``outer_jacobian_strategy="forward-mode"`` takes the outer jacobian with forward AD
    (forward over reverse; ``vectorize=True`` needed, as in torch); otherwise
    ``vectorize`` changes nothing. ``create_graph`` and ``strict`` as for ``vjp``.

    Example::

        hessian(lambda x: x.pow(3).sum(), hookgrad.tensor([1.0, 2.0]))
        # tensor([[ 6.,  0.], [ 0., 12.]])
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*args: Tensor) -> Tensor:
        outputs_tuple, outputs = _call(func, args, "hessian", strict)
        _check_single_element(outputs_tuple, outputs, "hessian")
        return outputs[0].squeeze()

    def gradient(*args: Tensor) -> tuple[Tensor, ...]:
        if outer_jacobian_strategy == "forward-mode":
            # The dual inputs must require grad to be viewed (keeping their tangents), not
            # detached, by the inner jacobian.
            args = tuple(arg.requires_grad_(True) for arg in args)
        grads = jacobian(scalar_func, args, create_graph=True)
        _check_intermediate(grads, strict, _STRICT_CONSTANT_JACOBIAN)
        return grads

    result = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    if not inputs_tuple:
        return result[0][0]
    return result
