"""``utils.make_dot``: the DOT source has the graph torch records (nodes, edges), parameter
names and shapes, hook marks, saved-tensor shapes, several outputs, and deep graphs."""

from __future__ import annotations

import re
import sys
from collections import Counter
from typing import Any

import pytest

import hookgrad
from hookgrad.utils import make_dot

_NODE = re.compile(r'^\t"?(\w+)"? \[label=("[^"]*"|\S+)([^\]]*)\]$', re.M)
_EDGE = re.compile(r'^\t"?(\w+)"? -> "?(\w+)"?(?: \[([^\]]*)\])?$', re.M)
_ATTR = re.compile(r'(\w+)=("[^"]*"|\S+)')


def parse(source: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, str]]]:
    """``{id: attributes with "label"}`` and ``[(tail, head, attributes)]`` of DOT source."""
    nodes = {}
    for key, label, rest in _NODE.findall(source):
        attrs = {name: value.strip('"') for name, value in _ATTR.findall(rest)}
        attrs["label"] = label.strip('"')
        nodes[key] = attrs
    return nodes, _EDGE.findall(source)


def labelled_edges(source: str) -> Counter[tuple[str, str]]:
    """The edges as ``(input label, consumer label)`` pairs (hook lines dropped)."""
    nodes, edges = parse(source)
    label = {key: attrs["label"].split("\nhooks:")[0] for key, attrs in nodes.items()}
    return Counter((label[tail], label[head]) for tail, head, _ in edges)


def torch_edges(outputs: Any, params: dict[str, Any]) -> Counter[tuple[str, str]]:
    """The same description of a torch graph, walked through ``next_functions``."""
    names = {id(tensor): name for name, tensor in params.items()}

    def label(node: Any) -> str:
        if type(node).__name__ == "AccumulateGrad":
            shape = "(" + ", ".join(str(n) for n in node.variable.shape) + ")"
            name = names.get(id(node.variable))
            return shape if name is None else f"{name}\n{shape}"
        return node.name()

    edges: Counter[tuple[str, str]] = Counter()
    seen, stack = set(), []
    for out in outputs:
        shape = "(" + ", ".join(str(n) for n in out.shape) + ")"
        edges[(label(out.grad_fn), shape)] += 1
        stack.append(out.grad_fn)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for child, _ in node.next_functions:
            if child is not None:
                edges[(label(child), label(node))] += 1
                stack.append(child)
    return edges


def small_graph(lib: Any) -> tuple[Any, dict[str, Any]]:
    weight = lib.tensor([[1.0, -2.0, 0.5], [0.0, 1.5, -1.0]], requires_grad=True)
    bias = lib.tensor([0.1, -0.2], requires_grad=True)
    x = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    hidden = (x @ weight.t() + bias).relu()
    out = (hidden * hidden.exp()).sum()
    return out, {"weight": weight, "bias": bias}


def test_small_graph_nodes_and_edges_match_torch(torch: Any) -> None:
    out, params = small_graph(hookgrad)
    dot = make_dot(out, params=params)
    torch_out, torch_params = small_graph(torch)
    expected = torch_edges([torch_out], torch_params)
    assert labelled_edges(dot.source) == expected
    nodes, _ = parse(dot.source)
    labels = sorted(attrs["label"] for attrs in nodes.values())
    assert labels == sorted(
        [
            "()",
            "SumBackward0",
            "MulBackward0",
            "ExpBackward0",
            "ReluBackward0",
            "AddBackward0",
            "MmBackward0",
            "TBackward0",
            "weight\n(2, 3)",
            "bias\n(2)",
            "(1, 3)",
        ]
    )
    # Edges run from the input to its consumer, and from grad_fn to the output box.
    assert nodes[str(id(out))]["fillcolor"] == "darkolivegreen1"
    assert nodes[str(id(out.grad_fn))]["label"] == "SumBackward0"
    _, edges = parse(dot.source)
    assert (str(id(out.grad_fn)), str(id(out)), "") in edges
    mul = out.grad_fn.next_functions[0][0]
    assert (str(id(mul)), str(id(out.grad_fn)), "") in edges


def test_parameter_names_from_a_module() -> None:
    model = hookgrad.nn.Linear(3, 2)
    loss = model(hookgrad.randn(4, 3)).sum()
    nodes, _ = parse(make_dot(loss, params=dict(model.named_parameters())).source)
    blue = sorted(attrs["label"] for attrs in nodes.values() if attrs["fillcolor"] == "lightblue")
    assert blue == ["bias\n(2)", "weight\n(2, 3)"]
    unnamed = parse(make_dot(loss).source)[0]
    assert sorted(a["label"] for a in unnamed.values() if a["fillcolor"] == "lightblue") == [
        "(2)",
        "(2, 3)",
    ]
    pairs = parse(make_dot(loss, params=model.named_parameters()).source)[0]
    assert pairs == nodes


def hook_lines(dot: Any) -> dict[str, str]:
    """``{label: "hooks: ..." line}`` of the boxes outlined in red."""
    marked = {}
    for attrs in parse(dot.source)[0].values():
        label, found, kinds = attrs["label"].partition("\nhooks: ")
        assert bool(found) == (attrs.get("color") == "red"), attrs
        if found:
            marked[label] = kinds
    return marked


