"""Custom differentiable operations: ``Function``, its ``ctx``, ``once_differentiable``.

A ``Function`` subclass defines a static ``forward`` and ``backward``. ``apply`` runs the
forward without recording, then records one node for the whole call. As in torch, the
``ctx`` the forward receives *is* that node: ``y.grad_fn`` is an instance of the class
``<Name>Backward`` that the metaclass makes for each ``Function`` subclass, and the
engine runs the user's ``backward`` through it.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.autograd.forward import custom as forward_tangents
from hookgrad.grad_mode import is_grad_enabled, no_grad
from hookgrad.graph import anomaly, history, saved
from hookgrad.graph.node import Edge, Node, next_sequence_nr
from hookgrad.graph.saved import FREED_MESSAGE, INFERENCE_SAVE_MESSAGE, SavedTensor
from hookgrad.tensor import Tensor
from hookgrad.tensor.views import VIEW_OF_LEAF_INPLACE_MESSAGE, rebase_inplace

__all__ = ["Function", "FunctionCtx", "NestedIOFunction", "once_differentiable"]

DIRTY_VIEW_MESSAGE = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine. You should either make sure the input is not a view (using .clone() "
    "for example) or make your Function only return one Tensor (potentially splitting it "
    "into two Functions: one doing the inplace that returns a single Tensor and a second "
    "one that does the other operations). You can ask on the forum "
    "https://discuss.pytorch.org/ if you need help to do this change."
)


class FunctionCtx:
    """What ``forward`` (or ``setup_context``) may tell autograd through ``ctx``.

    Attributes:
        needs_input_grad: one bool per positional input of ``forward``: whether it is a
            tensor that requires grad (``backward`` may skip the others).
        materialize_grads: whether ``backward`` gets zeros (True, the default) or None
            for the gradients of outputs that received none.

    Any other attribute may be set freely to pass values to ``backward``.
    """

    needs_input_grad: tuple[bool, ...] = ()
    materialize_grads = True
    to_save: tuple[Any, ...] = ()
    saved_for_forward: tuple[Any, ...] = ()
    non_differentiable: tuple[Any, ...] = ()
    dirty_tensors: tuple[Any, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep ``tensors`` (inputs, outputs, or None) for ``backward``, which reads them
        as ``ctx.saved_tensors``. Call it at most once. Example::

            ctx.save_for_backward(x, result)
        """
        for index, tensor in enumerate(tensors):
            if tensor is not None and not isinstance(tensor, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{index} is of type {type(tensor).__name__}"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep ``tensors`` (or None) for ``jvp``, which reads them as
        ``ctx.saved_tensors``. Call it at most once, in ``forward`` or ``setup_context``.
        Example::

            ctx.save_for_forward(x, y)
        """
        for tensor in tensors:
            if not (isinstance(tensor, Tensor) or tensor is None):
                raise AssertionError(
                    "save_for_forward expects all arguments to be tensors; you should save "
                    "non-tensors as attributes on ctx."
                )
        self.saved_for_forward = tensors

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """Mark outputs (e.g. indices) that never require grad; ``backward`` still gets
        one gradient per output, zeros for these (or None without materialization)."""
        self.non_differentiable = outputs

    def mark_dirty(self, *tensors: Any) -> None:
        """Declare the inputs ``forward`` modified in place; it must return them. Each
        gets a new version and, as an output, this node as its ``grad_fn`` (a view's base
        gets a ``CopySlices``), as after a built-in in-place op. Example::

            x.mul_(2)
            ctx.mark_dirty(x)
            return x
        """
        self.dirty_tensors = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` gets None (not zeros) for outputs without gradient."""
        self.materialize_grads = bool(value)


class BackwardFunction(FunctionCtx, Node):
    """The node (and ``ctx``) of one ``Function.apply`` call; its subclass per Function
    is named ``<Name>Backward``."""

    _forward_cls: type[Function]
    _saved: tuple[SavedTensor | None, ...] = ()
    _freed = False
    # Per positional input: is it a tensor. Per output: (shape, dtype) of a tensor.
    _tensor_inputs: tuple[bool, ...] = ()
    _output_meta: tuple[Any, ...] = ()
    _runs_without_grads = True
    _in_jvp = False

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The tensors given to ``save_for_backward`` (in ``jvp``: to
        ``save_for_forward``); an error once they were freed."""
        if self._in_jvp:
            return tuple(self.saved_for_forward)
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        return tuple(
            None if item is None else item.unpack(self, detached_ok=True) for item in self._saved
        )

    @property
    def _raw_saved_tensors(self) -> tuple[SavedTensor | None, ...]:
        return self._saved

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        grads = list(grad_outputs)
        if self.materialize_grads:
            for index, meta in enumerate(self._output_meta):
                if grads[index] is None and meta is not None:
                    grads[index] = Tensor._make(np.zeros(*meta))
        result = self._forward_cls._backward_fn()(self, *grads)
        return self._check_grad_inputs(result)

    def _check_grad_inputs(self, result: Any) -> tuple[Any, ...]:
        """Drop extra trailing Nones; reject gradients for non-tensor inputs."""
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self.next_functions)
        if len(result) > expected and all(grad is None for grad in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            return result  # the engine reports the wrong count
        for index, (grad, is_tensor) in enumerate(zip(result, self._tensor_inputs)):
            if grad is None:
                continue
            if not isinstance(grad, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
            if not is_tensor:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at "
                    f"position {index + 1}, but the corresponding forward input was not a "
                    "Variable"
                )
        return result

    def _release_variables(self) -> None:
        for item in self._saved:
            if item is not None:
                item.release()
        self._freed = True


class FunctionMeta(type):
    """Gives each ``Function`` subclass its node class ``<Name>Backward``."""

    def __init__(cls, name: str, bases: tuple[type, ...], attrs: dict[str, Any]) -> None:
        cls._backward_cls = type(name + "Backward", (BackwardFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class of custom differentiable operations.

    Define static methods ``forward(ctx, *args, **kwargs)`` and ``backward(ctx,
    *grad_outputs)`` (one gradient or None per positional input of ``forward``), then
    call ``MyFn.apply(*args)``. Alternatively ``forward(*args)`` takes no ``ctx`` and a
    static ``setup_context(ctx, inputs, output)`` fills it. ``forward`` runs with grad
    mode off; ``backward`` is differentiable (``create_graph=True``) when it is written
    with hookgrad ops. Example::

        class Exp(hookgrad.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                result = x.exp()
                ctx.save_for_backward(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                (result,) = ctx.saved_tensors
                return grad_output * result

        y = Exp.apply(x)      # y.grad_fn is an ExpBackward node
    """

    _backward_cls: type[BackwardFunction]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please "
            "use new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """Compute the outputs (grad mode is off here); override it."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        """Fill ``ctx`` from the forward's ``inputs`` and ``output``; override it only
        with a ``forward`` that takes no ``ctx``."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Gradients of the positional inputs from those of the outputs; override it
        (or ``vjp``, its other name)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward-mode AD: the tangents of the outputs from those of the inputs (one per
        positional input of ``forward``: a tensor, zeros for a tensor without tangent,
        None for a non-tensor); one per output. Override it to use the Function inside
        ``forward_ad.dual_level``; ``ctx.saved_tensors`` there are the tensors given to
        ``ctx.save_for_forward``. Example::

            @staticmethod
            def jvp(ctx, x_t):
                (result,) = ctx.saved_tensors
                return x_t * result
        """
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it "
            "with forward mode AD."
        )

    @classmethod
    def _backward_fn(cls) -> Callable[..., Any]:
        backward, vjp = cls.backward, cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not "
                "allowed. You should only implement one of them."
            )
        return vjp if vjp is not Function.vjp else backward

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` on ``args`` and record one ``<Name>Backward`` node if a tensor
        input requires grad and grad mode is on. Returns what ``forward`` returns."""
        uses_setup_context = cls.setup_context is not Function.setup_context
        if uses_setup_context:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        recording = is_grad_enabled() and any(ctx.needs_input_grad)
        if recording:
            ctx._seq = next_sequence_nr()
            if anomaly.state.enabled:
                anomaly.record_creation(ctx)
        input_tangents = forward_tangents.of_inputs(args)
        # NOTE: as in torch, ``forward`` sees its inputs without their tangents.
        with no_grad(), forward_tangents.suspended(input_tangents is not None):
            if uses_setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        result = _wrap_outputs(ctx, args, output, recording)
        if input_tangents is not None:
            _forward_ad(cls, ctx, args, input_tangents, result)
        return result


def _wrap_outputs(
    ctx: BackwardFunction, args: tuple[Any, ...], output: Any, recording: bool
) -> Any:
    """Attach the outputs to ``ctx`` and give ``ctx`` its edges and saved tensors."""
    multi = isinstance(output, tuple)
    outputs = output if multi else (output,)
    input_ids = {id(a) for a in args if isinstance(a, Tensor)}
    non_differentiable = {id(t) for t in ctx.non_differentiable}
    dirty = {id(t) for t in ctx.dirty_tensors}
    wrapped = []
    for output_nr, out in enumerate(outputs):
        if isinstance(out, Tensor) and id(out) in dirty:
            pass  # a modified input stays the output itself: ``_rebase_dirty`` moves it
        elif isinstance(out, Tensor):
            differentiable = id(out) not in non_differentiable
            if id(out) in input_ids:
                # An input returned as-is: the output is a new tensor sharing its data.
                out = out.detach()
            if recording and differentiable and (out.is_floating_point() or out.is_complex()):
                history.set_history(out, ctx, output_nr)
        wrapped.append(out)
    ctx._num_outputs = len(wrapped)
    ctx._output_meta = tuple(
        (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None for o in wrapped
    )
    if recording:
        _record_inputs(ctx, args)
    if dirty:
        _rebase_dirty(ctx, wrapped, input_ids, recording)
    if recording:
        # NOTE: as in torch, an unrecorded call saves nothing (``saved_tensors`` is empty).
        ctx._saved = tuple(_save(ctx, t) for t in ctx.to_save)
    return tuple(wrapped) if multi else wrapped[0]


def _forward_ad(
    cls: type[Function],
    ctx: BackwardFunction,
    args: tuple[Any, ...],
    input_tangents: list[Any],
    result: Any,
) -> None:
    """Run ``jvp`` on the inputs' tangents and attach its results to the outputs."""
    if cls.jvp is Function.jvp:
        Function.jvp(ctx)
    grads = [
        None
        if not isinstance(arg, Tensor)
        else tangent
        if tangent is not None
        else Tensor._make(np.zeros_like(arg._data))
        for arg, tangent in zip(args, input_tangents)
    ]
    ctx._in_jvp = True
    try:
        with forward_tangents.suspended(True):
            output_tangents = cls.jvp(ctx, *grads)
    finally:
        ctx._in_jvp = False
    outputs = result if isinstance(result, tuple) else (result,)
    if not isinstance(output_tangents, tuple):
        output_tangents = (output_tangents,)
    if len(output_tangents) != len(outputs):
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{len(outputs)} but got {len(output_tangents)})"
        )
    non_differentiable = {id(t) for t in ctx.non_differentiable}
    for output, tangent in zip(outputs, output_tangents):
        if (
            tangent is None
            or not isinstance(output, Tensor)
            or id(output) in non_differentiable
            or not (output.is_floating_point() or output.is_complex())
        ):
            continue
        forward_tangents.attach(output, tangent)


