"""Module hook dispatch: the global hook registries and one small helper per phase of a
hooked module call.

A call of a module with hooks runs (``Module.__call__`` → :func:`call_with_hooks`):

1. forward pre-hooks (global, then the module's) — may replace ``args``/``kwargs``;
2. backward setup (:class:`BackwardHooks`): the tensor inputs pass through one identity
   node, ``BackwardHookFunctionBackward``, whose backward reports ``grad_input``;
3. parameter-grad setup (:func:`parameter_aliases`): while ``forward`` runs, the
   module's parameters are replaced by aliases that are the outputs of one gather node,
   which runs once every gradient of this call's parameters has arrived;
4. ``forward``; if it changed an input in place (through its alias), the caller's tensor
   takes the new history, as it would without hooks;
5. forward hooks (global, then the module's) — may replace the output;
6. the output is watched: a node pre-hook on the one node that made it reports
   ``grad_output`` (the output itself is returned unchanged, so it is no view and may be
   modified in place; only outputs made by several nodes, or leaves, pass through an
   identity node first).

Each call gets its own state, so a module called twice fires its backward hooks twice,
each time with that call's gradients.

A module that returns an input unchanged (``Identity``) returns its alias; an in-place
change of that alias outside any hooked module leaves the caller's own tensor with its
old history (its data does change), where torch refuses the in-place change.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hookgrad import grad_mode
from hookgrad.graph import anomaly, history
from hookgrad.graph.node import Node, next_sequence_nr
from hookgrad.hooks import HookDict, RemovableHandle, call_hook, hook_name
from hookgrad.tensor import Tensor
from hookgrad.tensor.creation import zeros_like
from hookgrad.tensor.views import LEAF_INPLACE_MESSAGE

# -------------------------------------------------------------------- global registries

global_forward_pre_hooks = HookDict("global_module_forward_pre")
global_forward_hooks = HookDict("global_module_forward")
global_forward_hooks_with_kwargs = HookDict("global_module_forward")
global_forward_hooks_always_called = HookDict("global_module_forward")
global_backward_pre_hooks = HookDict("global_module_backward_pre")
global_backward_hooks = HookDict("global_module_backward")


def any_global_hooks() -> bool:
    """Whether any global module hook is registered (then every call is dispatched)."""
    return bool(
        global_forward_pre_hooks
        or global_forward_hooks
        or global_backward_pre_hooks
        or global_backward_hooks
    )


def add_hook(
    hooks: HookDict,
    hook: Callable[..., Any],
    prepend: bool = False,
    flags: Sequence[tuple[HookDict, bool]] = (),
) -> RemovableHandle:
    """Store ``hook`` in ``hooks`` (first if ``prepend``) and mark it in each flag dict
    whose flag is set; the handle removes it from all of them."""
    if not callable(hook):
        raise TypeError(f"hook must be callable, got {type(hook).__name__}")
    handle = RemovableHandle(hooks, *(flag_dict for flag_dict, _ in flags))
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    for flag_dict, flag in flags:
        if flag:
            flag_dict[handle.id] = True
    return handle


# -------------------------------------------------------------------- the call


def call_with_hooks(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run ``module.forward`` with every hook phase (see the module docstring)."""
    result = None
    called: set[int] = set()  # always-call forward hooks that already ran
    try:
        args, kwargs = run_forward_pre_hooks(module, args, kwargs)
        # NOTE: the parameter-grad node is made before the input node, so that when both
        # are ready the full backward hooks (higher sequence number) run first.
        with parameter_aliases(module):
            backward = BackwardHooks.for_call(module)
            if backward is not None:
                args = backward.wrap_inputs(args)
            result = module.forward(*args, **kwargs)
        if backward is not None:
            backward.follow_inplace_inputs()
        result = run_forward_hooks(module, args, kwargs, result, called)
        if backward is not None:
            result = backward.watch_outputs(result)
        return result
    except Exception:
        run_always_called_hooks(module, args, kwargs, result, called)
        raise


