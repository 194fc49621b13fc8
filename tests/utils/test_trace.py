"""``trace_hooks``: every hook kind recorded in torch's order, owners, threads, the table,
and explanations for hooks that did not fire."""

import threading

import pytest

import hookgrad
from hookgrad import hooks, nn
from hookgrad.utils import trace_hooks

ALL_KINDS = {
    "tensor",
    "node_pre",
    "node_post",
    "post_accumulate",
    "multi_grad",
    "module_forward_pre",
    "module_forward",
    "module_backward_pre",
    "module_backward",
    "param_grad",
    "pack",
    "unpack",
}


def _net():
    hookgrad.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))


def test_every_kind_is_recorded_with_owner_and_shapes():
    net = _net()
    net[0].register_forward_pre_hook(lambda m, a: None)
    net[0].register_forward_hook(lambda m, a, o: o * 2)
    net[2].register_full_backward_pre_hook(lambda m, g: None)
    net[2].register_full_backward_hook(lambda m, gi, go: None)
    net[2].register_parameter_grad_hook(lambda m, grads: None)
    x = hookgrad.randn(5, 3, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: None)
    with trace_hooks(model=net) as trace:
        with hookgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = net(x)
        y.register_hook(lambda g: None)
        y.grad_fn.register_prehook(lambda g: None)
        y.grad_fn.register_hook(lambda gi, go: None)
        hookgrad.autograd.graph.register_multi_grad_hook((x, y), lambda grads: None)
        y.sum().backward()
    records = trace.records
    assert {r.kind for r in records} == ALL_KINDS
    assert [r.order for r in records] == list(range(len(records)))
    by_kind = {r.kind: r for r in records}
    assert by_kind["module_forward_pre"].owner == "0 (Linear)"
    assert by_kind["module_forward_pre"].inputs == ([5, 3],)
    assert by_kind["module_backward"].owner == "2 (Linear)"
    assert by_kind["param_grad"].owner == "2 (Linear)"
    assert by_kind["param_grad"].inputs == {"weight": [2, 4], "bias": [2]}
    assert by_kind["tensor"].owner == "tensor [5, 2] grad_fn=AddmmBackward0"
    assert by_kind["node_pre"].owner == "AddmmBackward0"
    assert by_kind["post_accumulate"].owner == "leaf [5, 3]"
    assert by_kind["multi_grad"].owner == "2 tensors"
    assert by_kind["multi_grad"].inputs == ([5, 3], [5, 2])
    assert by_kind["pack"].owner.startswith("saved tensor [")
    # Internal hooks (multi-grad's tensor hooks, the module backward node pre-hook) are hidden.
    assert sum(r.kind == "tensor" for r in records) == 1
    assert sum(r.kind == "node_pre" for r in records) == 1
    # Forward hooks run in forward, then the backward phases in engine order.
    kinds = [r.kind for r in records if not r.kind.endswith("pack")]
    assert kinds == [
        "module_forward_pre",
        "module_forward",
        "tensor",
        "module_backward_pre",
        "node_pre",
        "node_post",
        "module_backward",
        "param_grad",
        "multi_grad",
        "post_accumulate",
    ]
    assert hooks._tracers == []


def _order_graph(lib, log):
    """The same small graph in hookgrad or torch, logging every backward hook firing."""
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    d = c.exp()
    e = d + a * 2
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d), ("e", e)):
        t.register_hook(lambda g, name=name: log.append(f"tensor {name}"))
    for name, t in (("c", c), ("d", d), ("e", e)):
        t.grad_fn.register_prehook(lambda g, name=name: log.append(f"pre {name}"))
        t.grad_fn.register_hook(lambda gi, go, name=name: log.append(f"post {name}"))
    for name, t in (("a", a), ("b", b)):
        t.register_post_accumulate_grad_hook(lambda t, name=name: log.append(f"acc {name}"))
    return e.sum()


def test_backward_order_matches_torch(torch):
    expected: list[str] = []
    _order_graph(torch, expected).backward()
    log: list[str] = []
    loss = _order_graph(hookgrad, log)
    with trace_hooks() as trace:
        loss.backward()
    assert log == expected
    labels = {"tensor": "tensor", "node_pre": "pre", "node_post": "post"}
    kinds = [labels.get(r.kind, "acc") for r in trace.records]
    assert kinds == [entry.split()[0] for entry in expected]
    assert trace.records[0].owner == "tensor [2] grad_fn=AddBackward0"


