"""The backward engine: runs the nodes of a graph in PyTorch's order.

It knows ``Node`` and never a specific op. One call of :func:`run_backward` is one
*graph task*, self-contained, so several threads may run backward at once.

The order (it decides when each hook fires):

1. Count, for every node reachable from the roots, the gradient edges leading into it.
2. A node is *ready* when all its incoming gradients have arrived (summed in its input
   buffer). Among ready nodes the highest sequence number runs first; ``AccumulateGrad``
   has the largest possible one, so it runs as soon as it is ready. Ties (several
   ready ``AccumulateGrad``) are broken exactly as torch's ``std::priority_queue`` does.
3. Running a node: tensor hooks of its outputs, then retain-grad writes, then node
   pre-hooks, the node itself, validation of what it returned, node post-hooks.

With ``inputs`` given, only nodes on a path from the roots to an input run, and a node
computes no gradient for an edge the pass does not follow (its post-hooks see None
there). For ``autograd.grad`` the gradient at each input is captured after that
tensor's hooks.

In anomaly mode (read once per pass) each node runs through ``_run_node_checked``.

Callbacks queued with :func:`queue_callback` during a pass run after its last node, before
``backward()`` returns (``DistributedDataParallel`` waits there for its all-reduces).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from hookgrad import grad_mode, hooks
from hookgrad.graph import anomaly
from hookgrad.graph.accumulate import (
    GRAD_DTYPE_UNSET,
    AccumulateGrad,
    as_grad_dtype,
    leaf_grad_dtype,
)
from hookgrad.graph.hook_results import check_single_result
from hookgrad.graph.node import Edge, Node
from hookgrad.hooks import call_hook, hook_name

_task_ids = itertools.count()


class _ThreadState(threading.local):
    tasks: list[_GraphTask] | None = None


_thread = _ThreadState()


class _GraphTask:
    """The state of one backward pass."""

    __slots__ = (
        "id",
        "deps",
        "exec_nodes",
        "captures",
        "captured",
        "lone_root",
        "final_callbacks",
    )

    def __init__(self) -> None:
        self.id = next(_task_ids)
        self.deps: dict[Node, int] = {}
        # None: run every reachable node; else only these (see ``_select_nodes``).
        self.exec_nodes: set[Node] | None = None
        self.captures: dict[Node, list[tuple[int, int]]] = {}
        self.captured: list[Any] = []
        # The root node when the pass has a single root (torch then starts at that node
        # itself, not at a dummy node in front of the roots), else None.
        self.lone_root: Node | None = None
        self.final_callbacks: list[Callable[[], None]] = []

    def will_execute(self, node: Node) -> bool:
        if self.exec_nodes is None:
            return node in self.deps
        return node in self.exec_nodes or node in self.captures


def current_graph_task_id() -> int:
    """The id of the backward pass running on this thread, or -1 outside backward."""
    tasks = _thread.tasks
    return tasks[-1].id if tasks else -1


def queue_callback(callback: Callable[[], None]) -> None:
    """Run ``callback()`` once the backward pass running on this thread has run its last
    node, before ``backward()`` / ``autograd.grad()`` returns; torch's
    ``Variable._execution_engine.queue_callback``.

    Callbacks run in the order queued, with grad mode as in the pass (``create_graph``);
    a callback may queue more. Calling it outside a backward pass is an error. Example
    (from a hook, which runs during backward)::

        p.register_post_accumulate_grad_hook(
            lambda p: queue_callback(lambda: print("backward done")))
    """
    tasks = _thread.tasks
    if not tasks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    tasks[-1].final_callbacks.append(callback)


def will_engine_execute_node(node: Node) -> bool:
    """Whether the backward pass running on this thread will reach ``node``.

    As torch answers it: only nodes of the graph the pass walks count, and the root of a
    pass with a single root is not one (torch's graph task starts at it); asking about a
    leaf's ``AccumulateGrad`` that ``autograd.grad`` captures is an error.
    """
    tasks = _thread.tasks
    if not tasks:
        raise RuntimeError(
            "_get_should_execute_nodes should only be called during the backward pass"
        )
    task = tasks[-1]
    if node is task.lone_root:
        return False
    if node in task.captures and isinstance(node, AccumulateGrad):
        raise RuntimeError(
            "A leaf node was passed to _will_engine_execute_node but we are currently "
            "running autograd.grad(). This is currently not supported."
        )
    return node in task.deps and task.will_execute(node)


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
    if len(roots) == 1:
        task.lone_root = roots[0][0]
    if inputs is not None:
        _select_nodes(task, roots, inputs, capture)
    stack = _thread.tasks
    if stack is None:
        stack = _thread.tasks = []
    stack.append(task)
    previous_mode = grad_mode.is_grad_enabled()
    grad_mode._set_grad_enabled(create_graph)
    # Anomaly mode is read once per pass: when it is off, nodes run unchecked.
    run_node = _run_node_checked if anomaly.state.enabled else _run_node
    if hooks._tracers:
        run_node = hooks.trace_pass(roots, run_node)
    try:
        # NOTE: backward formulas meet inf / nan (e.g. masked-out places) where torch is
        # silent; NumPy's floating-point warnings are off for the whole pass.
        with np.errstate(all="ignore"):
            _execute(task, roots, grad_roots, keep_graph, run_node)
            # NOTE: by index: a callback may queue another one.
            index = 0
            while index < len(task.final_callbacks):
                task.final_callbacks[index]()
                index += 1
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
        for child, _ in todo.pop().next_functions:
            if child in deps:
                deps[child] += 1
            elif child is not None:
                deps[child] = 1
                todo.append(child)
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
    captures = task.captures
    # Visit children before parents: a node is needed if one of its children is a
    # target, captured, or itself needed.
    needed = targets
    for node in _reverse_topological(roots, task.deps):
        if node in needed:
            continue
        for child, _ in node.next_functions:
            if child is not None and (child in needed or child in captures):
                needed.add(node)
                break
    task.exec_nodes = needed


def _reverse_topological(roots: Sequence[Edge], deps: dict[Node, int]) -> list[Node]:
    """The nodes reachable from ``roots``, each one before the nodes feeding it, reversed."""
    remaining = dict(deps)
    order = []
    starts = dict.fromkeys(node for node, _ in roots if node is not None)
    ready = [node for node in starts if remaining[node] == 0]
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
    task: _GraphTask,
    roots: Sequence[Edge],
    grad_roots: Sequence[Any],
    keep: bool,
    run_node: Callable[[_GraphTask, Node, list[Any]], tuple[Any, ...]],
) -> None:
    deps = task.deps
    exec_nodes = task.exec_nodes
    buffers: dict[Node, list[Any]] = {}
    ready: list[tuple[int, Node]] = []
    # The roots are fed like the children of one virtual node that runs first.
    for root, _ in roots:
        if root is not None:
            deps[root] += 1
    edges: Iterable[tuple[Edge, Any]] = zip(roots, grad_roots)
    if exec_nodes is not None and task.lone_root is not None:
        if not task.will_execute(task.lone_root):
            _call_lone_root_hooks(roots[0], grad_roots[0])
            return
    while True:
        # Deliver the gradients of the node that just ran (at first: the seeds) ...
        for (child, input_nr), grad in edges:
            if child is None:
                continue
            if exec_nodes is not None and not task.will_execute(child):
                continue
            buffer = buffers.get(child)
            if buffer is None:
                buffer = buffers[child] = [None] * child._num_outputs
            if grad is not None:
                previous = buffer[input_nr]
                # NOTE: out of place: the same gradient object may sit in several buffers.
                buffer[input_nr] = grad if previous is None else previous + grad
            remaining = deps[child] - 1
            deps[child] = remaining
            if remaining == 0:
                if ready:
                    _push(ready, child)
                else:
                    ready.append((child._seq, child))
        if not ready:
            return
        # ... then run the ready node with the highest sequence number.
        node = ready.pop()[1] if len(ready) == 1 else _pop(ready)
        grads = buffers.pop(node)
        if exec_nodes is not None and node not in exec_nodes:
            # Reached only to capture a gradient: its tensor hooks fire, it does not run.
            _capture(task, node, _call_tensor_pre_hooks(node, grads))
            edges = ()
            continue
        grad_inputs = run_node(task, node, grads)
        if not keep:
            node._release_variables()
        edges = zip(node.next_functions, grad_inputs)


def _call_lone_root_hooks(root: Edge, grad: Any) -> None:
    """The tensor hooks (and ``retain_grad``) of a single root the pass does not need:
    torch runs them anyway, and nothing else (e.g. ``backward(inputs=[unused])``)."""
    node, output_nr = root
    grads: list[Any] = [None] * node._num_outputs  # type: ignore[union-attr]
    grads[output_nr] = grad
    _call_tensor_pre_hooks(node, grads)  # type: ignore[arg-type]


# The ready queue is a binary max-heap on sequence numbers that pushes and pops exactly
# like C++'s ``std::priority_queue`` (libstdc++), which torch uses: nodes with equal
# numbers (``AccumulateGrad``) then come out in torch's order. ``heapq`` breaks such ties
# differently.


def _push(heap: list[tuple[int, Node]], node: Node) -> None:
    """Add ``node``: append it, then sift it up past parents with a lower number."""
    key = node._seq
    hole = len(heap)
    heap.append((key, node))
    while hole:
        parent = (hole - 1) >> 1
        if heap[parent][0] >= key:
            break
        heap[hole] = heap[parent]
        hole = parent
    heap[hole] = (key, node)


def _pop(heap: list[tuple[int, Node]]) -> Node:
    """Remove and return the top node (``heap`` has at least two entries)."""
    top = heap[0][1]
    last = heap.pop()
    size = len(heap)
    # Move the hole at the root down to a leaf along the larger child (right on ties) ...
    hole = child = 0
    while child < (size - 1) >> 1:
        child = 2 * child + 2
        if heap[child][0] < heap[child - 1][0]:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if not size & 1 and child == (size - 2) >> 1:
        child = 2 * child + 1
        heap[hole] = heap[child]
        hole = child
    # ... then sift the former last entry up from there.
    key = last[0]
    while hole:
        parent = (hole - 1) >> 1
        if heap[parent][0] >= key:
            break
        heap[hole] = heap[parent]
        hole = parent
    heap[hole] = last
    return top


def _run_node(task: _GraphTask, node: Node, grads: list[Any]) -> tuple[Any, ...]:
    if type(node) is AccumulateGrad and node.variable._grad_dtype is not GRAD_DTYPE_UNSET:
        grads = [as_grad_dtype(node.variable, grads[0])]
    if node._tensor_pre_hooks is not None or node._retain_grad_hooks is not None:
        grads = _call_tensor_pre_hooks(node, grads)
    if task.captures:
        _capture(task, node, grads)
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks.values()):
            result = call_hook("node_pre", node, hook, tuple(grads))
            if result is not None:
                grads = list(_check_hook_result(hook, result, grads))
    if grads[0] is None and not node._runs_without_grads and all(g is None for g in grads):
        grad_inputs: tuple[Any, ...] = (None,) * len(node.next_functions)
    else:
        grad_inputs = _validate_outputs(node, node._apply(grads))
        if task.exec_nodes is not None:
            grad_inputs = _drop_unneeded(task, node, grad_inputs)
    if node._post_hooks:
        grad_outputs = tuple(grads)
        for hook in tuple(node._post_hooks.values()):
            result = call_hook("node_post", node, hook, grad_inputs, grad_outputs)
            if result is not None:
                grad_inputs = _check_hook_result(hook, result, grad_inputs)
    return grad_inputs


def _run_node_checked(task: _GraphTask, node: Node, grads: list[Any]) -> tuple[Any, ...]:
    """``_run_node`` in anomaly mode, as torch: nodes created meanwhile get ``node`` as
    their parent; a NaN gradient raises; any error first warns with the forward stack."""
    previous = anomaly.set_evaluating(node)
    try:
        grad_inputs = _run_node(task, node, grads)
        if anomaly.state.check_nan:
            _check_nan(node, grad_inputs)
    except Exception:
        anomaly.report_error(node)
        raise
    finally:
        anomaly.set_evaluating(previous)
    return grad_inputs


def _check_nan(node: Node, grad_inputs: tuple[Any, ...]) -> None:
    for index, grad in enumerate(grad_inputs):
        if grad is not None and np.isnan(grad._data).any():
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {index}th output."
            )


def _drop_unneeded(task: _GraphTask, node: Node, grad_inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """None for the edges this pass does not follow (as in torch, post-hooks see None).

    A node of a list argument keeps them all when it follows any of its edges.
    """
    kept = tuple(
        grad if child is not None and task.will_execute(child) else None
        for (child, _), grad in zip(node.next_functions, grad_inputs)
    )
    if node._list_input and any(grad is not None for grad in kept):
        return grad_inputs
    return kept


def _call_tensor_pre_hooks(node: Node, grads: list[Any]) -> list[Any]:
    """Tensor hooks on the node's outputs, then ``retain_grad`` writes.

    As in torch, a tensor's hooks run even when its gradient is None (an unused output).
    """
    if node._tensor_pre_hooks:
        for output_nr, hooks in node._tensor_pre_hooks:
            for hook in tuple(hooks.values()):
                grad = grads[output_nr]
                result = call_hook("tensor", (node, output_nr), hook, grad)
                if result is not None:
                    check_single_result(hook, grad, result)
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
    if type(grad_inputs) is not tuple:
        grad_inputs = (grad_inputs,)
    expected = len(node.next_functions)
    if len(grad_inputs) != expected:
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {expected}, got {len(grad_inputs)})"
        )
    metas = node._input_meta
    if not metas:
        return grad_inputs  # a node without input metadata: nothing to check against
    fixed = None
    index = -1
    for grad in grad_inputs:
        index += 1
        if grad is None:
            continue
        meta = metas[index]
        if meta is None:
            continue
        data = grad._data
        # NOTE: built-in NumPy dtypes are singletons: ``is`` is the fast, common answer.
        if data.shape == meta[0] and (data.dtype is meta[1] or data.dtype == meta[1]):
            continue
        if fixed is None:
            fixed = list(grad_inputs)
        dtype = meta[1]
        target = node.next_functions[index][0]
        if type(target) is AccumulateGrad:
            dtype = leaf_grad_dtype(target.variable, dtype)  # its grad_dtype, where set
        fixed[index] = _conform(node, index, grad, meta[0], dtype)
    return grad_inputs if fixed is None else tuple(fixed)


def _conform(node: Node, index: int, grad: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """``grad`` summed down to ``shape`` (if it is broadcast) and cast to ``dtype`` (None:
    kept as it is)."""
    if grad._data.shape != shape:
        if not _expandable(shape, grad._data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} "
                f"- got {list(grad.shape)} but expected shape compatible with {list(shape)}"
            )
        grad = grad.sum_to_size(shape)
    if dtype is not None and grad._data.dtype != dtype:
        if grad._data.dtype.kind == "c" and dtype.kind != "c":
            grad = grad.real  # a real input gets the real part (torch: silently)
        grad = grad.to(dtype)
    return grad


def _expandable(shape: tuple[int, ...], to: tuple[int, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``to``."""
    if len(shape) > len(to):
        return False
    for size, target in zip(reversed(shape), reversed(to)):
        if size != 1 and size != target:
            return False
    return True


def _check_hook_result(hook: Any, result: Any, values: Sequence[Any]) -> tuple[Any, ...]:
    """A node hook may return None or a tuple with one gradient per value it received."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(values):
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has returned an incorrect number of values "
            f"(got {len(result)}, but expected {len(values)})"
        )
    for original, value in zip(values, result):
        check_single_result(hook, original, value)
    return result
