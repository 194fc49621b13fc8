"""How an op runs on batched arrays: its batching rule, or the per-example fallback.

``compute(op, inputs, arrays)`` is what ``hookgrad.tensor.dispatch`` calls for every op
while a vmap is active. When no array is batched, the op's forward runs as usual. Else
the innermost batched level is taken apart (``unwrap``: the batch becomes each array's
dim 0, or the array is unbatched there) and the op's **batching rule** computes the
result for the whole batch, usually by running the same kernel once with its dims
shifted past the batch dim (``forward`` again, which handles the outer levels). A rule
is ``rule(op, values, batched, arrays) -> (result, result_batched)``: ``values`` the
unwrapped arrays, ``batched`` a flag for each, ``arrays`` the logical ones (their
shapes are what the op was asked to compute on). Rules are registered per op class
with ``register``.

An op without a rule runs **once per example** (the fallback, documented in
``hookgrad.func``):

- when no graph is recorded, the op's forward runs on each example's arrays, on a copy
  of the op, and the results are stacked;
- when autograd records the op, each example gets its own node: the batched inputs are
  split into examples by a ``VmapUnstack`` node, the op runs and is recorded on each
  example, and a ``VmapRestack`` node stacks the results. The backward then runs each
  example's node (correct for any op, whatever its node keeps), one example at a time.

Either way the result is right; only speed differs. A node recorded inside vmap keeps
running its backward through this module (``BatchedBackward``), even once the vmap has
returned, since its saved tensors hold batched arrays.
"""

from __future__ import annotations

import sys
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.autograd import forward_ad
from hookgrad.func.batched import (
    DYNAMIC_SHAPE_ERROR,
    BatchedArray,
    batch_dims,
    current_levels,
    make,
    materialize,
    physical_of,
    top_level,
    unwrap,
    wrap,
)
from hookgrad.ops import table
from hookgrad.ops.base import Op
from hookgrad.tensor import dispatch
from hookgrad.tensor.tensor import Tensor

_state = grad_mode._state

Rule = Callable[[Any, list[Any], list[bool], Sequence[Any]], tuple[Any, Any]]

# ---------------------------------------------------------------- the rules

RULES: dict[type, Rule] = {}
_found: dict[type, Rule | None] = {}

# How many times each op (by node name) ran example by example: what a program would gain
# from a batching rule.
fallbacks: Counter[str] = Counter()


def register(*classes: type) -> Callable[[Rule], Rule]:
    """Register ``rule`` as the batching rule of ``classes`` (and their subclasses)."""

    def decorator(rule: Rule) -> Rule:
        for cls in classes:
            RULES[cls] = rule
        _found.clear()
        return rule

    return decorator


def register_entries(names: str, rule: Rule) -> None:
    """Register ``rule`` for the table entries named in ``names`` (torch names, with an
    overload after a dot: ``"sum sum.dim_IntList"``)."""
    for name in names.split():
        register(table.ENTRIES[name])(rule)


def rule_for(cls: type) -> Rule | None:
    """The rule of ``cls`` or of its nearest base class with one (None: the fallback)."""
    if cls in _found:
        return _found[cls]
    rule = None
    for base in cls.__mro__:
        if base in RULES:
            rule = RULES[base]
            break
    _found[cls] = rule
    return rule


# ---------------------------------------------------------------- running an op


def compute(op: Any, inputs: Sequence[Any], arrays: Sequence[Any]) -> Any:
    """The dispatch hook while vmap is active (see the module docstring)."""
    if _state.grad_enabled and "_apply" not in op.__dict__:
        op._apply = BatchedBackward(op, arrays)
    hidden = _hidden(op)
    level = top_level(arrays)
    if hidden:
        level = max(level, top_level(list(hidden.values())))
    if not level:
        return plain(op, arrays)
    if type(op).__dict__.get("handles_levels"):
        return op.forward(*arrays)
    if (hidden or rule_for(type(op)) is None) and _records(inputs):
        return dispatch.Finished(_per_example_nodes(op, inputs, arrays, hidden, level))
    return forward(op, arrays)


def plain(op: Any, arrays: Sequence[Any]) -> Any:
    """The op's own forward (no array is batched)."""
    if op.quiet:
        with np.errstate(all="ignore"):
            return op.forward(*arrays)
    return op.forward(*arrays)


