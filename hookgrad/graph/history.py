"""Every write of a tensor's autograd fields: its history, its view state, its aliases.

A tensor's place in the graph is a handful of fields (``_grad_fn`` and ``_output_nr``,
``_requires_grad``, the version counter it shares, and for a view ``_base``,
``_creation_meta`` and ``_view_version``). They are read everywhere but written only
here, so the rules that tie them together live in one place:

- **history**: a recorded op's outputs point at its node (only the differentiable ones
  count as its outputs); an in-place op moves a tensor onto a new node
  (``rebase_history``), and ``detach_()`` takes it off the graph;
- **views**: a view shares its base's version counter and remembers how it was made
  (``CreationMeta``), which later decides whether it may be changed in place;
- **aliases**: a saved output, a stand-in for an in-place op's old value, a module hook's
  output: tensors sharing data and version counter with another, attached to a node.

The functions work on any tensor object (this layer sits below the ``Tensor`` class);
callers that need a new tensor create it and hand it in.
"""

from __future__ import annotations

from typing import Any

from hookgrad import grad_mode
from hookgrad.graph.version import VersionCounter

_state = grad_mode._state


class CreationMeta:
    """How a view was made (torch's ``CreationMeta``). Only a ``DEFAULT`` view may be
    modified in place while autograd tracks it, or have its ``grad_fn`` regenerated after
    its base changed."""

    DEFAULT = 0
    NO_GRAD_MODE = 1  # made under no_grad
    MULTI_OUTPUT_NODE = 2  # one of several views made by one op (split, unbind, chunk)
    INFERENCE_MODE = 3  # made in inference mode from a normal tensor


# ------------------------------------------------------------------------------- history
def set_history(tensor: Any, node: Any, output_nr: int = 0) -> None:
    """Make ``tensor`` output ``output_nr`` of ``node`` (a fresh result, not a leaf)."""
    tensor._grad_fn = node
    tensor._output_nr = output_nr


def set_outputs(node: Any, outputs: Any) -> None:
    """Attach the outputs of a recorded op (one tensor or a tuple) to ``node``.

    As torch: only the differentiable (floating or complex) outputs are the node's
    outputs, so ``max(dim)``'s node takes one gradient, its indices none.
    """
    if type(outputs) is not tuple:
        if outputs._data.dtype.kind in "fc":
            outputs._grad_fn = node
        return
    output_nr = 0
    for output in outputs:
        if output._data.dtype.kind in "fc":
            output._grad_fn = node
            output._output_nr = output_nr
            output_nr += 1
    node._num_outputs = output_nr


def rebase_history(tensor: Any, node: Any, output_nr: int = 0) -> None:
    """Make ``node`` the ``grad_fn`` of ``tensor`` (after an in-place op or ``mark_dirty``).

    As in torch, hooks registered so far stay with the old node (they see the gradient of
    the value before the change); later hooks bind to ``node``; ``retain_grad()`` moves to
    ``node``.
    """
    # NOTE: the stored node, not ``tensor.grad_fn``: a view would regenerate it first.
    old, old_output_nr = tensor._grad_fn, tensor._output_nr
    tensor._grad_fn = node
    tensor._output_nr = output_nr
    tensor._backward_hooks = None
    if tensor._retains_grad and old is not None and old._retain_grad_hooks:
        retain = old._retain_grad_hooks.pop(old_output_nr)
        node._register_retain_grad(output_nr, retain)


def restride_history(tensor: Any, node: Any) -> None:
    """Make ``node`` the ``grad_fn`` of ``tensor`` after an in-place view op (``squeeze_``,
    ``t_``, ``as_strided_`` ...), as torch's ``set_history`` does there.

    Unlike ``rebase_history``, hooks registered on ``tensor`` and its ``retain_grad()``
    stay bound to the old node, later hooks too (torch keeps the tensor's hook dict); a
    view's ``grad_fn`` counts as current at the version now (it is not regenerated).
    """
    tensor._grad_fn = node
    tensor._output_nr = 0
    if tensor._base is not None:
        tensor._view_version = tensor._version_counter.value