def run_forward_pre_hooks(
    module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Global then module forward pre-hooks; each may replace the arguments."""
    with_kwargs = module._forward_pre_hooks_with_kwargs
    for hook_id, hook in (*global_forward_pre_hooks.items(), *module._forward_pre_hooks.items()):
        if hook_id in with_kwargs:
            result = call_hook("module_forward_pre", module, hook, module, args, kwargs)
            if result is None:
                continue
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(
                    "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                    f"but got {result}."
                )
            args, kwargs = result
        else:
            result = call_hook("module_forward_pre", module, hook, module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def _forward_hooks(module: Any) -> Iterator[tuple[int, Callable[..., Any], bool, bool]]:
    """``(id, hook, with_kwargs, always_call)`` for the global, then the module's hooks."""
    for hook_id, hook in tuple(global_forward_hooks.items()):
        yield (
            hook_id,
            hook,
            hook_id in global_forward_hooks_with_kwargs,
            hook_id in global_forward_hooks_always_called,
        )
    for hook_id, hook in tuple(module._forward_hooks.items()):
        yield (
            hook_id,
            hook,
            hook_id in module._forward_hooks_with_kwargs,
            hook_id in module._forward_hooks_always_called,
        )


def run_forward_hooks(
    module: Any, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, called: set[int]
) -> Any:
    """Global then module forward hooks; each may replace the output."""
    for hook_id, hook, with_kwargs, always_call in _forward_hooks(module):
        if always_call:
            called.add(hook_id)
        if with_kwargs:
            new_result = call_hook("module_forward", module, hook, module, args, kwargs, result)
        else:
            new_result = call_hook("module_forward", module, hook, module, args, result)
        if new_result is not None:
            result = new_result
    return result


def run_always_called_hooks(
    module: Any, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, called: set[int]
) -> None:
    """After an error: the ``always_call`` forward hooks that did not run yet. Their own
    errors become warnings, so the original error is the one raised."""
    for hook_id, hook, with_kwargs, always_call in _forward_hooks(module):
        if not always_call or hook_id in called:
            continue
        try:
            new_result = (
                call_hook("module_forward", module, hook, module, args, kwargs, result)
                if with_kwargs
                else call_hook("module_forward", module, hook, module, args, result)
            )
            if new_result is not None:
                result = new_result
        except Exception as error:
            kind = "global module" if hook_id in global_forward_hooks else "module"
            warnings.warn(
                f"{kind} forward hook with ``always_call=True`` raised an exception that was "
                f"silenced as another error was raised in forward: {error}",
                stacklevel=2,
            )


# -------------------------------------------------------------------- backward hooks


NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See "
    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


class BoundaryNode(Node):
    """An identity node on a module's boundary: its outputs are aliases of its inputs
    (same memory and version counter, not views). ``on_backward`` may rewrite the
    gradients it passes on."""

    _runs_without_grads = True

    def __init__(self, tensors: Sequence[Tensor], on_backward: Callable[..., Any] | None) -> None:
        edges = []
        metas: list[Any] = []
        for tensor in tensors:
            if tensor.requires_grad:
                edges.append(tensor._gradient_edge())
                metas.append((tensor._data.shape, tensor._data.dtype))
            else:
                edges.append((None, 0))
                metas.append(None)
        self.next_functions = tuple(edges)
        self._input_meta = tuple(metas)
        self._num_outputs = len(edges)
        self._seq = next_sequence_nr()
        self.on_backward = on_backward
        if anomaly.state.enabled:
            anomaly.record_creation(self)

    def name(self) -> str:
        return "BackwardHookFunctionBackward"

    def alias(self, tensor: Tensor, output_nr: int) -> Tensor:
        """``tensor`` as this node's output ``output_nr`` (tensors without grad: as is)."""
        return node_alias(self, tensor, output_nr) if tensor.requires_grad else tensor

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        if self.on_backward is None:
            return tuple(grad_outputs)
        return self.on_backward(grad_outputs)


def _pack(indices: Sequence[int], values: Sequence[Any], size: int) -> tuple[Any, ...]:
    """A ``size``-tuple with ``values`` at ``indices`` and None elsewhere."""
    packed: list[Any] = [None] * size
    for index, value in zip(indices, values):
        packed[index] = value
    return tuple(packed)


def _check_grads(
    kind: str, hook: Any, module: Any, new: Any, old: Sequence[Any], what: str
) -> tuple[Any, ...]:
    """A backward hook's replacement ``new`` for ``old``: one value per entry, None or a
    tensor of the same shape."""
    if not isinstance(new, (tuple, list)):
        raise TypeError(
            f"{kind} '{hook_name(hook)}' of {type(module).__name__} must return None or a "
            f"tuple of {what}, but returned '{type(new).__name__}'"
        )
    if len(new) != len(old):
        raise RuntimeError(
            f"{kind} returned an invalid number of {what}, got {len(new)}, but expected "
            f"{len(old)} (hook '{hook_name(hook)}' of {type(module).__name__})"
        )
    for index, (value, original) in enumerate(zip(new, old)):
        if value is None or original is None:
            continue
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{kind} '{hook_name(hook)}' of {type(module).__name__} returned "
                f"'{type(value).__name__}' as {what}[{index}], expected a Tensor or None"
            )
        if value.shape != original.shape:
            raise RuntimeError(
                f"{kind} '{hook_name(hook)}' of {type(module).__name__} returned {what}"
                f"[{index}] of shape {list(value.shape)}, expected {list(original.shape)}"
            )
    return tuple(new)