def forward(op: Any, arrays: Sequence[Any]) -> Any:
    """The op's result on ``arrays``, some of them batched: its rule, or the fallback."""
    hidden = _hidden(op)
    level = top_level(arrays)
    if hidden:
        level = max(level, top_level(list(hidden.values())))
    if not level:
        return plain(op, arrays)
    values, flags = [], []
    for array in arrays:
        value, flag = unwrap(array, level)
        values.append(value)
        flags.append(flag)
    rule = rule_for(type(op))
    if rule is None or hidden:
        examples = {name: unwrap(value, level) for name, value in hidden.items()}
        result, batched = each_example(op, values, flags, examples)
    else:
        result, batched = rule(op, values, flags, arrays)
    derived = getattr(op, "_derived", ())
    for name, index, function in derived:
        op.__dict__[name] = function(arrays[index])
    if type(result) is tuple:
        flags_out = batched if type(batched) is tuple else (batched,) * len(result)
        return tuple(wrap(r, level) if b else r for r, b in zip(result, flags_out))
    return wrap(result, level) if batched else result


def _records(inputs: Sequence[Any]) -> bool:
    """Whether autograd will record an op on ``inputs``."""
    if not _state.grad_enabled:
        return False
    return any(isinstance(x, Tensor) and x.requires_grad for x in inputs)


def _hidden(op: Any) -> dict[str, BatchedArray]:
    """Batched arrays the op holds as attributes (a dropout mask ...): inputs too."""
    found = {}
    for name, value in op.__dict__.items():
        if type(value) is BatchedArray:
            found[name] = value
    return found


def copy_op(op: Any) -> Any:
    """A fresh copy of an op not yet run: the same class and arguments."""
    new = object.__new__(type(op))
    new.__dict__.update(op.__dict__)
    new.__dict__.pop("_apply", None)
    return new


def each_example(
    op: Any, values: list[Any], flags: list[bool], hidden: dict[str, Any] | None = None
) -> tuple[Any, bool]:
    """The forward-only fallback (also for a rule that meets a case it does not batch):
    the op on each example's values, on a copy of the op, the results stacked.
    ``hidden``: the op's batched attributes, unwrapped (value, batched) by name."""
    hidden = hidden or {}
    fallbacks[op.name()] += 1
    size = _size(values, flags, hidden)
    results = []
    last = op
    for index in range(size):
        last = copy_op(op)
        for name, (value, flag) in hidden.items():
            setattr(last, name, value[index] if flag else value)
        results.append(forward(last, [v[index] if f else v for v, f in zip(values, flags)]))
    for name, value in last.__dict__.items():
        if name not in hidden and name != "_apply":
            op.__dict__[name] = value
    return stacked(results), True


def stacked(results: list[Any]) -> Any:
    """Per-example results stacked along a new dim 0 (a tuple of them for an op with
    several outputs); torch's error when their shapes differ."""
    first = results[0]
    if type(first) is tuple:
        return tuple(stacked(list(column)) for column in zip(*results))
    if len({np.shape(r) for r in results}) != 1:
        raise RuntimeError(DYNAMIC_SHAPE_ERROR)
    return np.stack(results)


def _size(values: list[Any], flags: list[bool], hidden: dict[str, Any]) -> int:
    for value, flag in zip(values, flags):
        if flag:
            return value.shape[0]
    for value, flag in hidden.values():
        if flag:
            return value.shape[0]
    raise ValueError("no batched array")


def _per_example_nodes(
    op: Any, inputs: Sequence[Any], arrays: Sequence[Any], hidden: dict[str, Any], level: int
) -> Any:
    """The recording fallback: one node per example, between VmapUnstack and
    VmapRestack nodes (see the module docstring)."""
    fallbacks[op.name()] += 1
    values = [unwrap(a, level) for a in arrays]
    flags = [flag for _, flag in values]
    unwrapped = {name: unwrap(value, level) for name, value in hidden.items()}
    size = _size([v for v, _ in values], flags, unwrapped)
    # NOTE: an unbatched input that requires grad is split too: each example's node must
    # send its gradient to an example of its own (stacked into a batched gradient), not
    # add it into one shared gradient.
    pieces: list[Any] = []
    for x, (_, flag) in zip(inputs, values):
        if isinstance(x, Tensor) and (flag or x.requires_grad):
            pieces.append(dispatch.apply(VmapUnstack(level, size), x))
        else:
            pieces.append(None)
    outputs = []
    for index in range(size):
        example = copy_op(op)
        for name, (value, flag) in unwrapped.items():
            setattr(example, name, value[index] if flag else value)
        example_inputs = [x if split is None else split[index] for x, split in zip(inputs, pieces)]
        example_arrays = [value[index] if flag else value for value, flag in values]
        outputs.append(dispatch.apply_arrays(example, example_inputs, example_arrays))
    for name, value in example.__dict__.items():
        if name not in hidden and name not in op.__dict__:
            op.__dict__[name] = value
    if type(outputs[0]) is tuple:
        return tuple(dispatch.apply(VmapRestack(level), *column) for column in zip(*outputs))
    return dispatch.apply(VmapRestack(level), *outputs)


