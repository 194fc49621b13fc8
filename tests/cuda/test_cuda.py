"""``hookgrad.cuda`` answers as a CPU-only torch 2.13 does.

Its answers are written here rather than read from the installed torch, whose CUDA build
answers differently; where the answer does not depend on the build (the legacy types'
dtypes, the module's names) torch is the oracle.
"""

import warnings
from collections import OrderedDict

import pytest

import hookgrad
from tests.oracle import outcome

NO_CUDA = ("error", "AssertionError", "Torch not compiled with CUDA enabled")

ANSWERS = [
    (lambda m: m.cuda.is_available(), ("ok", False)),
    (lambda m: m.cuda.device_count(), ("ok", 0)),
    (lambda m: m.cuda.is_initialized(), ("ok", False)),
    (lambda m: m.cuda.is_bf16_supported(), ("ok", False)),
    (lambda m: m.cuda.is_tf32_supported(), ("ok", False)),
    (lambda m: m.cuda.get_arch_list(), ("ok", [])),
    (lambda m: m.cuda.manual_seed(1), ("ok", None)),
    (lambda m: m.cuda.manual_seed(1.7), ("ok", None)),
    (lambda m: m.cuda.manual_seed_all(123), ("ok", None)),
    (
        lambda m: m.cuda.manual_seed("a"),
        ("error", "ValueError", "invalid literal for int() with base 10: 'a'"),
    ),
    (lambda m: m.cuda.seed(), ("ok", None)),
    (lambda m: m.cuda.seed_all(), ("ok", None)),
    (lambda m: m.cuda.get_rng_state_all(), ("ok", [])),
    (lambda m: m.cuda.set_rng_state(m.ones(1)), ("ok", None)),
    (lambda m: m.cuda.set_rng_state_all([]), ("ok", None)),
    (lambda m: m.cuda.memory_allocated(), ("ok", 0)),
    (lambda m: m.cuda.memory_allocated(0), ("ok", 0)),
    (lambda m: m.cuda.max_memory_allocated(), ("ok", 0)),
    (lambda m: m.cuda.memory_reserved(), ("ok", 0)),
    (lambda m: m.cuda.max_memory_reserved("cuda:0"), ("ok", 0)),
    (lambda m: m.cuda.memory_cached(), ("ok", 0)),
    (lambda m: m.cuda.max_memory_cached(), ("ok", 0)),
    (lambda m: m.cuda.memory_stats(), ("ok", OrderedDict())),
    (lambda m: m.cuda.empty_cache(), ("ok", None)),
    (lambda m: m.cuda.set_device(-1), ("ok", None)),
    (
        lambda m: m.cuda.set_device("cpu"),
        ("error", "ValueError", "Expected a cuda device, but got: cpu"),
    ),
    (
        lambda m: m.cuda.set_device("cuda"),
        (
            "error",
            "ValueError",
            "Expected a torch.device with a specified index or an integer, but got:cuda",
        ),
    ),
    (lambda m: m.cuda.init(), NO_CUDA),
    (lambda m: m.cuda.synchronize(), NO_CUDA),
    (lambda m: m.cuda.current_device(), NO_CUDA),
    (lambda m: m.cuda.get_device_name(), NO_CUDA),
    (lambda m: m.cuda.get_device_name(0), NO_CUDA),
    (lambda m: m.cuda.get_device_properties(0), NO_CUDA),
    (lambda m: m.cuda.get_device_capability(), NO_CUDA),
    (lambda m: m.cuda.mem_get_info(), NO_CUDA),
    (lambda m: m.cuda.current_stream(), NO_CUDA),
    (lambda m: m.cuda.default_stream(), NO_CUDA),
    (lambda m: m.cuda.initial_seed(), NO_CUDA),
    (lambda m: m.cuda.get_rng_state(), NO_CUDA),
    (lambda m: m.cuda.ipc_collect(), NO_CUDA),
    (
        lambda m: m.cuda.Stream(),
        ("error", "RuntimeError", "torch.cuda.Stream requires CUDA support"),
    ),
    (lambda m: m.cuda.device(-1).idx, ("ok", -1)),
    (lambda m: m.cuda.device_of(m.ones(1)).idx, ("ok", -1)),
    (lambda m: m.version.cuda, ("ok", None)),
    (lambda m: m.version.hip, ("ok", None)),
]


@pytest.mark.parametrize(("case", "expected"), ANSWERS)
def test_answers_of_cpu_only_torch(case, expected):
    assert outcome(case, hookgrad) == expected


def test_setting_a_gpu_fails():
    # A CPU-only torch fails here with an internal AttributeError; hookgrad with its
    # CUDA error.
    assert outcome(lambda m: m.cuda.set_device(0), hookgrad) == NO_CUDA
    assert outcome(lambda m: m.cuda.reset_peak_memory_stats(), hookgrad) == NO_CUDA


def test_device_context_managers():
    with hookgrad.cuda.device(-1), hookgrad.cuda.device_of(hookgrad.ones(1)):
        with hookgrad.cuda.stream(None):
            assert hookgrad.ones(1).device.type == "cpu"
    with pytest.raises(RuntimeError, match="PyTorch was compiled without CUDA support"):
        with hookgrad.cuda.device(0):
            pass


def test_deprecated_memory_names_warn():
    with pytest.warns(FutureWarning, match="renamed to `torch.cuda.memory_reserved`"):
        hookgrad.cuda.memory_cached()


def test_typical_device_selection_picks_the_cpu():
    device = hookgrad.device("cuda" if hookgrad.cuda.is_available() else "cpu")
    model = hookgrad.nn.BatchNorm1d(2).to(device)
    x = hookgrad.ones(3, 2).to(device)
    assert model(x).device == hookgrad.device("cpu")
    hookgrad.cuda.manual_seed_all(0)
    if hookgrad.cuda.is_available():  # a GPU branch that must not run
        raise AssertionError("hookgrad reported CUDA")


def test_public_names_exist_in_torch(torch):
    missing = [name for name in hookgrad.cuda.__all__ if not hasattr(torch.cuda, name)]
    assert missing == []


def test_cuda_amp_warns_then_disables_itself():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        context = hookgrad.cuda.amp.autocast()
        scaler = hookgrad.cuda.amp.GradScaler()
    messages = [str(w.message) for w in caught]
    assert messages == [
        "`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
        "`torch.amp.autocast('cuda', args...)` instead.",
        "CUDA is not available or torch_xla is imported. Disabling autocast.",
        "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
        "`torch.amp.GradScaler('cuda', args...)` instead.",
        "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
    ]
    assert [w.category for w in caught] == [FutureWarning, UserWarning, FutureWarning, UserWarning]
    assert context.device == "cuda"
    assert not context._enabled
    assert not scaler.is_enabled()
    assert hookgrad.cuda.amp.amp_definitely_not_available()
    with context:
        assert not hookgrad.is_autocast_enabled("cuda")
