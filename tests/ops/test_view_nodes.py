"""The graphs of matmul, basic indexing and the backwards of views, against torch's.

torch's ``at::matmul`` and ``x[index]`` are composites: a chain of views around
mm/mv/bmm, and one view node per entry of an index. hookgrad records the same chain:
each row compares the node classes along the graph (``next_functions`` all the way to
the leaves), the ``_saved_*`` attributes torch shows, the arity of the grads a node hook
sees, and the node names of the graph a ``create_graph=True`` gradient records.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hookgrad

# -- helpers ---------------------------------------------------------------------------------


def _leaf(t: Any, shape: tuple[int, ...], seed: int, requires_grad: bool = True) -> Any:
    values = np.random.RandomState(seed).randn(*shape)
    return t.tensor(values, dtype=t.float64, requires_grad=requires_grad)


def _graph(fn: Any) -> Any:
    """The node classes of the graph under ``fn``: ``(name, [children])``."""
    if fn is None:
        return None
    return (type(fn).__name__, [_graph(child) for child, _ in fn.next_functions])


def _saved(fn: Any, names: list[str]) -> dict[str, Any]:
    """The ``_saved_*`` values of ``fn`` for ``names`` (torch's, read off its node)."""
    values = {}
    for name in names:
        value = getattr(fn, name)
        if isinstance(value, int) and value >= 2**63:
            value -= 2**64  # torch shows a negative SymInt as unsigned
        values[name] = tuple(value) if isinstance(value, (tuple, list)) else value
    return values


def _chain_saved(ours: Any, theirs: Any) -> None:
    """Compare the non-tensor ``_saved_*`` of each node along the first edges."""
    while theirs is not None and type(theirs).__name__ != "AccumulateGrad":
        names = [
            n
            for n in dir(theirs)
            if n.startswith("_saved_") and not hasattr(getattr(theirs, n), "grad_fn")
        ]
        names = [n for n in names if n != "_saved_indices"]
        assert _saved(ours, names) == _saved(theirs, names), type(theirs).__name__
        ours, theirs = ours.next_functions[0][0], theirs.next_functions[0][0]


def _hook_arity(t: Any, y: Any) -> tuple[int, int]:
    """How many grads a pre- and a post-hook on ``y.grad_fn`` get."""
    seen: list[int] = []
    y.grad_fn.register_prehook(lambda grads: seen.append(len(grads)))
    y.grad_fn.register_hook(lambda inputs, outputs: seen.append(len(inputs)))
    y.sum().backward()
    return tuple(seen)


# -- matmul ----------------------------------------------------------------------------------

# (shape of a, shape of b): every rank combination 1-D..4-D, broadcasting batch dims,
# batches of one and of zero.
MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 1)),
    ((2, 3), (3, 4)),
    ((4, 2, 3), (3,)),
    ((3,), (4, 3, 6)),
    ((3,), (1, 3, 6)),
    ((4, 2, 3), (3, 6)),
    ((2, 3), (4, 3, 6)),
    ((4, 2, 3), (4, 3, 6)),
    ((4, 2, 3), (1, 3, 6)),
    ((1, 2, 3), (4, 3, 6)),
    ((1, 2, 3), (1, 3, 6)),
    ((0, 2, 3), (1, 3, 6)),
    ((5, 4, 2, 3), (3,)),
    ((3,), (5, 4, 3, 6)),
    ((5, 4, 2, 3), (3, 6)),
    ((2, 3), (5, 1, 3, 6)),
    ((5, 1, 2, 3), (4, 3, 6)),
    ((5, 4, 2, 3), (1, 4, 3, 6)),
    ((2, 1, 2, 3), (5, 3, 4)),
]
NEEDS = [(True, True), (True, False), (False, True)]


def _matmul(t: Any, shapes: Any, needs: Any, transposed: bool = False) -> Any:
    a, b = (_leaf(t, s, i, n) for i, (s, n) in enumerate(zip(shapes, needs)))
    if transposed:  # a laid out column by column: torch folds only without a copy
        a = a.detach().mT.contiguous().mT.requires_grad_(needs[0])
    return a, b, a @ b