def test_hook_marks_name_each_kind() -> None:
    w = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    b = hookgrad.tensor([0.5, 0.5], requires_grad=True)
    middle = w * 3.0
    out = (middle + b).sum()
    middle.register_hook(lambda g: g)
    middle.grad_fn.register_prehook(lambda go: None)
    middle.grad_fn.register_hook(lambda gi, go: None)
    w.register_hook(lambda g: g)
    b.register_post_accumulate_grad_hook(lambda p: None)
    out.retain_grad()
    params = {"w": w, "b": b}
    marked = hook_lines(make_dot(out, params=params))
    assert marked == {
        "MulBackward0": "pre, post, tensor",
        "w\n(2)": "tensor",
        "b\n(2)": "post_accumulate_grad",
        "SumBackward0": "retain_grad",
        "()": "retain_grad",
    }
    assert hook_lines(make_dot(out, params=params, show_hooks=False)) == {}


def test_removed_hooks_leave_no_mark() -> None:
    x = hookgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    handles = [
        y.register_hook(lambda g: g),
        y.grad_fn.register_prehook(lambda go: None),
        x.register_post_accumulate_grad_hook(lambda p: None),
    ]
    assert hook_lines(make_dot(y, params={"x": x})) == {
        "ExpBackward0": "pre, tensor",
        "(2)": "tensor",
        "x\n(2)": "post_accumulate_grad",
    }
    for handle in handles:
        handle.remove()
    assert hook_lines(make_dot(y, params={"x": x})) == {}


def saved_boxes(dot: Any) -> dict[str, set[str]]:
    """``{consumer label: {saved label}}`` from the orange boxes and their dotted edges."""
    nodes, edges = parse(dot.source)
    found: dict[str, set[str]] = {}
    for tail, head, attrs in edges:
        if nodes[tail]["fillcolor"] == "orange":
            assert attrs == "style=dotted"
            found.setdefault(nodes[head]["label"], set()).add(nodes[tail]["label"])
    return found


def test_saved_tensor_shapes(torch: Any) -> None:
    x = hookgrad.ones(2, 3, requires_grad=True)
    w = hookgrad.ones(3, 4, requires_grad=True)
    out = (x @ w).exp().pow(2).sum()
    assert saved_boxes(make_dot(out)) == {}
    assert saved_boxes(make_dot(out, show_saved=True)) == {
        "MmBackward0": {"self\n(2, 3)", "mat2\n(3, 4)"},
        "ExpBackward0": {"result\n(2, 4)"},
        "PowBackward0": {"self\n(2, 4)"},
    }
    # torch names the same saved values: grad_fn._saved_<name> has these shapes there.
    tx = torch.ones(2, 3, requires_grad=True)
    tout = (tx @ torch.ones(3, 4, requires_grad=True)).exp().pow(2).sum()
    pow_node = tout.grad_fn.next_functions[0][0]
    exp_node = pow_node.next_functions[0][0]
    mm_node = exp_node.next_functions[0][0]
    assert tuple(pow_node._saved_self.shape) == (2, 4)
    assert tuple(exp_node._saved_result.shape) == (2, 4)
    assert tuple(mm_node._saved_self.shape) == (2, 3)
    assert tuple(mm_node._saved_mat2.shape) == (3, 4)
    # After backward the saved values are freed: they are left out, without an error.
    out.backward()
    assert saved_boxes(make_dot(out, show_saved=True)) == {}


def test_saved_tensors_of_a_custom_function() -> None:
    class Square(hookgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = hookgrad.ones(5, requires_grad=True)
    out = Square.apply(x).sum()
    assert saved_boxes(make_dot(out, show_saved=True)) == {
        "SquareBackward": {"saved_tensors[0]\n(5)"}
    }
    out.backward()
    assert saved_boxes(make_dot(out, show_saved=True)) == {}


def test_multiple_outputs_share_nodes(torch: Any) -> None:
    def outputs(lib: Any) -> tuple[Any, Any, dict[str, Any]]:
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        shared = x.tanh()
        return shared.sum(), shared.mean(dim=0), {"x": x}

    a, b, params = outputs(hookgrad)
    dot = make_dot((a, b), params=params)
    ta, tb, tparams = outputs(torch)
    assert labelled_edges(dot.source) == torch_edges([ta, tb], tparams)
    nodes, _ = parse(dot.source)
    labels = Counter(attrs["label"] for attrs in nodes.values())
    assert labels == Counter(
        ["()", "(2)", "SumBackward0", "MeanBackward1", "TanhBackward0", "x\n(2, 2)"]
    )
    assert parse(make_dot([a, b]).source)[0].keys() == nodes.keys()


def test_leaf_output_and_bad_input() -> None:
    x = hookgrad.ones(2, requires_grad=True)
    nodes, edges = parse(make_dot(x, params={"x": x}).source)
    assert [attrs["label"] for attrs in nodes.values()] == ["x\n(2)"]
    assert edges == []
    with pytest.raises(TypeError, match="expected a Tensor or a sequence of Tensors, got int"):
        make_dot(3)
    with pytest.raises(TypeError, match="got str"):
        make_dot([x, "y"])


def test_missing_graphviz_names_the_install_command(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match=re.escape("pip install hookgrad[demo]")):
        make_dot(hookgrad.ones(1, requires_grad=True))


def test_deep_chain_does_not_recurse() -> None:
    x = hookgrad.ones(2, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        source = make_dot(y, show_saved=True).source
    finally:
        sys.setrecursionlimit(limit)
    nodes, edges = parse(source)
    labels = Counter(attrs["label"] for attrs in nodes.values())
    assert labels == Counter({"MulBackward0": 5000, "(2)": 2})
    assert len(edges) == 5001
