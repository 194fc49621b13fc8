"""``nn.Module`` and ``nn.Parameter`` against torch: registration, traversal, state, repr
and errors. Each scenario is written once against ``lib`` and run on both libraries."""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import hookgrad


def outcome(fn: Any) -> Any:
    """What ``fn()`` returns, or ``(error type name, message)``."""
    try:
        return fn()
    except Exception as error:  # noqa: BLE001 (comparing errors is the point)
        return type(error).__name__, str(error)


def build(lib: Any) -> Any:
    """A small tree: a parameter, buffers (one not persistent), a Linear, a Sequential."""
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = nn.Parameter(lib.ones(2))
            self.register_buffer("count", lib.zeros(1, dtype=lib.int64))
            self.register_buffer("cache", lib.ones(2), persistent=False)
            self.head = nn.Linear(2, 3)
            self.body = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1, bias=False))
            self.shared = self.head  # the same module twice

        def forward(self, x: Any) -> Any:
            return self.body(self.head(x * self.scale))

    return Net()


def test_traversal_matches_torch(torch: Any) -> None:
    def names(lib: Any) -> Any:
        net = build(lib)
        return (
            [n for n, _ in net.named_parameters()],
            [n for n, _ in net.named_parameters(remove_duplicate=False)],
            [n for n, _ in net.named_parameters(prefix="net", recurse=False)],
            [n for n, _ in net.named_buffers()],
            [n for n, _ in net.named_children()],
            [n for n, _ in net.named_modules()],
            [n for n, _ in net.named_modules(remove_duplicate=False)],
            [type(m).__name__ for m in net.modules()],
            [type(m).__name__ for m in net.children()],
            len(list(net.parameters())),
            len(list(net.buffers(recurse=False))),
            list(net.state_dict()),
            type(net.get_submodule("body.2")).__name__,
            list(net.get_parameter("body.0.bias").shape),
            list(net.get_buffer("count").shape),
        )

    assert names(hookgrad) == names(torch)


def test_registration_errors_match_torch(torch: Any) -> None:
    def errors(lib: Any) -> list[Any]:
        nn = lib.nn
        m = nn.Module()
        m.w = nn.Parameter(lib.ones(2))
        m.lin = nn.Linear(1, 1)
        m.register_buffer("buf", lib.zeros(1))
        m.plain = 5
        checks = [
            lambda: setattr(m, "w", lib.ones(2)),
            lambda: setattr(m, "lin", 3),
            lambda: setattr(m, "buf", 3),
            lambda: m.register_buffer("b2", 3),
            lambda: m.register_buffer("a.b", None),
            lambda: m.register_buffer("", None),
            lambda: m.register_buffer("w", None),
            lambda: m.register_buffer(1, None),
            lambda: m.register_buffer("plain", None),
            lambda: m.register_parameter("buf", None),
            lambda: m.register_parameter("p", lib.ones(1)),
            lambda: m.register_parameter("a.b", None),
            lambda: m.register_parameter("", None),
            lambda: m.register_parameter(3, None),
            lambda: m.add_module("a.b", None),
            lambda: m.add_module("", None),
            lambda: m.add_module("w", None),
            lambda: m.add_module("x", 3),
            lambda: m.add_module(3, None),
            lambda: m.get_submodule("lin.foo"),
            lambda: m.get_submodule("w"),
            lambda: m.get_parameter("lin.zz"),
            lambda: m.get_buffer("lin.weight"),
            lambda: m.nope,
            lambda: m(),
            lambda: m.train("x"),
            lambda: delattr(m, "zz"),
            lambda: m.to(lib.int64),
            lambda: nn.Parameter(lib.ones(2, dtype=lib.int64)),
        ]
        return [outcome(check) for check in checks]

    ours, theirs = errors(hookgrad), errors(torch)
    for a, b in zip(ours, theirs):
        assert a == b


def test_assign_before_init_matches_torch(torch: Any) -> None:
    def errors(lib: Any) -> list[Any]:
        nn = lib.nn
        results = []
        for value in (nn.Parameter(lib.ones(1)), nn.Linear(1, 1), nn.Buffer(lib.ones(1)), 3):

            class Early(nn.Module):
                def __init__(self, v: Any = value) -> None:
                    self.x = v

            results.append(outcome(lambda: type(Early()).__name__))
        return results

    assert errors(hookgrad) == errors(torch)


