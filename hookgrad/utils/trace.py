"""``trace_hooks``: record every hook that fires, and explain the ones that did not.

Every call of a user hook in hookgrad goes through ``hookgrad.hooks.call_hook``; inside
``trace_hooks`` that call is recorded (kind, owner, thread, order, shapes, whether the
hook replaced the value). Backward passes also report the graph they walk and the nodes
they run, which is what :meth:`HookTrace.explain` uses for hooks that never fired.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from hookgrad import hooks as _hooks
from hookgrad.hooks import MultiHandle, RemovableHandle, hook_name

__all__ = ["HookRecord", "HookTrace", "UnfiredHook", "trace_hooks"]

# Hooks that hookgrad installs itself to implement multi-grad and module backward hooks:
# they run (and count as fired) but are not shown; the user hook they call is.
_INTERNAL_MODULES = ("hookgrad.autograd.graph", "hookgrad.nn.modules._hooks")
_MODULE_DICTS = (
    ("_forward_pre_hooks", "module_forward_pre"),
    ("_forward_hooks", "module_forward"),
    ("_backward_pre_hooks", "module_backward_pre"),
    ("_backward_hooks", "module_backward"),
    ("_parameter_grad_hooks", "param_grad"),
)
_COLUMNS = (("#", 4), ("kind", 19), ("owner", 36), ("hook", 18), ("thread", 12))


@dataclass
class HookRecord:
    """One hook firing: ``order`` counts firings in the trace from 0; ``kind`` is one of
    ``tensor``, ``node_pre``, ``node_post``, ``post_accumulate``, ``multi_grad``,
    ``module_forward_pre``, ``module_forward``, ``module_backward_pre``,
    ``module_backward``, ``param_grad``, ``pack``, ``unpack``. ``inputs`` / ``outputs``
    are the shapes of what the hook received / returned (a list of ints per tensor, None
    for None, nested like the values); ``replaced`` says whether it returned a new value."""

    order: int
    kind: str
    owner: str
    hook: str
    thread: str
    inputs: Any
    outputs: Any
    replaced: bool


@dataclass
class UnfiredHook:
    """A hook registered on something the trace saw that never fired, and why."""

    kind: str
    owner: str
    hook: str
    reason: str


class HookTrace:
    """The recorder ``trace_hooks`` yields: ``records``, ``str()`` (a table),
    ``explain(handle_or_hook)`` and ``unfired()``."""

    def __init__(self, model: Any = None) -> None:
        self.records: list[HookRecord] = []
        self._lock = threading.Lock()
        self._counter = itertools.count()
        self._fired: dict[int, int] = {}  # id(hook) -> firings, internal hooks included
        self._paths: dict[int, str] = {}
        self._param_names: dict[int, str] = {}
        self._modules: list[Any] = []
        if model is not None:
            for path, module in model.named_modules():
                name = type(module).__name__
                self._paths[id(module)] = f"{path} ({name})" if path else name
                self._modules.append(module)
            self._param_names = {id(p): n for n, p in model.named_parameters()}
        self._called_modules: set[int] = set()
        self._ran_nodes: set[int] = set()
        self._ran_leaves: set[int] = set()
        # id(hook dict) -> (weak dict, kind, id(node), owner text) for every graph walked
        self._graph_dicts: dict[int, tuple[Any, str, int, str]] = {}
        self._passes = 0

    # -- recording (called by hookgrad.hooks) ---------------------------------------------
    def call(self, kind: str, owner: Any, hook: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """Run ``hook(*args)`` and record it in every active trace."""
        tracers = tuple(_hooks._tracers)
        internal = kind in ("tensor", "node_pre") and (
            getattr(hook, "__module__", None) in _INTERNAL_MODULES
        )
        if internal:
            for tracer in tracers:
                tracer._count(hook, getattr(getattr(hook, "__self__", None), "module", None))
            return hook(*args)
        values = args[1:] if kind.startswith(("module", "param")) else args
        result = hook(*args)
        if kind == "unpack":
            replaced = False
        else:
            replaced = result is not None and all(result is not v for v in values)
        thread = threading.current_thread().name
        for tracer in tracers:
            module = args[0] if values is not args else None
            tracer._count(hook, module)
            tracer._add(kind, owner, hook, thread, values, result, replaced)
        return result

    def pass_started(self, roots: Any) -> None:
        """Remember the hook dicts of every node a backward pass can reach."""
        self._passes += 1
        todo = [node for node, _ in roots if node is not None]
        seen = {id(node) for node in todo}
        while todo:
            node = todo.pop()
            self._note_node(node)
            for child, _ in node.next_functions:
                if child is not None and id(child) not in seen:
                    seen.add(id(child))
                    todo.append(child)

    def node_ran(self, node: Any) -> None:
        """Remember that a backward pass ran ``node``."""
        self._ran_nodes.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            self._ran_leaves.add(id(variable))

    def _count(self, hook: Any, module: Any) -> None:
        with self._lock:
            self._fired[_key(hook)] = self._fired.get(_key(hook), 0) + 1
            if module is not None:
                self._called_modules.add(id(module))

    def _add(
        self, kind: str, owner: Any, hook: Any, thread: str, values: Any, result: Any, rep: bool
    ) -> None:
        text = self._owner(kind, owner, values, result)
        with self._lock:
            self.records.append(
                HookRecord(
                    next(self._counter),
                    kind,
                    text,
                    hook_name(hook),
                    thread,
                    _shapes(values[0] if len(values) == 1 else values),
                    _shapes(result),
                    rep,
                )
            )

    def _note_node(self, node: Any) -> None:
        name = node.name()
        entries = [(node._pre_hooks, "node_pre", name), (node._post_hooks, "node_post", name)]
        for output_nr, hooks in node._tensor_pre_hooks or ():
            entries.append((hooks, "tensor", self._tensor_text(node, output_nr, None)))
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaf = self._leaf_text(variable)
            entries.append((variable._post_accumulate_grad_hooks, "post_accumulate", leaf))
        for hooks, kind, text in entries:
            if hooks is not None:
                self._graph_dicts[id(hooks)] = (weakref.ref(hooks), kind, id(node), text)

    # -- owner text ---------------------------------------------------------------------
    def _owner(self, kind: str, owner: Any, values: Any, result: Any) -> str:
        if kind == "tensor":
            node, output_nr = owner
            return self._tensor_text(node, output_nr, values[0])
        if kind in ("node_pre", "node_post"):
            return owner.name()
        if kind == "post_accumulate":
            return self._leaf_text(owner)
        if kind == "multi_grad":
            return f"{len(owner)} tensors"
        if kind in ("pack", "unpack"):
            value = values[0] if kind == "pack" else result
            return f"saved tensor {_fmt(_shapes(value))}"
        return self._module_text(owner)

    def _tensor_text(self, node: Any, output_nr: int, grad: Any) -> str:
        variable = getattr(node, "variable", None)
        if variable is not None:
            return self._leaf_text(variable)
        shape = _fmt(_shapes(grad)) if grad is not None else "?"
        index = f"[{output_nr}]" if output_nr else ""
        return f"tensor {shape} grad_fn={node.name()}{index}"

    def _leaf_text(self, tensor: Any) -> str:
        name = self._param_names.get(id(tensor))
        return name if name is not None else f"leaf {_fmt(_shapes(tensor))}"

    def _module_text(self, module: Any) -> str:
        return self._paths.get(id(module), type(module).__name__)

    # -- explanations -------------------------------------------------------------------
    def explain(self, handle_or_hook: RemovableHandle | Callable[..., Any]) -> str:
        """Why a hook fired or did not, in one sentence. Pass the handle its
        ``register_*`` call returned (or the hook itself). Example::

            with trace_hooks(model=net) as trace:
                net.forward(x).sum().backward()
            print(trace.explain(handle))   # "... forward was called directly ..."
        """
        if isinstance(handle_or_hook, MultiHandle):
            reasons = [self.explain(h) for h in handle_or_hook._handles]
            fired = [r for r in reasons if r.startswith("fired")]
            return fired[0] if fired else reasons[0]
        hook, hook_dict = self._resolve(handle_or_hook)
        if hook is None:
            return "removed: its handle was removed (or its owner freed) before it could fire"
        count = self._fired.get(_key(hook), 0)
        if count:
            return f"fired {count} time{'s' if count > 1 else ''}"
        for module in self._modules:
            for attr, kind in _MODULE_DICTS:
                if getattr(module, attr) is hook_dict:
                    return self._module_reason(module, kind)
        entry = self._graph_dicts.get(id(hook_dict)) if hook_dict is not None else None
        if entry is not None:
            return self._node_reason(entry)
        kind = getattr(hook_dict, "kind", "")
        if kind.startswith("global_"):
            return _GLOBAL_REASONS[kind]
        if kind.startswith(("module", "param")):
            return _unknown_module_reason(kind)
        if not self._passes:
            return "not fired: no backward pass ran inside the trace"
        return _UNREACHED.get(kind, _UNREACHED["tensor"])

    def unfired(self) -> list[UnfiredHook]:
        """Every hook on the model's modules (when ``model`` was given) and on the nodes
        and tensors of the graphs backward walked that did not fire, with the reason."""
        out = []
        for module in self._modules:
            for attr, kind in _MODULE_DICTS:
                for hook in getattr(module, attr).values():
                    if not self._fired.get(_key(hook)):
                        reason = self._module_reason(module, kind)
                        out.append(
                            UnfiredHook(kind, self._module_text(module), _name(hook), reason)
                        )
        for ref, kind, node_id, text in self._graph_dicts.values():
            hooks = ref()
            for hook in tuple(hooks.values()) if hooks is not None else ():
                internal = getattr(hook, "__module__", None) in _INTERNAL_MODULES
                if not internal and not self._fired.get(_key(hook)):
                    reason = self._node_reason((ref, kind, node_id, text))
                    out.append(UnfiredHook(kind, text, _name(hook), reason))
        return out

    def _resolve(self, handle_or_hook: Any) -> tuple[Any, Any]:
        """``(hook, the dict holding it)``; the hook is None once removed."""
        if isinstance(handle_or_hook, RemovableHandle):
            hook_dict = handle_or_hook._dict_refs[0]()
            if hook_dict is None or handle_or_hook.id not in hook_dict:
                return None, None
            return hook_dict[handle_or_hook.id], hook_dict
        dicts = [getattr(m, attr) for m in self._modules for attr, _ in _MODULE_DICTS]
        dicts += [ref() for ref, *_ in self._graph_dicts.values()]
        for hook_dict in dicts:
            if hook_dict is not None and any(
                _key(h) == _key(handle_or_hook) for h in hook_dict.values()
            ):
                return handle_or_hook, hook_dict
        return handle_or_hook, None

    def _module_reason(self, module: Any, kind: str) -> str:
        path = self._module_text(module)
        if id(module) in self._called_modules:
            return (
                f"not executed in this pass: {path} was called, but the backward pass did not "
                "reach the node its hook is attached to (its outputs got no gradient)"
            )
        params = [p for p in module.parameters() if id(p) in self._ran_leaves]
        if params:
            return (
                f"forward called directly: {path}'s parameters received gradients, but "
                f"{path}(...) never ran; calling {path}.forward(...) skips all module hooks"
            )
        if kind != "module_forward_pre" and kind != "module_forward":
            return (
                f"not executed in this pass: no backward pass in the trace went through "
                f"{path}'s outputs (or {path}(...) never ran inside the trace)"
            )
        return (
            f"not called: {path}(...) never ran inside the trace (if {path}.forward(...) was "
            "called directly, module hooks never run)"
        )

    def _node_reason(self, entry: tuple[Any, str, int, str]) -> str:
        _, kind, node_id, text = entry
        if node_id in self._ran_nodes:
            return f"{text} ran, but the hook was registered after it ran"
        return (
            f"node not executed in this pass: {text} is in the graph, but backward did not "
            "run it (backward(inputs=...) or autograd.grad stopped before it, or an error)"
        )

    # -- table --------------------------------------------------------------------------
    def __str__(self) -> str:
        header = [name.ljust(width) for name, width in _COLUMNS] + ["in -> out", "replaced"]
        lines = ["  ".join(header).rstrip()]
        for r in self.records:
            cells = (str(r.order), r.kind, r.owner, r.hook, r.thread)
            row = [_cut(c, w).ljust(w) for c, (_, w) in zip(cells, _COLUMNS)]
            row.append(f"{_fmt(r.inputs)} -> {_fmt(r.outputs)}")
            row.append("yes" if r.replaced else "")
            lines.append("  ".join(row).rstrip())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<HookTrace: {len(self.records)} records>"


# Why a hook on a tensor or node that no backward pass of the trace walked did not fire.
_UNREACHED = {
    "tensor": (
        "tensor not in the graph: no backward pass in the trace reached the tensor it is "
        "registered on (the output does not depend on it, it was detached, or "
        "requires_grad was off when it was used)"
    ),
    "post_accumulate": (
        "leaf not in the graph: no backward pass in the trace accumulated a gradient into "
        "the leaf it is registered on (the output does not depend on it, or it was "
        "detached)"
    ),
    "node_pre": (
        "node not in the graph: no backward pass in the trace started from an output that "
        "depends on the node it is registered on"
    ),
    "node_post": (
        "node not in the graph: no backward pass in the trace started from an output that "
        "depends on the node it is registered on"
    ),
}

_GLOBAL_REASONS = {
    "global_module_forward_pre": "not called: no module was called inside the trace",
    "global_module_forward": "not called: no module was called inside the trace",
    "global_module_backward_pre": (
        "not executed: no backward pass in the trace went through the output of a module "
        "called inside it"
    ),
    "global_module_backward": (
        "not executed: no backward pass in the trace went through the output of a module "
        "called inside it"
    ),
}


def _unknown_module_reason(kind: str) -> str:
    """The reason for a module hook on a module the trace never saw (not under ``model``,
    never called)."""
    if kind in ("module_forward_pre", "module_forward"):
        return (
            "not called: the module it is registered on never ran inside the trace (calling "
            "its forward(...) directly runs no module hooks)"
        )
    return (
        "not executed: the module it is registered on never ran inside the trace, so no "
        "backward pass went through its outputs (calling its forward(...) directly runs no "
        "module hooks)"
    )


@contextmanager
def trace_hooks(model: Any = None) -> Iterator[HookTrace]:
    """Record every hook that fires inside the block (all threads). With ``model``, owners
    are module paths (``features.0``) and parameter names, and ``unfired()`` also covers the
    model's module hooks. Example::

        with hookgrad.utils.trace_hooks(model=net) as trace:
            net(x).sum().backward()
        print(trace)                     # one row per firing, in order
        trace.records[0].kind            # 'module_forward_pre'
    """
    trace = HookTrace(model)
    _hooks._tracers.append(trace)
    try:
        yield trace
    finally:
        _hooks._tracers.remove(trace)


def _key(hook: Any) -> Any:
    """Identity of a hook: bound methods are made afresh at each attribute access."""
    if isinstance(hook, tuple):  # parameter-grad hooks are stored with their options
        hook = hook[0]
    self = getattr(hook, "__self__", None)
    return (id(self), id(hook.__func__)) if self is not None else id(hook)


def _name(hook: Any) -> str:
    return hook_name(hook[0] if isinstance(hook, tuple) else hook)


def _shapes(value: Any) -> Any:
    """Shapes of the tensors in ``value``, nested like it."""
    if value is None:
        return None
    if hasattr(value, "_data") and hasattr(value, "shape"):
        return list(value.shape)
    if isinstance(value, (tuple, list)):
        return tuple(_shapes(v) for v in value)
    if isinstance(value, dict):
        return {k: _shapes(v) for k, v in value.items()}
    return type(value).__name__


def _fmt(shapes: Any) -> str:
    if isinstance(shapes, list):
        return "[" + ", ".join(map(str, shapes)) + "]"
    if isinstance(shapes, tuple):
        return "(" + ", ".join(map(_fmt, shapes)) + ")"
    if isinstance(shapes, dict):
        return "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in shapes.items()) + "}"
    return "-" if shapes is None else str(shapes)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"