def test_replaced_flags():
    x = hookgrad.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.register_hook(lambda g: None)
    y.register_hook(lambda g: g)  # the same tensor back: not a replacement
    layer = nn.Linear(3, 1)
    layer.register_forward_hook(lambda m, a, o: o)
    layer.register_forward_pre_hook(lambda m, a: (a[0] * 1,))
    with trace_hooks() as trace:
        y.sum().backward()
        layer(x)
    assert [r.replaced for r in trace.records] == [True, False, False, True, False]
    assert x.grad.tolist() == [20.0, 20.0, 20.0]
    assert trace.records[3].owner == "Linear"  # no model given: the class name


def test_thread_names_and_nested_module_paths():
    model = nn.Sequential()
    model.add_module("features", nn.Sequential(nn.Linear(2, 2), nn.Tanh()))
    model[0][1].register_forward_hook(lambda m, a, o: None)
    x = hookgrad.ones(1, 2, requires_grad=True)
    with trace_hooks(model=model) as trace:
        out = model(x)
        out.register_hook(lambda g: None)
        worker = threading.Thread(target=lambda: out.sum().backward(), name="worker-1")
        worker.start()
        worker.join()
    assert [(r.kind, r.owner, r.thread) for r in trace.records] == [
        ("module_forward", "features.1 (Tanh)", "MainThread"),
        ("tensor", "tensor [1, 2] grad_fn=TanhBackward0", "worker-1"),
    ]


def test_table_text_is_fixed_width():
    x = hookgrad.ones(2, requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: g * 2)

    def double(grad):
        return grad * 2

    x.register_hook(double)
    with trace_hooks() as trace:
        y.sum().backward()
    lines = str(trace).splitlines()
    assert len(lines) == 3
    header = lines[0]
    assert header.split() == ["#", "kind", "owner", "hook", "thread", "in", "->", "out", "replaced"]
    start = {name: header.index(name) for name in ("kind", "owner", "hook", "thread")}
    assert lines[1][start["kind"] :].startswith("tensor ")
    assert lines[1][start["owner"] :].startswith("tensor [2] grad_fn=MulBackward0")
    assert lines[2][start["owner"] :].startswith("leaf [2] ")
    assert lines[2][start["hook"] :].startswith("double ")
    assert lines[2][start["thread"] :].startswith("MainThread")
    assert lines[2].endswith("[2] -> [2]  yes")
    assert repr(trace) == "<HookTrace: 2 records>"


def test_explain_forward_called_directly():
    net = _net()
    handle = net[0].register_forward_hook(lambda m, a, o: None)
    unused = nn.Linear(1, 1)
    other = unused.register_forward_pre_hook(lambda m, a: None)
    model = nn.Sequential(net, unused)
    x = hookgrad.ones(1, 3)
    with trace_hooks(model=model) as trace:
        net[2](net[1](net[0].forward(x))).sum().backward()
    reason = trace.explain(handle)
    assert reason.startswith("forward called directly: 0.0 (Linear)")
    assert trace.explain(other).startswith("not called: 1 (Linear)")
    unfired = {(u.kind, u.owner): u.reason for u in trace.unfired()}
    assert unfired[("module_forward", "0.0 (Linear)")] == reason
    assert len(unfired) == 2


def test_explain_node_not_executed_and_tensor_not_in_graph():
    a = hookgrad.ones(2, requires_grad=True)
    b = a * 2
    c = b.exp()
    loss = (c * 3).sum()
    node_handle = b.grad_fn.register_hook(lambda gi, go: None)
    tensor_handle = b.register_hook(lambda g: None)
    fired_handle = c.register_hook(lambda g: None)
    detached = a * 5  # loss does not depend on it
    stray = detached.register_hook(lambda g: None)
    removed = c.register_hook(lambda g: None)
    removed.remove()
    with trace_hooks() as trace:
        hookgrad.autograd.grad(loss, [c])
    assert trace.explain(node_handle).startswith("node not executed in this pass: MulBackward0")
    assert trace.explain(tensor_handle).startswith("node not executed in this pass")
    assert trace.explain(fired_handle) == "fired 1 time"
    assert trace.explain(stray).startswith("tensor not in the graph")
    assert trace.explain(removed).startswith("removed")
    kinds = sorted(u.kind for u in trace.unfired())
    assert kinds == ["node_post", "tensor"]