class BackwardHooks:
    """The full backward (pre-)hooks of one module call and what they have seen so far.

    The hooks are the ones registered when the module was called (global first).
    """

    def __init__(self, module: Any, pre_hooks: list[Any], hooks: list[Any]) -> None:
        self.module = module
        self.pre_hooks = pre_hooks
        self.hooks = hooks
        self.start = next_sequence_nr()  # nodes made by this call have larger numbers
        self.n_inputs = 0
        self.input_index: list[int] | None = None
        self.inputs: tuple[Tensor, ...] = ()
        self.aliases: tuple[Tensor, ...] = ()
        self.input_node: BoundaryNode | None = None
        self.n_outputs = 0
        self.output_map: dict[int, int] = {}
        self.grad_outputs: tuple[Any, ...] | None = None

    @classmethod
    def for_call(cls, module: Any) -> BackwardHooks | None:
        """The state for a call of ``module``, or None when no backward hook applies."""
        if not grad_mode.is_grad_enabled():
            return None
        pre_hooks = [*global_backward_pre_hooks.values(), *module._backward_pre_hooks.values()]
        hooks = [*global_backward_hooks.values(), *module._backward_hooks.values()]
        if not (pre_hooks or hooks):
            return None
        return cls(module, pre_hooks, hooks)

    # -- inputs ---------------------------------------------------------------------------
    def wrap_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """``args`` with each tensor passed through one identity node (if any needs grad)."""
        self.n_inputs = len(args)
        index = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = tuple(args[i] for i in index)
        if not any(t.requires_grad for t in tensors):
            return args
        self.input_index = index
        self.inputs = tensors
        node = self.input_node = BoundaryNode(tensors, self._grad_inputs_ready)
        wrapped = list(args)
        for output_nr, i in enumerate(index):
            wrapped[i] = node.alias(args[i], output_nr)
            wrapped[i]._module_input = args[i]
        self.aliases = tuple(wrapped[i] for i in index)
        return tuple(wrapped)

    def follow_inplace_inputs(self) -> None:
        """If ``forward`` changed an input in place (through its alias), the caller's
        tensor takes the new history, as it would without hooks; so does the tensor
        behind it when the caller's tensor is itself an input alias of an outer call
        (e.g. returned by a hooked ``Identity``)."""
        for output_nr, (tensor, alias) in enumerate(zip(self.inputs, self.aliases)):
            if alias is tensor or (
                alias._grad_fn is self.input_node and alias._output_nr == output_nr
            ):
                continue
            while tensor is not None:
                if tensor.grad_fn is None:
                    raise RuntimeError(LEAF_INPLACE_MESSAGE)
                if tensor._base is not None:
                    raise RuntimeError(
                        f"{type(self.module).__name__} modified its input {output_nr} in "
                        "place, and that input is a view: with backward hooks this is not "
                        "supported. Pass a clone() of the view instead."
                    )
                history.rebase_history(tensor, alias._grad_fn, alias._output_nr)
                tensor = tensor.__dict__.get("_module_input")  # type: ignore[assignment]

    def _grad_inputs_ready(self, grads: list[Any]) -> tuple[Any, ...]:
        """The input node's backward: call the full backward hooks on ``grad_input``."""
        if self.grad_outputs is None or self.input_index is None:
            # The gradient reached the inputs without passing the outputs (e.g. double
            # backward through the module): nothing to report.
            return tuple(grads)
        grad_inputs = _pack(
            self.input_index,
            [g if g is not None else zeros_like(t) for g, t in zip(grads, self.inputs)],
            self.n_inputs,
        )
        for hook in self.hooks:
            result = call_hook(
                "module_backward", self.module, hook, self.module, grad_inputs, self.grad_outputs
            )
            if result is not None:
                grad_inputs = _check_grads(
                    "Backward hook", hook, self.module, result, grad_inputs, "grad_input"
                )
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in self.input_index)

    # -- outputs --------------------------------------------------------------------------
    def watch_outputs(self, result: Any) -> Any:
        """Arrange for ``_grad_outputs_ready`` to run once the output grads are known."""
        if isinstance(result, Tensor):
            outputs: tuple[Any, ...] = (result,)
        elif isinstance(result, tuple):
            outputs = result
        else:
            warnings.warn(
                "For backward hooks to be called, module output should be a Tensor or a "
                f"tuple of Tensors but received {type(result)}",
                stacklevel=3,
            )
            return result
        self.n_outputs = len(outputs)
        tracked = [i for i, out in enumerate(outputs) if isinstance(out, Tensor)]
        if not any(outputs[i].requires_grad for i in tracked):
            return result
        node = self._single_output_node([outputs[i] for i in tracked])
        if node is not None:
            self.output_map = {i: outputs[i]._output_nr for i in tracked}
        else:
            node = BoundaryNode([outputs[i] for i in tracked], None)
            self.output_map = {i: output_nr for output_nr, i in enumerate(tracked)}
            wrapped = list(outputs)
            for i, output_nr in self.output_map.items():
                wrapped[i] = node.alias(outputs[i], output_nr)
            result = wrapped[0] if isinstance(result, Tensor) else tuple(wrapped)
        # NOTE: first among the node's pre-hooks: a module wrapping this one (same output
        # node, registered later) sees grad_output first, as with torch's nested wrappers.
        if node._pre_hooks is None:
            node._pre_hooks = HookDict("node_pre")
        add_hook(node._pre_hooks, self._grad_outputs_ready, prepend=True)
        return result

    def _single_output_node(self, outputs: list[Tensor]) -> Node | None:
        """The node that made every output needing grad in this call, or None."""
        node = None
        seen = set()
        for out in outputs:
            if not out.requires_grad:
                continue
            fn = out.grad_fn
            if fn is None or fn._seq <= self.start or (node is not None and fn is not node):
                return None
            if out._output_nr in seen:  # the same output twice: needs separate gradients
                return None
            seen.add(out._output_nr)
            node = fn
        return node

    def _grad_outputs_ready(self, node_grads: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """Node pre-hook on the output node: backward pre-hooks, then (if no input
        needs grad) the full backward hooks."""
        output_map = self.output_map
        grad_outputs = tuple(
            node_grads[output_map[i]] if i in output_map else None for i in range(self.n_outputs)
        )
        received = grad_outputs
        for hook in self.pre_hooks:
            result = call_hook("module_backward_pre", self.module, hook, self.module, grad_outputs)
            if result is not None:
                grad_outputs = _check_grads(
                    "Backward pre hook", hook, self.module, result, grad_outputs, "grad_output"
                )
        self.grad_outputs = grad_outputs
        if self.input_index is None:
            self._hooks_without_input_grads()
        if grad_outputs is received:
            return None
        new = list(node_grads)
        for i, output_nr in output_map.items():
            new[output_nr] = grad_outputs[i]
        return tuple(new)

    def _hooks_without_input_grads(self) -> None:
        if self.hooks:
            warnings.warn(NO_INPUT_GRAD_WARNING, stacklevel=2)
        grad_inputs = (None,) * self.n_inputs
        for hook in self.hooks:
            result = call_hook(
                "module_backward", self.module, hook, self.module, grad_inputs, self.grad_outputs
            )
            if result is not None and not (
                isinstance(result, tuple) and all(r is None for r in result)
            ):
                raise RuntimeError(
                    "Backward hook for Modules where no input requires gradient should always "
                    "return None or None for all gradients."
                )
        self.grad_outputs = None


# -------------------------------------------------------------------- parameter-grad hooks


class ParameterGradNode(Node):
    """Gathers the gradients of the parameters a module call used; runs once they all
    arrived, calls the parameter-grad hooks and passes the (replaced) gradients on to
    the parameters' ``AccumulateGrad``."""

    def __init__(
        self, module: Any, hooks: list[tuple[Any, bool]], names: list[str], params: list[Tensor]
    ) -> None:
        self.module = module
        self.hooks = hooks
        self.names = names
        self.next_functions = tuple(p._gradient_edge() for p in params)
        self._input_meta = tuple((p._data.shape, p._data.dtype) for p in params)
        self._num_outputs = len(params)
        self._seq = next_sequence_nr()
        if anomaly.state.enabled:
            anomaly.record_creation(self)

    def name(self) -> str:
        return "ParameterGradHookBackward"

    def _apply(self, grad_outputs: list[Any]) -> tuple[Any, ...]:
        grads = {n: g for n, g in zip(self.names, grad_outputs) if g is not None}
        for hook, recurse in self.hooks:
            given = grads if recurse else {n: g for n, g in grads.items() if "." not in n}
            if not given:
                continue
            result = call_hook("param_grad", self.module, hook, self.module, dict(given))
            if result is not None:
                grads.update(self._check(hook, result, given))
        return tuple(grads.get(n) for n in self.names)

    def _check(self, hook: Any, result: Any, given: dict[str, Any]) -> dict[str, Any]:
        """A parameter-grad hook's replacement: a dict of tensors for names it was given."""
        module = type(self.module).__name__
        if not isinstance(result, dict):
            raise TypeError(
                f"parameter-grad hook '{hook_name(hook)}' of {module} must return None or a "
                f"dict of gradients, but returned '{type(result).__name__}'"
            )
        for name, grad in result.items():
            if name not in given:
                raise KeyError(
                    f"parameter-grad hook '{hook_name(hook)}' of {module} returned a gradient "
                    f"for '{name}', which is not one of {sorted(given)}"
                )
            if not isinstance(grad, Tensor) or grad.shape != given[name].shape:
                got = list(grad.shape) if isinstance(grad, Tensor) else type(grad).__name__
                raise RuntimeError(
                    f"parameter-grad hook '{hook_name(hook)}' of {module} returned a gradient "
                    f"for '{name}' of {got}, expected shape {list(given[name].shape)}"
                )
        return result


@contextmanager
def parameter_aliases(module: Any) -> Iterator[None]:
    """While the block runs, the parameters of a module with parameter-grad hooks (its
    subtree's if a hook has ``recurse=True``) that need grad are replaced by the outputs of
    one ``ParameterGradNode``. Without such hooks, or without grad mode, nothing changes."""
    hooks = list(module._parameter_grad_hooks.values())
    if not hooks or not grad_mode.is_grad_enabled():
        yield
        return
    recurse = any(r for _, r in hooks)
    named = [(n, p) for n, p in module.named_parameters(recurse=recurse) if p.requires_grad]
    if not named:
        yield
        return
    node = ParameterGradNode(module, hooks, [n for n, _ in named], [p for _, p in named])
    aliases = {id(p): node_alias(node, p, i) for i, (_, p) in enumerate(named)}
    owners = module.modules() if recurse else (module,)
    # NOTE: the parameters dicts are changed for the call: a module called from two
    # threads at once with parameter-grad hooks would see the other call's aliases.
    restore = []
    for owner in owners:
        for name, param in owner._parameters.items():
            if param is not None and id(param) in aliases:
                restore.append((owner, name, param))
    for owner, name, param in restore:
        owner._parameters[name] = aliases[id(param)]
    try:
        yield
    finally:
        for owner, name, param in restore:
            owner._parameters[name] = param


def node_alias(node: Node, tensor: Tensor, output_nr: int) -> Tensor:
    """``tensor`` as output ``output_nr`` of ``node``: the same data and version counter,
    not a view."""
    return tensor._as_output_of(node, output_nr)
