"""The device API of a CPU-only torch: ``device`` objects, where a device is accepted, the
default device, and ``Tensor``'s device methods.

torch is the oracle where its answer does not depend on its build (device objects, CPU
devices). What needs a GPU is compared with what a CPU-only torch 2.13 answers, written
here: hookgrad promises that behaviour whichever torch build is installed.
"""

import pickle

import pytest

import hookgrad
from tests.oracle import outcome

NO_CUDA = ("error", "AssertionError", "Torch not compiled with CUDA enabled")
NO_ACCELERATOR = (
    "error",
    "RuntimeError",
    "Cannot access accelerator device when none is available.",
)
NEGATIVE_INDEX = ("error", "RuntimeError", "Device index must not be negative")

# Build-independent answers: compared with torch.
DEVICE_CASES = [
    lambda m: repr(m.device("cpu")),
    lambda m: repr(m.device("cpu", 0)),
    lambda m: repr(m.device("cpu:0")),
    lambda m: repr(m.device("cuda")),
    lambda m: repr(m.device("cuda", 1)),
    lambda m: repr(m.device("cuda:1")),
    lambda m: (m.device("cuda:2").type, m.device("cuda:2").index),
    lambda m: repr(m.device(m.device("cuda:1"))),
    lambda m: str(m.device("cuda", 1)),
    lambda m: m.device("cpu") == m.device("cpu"),
    lambda m: m.device("cpu") == m.device("cpu", 0),
    lambda m: hash(m.device("cuda", 0)) == hash(m.device("cuda:0")),
    lambda m: repr(pickle.loads(pickle.dumps(m.device("cuda", 3)))),
    lambda m: repr(m.device(type="cpu", index=0)),
    lambda m: m.device("foo"),
    lambda m: m.device("CPU"),
    lambda m: m.device(" cpu"),
    lambda m: m.device("cpu:x"),
    lambda m: m.device("cpu1"),
    lambda m: m.device("cuda:01"),
    lambda m: m.device("foo:1"),
    lambda m: m.device(""),
    lambda m: m.device("cuda:1", 1),
    lambda m: m.device("cuda:-1"),
    lambda m: m.device("cuda", -1),
    lambda m: m.device("cpu", 1.5),
    # CPU devices are accepted everywhere a device is
    lambda m: m.zeros(2, device=m.device("cpu")),
    lambda m: m.ones(2, device="cpu:0"),
    lambda m: m.tensor([1.0], device=m.device("cpu", 0)),
    lambda m: m.arange(3, device="cpu"),
    lambda m: m.full((2,), 3.0, device=m.device("cpu")),
    lambda m: m.eye(2, device="cpu"),
    lambda m: m.linspace(0, 1, 3, device="cpu"),
    lambda m: m.empty(2, device="cpu").shape,
    lambda m: m.as_tensor([1, 2], device="cpu"),
    lambda m: m.zeros_like(m.ones(2), device=m.device("cpu")),
    lambda m: m.ones(2).new_zeros(3, device="cpu"),
    lambda m: m.ones(2).to("cpu"),
    lambda m: m.ones(2).to(m.device("cpu", 3)),
    lambda m: m.ones(2).to("cpu", m.float64),
    lambda m: m.ones(2).to(device=m.device("cpu"), dtype=m.int64),
    lambda m: m.ones(2).cpu(),
    lambda m: repr(m.ones(2).device),
    lambda m: m.ones(2).device.index,
    lambda m: m.ones(2).get_device(),
    lambda m: (m.ones(1).is_cpu, m.ones(1).is_cuda, m.ones(1).is_mps, m.ones(1).is_meta),
    lambda m: m.ones(1).is_pinned(),
    lambda m: repr(m.Generator("cpu").device),
    lambda m: m.zeros(1, device=-1),
    lambda m: m.ones(1).cuda(1.5),
    lambda m: m.ones(1).cuda("foo"),
]


@pytest.mark.parametrize("case", DEVICE_CASES)
def test_devices_match_torch(torch, case):
    assert outcome(case, hookgrad, first_line=True) == outcome(case, torch, first_line=True)