# ---------------------------------------------------------------- level ops


class VmapUnstack(Op):
    """Split a tensor batched at ``level`` into its examples (one output each)."""

    node_name = "VmapUnstackBackward0"
    input_names = ("self",)
    handles_levels = True

    def __init__(self, level: int, size: int) -> None:
        self.level = level
        self.size = size

    def forward(self, a: Any) -> Any:
        value, flag = unwrap(a, self.level)
        value = materialize(value, flag, self.size)
        return tuple(value[index] for index in range(self.size))

    def backward(self, *grads: Any) -> Any:
        known = next(g for g in grads if g is not None)
        filled = [known.new_zeros(known.shape) if g is None else g for g in grads]
        return filled[0]._apply_op(VmapRestack(self.level), *filled[1:])


class VmapRestack(Op):
    """Stack one tensor per example into a tensor batched at ``level``."""

    node_name = "VmapRestackBackward0"
    input_names = ("tensors",)
    handles_levels = True
    _list_input = True

    def __init__(self, level: int) -> None:
        self.level = level

    def forward(self, *arrays: Any) -> Any:
        return wrap(np.stack(arrays), self.level)

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(VmapUnstack(self.level, len(self.next_functions)))


class MoveIn(Op):
    """``vmap``'s input: ``dim`` of a tensor becomes the batch of ``level``."""

    node_name = "VmapMoveInBackward0"
    input_names = ("self",)
    handles_levels = True
    view = True

    def __init__(self, level: int, dim: int) -> None:
        self.level = level
        self.dim = dim

    def forward(self, a: Any) -> Any:
        self.size = a.shape[self.dim]
        return wrap(np.moveaxis(a, self.dim, 0), self.level)

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(MoveOut(self.level, self.dim, self.size))


class MoveOut(Op):
    """``vmap``'s output: the batch of ``level`` becomes dim ``dim`` (an output that does
    not depend on the batch is expanded to ``size``)."""

    node_name = "VmapMoveOutBackward0"
    input_names = ("self",)
    handles_levels = True

    def __init__(self, level: int, dim: int, size: int) -> None:
        self.level = level
        self.dim = dim
        self.size = size

    def forward(self, a: Any) -> Any:
        value, flag = unwrap(a, self.level)
        return np.moveaxis(materialize(value, flag, self.size), 0, self.dim)

    def backward(self, grad: Any) -> Any:
        return grad._apply_op(MoveIn(self.level, self.dim))


# ---------------------------------------------------------------- backward of batched nodes


class BatchedBackward:
    """The ``_apply`` of a node recorded while vmap was active: its saved tensors and
    gradients may be batched, so its backward computes through this module, its table
    formulas on tensors, even after the vmap has returned. Holds the node weakly (no
    reference cycle).

    A gradient batched at a level that is no longer active (the backward runs outside
    that vmap: ``vmap(f)(x).sum().backward()``) is summed over that level for an input
    that was not batched there: every example used that input."""

    __slots__ = ("node", "input_levels")

    def __init__(self, node: Any, arrays: Sequence[Any]) -> None:
        self.node = weakref.ref(node)
        edges = node.edge_inputs
        if edges is not None:
            arrays = [arrays[i] for i in edges if i < len(arrays)]
        self.input_levels = tuple(a._levels if type(a) is BatchedArray else () for a in arrays)

    def __call__(self, grad_outputs: list[Any]) -> Any:
        node: Any = self.node()
        cls = type(node)
        previous = dispatch.set_batching(compute)
        try:
            if isinstance(node, table.TableOp):
                grads = _on_tensors(node, grad_outputs)
            else:
                grads = cls._apply(node, grad_outputs)
            return self._conformed(node, grads)
        finally:
            dispatch.set_batching(previous)

    def _conformed(self, node: Any, grads: Any) -> Any:
        """The gradients summed over levels that ended (above), and, here where the
        batching rules are on, summed to their inputs' shapes and cast to their dtypes
        (the engine's own check then finds nothing to do)."""
        if type(grads) is not tuple:
            grads = (grads,)
        active = {level.index for level in current_levels()}
        metas = node._input_meta
        out = list(grads)
        for index, (grad, levels) in enumerate(zip(grads, self.input_levels)):
            if not isinstance(grad, Tensor):
                continue
            if type(grad._data) is BatchedArray:
                extra = tuple(
                    level
                    for level in grad._data._levels
                    if level not in levels and level not in active
                )
                if extra:
                    grad = dispatch.apply(VmapSum(extra), grad)
            meta = metas[index] if index < len(metas) else None
            if meta is not None:
                shape, dtype = meta
                if grad._data.shape != shape and _expandable(shape, grad._data.shape):
                    grad = grad.sum_to_size(shape)
                if grad._data.dtype != dtype:
                    if grad._data.dtype.kind == "c" and dtype.kind != "c":
                        grad = grad.real
                    grad = grad.to(dtype)
            out[index] = grad
        return tuple(out)


