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

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.func.batched import (
    DYNAMIC_SHAPE_ERROR,
    BatchedArray,
    batch_dims,
    materialize,
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
        op._apply = BatchedBackward(op)
    hidden = _hidden(op)
    level = top_level(arrays)
    if hidden:
        level = max(level, top_level(hidden.values()))
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
        level = max(level, top_level(hidden.values()))
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
        if type(batched) is not tuple:
            batched = (batched,) * len(result)
        return tuple(wrap(r, level) if b else r for r, b in zip(result, batched))
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
    values = [unwrap(a, level) for a in arrays]
    flags = [flag for _, flag in values]
    unwrapped = {name: unwrap(value, level) for name, value in hidden.items()}
    size = _size([v for v, _ in values], flags, unwrapped)
    pieces: list[Any] = []
    for x, (value, flag) in zip(inputs, values):
        if flag and isinstance(x, Tensor):
            pieces.append(dispatch.apply(VmapUnstack(level, size), x))
        else:
            pieces.append(None)
    outputs = []
    for index in range(size):
        example = copy_op(op)
        for name, (value, flag) in unwrapped.items():
            setattr(example, name, value[index] if flag else value)
        example_inputs = [
            x if split is None else split[index] for x, split in zip(inputs, pieces)
        ]
        example_arrays = [value[index] if flag else value for value, flag in values]
        outputs.append(dispatch.apply_arrays(example, example_inputs, example_arrays))
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
    formulas on tensors (as under ``create_graph``; recorded only if that is on), even
    after the vmap has returned. Holds the node weakly (no reference cycle)."""

    __slots__ = ("node",)

    def __init__(self, node: Any) -> None:
        self.node = weakref.ref(node)

    def __call__(self, grad_outputs: list[Any]) -> Any:
        node = self.node()
        cls = type(node)
        previous = dispatch.set_batching(compute)
        try:
            if isinstance(node, table.TableOp):
                return cls._on_tensors(node, grad_outputs[0])
            return cls._apply(node, grad_outputs)
        finally:
            dispatch.set_batching(previous)


def _on_tensors(node: Any, grad_outputs: list[Any]) -> Any:
    return node._on_tensors(grad_outputs[0])


class _TableFormulasOnTensors:
    """While vmap is active, every table node (also one recorded before it, run by a
    ``vjp`` inside it) runs its formulas on tensors, through the batching rules: the
    gradients reaching it may be batched. NOTE: a class attribute of the table's nodes is
    replaced for that time (restored when the outermost vmap returns)."""

    depth = 0
    original: Any = None

    @classmethod
    def enter(cls) -> None:
        if cls.depth == 0:
            cls.original = table.TableOp.__dict__["_apply"]
            table.TableOp._apply = _on_tensors  # type: ignore[method-assign]
        cls.depth += 1

    @classmethod
    def exit(cls) -> None:
        cls.depth -= 1
        if cls.depth == 0:
            table.TableOp._apply = cls.original  # type: ignore[method-assign]


def enter() -> Any:
    """Start computing ops through the batching rules; returns what ``exit`` needs."""
    _TableFormulasOnTensors.enter()
    return dispatch.set_batching(compute)


def exit(previous: Any) -> None:
    """Undo ``enter``."""
    dispatch.set_batching(previous)
    _TableFormulasOnTensors.exit()


# ---------------------------------------------------------------- helpers for rules


def ndim_of(array: Any) -> int:
    """The logical number of dims of an op's argument (0 for a number or None)."""
    return array.ndim if isinstance(array, np.ndarray) else 0


def aligned(values: list[Any], flags: list[bool], arrays: Sequence[Any]) -> list[Any]:
    """The batched values with their logical dims padded to the most any array has, so
    that the batch dims line up under broadcasting."""
    ndim = max(ndim_of(a) for a in arrays)
    return [
        batch_dims(v, ndim - ndim_of(a)) if f else v for v, f, a in zip(values, flags, arrays)
    ]


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