def _rebase_dirty(
    ctx: BackwardFunction, outputs: list[Any], input_ids: set[int], recording: bool
) -> None:
    """Bump the version of each tensor given to ``mark_dirty`` and, when recording, make
    ``ctx`` its new history (torch's checks first)."""
    output_nrs = {id(out): nr for nr, out in enumerate(outputs)}
    for tensor in ctx.dirty_tensors:
        if id(tensor) not in output_nrs:
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned "
                "as output. The inputs that are modified inplace must all be outputs of the "
                "Function."
            )
        if id(tensor) not in input_ids:
            warnings.warn(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                "that have been mutated should be passed to ctx.mark_dirty().",
                UserWarning,
                stacklevel=4,
            )
        tensor._bump_version()
        if not recording or not (tensor.is_floating_point() or tensor.is_complex()):
            continue
        if tensor.is_leaf and tensor.requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation."
            )
        if tensor._is_view():
            if tensor._base.is_leaf:
                raise RuntimeError(VIEW_OF_LEAF_INPLACE_MESSAGE)
            if len(outputs) > 1:
                raise RuntimeError(DIRTY_VIEW_MESSAGE)
        tensor._grad = None
        rebase_inplace(tensor, ctx, output_nrs[id(tensor)])


def _record_inputs(ctx: BackwardFunction, args: tuple[Any, ...]) -> None:
    edges: list[Edge] = []
    meta: list[tuple[Any, Any] | None] = []
    for arg in args:
        if isinstance(arg, Tensor) and arg.requires_grad:
            edges.append(arg._gradient_edge())
            meta.append((arg._data.shape, arg._data.dtype))
        else:
            edges.append((None, 0))
            meta.append(None)
    ctx.next_functions = tuple(edges)
    ctx._input_meta = tuple(meta)
    ctx._tensor_inputs = tuple(isinstance(arg, Tensor) for arg in args)