class VmapSum(Op):
    """A gradient summed over the examples of ``levels`` (see ``BatchedBackward``); its
    own gradient is the incoming one, the same for every example."""

    node_name = "VmapSumBackward0"
    input_names = ("self",)
    handles_levels = True

    def __init__(self, levels: tuple[int, ...]) -> None:
        self.levels = levels

    def forward(self, a: Any) -> Any:
        for level in self.levels:
            value, flag = unwrap(a, level)
            a = value.sum(0) if flag else value
        return a

    def backward(self, grad: Any) -> Any:
        return grad


def _on_tensors(node: Any, grad_outputs: list[Any]) -> Any:
    """A table node's formulas on tensors. NOTE: formulas on tensors assume grad mode is
    on (``is_grad_enabled()`` picks their branch, as torch's double backward does); off
    (no ``create_graph``), they run with it on and the gradients are detached."""
    if _state.grad_enabled:
        return node._on_tensors(grad_outputs[0])
    with grad_mode.enable_grad():
        grads = node._on_tensors(grad_outputs[0])
    return tuple(None if g is None else g.detach() for g in grads)


def _batched_like(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function(input, ...)`` (``zeros_like``, ``Tensor.new_zeros`` ...), batched as
    ``input`` is: torch's batching rules make these per example, so that an in-place write
    of a batched value into the result works (a copy per example, writable)."""

    def batched(input: Any, *args: Any, **kwargs: Any) -> Any:
        out = function(input, *args, **kwargs)
        data = input._data if isinstance(input, Tensor) else None
        if type(data) is BatchedArray and isinstance(out, Tensor) and not out.requires_grad:
            sizes = physical_of(data).shape[: len(data._levels)]
            physical = np.broadcast_to(out._data, sizes + out._data.shape).copy()
            out._data = make(physical, data._levels)
        return out

    return batched


REQUIRES_GRAD_ERROR = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using "
    "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
    "transform. This is unsupported, please attempt to use the functorch transforms (e.g. "
    "grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead."
)
BACKWARD_ERROR = (
    "backward() called inside a functorch transform. This is not supported, please use "
    "functorch.grad or functorch.vjp instead or call backward() outside of functorch "
    "transforms."
)


def _refused(message: str) -> Callable[..., Any]:
    """What torch refuses inside a function being mapped (the transforms' own leaves are
    made with the method as it is outside vmap)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(message)

    return refuse


def _refused_batched(requires_grad_: Callable[..., Any]) -> Callable[..., Any]:
    """``Tensor.requires_grad_`` refused for a batched tensor (torch's error): its
    ``.grad`` could not hold the batch."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if type(self._data) is BatchedArray:
            raise RuntimeError(REQUIRES_GRAD_ERROR)
        return requires_grad_(self, *args, **kwargs)

    return method


DUAL_ERROR = (
    "vmap: forward_ad.make_dual of a batched tensor is not supported inside vmap; use "
    "hookgrad.func.jvp or jacfwd, which batch forward-mode products"
)


def _dual_of_unbatched(make_dual: Callable[..., Any]) -> Callable[..., Any]:
    """``forward_ad.make_dual`` refused for batched tensors (its tangent would hold the
    first example only)."""

    def refusing(tensor: Any, tangent: Any, *args: Any, **kwargs: Any) -> Any:
        if BatchedArray in (type(tensor._data), type(tangent._data)):
            raise RuntimeError(DUAL_ERROR)
        return make_dual(tensor, tangent, *args, **kwargs)

    return refusing


def _batched_repr(original: Callable[[Any], str]) -> Callable[[Any], str]:
    """``Tensor.__repr__`` showing a batched tensor as torch does: ``BatchedTensor(lvl=1,
    bdim=0, value=...)`` around the whole batch, one per level."""

    def describe(tensor: Any) -> str:
        data = tensor._data
        if type(data) is not BatchedArray or data._physical is None:
            return original(tensor)
        depth = {level.index: number for number, level in enumerate(current_levels(), 1)}
        text = original(Tensor._make(data._physical))
        for level in data._levels:
            inner = "\n".join("    " + line if line else line for line in text.split("\n"))
            text = f"BatchedTensor(lvl={depth.get(level, level)}, bdim=0, value=\n{inner}\n)"
        return text

    return describe


class _Patches:
    """What changes while vmap is active (restored when the outermost vmap returns):

    - every table node (also one recorded before, run by a ``vjp`` inside the vmap) runs
      its formulas on tensors, through the batching rules: the gradients reaching it may
      be batched;
    - the tensors made "like" a batched tensor are batched (``_batched_like``);
    - a batched tensor prints as torch prints it (``_batched_repr``);
    - ``backward()``, and ``requires_grad_()`` of a batched tensor, raise torch's errors: a
      function being mapped differentiates through ``grad`` / ``vjp``; so does
      ``forward_ad.make_dual`` of a batched tensor (``jvp`` / ``jacfwd`` instead).

    NOTE: these are attributes of other layers, replaced for that time."""

    depth = 0
    saved: list[tuple[Any, str, Any]] = []

    @classmethod
    def targets(cls) -> list[tuple[Any, str, Any]]:
        from hookgrad.tensor import creation

        patches: list[tuple[Any, str, Any]] = [
            (table.TableOp, "_apply", _on_tensors),
            (Tensor, "__repr__", _batched_repr(Tensor.__repr__)),
            (Tensor, "requires_grad_", _refused_batched(Tensor.requires_grad_)),
            (Tensor, "backward", _refused(BACKWARD_ERROR)),
            (sys.modules["hookgrad.autograd"], "backward", _refused(BACKWARD_ERROR)),
            (forward_ad, "make_dual", _dual_of_unbatched(forward_ad.make_dual)),
        ]
        for name in ("new_zeros", "new_ones", "new_empty", "new_full"):
            patches.append((Tensor, name, _batched_like(getattr(Tensor, name))))
        for name in ("zeros_like", "ones_like", "empty_like", "full_like"):
            like = _batched_like(getattr(creation, name))
            patches.append((creation, name, like))
            patches.append((sys.modules["hookgrad"], name, like))
        return patches

    @classmethod
    def enter(cls) -> None:
        if cls.depth == 0:
            cls.saved = []
            for owner, name, replacement in cls.targets():
                cls.saved.append((owner, name, owner.__dict__[name]))
                setattr(owner, name, replacement)
        cls.depth += 1

    @classmethod
    def exit(cls) -> None:
        cls.depth -= 1
        if cls.depth == 0:
            for owner, name, original in cls.saved:
                setattr(owner, name, original)


def enter() -> Any:
    """Start computing ops through the batching rules; returns what ``exit`` needs."""
    _Patches.enter()
    return dispatch.set_batching(compute)


def exit(previous: Any) -> None:
    """Undo ``enter``."""
    dispatch.set_batching(previous)
    _Patches.exit()


# ---------------------------------------------------------------- helpers for rules


def ndim_of(array: Any) -> int:
    """The logical number of dims of an op's argument (0 for a number or None)."""
    return array.ndim if isinstance(array, np.ndarray) else 0


def aligned(values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> list[Any]:
    """The batched values with their logical dims padded to the most any array has, so
    that the batch dims line up under broadcasting."""
    ndim = max(ndim_of(a) for a in arrays)
    return [batch_dims(v, ndim - ndim_of(a)) if f else v for v, f, a in zip(values, flags, arrays)]


def all_batched(values: list[Any], flags: list[bool], size: int | None = None) -> list[Any]:
    """Every array value with a batch dim (unbatched ones broadcast to it)."""
    if size is None:
        size = next(v.shape[0] for v, f in zip(values, flags) if f)
    return [
        materialize(v, f, size) if isinstance(v, np.ndarray) else v for v, f in zip(values, flags)
    ]


def batch_size(values: list[Any], flags: list[bool]) -> int:
    return next(v.shape[0] for v, f in zip(values, flags) if f)


def logical_dim(dim: int, ndim: int) -> int:
    """A dim as given (negative counts from the end) as a non-negative logical dim."""
    return dim % ndim if ndim else 0


def with_params(op: Any, **params: Any) -> Any:
    """A copy of ``op`` with some arguments changed (to run on the unwrapped arrays)."""
    new = copy_op(op)
    new.__dict__.update(params)
    return new


def _expandable(shape: tuple[int, ...], to: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``to``."""
    if len(shape) > len(to):
        return False
    return all(s == 1 or s == t for s, t in zip(reversed(shape), reversed(to)))