def test_setattr_moves_between_kinds_and_delattr(torch: Any) -> None:
    def state(lib: Any) -> Any:
        nn = lib.nn
        m = nn.Module()
        m.a = lib.ones(1)  # plain attribute
        m.a = nn.Parameter(lib.ones(1))
        m.b = nn.Buffer(lib.ones(2), persistent=False)
        m.c = nn.Linear(1, 1)
        m.c = None
        m.a = None
        snapshot = (list(m._parameters), list(m._buffers), list(m._modules), list(m.state_dict()))
        del m.b
        del m.c
        return (*snapshot, list(m._buffers), list(m._modules), "a" in dir(m), "c" in dir(m))

    assert state(hookgrad) == state(torch)


def test_repr_matches_torch(torch: Any) -> None:
    def text(lib: Any) -> str:
        nn = lib.nn

        class Custom(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inner = nn.Sequential(nn.Linear(2, 2), nn.ModuleList([nn.ReLU(), nn.ReLU()]))
                self.none = None
                self.register_module("empty", None)

            def extra_repr(self) -> str:
                return "first\nsecond"

        class OneLine(nn.Module):
            def extra_repr(self) -> str:
                return "k=3"

        return "\n".join([repr(Custom()), repr(OneLine()), repr(nn.Module())])

    assert text(hookgrad) == text(torch)


def test_state_dict_and_load_state_dict(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        source, target = build(lib), build(lib)
        state = source.state_dict()
        keep = source.state_dict(keep_vars=True)
        result = target.load_state_dict(state)
        same = all(
            np.array_equal(a.detach().numpy(), b.detach().numpy())
            for a, b in zip(source.state_dict().values(), target.state_dict().values())
        )
        extra = dict(state, zz=lib.ones(1))
        del extra["body.0.bias"]
        bad_shape = dict(state)
        bad_shape["head.weight"] = lib.ones(2, 2)
        return (
            repr(result),
            same,
            state["scale"].requires_grad,
            keep["scale"].requires_grad,
            outcome(lambda: target.load_state_dict(extra)),
            repr(target.load_state_dict(extra, strict=False)),
            outcome(lambda: target.load_state_dict(bad_shape, strict=False)),
            outcome(lambda: target.load_state_dict(3)),
            tuple(target.load_state_dict(extra, strict=False)),
        )

    assert scenario(hookgrad) == scenario(torch)


def test_load_state_dict_copies_in_place_or_assigns() -> None:
    net = build(hookgrad)
    weight = net.head.weight
    new = {k: v + 1 for k, v in net.state_dict().items()}
    net.load_state_dict(new)
    assert net.head.weight is weight and weight.requires_grad
    np.testing.assert_array_equal(weight.detach().numpy(), new["head.weight"].numpy())
    net.load_state_dict(new, assign=True)
    assert net.head.weight is not weight
    assert isinstance(net.head.weight, hookgrad.nn.Parameter) and net.head.weight.requires_grad


def test_train_eval_apply_requires_grad_zero_grad(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        net = build(lib)
        seen: list[str] = []
        net.apply(lambda m: seen.append(type(m).__name__))
        net.eval()
        modes = [m.training for m in net.modules()]
        net.train()
        net(lib.ones(4, 2)).sum().backward()
        had = [p.grad is not None for p in net.parameters()]
        net.zero_grad(set_to_none=False)
        zeros = [float(p.grad.abs().sum()) for p in net.parameters()]
        net.zero_grad()
        nones = [p.grad is None for p in net.parameters()]
        net.requires_grad_(False)
        frozen = [p.requires_grad for p in net.parameters()]
        return seen, modes, net.training, had, zeros, nones, frozen, net.eval() is net

    assert scenario(hookgrad) == scenario(torch)


def test_dtype_conversion(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        net = build(lib)
        weight = net.head.weight
        net(lib.ones(1, 2)).sum().backward()
        dtypes = []
        for convert in (
            lambda n: n.double(),
            lambda n: n.float(),
            lambda n: n.to(lib.float64),
            lambda n: n.to(dtype=lib.float32),
            lambda n: n.to(lib.ones(1, dtype=lib.float64)),
            lambda n: n.to("cpu"),
            lambda n: n.half(),
            lambda n: n.type(lib.float64),
        ):
            assert convert(net) is net
            dtypes.append([str(t.dtype) for t in net.state_dict().values()])
        return dtypes, net.head.weight is weight, str(weight.grad.dtype)

    ours, theirs = scenario(hookgrad), scenario(torch)
    assert ours == theirs


def test_parameter_repr_flags_and_copies(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        nn = lib.nn
        p = nn.Parameter(lib.tensor([1.0, 2.0]))
        p.grad = lib.ones(2)
        clone = copy.deepcopy(p)
        restored = pickle.loads(pickle.dumps(p))
        return (
            repr(p),
            repr(nn.Parameter(lib.ones(2), requires_grad=False)),
            repr(nn.Parameter()),
            repr(nn.Parameter(lib.ones(2, dtype=lib.int64), requires_grad=False)),
            type(clone).__name__,
            clone.requires_grad,
            clone.grad is None,
            type(restored).__name__,
            restored.requires_grad,
            isinstance(p * 2, nn.Parameter),
        )

    assert scenario(hookgrad) == scenario(torch)


def test_parameter_shares_memory_with_its_data() -> None:
    data = hookgrad.zeros(3)
    p = hookgrad.nn.Parameter(data)
    with hookgrad.no_grad():
        p.add_(1)
    assert data.tolist() == [1.0, 1.0, 1.0]
    assert p.is_leaf and p.requires_grad


def test_deepcopy_module(torch: Any) -> None:
    def scenario(lib: Any) -> Any:
        net = build(lib)
        twin = copy.deepcopy(net)
        with lib.no_grad():
            net.head.weight.add_(1)
        return (
            twin.shared is twin.head,
            twin.head.weight is net.head.weight,
            bool((twin.head.weight != net.head.weight).all()),
            [n for n, _ in twin.named_parameters()] == [n for n, _ in net.named_parameters()],
        )

    assert scenario(hookgrad) == scenario(torch)


def test_dir_lists_members_without_digit_names(torch: Any) -> None:
    def members(lib: Any) -> Any:
        net = build(lib)
        listed = dir(net)
        return [name in listed for name in ("scale", "count", "head", "body", "forward")], any(
            name[0].isdigit() for name in dir(net.body)
        )

    assert members(hookgrad) == members(torch)


def test_sequential_ordered_dict_names() -> None:
    nn = hookgrad.nn
    model = nn.Sequential(OrderedDict(first=nn.Linear(2, 2), act=nn.ReLU()))
    assert [n for n, _ in model.named_parameters()] == ["first.weight", "first.bias"]


def test_module_is_picklable() -> None:
    nn = hookgrad.nn
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    twin = pickle.loads(pickle.dumps(net))
    assert [n for n, _ in twin.named_parameters()] == [n for n, _ in net.named_parameters()]


def test_init_rejects_arguments() -> None:
    with pytest.raises(TypeError):
        hookgrad.nn.Module(3)


def test_module_device_moves_fail_as_on_a_cpu_only_torch() -> None:
    """What a CPU-only torch raises (written here: the installed torch may be a CUDA
    build), and ``compile`` accepted as a no-op."""
    model = hookgrad.nn.Linear(1, 1)
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        model.cuda()
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        model.to("cuda")
    with pytest.raises(
        RuntimeError, match=r"^Cannot access accelerator device when none is available\.$"
    ):
        model.to(0)
    assert model.to("cpu") is model and model.cpu() is model
    before = [p.detach().clone() for p in model.parameters()]
    assert model.compile(mode="max-autotune") is None
    assert all((a == b).all() for a, b in zip(before, model.parameters()))


@pytest.mark.parametrize(
    "make",
    [
        lambda nn, **kw: nn.Linear(2, 1, **kw),
        lambda nn, **kw: nn.Bilinear(2, 2, 1, **kw),
        lambda nn, **kw: nn.Conv1d(1, 1, 1, **kw),
        lambda nn, **kw: nn.Conv2d(1, 1, 1, **kw),
        lambda nn, **kw: nn.ConvTranspose2d(1, 1, 1, **kw),
        lambda nn, **kw: nn.BatchNorm1d(2, **kw),
        lambda nn, **kw: nn.BatchNorm2d(2, **kw),
        lambda nn, **kw: nn.LayerNorm(2, **kw),
        lambda nn, **kw: nn.GroupNorm(1, 2, **kw),
        lambda nn, **kw: nn.Embedding(3, 2, **kw),
    ],
)
def test_layer_factories_check_their_device(make: Any) -> None:
    """``device="cpu"`` builds the layer; ``"cuda"`` fails as a CPU-only torch does."""
    module = make(hookgrad.nn, device="cpu")
    tensors = [*module.parameters(), *module.buffers()]
    assert tensors and all(t.device == hookgrad.device("cpu") for t in tensors)
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        make(hookgrad.nn, device="cuda")
