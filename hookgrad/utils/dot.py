"""``make_dot``: draw the autograd graph behind a tensor as a Graphviz ``Digraph``.

The graph has one box per ``Node`` reachable from the outputs through ``next_functions``,
one per output tensor, and optionally one per saved tensor; boxes whose node or tensor
carries hooks get a red outline and a ``hooks: ...`` line. Colours follow torchviz:
parameters light blue, outputs green, saved tensors orange.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hookgrad.autograd.function import BackwardFunction
from hookgrad.graph.accumulate import AccumulateGrad
from hookgrad.graph.node import Node
from hookgrad.ops.base import Op
from hookgrad.tensor import Tensor

if TYPE_CHECKING:
    import graphviz

__all__ = ["make_dot"]

_NODE_STYLE = {
    "style": "filled",
    "shape": "box",
    "align": "left",
    "fontsize": "10",
    "height": "0.2",
    "fontname": "monospace",
}
_HOOK_STYLE = {"color": "red", "penwidth": "2"}


def make_dot(
    output: Tensor | Sequence[Tensor],
    params: Mapping[str, Tensor] | Iterable[tuple[str, Tensor]] | None = None,
    show_saved: bool = False,
    show_hooks: bool = True,
) -> graphviz.Digraph:
    """The autograd graph of ``output`` as a ``graphviz.Digraph``.

    Args:
        output: a tensor, or a tuple/list of tensors drawn in one graph (shared nodes
            appear once). Each is a green box with its shape, fed by its ``grad_fn``.
        params: names for leaf tensors, e.g. ``dict(model.named_parameters())`` (a mapping
            or ``(name, tensor)`` pairs); their ``AccumulateGrad`` boxes (light blue) show
            that name and the shape, unnamed leaves only the shape.
        show_saved: also draw what each node saved for backward (an op's ``saves``, read
            through ``grad_fn._saved_<name>``; a custom Function's ``saved_tensors``) as
            small orange boxes with name and shape, linked by dotted edges. Reading them
            runs their unpack hooks, if any; freed values (after ``backward`` without
            ``retain_graph``) are left out.
        show_hooks: outline in red every node or tensor that carries hooks and list their
            kinds: ``pre``/``post`` (node pre-hooks / hooks), ``tensor`` (tensor hooks),
            ``retain_grad`` and ``post_accumulate_grad``.

    Edges run from an input to the node that consumes it (torchviz's direction). The
    traversal is iterative, so graphs of any depth work. ``.source`` is the DOT text;
    ``.render(format="svg")`` needs the Graphviz ``dot`` program. Example::

        model = hookgrad.nn.Linear(3, 2)
        y = model(hookgrad.randn(4, 3)).sum()
        dot = make_dot(y, params=dict(model.named_parameters()))
        print(dot.source)  # SumBackward0, AddmmBackward0, TBackward0, weight (2, 3), bias (2)
    """
    try:
        import graphviz
    except ImportError as error:
        raise ImportError(
            "make_dot needs the graphviz package: pip install hookgrad[demo]"
        ) from error
    outputs = _as_outputs(output)
    names = {id(tensor): name for name, tensor in dict(params or {}).items()}
    dot = graphviz.Digraph(node_attr=_NODE_STYLE, graph_attr={"size": "12,12", "ranksep": "0.1"})
    seen: set[int] = set()
    stack: list[Node] = []
    for tensor in outputs:
        _add_output(dot, tensor, names, show_hooks)
        if tensor.grad_fn is not None:
            dot.edge(str(id(tensor.grad_fn)), str(id(tensor)))
            stack.append(tensor.grad_fn)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        _add_node(dot, node, names, show_hooks)
        if show_saved:
            _add_saved(dot, node)
        for child, _ in node.next_functions:
            if child is not None:
                dot.edge(str(id(child)), str(id(node)))
                stack.append(child)
    return dot


def _as_outputs(output: Any) -> tuple[Tensor, ...]:
    outputs = tuple(output) if isinstance(output, (tuple, list)) else (output,)
    for tensor in outputs:
        if not isinstance(tensor, Tensor):
            raise TypeError(
                "make_dot(): expected a Tensor or a sequence of Tensors, got "
                f"{type(tensor).__name__}"
            )
    return outputs


def _add_output(
    dot: graphviz.Digraph, tensor: Tensor, names: dict[int, str], show_hooks: bool
) -> None:
    kinds = _tensor_hook_kinds(tensor) if show_hooks else []
    if tensor._retains_grad and show_hooks:
        kinds.append("retain_grad")
    lines = [names[id(tensor)]] if id(tensor) in names else []
    _box(dot, id(tensor), lines + [_shape(tensor)], "darkolivegreen1", kinds)


def _add_node(dot: graphviz.Digraph, node: Node, names: dict[int, str], show_hooks: bool) -> None:
    kinds = _node_hook_kinds(node) if show_hooks else []
    if isinstance(node, AccumulateGrad):
        variable = node.variable
        if show_hooks:
            kinds += [kind for kind in _tensor_hook_kinds(variable) if kind not in kinds]
        lines = [names[id(variable)]] if id(variable) in names else []
        _box(dot, id(node), lines + [_shape(variable)], "lightblue", kinds)
    else:
        _box(dot, id(node), [node.name()], "lightgrey", kinds)


def _add_saved(dot: graphviz.Digraph, node: Node) -> None:
    for index, (name, value) in enumerate(_saved_values(node)):
        if not isinstance(value, Tensor):
            continue
        key = f"{id(node)}_saved_{index}"
        dot.node(key, f"{name}\n{_shape(value)}", fillcolor="orange")
        dot.edge(key, str(id(node)), style="dotted")


def _saved_values(node: Node) -> list[tuple[str, Any]]:
    """``(name, value)`` for what ``node`` saved and can still unpack."""
    if isinstance(node, BackwardFunction):
        saved = [(f"saved_tensors[{i}]", item) for i, item in enumerate(node._saved)]
    elif isinstance(node, Op):
        saved = [(name, node._saved_named(name)) for name in node.saves]
    else:
        return []
    values = []
    for name, item in saved:
        if item is None:
            continue
        try:
            values.append((name, item.unpack(node)))
        except RuntimeError:  # freed, or changed in place since it was saved
            continue
    return values


def _node_hook_kinds(node: Node) -> list[str]:
    kinds = []
    if node._pre_hooks:
        kinds.append("pre")
    if node._post_hooks:
        kinds.append("post")
    if node._tensor_pre_hooks and any(hooks for _, hooks in node._tensor_pre_hooks):
        kinds.append("tensor")
    if node._retain_grad_hooks:
        kinds.append("retain_grad")
    return kinds


def _tensor_hook_kinds(tensor: Tensor) -> list[str]:
    kinds = []
    if tensor._backward_hooks:
        kinds.append("tensor")
    if tensor._post_accumulate_grad_hooks:
        kinds.append("post_accumulate_grad")
    return kinds


def _box(
    dot: graphviz.Digraph, key: int, lines: list[str], fill: str, hook_kinds: list[str]
) -> None:
    if hook_kinds:
        lines = lines + ["hooks: " + ", ".join(hook_kinds)]
        dot.node(str(key), "\n".join(lines), fillcolor=fill, **_HOOK_STYLE)
    else:
        dot.node(str(key), "\n".join(lines), fillcolor=fill)


def _shape(tensor: Tensor) -> str:
    return "(" + ", ".join(str(n) for n in tensor.shape) + ")"