@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.parametrize("needs", NEEDS)
def test_matmul_builds_torchs_chain(torch: Any, shapes: Any, needs: Any) -> None:
    for transposed in (False, True) if len(shapes[0]) > 1 else (False,):
        ours = _matmul(hookgrad, shapes, needs, transposed)
        theirs = _matmul(torch, shapes, needs, transposed)
        assert _graph(ours[2].grad_fn) == _graph(theirs[2].grad_fn)
        assert _hook_arity(hookgrad, ours[2]) == _hook_arity(torch, theirs[2])
        for x, y in zip(ours[:2], theirs[:2]):
            if y.requires_grad:
                np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), atol=1e-12)


def test_matmul_of_a_linear_layer_is_one_mm(torch: Any) -> None:
    graphs = []
    for t in (hookgrad, torch):
        h, w = _leaf(t, (8, 3), 0), _leaf(t, (4, 3), 1)
        graphs.append(_graph((h @ w.T).grad_fn))
    assert graphs[0] == graphs[1]
    assert graphs[0][0] == "MmBackward0"


# -- basic and advanced indexing -------------------------------------------------------------

INDICES = [
    (slice(1, None), None, 1),
    1,
    -1,
    slice(None),
    slice(1, 3),
    slice(0, 100),
    Ellipsis,
    None,
    True,
    (Ellipsis,),
    (slice(None),),
    (slice(0, 100),),
    (slice(-100, 2),),
    (slice(-4, None),),
    (slice(None), slice(None, None, 2)),
    (0, 0),
    (Ellipsis, None),
    (Ellipsis, slice(1, None)),
    (1, Ellipsis, None),
    (slice(None), None, slice(None)),
    (None, True),
    (slice(None), False),
    ([0, 1],),
    (1, [0, 1]),
    (slice(1, None), [0, 1]),
    (slice(None), [1, 2], None),
    (slice(None), None, [1, 2]),
    (0, slice(None), [[0], [1]], None),
]


def _index(t: Any, index: Any) -> Any:
    if isinstance(index, tuple):
        return tuple(t.tensor(i) if isinstance(i, list) else i for i in index)
    return index


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_indexing_records_one_view_node_per_entry(torch: Any, index: Any) -> None:
    ours = _leaf(hookgrad, (4, 5, 6), 0)[_index(hookgrad, index)]
    theirs = _leaf(torch, (4, 5, 6), 0)[_index(torch, index)]
    assert _graph(ours.grad_fn) == _graph(theirs.grad_fn)
    _chain_saved(ours.grad_fn, theirs.grad_fn)
    assert _hook_arity(hookgrad, ours) == _hook_arity(torch, theirs)


# -- double backward -------------------------------------------------------------------------

SECOND_ORDER = {
    "select_slice": lambda t, x: x[1, 2:4],
    "select_narrow": lambda t, x: x.select(1, 2).narrow(0, 1, 2),
    "strided_slice": lambda t, x: x[:, ::2],
    "stack": lambda t, x: t.stack([x * x, x]),
    "unbind": lambda t, x: x.unbind(1)[2],
}


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_double_backward_records_torchs_nodes(torch: Any, name: str) -> None:
    graphs, grads = [], []
    for t in (hookgrad, torch):
        x = _leaf(t, (4, 5, 6), 0)
        y = SECOND_ORDER[name](t, x)
        (g,) = t.autograd.grad((y**2).sum(), x, create_graph=True)
        graphs.append(_graph(g.grad_fn))
        (gg,) = t.autograd.grad((g**2).sum(), x)
        grads.append(gg.numpy())
    assert graphs[0] == graphs[1]
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-12)


# -- saved values freed after a backward ----------------------------------------------------

FREED = {
    "max_dim": lambda t, a: (a * 2.5).max(dim=-1)[0],
    "min_dim": lambda t, a: (a * 2.5).min(dim=0)[0],
    "median_dim": lambda t, a: (a * 2.5).median(dim=1)[0],
    "advanced_index": lambda t, a: (a * 1)[:, [0, 0]],
}


@pytest.mark.parametrize("name", FREED)
def test_second_backward_through_a_freed_node_raises(torch: Any, name: str) -> None:
    for t in (hookgrad, torch):
        a = _leaf(t, (3, 4), 0)
        v = FREED[name](t, a)
        v.sum().backward(retain_graph=True)
        v.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            v.sum().backward()