def clear_history(tensor: Any) -> None:
    """Take ``tensor`` off the graph in place (``detach_()``).

    A non-leaf is marked: an op that saved it as an input refuses to use it afterwards.
    """
    if tensor._grad_fn is not None:
        tensor._detached_in_place = True
    tensor._grad_fn = None
    tensor._requires_grad = False


def set_requires_grad(tensor: Any, value: bool) -> None:
    """The leaf flag (the caller has checked that ``tensor`` may take it)."""
    tensor._requires_grad = value


def set_accumulator(tensor: Any, ref: Any) -> None:
    """Remember ``ref``, a weak reference to the leaf's ``AccumulateGrad`` node."""
    tensor._accumulator_ref = ref


def mark_retains_grad(tensor: Any) -> None:
    tensor._retains_grad = True


def mark_inference(tensor: Any, value: bool = True) -> None:
    """Mark ``tensor`` as made in inference mode (it keeps no version count)."""
    tensor._is_inference = value


# ------------------------------------------------------------------------------- aliases
def version_counter(tensor: Any) -> VersionCounter:
    """The version counter of ``tensor``, created on first need, to share with an alias."""
    counter = tensor._version_counter
    if counter is None:
        counter = tensor._version_counter = VersionCounter()
    return counter


def share_version(alias: Any, source: Any) -> Any:
    """Make ``alias`` (a tensor on ``source``'s memory) share its version counter."""
    alias._version_counter = version_counter(source)
    return alias


def alias_output(alias: Any, source: Any, node: Any, output_nr: int) -> Any:
    """``alias`` (a new tensor on ``source``'s memory) as output ``output_nr`` of
    ``node``: it shares ``source``'s version counter and is not a view."""
    alias._grad_fn = node
    alias._output_nr = output_nr
    alias._version_counter = version_counter(source)
    return alias


def stand_in(alias: Any, source: Any, share_memory: bool) -> Any:
    """``alias`` standing for ``source``'s value before an in-place op: the same gradient
    edge and, when it has ``source``'s memory, its version counter."""
    node = source.grad_fn
    if node is not None:
        alias._grad_fn = node
        alias._output_nr = source._output_nr
    if share_memory:
        alias._version_counter = version_counter(source)
    return alias


def grant_leaf(tensor: Any, ref: Any) -> None:
    """Make ``tensor`` (a detached copy of a leaf) require grad and accumulate into the
    leaf's ``AccumulateGrad`` (``ref``, a weak reference): what a saved leaf unpacks to."""
    tensor._requires_grad = True
    tensor._accumulator_ref = ref


# --------------------------------------------------------------------------------- views
def make_views(source: Any, outputs: Any) -> None:
    """Make the outputs of a view op (one tensor or a tuple) views of ``source``'s base
    (torch's ``as_view``).

    A view shares the version counter of its base; its creation meta (how it was made)
    decides later whether it may be modified in place.
    """
    base = source._base
    previous = CreationMeta.DEFAULT
    if base is None:
        base = source
    else:
        previous = source._creation_meta
    if _state.inference:
        meta = CreationMeta.INFERENCE_MODE
    elif not _state.grad_enabled:
        meta = CreationMeta.NO_GRAD_MODE
    elif type(outputs) is tuple:
        meta = CreationMeta.MULTI_OUTPUT_NODE
    else:
        meta = previous
    if previous == CreationMeta.INFERENCE_MODE:
        meta = previous
    counter = version_counter(source)
    inference = _state.inference or source._is_inference
    for output in outputs if type(outputs) is tuple else (outputs,):
        output._base = base
        output._version_counter = counter
        output._view_version = counter.value
        if meta:
            output._creation_meta = meta
        if inference:
            output._is_inference = source._is_inference


def refresh_view(view: Any, node: Any) -> None:
    """Give ``view`` the regenerated ``grad_fn`` ``node``, current as of its base's
    version now."""
    rebase_history(view, node, 0)
    view._view_version = view._version_counter.value
