"""The backward engine: runs the nodes of a graph in PyTorch's order.

It knows ``Node`` and never a specific op. One call of :func:`run_backward` is one
*graph task*, self-contained, so several threads may run backward at once.

The order (it decides when each hook fires):

1. Count, for every node reachable from the roots, the gradient edges leading into it.
2. A node is *ready* when all its incoming gradients have arrived (summed in its input
   buffer). Among ready nodes the highest sequence number runs first; ``AccumulateGrad``
   has an infinite sequence number, so it runs as soon as it is ready.
3. Running a node: tensor hooks of its outputs, then retain-grad writes, then node
   pre-hooks, the node itself, validation of what it returned, node post-hooks.

With ``inputs`` given, only nodes on a path from the roots to an input run; for
``autograd.grad`` the gradient at each input is captured, after that tensor's hooks.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Sequence
from typing import Any

from hookgrad import grad_mode
from hookgrad.graph.node import Edge, Node
from hookgrad.hooks import hook_name

_task_ids = itertools.count()


class _ThreadState(threading.local):
    tasks: list[_GraphTask] | None = None


_thread = _ThreadState()


class _GraphTask:
    """The state of one backward pass."""

    __slots__ = ("id", "deps", "exec_nodes", "captures", "captured")

    def __init__(self) -> None:
        self.id = next(_task_ids)
        self.deps: dict[Node, int] = {}
        # None: run every reachable node; else only these (see ``_select_nodes``).
        self.exec_nodes: set[Node] | None = None
        self.captures: dict[Node, list[tuple[int, int]]] = {}
        self.captured: list[Any] = []

    def will_execute(self, node: Node) -> bool:
        if self.exec_nodes is None:
            return node in self.deps
        return node in self.exec_nodes or node in self.captures


def current_graph_task_id() -> int:
    """The id of the backward pass running on this thread, or -1 outside backward."""
    tasks = _thread.tasks
    return tasks[-1].id if tasks else -1


def will_engine_execute_node(node: Node) -> bool:
    """Whether the backward pass running on this thread will reach ``node``."""
    tasks = _thread.tasks
    if not tasks:
        raise RuntimeError(
            "_will_engine_execute_node should only be called during the backward pass"
        )
    return tasks[-1].will_execute(node)


def run_backward(
    roots: Sequence[Edge],
    grad_roots: Sequence[Any],
    *,
    keep_graph: bool,
    create_graph: bool,
    inputs: Sequence[Edge] | None = None,
    capture: bool = False,
) -> list[Any]:
    """Run one backward pass from ``roots`` seeded with ``grad_roots``.

    ``inputs``: restrict execution to nodes that lead to these edges. With ``capture``
    the gradients arriving at ``inputs`` are returned (``autograd.grad``) and those
    edges' nodes run only if needed to reach another input; without it, those nodes run
    (``backward(inputs=...)``).
    """
    task = _GraphTask()
    task.deps = _count_dependencies(roots)
    if inputs is not None:
        _select_nodes(task, roots, inputs, capture)
    stack = _thread.tasks
    if stack is None:
        stack = _thread.tasks = []
    stack.append(task)
    previous_mode = grad_mode.is_grad_enabled()
    grad_mode._set_grad_enabled(create_graph)
    try:
        _execute(task, roots, grad_roots, keep_graph)
    finally:
        grad_mode._set_grad_enabled(previous_mode)
        stack.pop()
    return task.captured


def _count_dependencies(roots: Sequence[Edge]) -> dict[Node, int]:
    """For every node reachable from ``roots``: how many edges lead into it."""
    deps: dict[Node, int] = {}
    todo = []
    for node, _ in roots:
        if node is not None and node not in deps:
            deps[node] = 0
            todo.append(node)
    while todo:
        node = todo.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            count = deps.get(child)
            if count is None:
                deps[child] = 1
                todo.append(child)
            else:
                deps[child] = count + 1
    return deps


def _select_nodes(
    task: _GraphTask, roots: Sequence[Edge], inputs: Sequence[Edge], capture: bool
) -> None:
    """Mark the nodes that must run to reach ``inputs`` (and the captures)."""
    targets: set[Node] = set()
    task.captured = [None] * len(inputs)
    for index, (node, output_nr) in enumerate(inputs):
        if node is None:
            continue
        if capture:
            task.captures.setdefault(node, []).append((output_nr, index))
        else:
            targets.add(node)
    leads = set(targets) | set(task.captures)
    # Visit children before parents: a node is needed if one of its children is a
    # target, captured, or itself needed.
    needed = set(targets)
    for node in _reverse_topological(roots, task.deps):
        if node in needed:
            continue
        for child, _ in node.next_functions:
            if child is not None and (child in needed or child in leads):
                needed.add(node)
                break
    task.exec_nodes = needed


def _reverse_topological(roots: Sequence[Edge], deps: dict[Node, int]) -> list[Node]:
    remaining = dict(deps)
    for node, _ in roots:
        if node is not None:
            remaining[node] = remaining.get(node, 0) + 1
    order = []
    ready = []
    for node, _ in roots:
        if node is not None:
            remaining[node] -= 1
            if remaining[node] == 0:
                ready.append(node)
    while ready:
        node = ready.pop()
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None:
                remaining[child] -= 1
                if remaining[child] == 0:
                    ready.append(child)
    order.reverse()
    return order


def _execute(
    task: _GraphTask, roots: Sequence[Edge], grad_roots: Sequence[Any], keep: bool
) -> None:
    deps = task.deps
    buffers: dict[Node, list[Any]] = {}
    ready: list[tuple[float, int, Node]] = []
    tiebreak = itertools.count()
    # The roots are fed like the children of one virtual node that runs first.
    for node, _ in roots:
        if node is not None:
            deps[node] += 1
    for (node, output_nr), grad in zip(roots, grad_roots):
        if node is not None:
            _deliver(task, buffers, ready, tiebreak, node, output_nr, grad)
    exec_nodes = task.exec_nodes
    while ready:
        node = heapq.heappop(ready)[2]
        grads = buffers.pop(node)
        if exec_nodes is not None and node not in exec_nodes:
            # Reached only to capture a gradient: its tensor hooks fire, it does not run.
            _capture(task, node, _call_tensor_pre_hooks(node, grads))
            continue
        grad_inputs = _run_node(task, node, grads)
        if not keep:
            node._release_variables()
        for (child, input_nr), grad in zip(node.next_functions, grad_inputs):
            if child is None:
                continue
            if exec_nodes is not None and not task.will_execute(child):
                continue
            _deliver(task, buffers, ready, tiebreak, child, input_nr, grad)


def _deliver(
    task: _GraphTask,
    buffers: dict[Node, list[Any]],
    ready: list[tuple[float, int, Node]],
    tiebreak: Any,
    node: Node,
    input_nr: int,
    grad: Any,
) -> None:
    """Add ``grad`` to ``node``'s input buffer; queue the node once all grads arrived."""
    buffer = buffers.get(node)
    if buffer is None:
        buffer = buffers[node] = [None] * node._num_outputs
    if grad is not None:
        previous = buffer[input_nr]
        # NOTE: out of place: the same gradient object may sit in several buffers.
        buffer[input_nr] = grad if previous is None else previous + grad
    remaining = task.deps[node] - 1
    task.deps[node] = remaining
    if remaining == 0:
        heapq.heappush(ready, (-node._sequence_nr, next(tiebreak), node))