def test_explain_module_backward_not_reached_and_multi_grad():
    layer = nn.Linear(2, 2)
    handle = layer.register_full_backward_hook(lambda m, gi, go: None)
    x = hookgrad.ones(1, 2, requires_grad=True)
    with trace_hooks(model=layer) as trace:
        out = layer(x)
        (x * 2).sum().backward()  # a pass that does not go through the layer
        multi = hookgrad.autograd.graph.register_multi_grad_hook((x,), lambda gs: None)
        (x * 3).sum().backward()
    assert trace.explain(handle).startswith(
        "not executed in this pass: no backward pass in the trace went through Linear's"
    )
    assert trace.explain(multi) == "fired 1 time"
    assert out.shape == (1, 2)
    # Called through __call__ (a forward hook fired), but backward never reached it.
    layer.register_forward_hook(lambda m, a, o: None)
    multi.remove()
    with trace_hooks(model=layer) as trace:
        layer(x)
        any_handle = hookgrad.autograd.graph.register_multi_grad_hook(
            (x,), lambda g: None, mode="any"
        )
        (x * 2).sum().backward()
    assert trace.explain(handle).startswith("not executed in this pass: Linear was called")
    assert [r.kind for r in trace.records] == ["module_forward", "multi_grad"]
    assert trace.explain(any_handle) == "fired 1 time"


def test_no_backward_and_hook_errors():
    x = hookgrad.ones(2, requires_grad=True)
    handle = x.register_hook(lambda g: None)
    with trace_hooks() as trace:
        pass
    assert trace.explain(handle) == "not fired: no backward pass ran inside the trace"

    def broken(grad):
        raise ValueError("boom")

    y = x * 2
    y.register_hook(broken)
    with pytest.raises(ValueError, match="boom"), trace_hooks():
        y.sum().backward()
    assert hooks._tracers == []
    assert hooks.call_hook("tensor", None, lambda v: v + 1, 1) == 2


def test_explain_names_the_real_reason_for_every_kind_without_a_model():
    """Hooks on things the trace never saw (no ``model=``): each kind gets its own reason,
    not the tensor's."""
    from hookgrad.nn.modules import module as module_hooks

    idle = nn.Linear(2, 2)  # never called
    handles = {
        "module_forward_pre": idle.register_forward_pre_hook(lambda m, a: None),
        "module_forward": idle.register_forward_hook(lambda m, a, o: None),
        "module_backward_pre": idle.register_full_backward_pre_hook(lambda m, g: None),
        "module_backward": idle.register_full_backward_hook(lambda m, gi, go: None),
        "param_grad": idle.register_parameter_grad_hook(lambda m, grads: None),
    }
    unused_leaf = hookgrad.ones(2, requires_grad=True)
    handles["post_accumulate"] = unused_leaf.register_post_accumulate_grad_hook(lambda p: None)
    other = unused_leaf * 2
    handles["node_post"] = other.grad_fn.register_hook(lambda gi, go: None)
    handles["node_pre"] = other.grad_fn.register_prehook(lambda go: None)
    handles["tensor"] = other.register_hook(lambda g: None)
    x = hookgrad.ones(2, requires_grad=True)
    with trace_hooks() as trace:
        (x * 3).sum().backward()
    reasons = {kind: trace.explain(handle) for kind, handle in handles.items()}
    for handle in handles.values():
        handle.remove()
    assert reasons["module_forward_pre"].startswith("not called: the module it is registered")
    assert reasons["module_forward"] == reasons["module_forward_pre"]
    for kind in ("module_backward_pre", "module_backward", "param_grad"):
        assert reasons[kind].startswith("not executed: the module it is registered on never ran")
    assert reasons["post_accumulate"].startswith("leaf not in the graph")
    assert reasons["node_post"].startswith("node not in the graph")
    assert reasons["node_pre"] == reasons["node_post"]
    assert reasons["tensor"].startswith("tensor not in the graph")
    assert len(set(reasons.values())) == 5
    global_handle = module_hooks.register_module_forward_hook(lambda m, a, o: None)
    try:
        with trace_hooks() as trace:
            (x * 3).sum().backward()
        assert trace.explain(global_handle) == "not called: no module was called inside the trace"
    finally:
        global_handle.remove()
