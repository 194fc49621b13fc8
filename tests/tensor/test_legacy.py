"""torch's legacy tensor types against torch: the constructors (``FloatTensor`` ...),
``Tensor.type()``, ``isinstance`` checks and ``set_default_tensor_type``.

The CUDA types' answers depend on torch's build; they are compared with what a CPU-only
torch 2.13 answers, written here.
"""

import numpy as np
import pytest

import hookgrad
from tests.oracle import outcome

# The types whose dtype hookgrad has.
TYPES = [
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "BoolTensor",
]  # fmt: skip


@pytest.mark.parametrize("name", TYPES)
def test_constructors_match_torch(torch, name):
    def scenario(m):
        make = getattr(m, name)
        return [
            make([1, 0, 2]),
            make([[1.7, -2.7], [0.0, 3.5]]),
            make((2, 3)),
            make(range(3)),
            make(np.array([1, 2])),
            make(np.array([0.5, 1.5], dtype=np.float64)),
            make([]),
            [tuple(make(2, 3).shape), str(make(2, 3).dtype)],
            [tuple(make(m.Size([4, 1])).shape), tuple(make(1, 2, 3).stride())],
            [tuple(make().shape), tuple(make(0).shape), tuple(make(np.int64(2), 3).shape)],
            [make([1]).is_leaf, make([1]).requires_grad, make([1]).grad_fn is None],
            [make([1]).type(), type(make([1])) is m.Tensor],
            str(make.dtype),
            [make.is_cuda, make.__name__, repr(make)],
        ]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


LEGACY_CASES = [
    lambda m: m.FloatTensor([1], device="cpu"),
    lambda m: m.FloatTensor(2, device=m.device("cpu")).shape,
    lambda m: m.FloatTensor(m.tensor([1.0, 2.0])),
    lambda m: m.FloatTensor(m.tensor([1, 2])),
    lambda m: m.DoubleTensor(m.tensor([1.0])),
    lambda m: m.LongTensor(m.tensor([1.0])),
    lambda m: m.FloatTensor(2.5),
    lambda m: m.FloatTensor(None),
    lambda m: m.FloatTensor("abc"),
    lambda m: m.FloatTensor(-1),
    lambda m: m.FloatTensor(2, -3),
    lambda m: m.FloatTensor(2, "a"),
    lambda m: m.FloatTensor(2, 3.0),
    lambda m: m.FloatTensor([[1], [2, 3]]),
    lambda m: m.FloatTensor([1], device="cuda"),
    lambda m: m.FloatTensor(2, device="cuda:0"),
    lambda m: m.Tensor([1], device="cuda"),
    lambda m: m.Tensor(2.5),
    lambda m: m.Tensor(-1),
    lambda m: m.Tensor(np.array([1, 2])),
    lambda m: m.Tensor(2, 3.0),
    lambda m: m.Tensor(m.tensor([1, 2])),
    lambda m: m.Tensor(m.Size([2, 1])).shape,
    lambda m: isinstance(m.ones(1), m.FloatTensor),
    lambda m: isinstance(m.ones(1, dtype=m.float64), m.FloatTensor),
    lambda m: isinstance(m.ones(1, dtype=m.float64), m.DoubleTensor),
    lambda m: isinstance(m.ones(1, dtype=m.int64), m.LongTensor),
    lambda m: isinstance(m.ones(1, dtype=m.bool), m.BoolTensor),
    lambda m: isinstance(m.ones(1, dtype=m.int32), m.LongTensor),
    lambda m: isinstance(m.nn.Parameter(m.ones(1)), m.FloatTensor),
    lambda m: isinstance(1.0, m.FloatTensor),
    lambda m: issubclass(m.FloatTensor, m.Tensor),
    # Tensor.type
    lambda m: m.ones(2).type(),
    lambda m: m.ones(2, dtype=m.float64).type(),
    lambda m: m.ones(2, dtype=m.float16).type(),
    lambda m: m.ones(2, dtype=m.int64).type(),
    lambda m: m.ones(2, dtype=m.int32).type(),
    lambda m: m.ones(2, dtype=m.bool).type(),
    lambda m: m.ones(2, dtype=m.uint8).type(),
    lambda m: m.ones(2, dtype=m.int8).type(),
    lambda m: m.ones(2, dtype=m.int16).type(),
    lambda m: m.tensor([-1.5, 300.0]).type(m.ByteTensor),
    lambda m: m.tensor([-129, 200]).type("torch.CharTensor"),
    lambda m: m.tensor([70000]).type(m.ShortTensor),
    lambda m: m.ByteTensor(m.tensor([1, 2], dtype=m.uint8)),
    lambda m: m.ByteTensor(m.tensor([1, 2])),
    lambda m: isinstance(m.ones(1, dtype=m.uint8), m.ByteTensor),
    lambda m: isinstance(m.ones(1, dtype=m.int8), m.ByteTensor),
    lambda m: isinstance(m.ones(1, dtype=m.int16), m.ShortTensor),
    lambda m: m.ones(2, dtype=m.complex64).type(),
    lambda m: m.ones(2, dtype=m.complex128).type(),
    lambda m: m.tensor(1.0).type(),
    lambda m: m.Tensor.type(m.ones(1)),
    lambda m: m.ones(2).type(None),
    lambda m: m.ones(2).type(m.DoubleTensor),
    lambda m: m.ones(2).type(m.LongTensor),
    lambda m: m.ones(2).type(m.HalfTensor),
    lambda m: m.ones(2).type(m.Tensor),
    lambda m: m.ones(2, dtype=m.int64).type(m.Tensor),
    lambda m: m.ones(2).type("torch.LongTensor"),
    lambda m: m.ones(2).type("torch.DoubleTensor"),
    lambda m: m.ones(2).type("torch.BoolTensor"),
    lambda m: str(m.ones(2).type("torch.ComplexFloatTensor").dtype),
    lambda m: m.ones(2, dtype=m.complex128).type("torch.ComplexDoubleTensor").type(),
    lambda m: m.ones(2).type("torch.Tensor"),
    lambda m: m.ones(2).type("torch.FloatTensor", True),
    lambda m: m.ones(2).type(m.float64),
    lambda m: m.ones(2).type(m.int32, non_blocking=True),
    lambda m: m.ones(2).type(dtype=m.int32),
    lambda m: m.ones(2, requires_grad=True).type(m.float64),
    lambda m: m.ones(2, requires_grad=True).type(m.float32),
    lambda m: m.ones(2).type("torch.float64"),
    lambda m: m.ones(2).type("FloatTensor"),
    lambda m: m.ones(2).type("float"),
    lambda m: m.ones(2).type(float),
    lambda m: m.ones(2).type(int),
    lambda m: m.ones(2).type(np.float64),
    lambda m: m.ones(2).type(m.nn.Module),
    lambda m: m.ones(2).type(5),
]