def _run_node(task: _GraphTask, node: Node, grads: list[Any]) -> tuple[Any, ...]:
    grads = _call_tensor_pre_hooks(node, grads)
    if task.captures:
        _capture(task, node, grads)
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks.values()):
            result = hook(tuple(grads))
            if result is not None:
                grads = list(_check_hook_result(hook, result, grads))
    if all(grad is None for grad in grads):
        grad_inputs: tuple[Any, ...] = (None,) * len(node.next_functions)
    else:
        grad_inputs = _validate_outputs(node, node._apply(grads))
    if node._post_hooks:
        grad_outputs = tuple(grads)
        for hook in tuple(node._post_hooks.values()):
            result = hook(grad_inputs, grad_outputs)
            if result is not None:
                grad_inputs = _check_hook_result(hook, result, grad_inputs)
    return grad_inputs


def _call_tensor_pre_hooks(node: Node, grads: list[Any]) -> list[Any]:
    """Tensor hooks on the node's outputs, then ``retain_grad`` writes."""
    if node._tensor_pre_hooks:
        for output_nr, hooks in node._tensor_pre_hooks.items():
            for hook in tuple(hooks.values()):
                grad = grads[output_nr]
                if grad is None:
                    break
                result = hook(grad)
                if result is not None:
                    _check_single_result(hook, grad, result)
                    grads[output_nr] = result
    if node._retain_grad_hooks:
        for output_nr, retain in tuple(node._retain_grad_hooks.items()):
            if grads[output_nr] is not None:
                retain(grads[output_nr])
    return grads


def _capture(task: _GraphTask, node: Node, grads: list[Any]) -> None:
    for output_nr, index in task.captures.get(node, ()):
        task.captured[index] = grads[output_nr]


def _validate_outputs(node: Node, grad_inputs: Any) -> tuple[Any, ...]:
    """Check what a node returned; sum broadcast gradients, cast to the input dtype."""
    if not isinstance(grad_inputs, tuple):
        grad_inputs = (grad_inputs,)
    expected = len(node.next_functions)
    if len(grad_inputs) != expected:
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {expected}, got {len(grad_inputs)})"
        )
    fixed = None
    for index, (grad, meta) in enumerate(zip(grad_inputs, node._input_meta)):
        if grad is None or meta is None:
            continue
        shape, dtype = meta
        new = grad
        if grad.shape != shape:
            if not _expandable(shape, grad.shape):
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at index {index} "
                    f"- got {list(grad.shape)} but expected shape compatible with "
                    f"{list(shape)}"
                )
            new = grad.sum_to_size(shape)
        if new.dtype != dtype:
            new = new.to(dtype)
        if new is not grad:
            if fixed is None:
                fixed = list(grad_inputs)
            fixed[index] = new
    return grad_inputs if fixed is None else tuple(fixed)


def _expandable(shape: tuple[int, ...], to: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``to``."""
    if len(shape) > len(to):
        return False
    for size, target in zip(reversed(shape), reversed(to)):
        if size != 1 and size != target:
            return False
    return True


def _check_hook_result(hook: Any, result: Any, values: Sequence[Any]) -> tuple[Any, ...]:
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(values):
        raise TypeError(
            f"hook '{hook_name(hook)}' has returned an incorrect number of values "
            f"(got {len(result)}, but expected {len(values)})"
        )
    for original, value in zip(values, result):
        _check_single_result(hook, original, value)
    return result


def _check_single_result(hook: Any, original: Any, result: Any) -> None:
    """A hook may return None or a tensor like the one it received."""
    if result is None:
        return
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not hasattr(result, "_data") or not hasattr(result, "grad_fn"):
        raise TypeError(f"expected Variable or None (got {type(result).__name__})")
    if result.dtype != original.dtype:
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has changed the type of value (was "
            f"{original.dtype.type_name} got {result.dtype.type_name})"
        )
    if result.shape != original.shape:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")