def _save(ctx: BackwardFunction, tensor: Any) -> SavedTensor | None:
    """Save one tensor given to ``save_for_backward`` as ops do (same hooks, same checks)."""
    if tensor is None:
        return None
    if tensor._is_inference:
        raise RuntimeError(INFERENCE_SAVE_MESSAGE)
    if tensor.grad_fn is ctx:
        return saved.save_output(tensor, tensor._output_nr)
    return saved.save_input(tensor)


class NestedIOFunction(Function):
    """Deprecated: kept only for backward compatibility, as in torch; use ``Function``.

    Its forward and backward take nested inputs (``forward_extended``,
    ``backward_extended``). It relies on torch's removed legacy ``Function`` call path,
    so calling an instance fails as torch 2.13's does. Example::

        class Twice(NestedIOFunction):
            def forward_extended(self, x):
                return x * 2
    """

    def _do_forward(self, *input: Any) -> Any:
        self._nested_input = input
        # NOTE: torch's base class lost ``_do_forward`` with the legacy call path.
        raise AttributeError("'super' object has no attribute '_do_forward'")

    __call__ = _do_forward

    def forward(self, *args: Any) -> Any:  # type: ignore[override]
        """Run ``forward_extended`` on the nested inputs; returns the tensors it gave."""
        nested = self._nested_input
        del self._nested_input
        result = self.forward_extended(*nested)
        self._nested_output = result
        return tuple(_iter_tensors(result))

    def backward(self, *gradients: Any) -> Any:  # type: ignore[override]
        """Run ``backward_extended`` on the gradients; returns the tensors it gave."""
        return tuple(_iter_tensors(self.backward_extended(*gradients)))

    def save_for_backward(self, *args: Any) -> None:
        """Keep the tensors in ``args`` (nested) for ``backward_extended``."""
        self.to_save = tuple(_iter_tensors(args))
        self._to_save_nested = args

    def mark_dirty(self, *args: Any, **kwargs: Any) -> None:
        self.dirty_tensors = tuple(_iter_tensors((args, kwargs)))

    def mark_non_differentiable(self, *args: Any, **kwargs: Any) -> None:
        self.non_differentiable = tuple(_iter_tensors((args, kwargs)))

    def forward_extended(self, *input: Any) -> Any:
        """User defined forward."""
        raise NotImplementedError

    def backward_extended(self, *grad_output: Any) -> Any:
        """User defined backward."""
        raise NotImplementedError


def _iter_tensors(value: Any) -> Any:
    """The tensors of a nested structure of tuples, lists and dicts, in order."""
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _iter_tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _iter_tensors(item)


class DelayedError(Node):
    """A node that raises ``message`` if a backward pass ever reaches it."""

    def __init__(self, message: str, num_outputs: int) -> None:
        self.message = message
        self._num_outputs = num_outputs
        self._seq = next_sequence_nr()

    def name(self) -> str:
        return "torch::autograd::Error"

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        raise RuntimeError(self.message)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a ``backward`` that is not itself differentiable: it runs with grad mode
    off, and differentiating its results (``create_graph=True``) raises an error.

    Example::

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_output):
            return grad_output * 2
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled():
            return outputs
        if not any(isinstance(arg, Tensor) and arg.requires_grad for arg in args):
            return outputs
        multi = isinstance(outputs, tuple)
        outs = outputs if multi else (outputs,)
        error = DelayedError(
            "trying to differentiate twice a function that was marked with @once_differentiable",
            len(outs),
        )
        wrapped = tuple(
            out._as_output_of(error, index) if isinstance(out, Tensor) else out
            for index, out in enumerate(outs)
        )
        return wrapped if multi else wrapped[0]

    return wrapper