@pytest.mark.parametrize("case", LEGACY_CASES)
def test_legacy_behaviour_matches_torch(torch, case):
    assert outcome(case, hookgrad, first_line=True) == outcome(case, torch, first_line=True)


def test_type_conversion_keeps_or_makes_graph(torch):
    for lib in (hookgrad, torch):
        x = lib.ones(2, requires_grad=True)
        assert x.type(lib.FloatTensor) is x
        assert x.type("torch.FloatTensor") is x
        y = x.type(lib.DoubleTensor)
        assert y.grad_fn.name() == "ToCopyBackward0"
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]


def test_constructor_from_tensor_shares_memory_and_graph(torch):
    for lib in (hookgrad, torch):
        source = lib.ones(2)
        alias = lib.FloatTensor(source)
        alias.mul_(3)
        assert source.tolist() == [3.0, 3.0]
        leaf = lib.ones(2, requires_grad=True)
        view = lib.FloatTensor(leaf)
        assert view.grad_fn.name() == "AliasBackward0"
        (view * 2).sum().backward()
        assert leaf.grad.tolist() == [2.0, 2.0]


def test_constructor_from_an_array_of_its_dtype_shares_memory(torch):
    for lib in (hookgrad, torch):
        array = np.ones(2, dtype=np.float32)
        lib.FloatTensor(array).add_(1)
        assert array.tolist() == [2.0, 2.0]


CUDA_TYPES = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "LongTensor",
    "IntTensor",
    "BoolTensor",
    "ByteTensor",
]


