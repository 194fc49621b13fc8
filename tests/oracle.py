"""Helpers to run the same program on hookgrad and on torch and compare the results."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np


def to_numpy(value: Any) -> Any:
    """A tensor of either library (or a nested tuple/list of them) as NumPy arrays."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return type(value)(to_numpy(v) for v in value)
    if hasattr(value, "detach"):
        return np.asarray(value.detach().numpy())
    return np.asarray(value)


def assert_close(actual: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Compare two (nested) results of the two libraries elementwise, dtypes included."""
    actual, expected = to_numpy(actual), to_numpy(expected)
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol, atol)
        return
    if expected is None:
        assert actual is None
        return
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)


def saved_values(node: Any) -> dict[str, Any]:
    """A node's ``_saved_*`` attributes by name, as ``dir()`` lists them (tensors as
    arrays), for comparing a hookgrad node with torch's."""
    saved = {}
    for name in sorted(n for n in dir(node) if n.startswith("_saved_")):
        value = getattr(node, name)
        saved[name] = np.asarray(value.detach().numpy()) if hasattr(value, "detach") else value
    return saved


def node_names(root: Any) -> list[str] | None:
    """The class names of every node reachable from ``root``, sorted (None: no graph)."""
    if root is None:
        return None
    names, stack, seen = [], [root], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node).__name__)
        stack.extend(edge[0] for edge in node.next_functions)
    return sorted(names)


def observe(value: Any) -> Any:
    """A result of either library as plain Python values that compare equal: tensors as
    rounded values, dtype and ``requires_grad``; nodes as class and ``name()``."""
    if isinstance(value, (tuple, list)):
        return [observe(v) for v in value]
    if isinstance(value, dict):
        return {key: observe(v) for key, v in value.items()}
    if hasattr(value, "_version") and hasattr(value, "tolist"):
        data = np.round(np.asarray(value.detach().tolist(), dtype=float), 5).tolist()
        return ("tensor", data, str(value.dtype).split(".")[-1], value.requires_grad)
    if hasattr(value, "next_functions"):
        return ("node", type(value).__name__, value.name())
    return value


def outcome(case: Callable[[Any], Any], lib: Any, first_line: bool = False) -> Any:
    """What ``case(lib)`` gives, observed, or the error it raises (type and message, or
    the message's first line), with warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("ok", observe(case(lib)))
        except Exception as error:  # noqa: BLE001 (the error is the observation)
            message = str(error).split("\n")[0] if first_line else str(error)
            return ("error", type(error).__name__, message)


def packed_arrays(lib: Any, run: Callable[[Any], Any]) -> list[np.ndarray]:
    """The values default pack hooks see, in order, while ``run(lib)`` builds a graph."""
    log: list[np.ndarray] = []

    def pack(tensor: Any) -> Any:
        log.append(np.asarray(tensor.detach().numpy()))
        return tensor

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        run(lib)
    return log


def reachable_nodes(roots: list[Any]) -> list[Any]:
    """Every node reachable from ``roots`` (None entries skipped), depth first along
    ``next_functions``, each once."""
    order, stack, seen = [], list(reversed(roots)), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(child for child, _ in reversed(node.next_functions))
    return order


def edge_positions(nodes: list[Any]) -> list[list[tuple[int | None, int]]]:
    """Each node's edges as ``(position of the child in nodes, input_nr)``: a graph's
    shape, comparable across libraries."""
    position = {id(node): k for k, node in enumerate(nodes)}
    return [
        [(None if child is None else position[id(child)], nr) for child, nr in node.next_functions]
        for node in nodes
    ]


def signed(value: Any) -> Any:
    """torch shows a negative int argument as unsigned 64-bit; hookgrad as it was given:
    ``value`` (nested tuples too) with such ints made signed again."""
    if isinstance(value, (tuple, list)):
        return tuple(signed(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2**63:
        return value - 2**64
    return value
