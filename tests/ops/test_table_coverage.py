"""Every entry of the derivative table is compared with torch by one of the node tests:
its node appears in the forward graph, or in the ``create_graph=True`` gradient graph, of
a row of ``test_table.py``, ``test_table_nodes*.py`` or ``test_view_and_reduction_nodes.py``
(which compare node names, saved values, hook tuples and double-backward graphs with
torch's)."""

from __future__ import annotations

from typing import Any

import numpy as np

import hookgrad
from hookgrad.ops import table
from tests.ops import (
    test_table,
    test_table_nodes,
    test_table_nodes_reduction_linalg,
    test_table_nodes_softmax_loss,
    test_view_and_reduction_nodes,
)
from tests.oracle import node_names


def _reachable(roots: list[Any]) -> set[str]:
    return {name for root in roots for name in node_names(root) or ()}


def _graphs(outputs: Any, leaves: list[Any]) -> set[str]:
    """Node names of ``outputs``' graph and of its ``create_graph=True`` gradients."""
    outputs = [o for o in (outputs if isinstance(outputs, tuple) else (outputs,))]
    outputs = [o for o in outputs if getattr(o, "grad_fn", None) is not None]
    names = _reachable([o.grad_fn for o in outputs])
    leaves = [x for x in leaves if x.requires_grad]
    for out in outputs:
        seed = hookgrad.ones_like(out).requires_grad_()
        grads = hookgrad.autograd.grad(out, leaves, seed, create_graph=True, allow_unused=True)
        names |= _reachable([g.grad_fn for g in grads if g is not None])
    return names


def _covered() -> set[str]:
    names: set[str] = set()
    for _, fn in test_table.NODES:
        leaves = list(test_table._inputs(hookgrad))
        names |= _graphs(fn(hookgrad, *leaves), leaves)
    for _, fn, values in test_table_nodes.ROWS:
        x = test_table_nodes._leaf(hookgrad, values)
        names |= _graphs(fn(hookgrad, x), [x])
    for _, fn, shapes in test_table_nodes_reduction_linalg.CASES:
        rng = np.random.default_rng(0)
        leaves = [hookgrad.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
        names |= _graphs(fn(hookgrad, *leaves), leaves)
    for _, fn, inputs in test_table_nodes_softmax_loss.ROWS:
        leaves = list(test_table_nodes_softmax_loss._inputs(hookgrad, inputs))
        names |= _graphs(fn(hookgrad, *leaves), leaves)
    for _, fn, specs in test_view_and_reduction_nodes.ROWS:
        leaves = test_view_and_reduction_nodes._leaves(hookgrad, specs)
        names |= _graphs(fn(hookgrad, *leaves), leaves)
    return names


def test_every_entry_is_compared_with_torch():
    # Entries named ``*_test`` are the ones tests of the machinery define.
    entries = {
        cls.node_name for cls in table.ENTRIES.values() if not cls.signature.name.endswith("_test")
    }
    missing = sorted(entries - _covered())
    assert missing == [], f"table entries no node test exercises: {missing}"