@pytest.mark.parametrize("name", CUDA_TYPES)
def test_cuda_types_refuse_as_in_cpu_only_torch(name):
    cuda_type = getattr(hookgrad.cuda, name)
    assert repr(cuda_type) == f"<class 'torch.cuda.{name}'>"
    assert cuda_type.is_cuda
    assert not isinstance(hookgrad.ones(1), cuda_type)
    message = f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled."
    assert outcome(lambda m: cuda_type([1]), hookgrad) == ("error", "TypeError", message)
    assert outcome(lambda m: cuda_type(), hookgrad) == ("error", "TypeError", message)
    no_library = ("error", "RuntimeError", "Cannot initialize CUDA without ATen_cuda library.")
    assert outcome(lambda m: m.ones(1).type(cuda_type), hookgrad, first_line=True) == no_library
    converted = outcome(lambda m: m.ones(1).type(f"torch.cuda.{name}"), hookgrad, True)
    assert converted == no_library


def test_cuda_type_dtypes_match_torch(torch):
    for name in TYPES:
        assert str(getattr(hookgrad.cuda, name).dtype) == str(getattr(torch.cuda, name).dtype)


def test_the_type_of_a_dtype_hookgrad_lacks_refuses():
    # hookgrad has no bfloat16: its type exists and says so.
    legacy_type = hookgrad.BFloat16Tensor
    assert repr(legacy_type) == "<class 'torch.BFloat16Tensor'>"
    assert not isinstance(hookgrad.ones(1), legacy_type)
    message = "type torch.BFloat16Tensor not available: hookgrad has no bfloat16 dtype"
    assert outcome(lambda m: legacy_type([1]), hookgrad) == ("error", "TypeError", message)
    assert outcome(lambda m: m.ones(1).type(legacy_type), hookgrad)[1] == "TypeError"


@pytest.fixture
def default_dtype(torch):
    """Restore both libraries' default dtype after a test."""
    yield
    hookgrad.set_default_dtype(hookgrad.float32)
    torch.set_default_dtype(torch.float32)


@pytest.mark.usefixtures("default_dtype")
def test_set_default_tensor_type_matches_torch(torch):
    def scenario(m):
        log = []
        for t in (m.DoubleTensor, "torch.HalfTensor", m.FloatTensor, "torch.DoubleTensor"):
            m.set_default_tensor_type(t)
            log.append([str(m.get_default_dtype()), m.tensor([1.5]), m.Tensor(1).type()])
        for bad in (m.LongTensor, "torch.IntTensor", m.float64, m.Tensor):
            log.append(outcome(lambda m, bad=bad: m.set_default_tensor_type(bad), m))
        log.append(str(m.get_default_dtype()))
        return log

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)
    cuda = outcome(lambda m: m.set_default_tensor_type("torch.cuda.FloatTensor"), hookgrad)
    message = "type torch.cuda.FloatTensor not available. Torch not compiled with CUDA enabled."
    assert cuda == ("error", "TypeError", message)
    with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
        hookgrad.set_default_tensor_type(hookgrad.FloatTensor)


@pytest.mark.usefixtures("default_dtype")
@pytest.mark.parametrize("name", ["float64", "float16", "float32"])
def test_set_default_dtype_changes_creation_as_in_torch(torch, name):
    def scenario(m):
        m.set_default_dtype(getattr(m, name))
        return [
            str(m.get_default_dtype()),
            m.tensor([1.5, 2]),
            m.tensor(3),
            m.tensor([1 + 2j]),
            m.zeros(2),
            m.ones(1, 2),
            m.full((2,), 0.5),
            m.arange(0.0, 1.0, 0.5),
            m.arange(3),
            m.linspace(0, 1, 3),
            m.eye(2),
            m.empty(2).dtype,
            m.Tensor([1, 2]),
            m.ones(2, dtype=m.int32) * 1.5,
            m.tensor([1, 2]) / 2,
            m.ones(2).type(),
            m.Tensor(2).type(),
            m.rand(2).dtype,
            m.randn(2).dtype,
            m.nn.BatchNorm1d(2).weight.dtype,
            m.finfo().bits,
        ]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_set_default_dtype_rejects_what_torch_rejects(torch):
    for bad in ("int64", "bool", "complex64"):
        found = [outcome(lambda m, bad=bad: m.set_default_dtype(getattr(m, bad)), lib)
                 for lib in (hookgrad, torch)]  # fmt: skip
        assert found[0] == found[1]
        assert found[0][1] == "TypeError"
    assert hookgrad.get_default_dtype() is hookgrad.float32