# What a CPU-only torch answers where a GPU would matter.
CPU_ONLY_CASES = [
    (lambda m: m.device(0), NO_ACCELERATOR),
    (lambda m: m.zeros(2, device="cuda"), NO_CUDA),
    (lambda m: m.ones(2, device=m.device("cuda", 0)), NO_CUDA),
    (lambda m: m.empty(2, device="cuda:1"), NO_CUDA),
    (lambda m: m.tensor([1.0], device="cuda"), NO_CUDA),
    (lambda m: m.as_tensor([1.0], device="cuda"), NO_CUDA),
    (lambda m: m.arange(3, device="cuda"), NO_CUDA),
    (lambda m: m.full((2,), 1.0, device="cuda"), NO_CUDA),
    (lambda m: m.eye(2, device="cuda"), NO_CUDA),
    (lambda m: m.linspace(0, 1, 3, device="cuda"), NO_CUDA),
    (lambda m: m.rand(2, device="cuda"), NO_CUDA),
    (lambda m: m.randn(2, device=m.device("cuda")), NO_CUDA),
    (lambda m: m.zeros_like(m.ones(1), device="cuda"), NO_CUDA),
    (lambda m: m.ones(1).new_zeros(2, device="cuda"), NO_CUDA),
    (lambda m: m.zeros(1, device=0), NO_ACCELERATOR),
    (lambda m: m.ones(1).to("cuda"), NO_CUDA),
    (lambda m: m.ones(1).to("cuda:0"), NO_CUDA),
    (lambda m: m.ones(1).to(m.device("cuda")), NO_CUDA),
    (lambda m: m.ones(1).to("cuda", m.float64), NO_CUDA),
    (lambda m: m.ones(1).to(device="cuda"), NO_CUDA),
    (lambda m: m.ones(1).to(0), NO_ACCELERATOR),
    (lambda m: m.ones(1).cuda(), NO_CUDA),
    (lambda m: m.ones(1).cuda(non_blocking=True), NO_CUDA),
    (lambda m: m.ones(1).cuda("cuda:1"), NO_CUDA),
    (lambda m: m.ones(1).cuda(m.device("cuda", 2)), NO_CUDA),
    (lambda m: m.ones(1).cuda(0), NO_ACCELERATOR),
    (
        lambda m: m.ones(1).cuda("cpu"),
        ("error", "RuntimeError", "Invalid device, must be cuda device"),
    ),
    (lambda m: m.ones(1).pin_memory(), NO_ACCELERATOR),
    (
        lambda m: m.ones(1).to("mps"),
        ("error", "RuntimeError", "PyTorch is not linked with support for mps devices"),
    ),
    (
        lambda m: m.ones(1).to("xpu"),
        ("error", "AssertionError", "Torch not compiled with XPU enabled"),
    ),
    (lambda m: m.nn.BatchNorm1d(2).to("cuda"), NO_CUDA),
    (lambda m: m.nn.BatchNorm1d(2).to(m.device("cuda", 0)), NO_CUDA),
]


@pytest.mark.parametrize(("case", "expected"), CPU_ONLY_CASES)
def test_a_gpu_device_fails_as_in_cpu_only_torch(case, expected):
    assert outcome(case, hookgrad, first_line=True) == expected


def test_a_tensor_moved_to_the_cpu_is_itself():
    x = hookgrad.ones(2)
    assert x.cpu() is x
    assert x.to("cpu") is x
    assert x.to(hookgrad.device("cpu")) is x


# -- the default device --------------------------------------------------------------------
@pytest.fixture
def default_device(torch):
    """Restore both libraries' default device after a test."""
    yield
    hookgrad.set_default_device(None)
    torch.set_default_device(None)


@pytest.mark.usefixtures("default_device")
def test_default_device_cpu_matches_torch(torch):
    for lib in (hookgrad, torch):
        assert repr(lib.get_default_device()) == "device(type='cpu')"
        lib.set_default_device(lib.device("cpu"))
        assert repr(lib.get_default_device()) == "device(type='cpu')"
        lib.set_default_device("cpu:0")
        assert repr(lib.get_default_device()) == "device(type='cpu', index=0)"
        assert repr(lib.ones(1).device) == "device(type='cpu')"
        lib.set_default_device(None)
        assert repr(lib.get_default_device()) == "device(type='cpu')"
    unknown = [outcome(lambda m: m.set_default_device("foo"), lib) for lib in (hookgrad, torch)]
    assert unknown[0] == unknown[1]
    assert unknown[0][0] == "error"


@pytest.mark.usefixtures("default_device")
def test_default_cuda_device_is_accepted_then_factories_fail():
    hookgrad.set_default_device("cuda:1")
    assert repr(hookgrad.get_default_device()) == "device(type='cuda', index=1)"
    hookgrad.set_default_device("cuda")
    assert outcome(lambda m: m.get_default_device(), hookgrad) == NO_CUDA
    for make in (
        lambda m: m.zeros(2),
        lambda m: m.ones(2),
        lambda m: m.empty(2),
        lambda m: m.tensor([1.0]),
        lambda m: m.as_tensor([1.0]),
        lambda m: m.arange(3),
        lambda m: m.full((1,), 2.0),
        lambda m: m.eye(2),
        lambda m: m.linspace(0, 1, 2),
    ):
        assert outcome(make, hookgrad) == NO_CUDA
    # As in torch: legacy constructors and ``from_numpy`` ignore the default device.
    assert hookgrad.Tensor(2).shape == (2,)
    assert hookgrad.FloatTensor([1.0]).tolist() == [1.0]
    hookgrad.set_default_device("cpu")
    assert hookgrad.zeros(1).tolist() == [0.0]
