"""``hookgrad.accelerator`` and ``hookgrad.mps`` answer as a CPU-only torch 2.13 does
(written here: a CUDA build of torch on a GPU machine answers otherwise)."""

import pytest

import hookgrad
from tests.oracle import outcome

NO_ACCELERATOR = (
    "error",
    "RuntimeError",
    "Cannot access accelerator device when none is available.",
)

ANSWERS = [
    (lambda m: m.accelerator.is_available(), ("ok", False)),
    (lambda m: m.accelerator.current_accelerator(), ("ok", None)),
    (lambda m: m.accelerator.current_accelerator(check_available=True), ("ok", None)),
    (lambda m: m.accelerator.device_count(), ("ok", 0)),
    (lambda m: m.accelerator.current_device_index(), NO_ACCELERATOR),
    (lambda m: m.accelerator.set_device_index(0), NO_ACCELERATOR),
    (lambda m: m.accelerator.synchronize(), NO_ACCELERATOR),
    (lambda m: m.accelerator.current_stream(), NO_ACCELERATOR),
    (lambda m: m.accelerator.empty_cache(), NO_ACCELERATOR),
    (lambda m: m.accelerator.memory_allocated(), NO_ACCELERATOR),
    (lambda m: m.mps.is_available(), ("ok", False)),
    (lambda m: m.mps.device_count(), ("ok", 0)),
    (lambda m: m.mps.manual_seed(0), ("ok", None)),
    (
        lambda m: m.mps.synchronize(),
        ("error", "RuntimeError", "Cannot execute deviceSynchronize() without MPS backend."),
    ),
    (
        lambda m: m.mps.empty_cache(),
        ("error", "RuntimeError", "Cannot execute emptyCache() without MPS backend."),
    ),
    (
        lambda m: m.mps.seed(),
        ("error", "RuntimeError", "Cannot execute getDefaultGenerator() without MPS backend."),
    ),
]


@pytest.mark.parametrize(("case", "expected"), ANSWERS)
def test_answers_of_cpu_only_torch(case, expected):
    assert outcome(case, hookgrad) == expected


def test_device_agnostic_code_picks_the_cpu():
    accelerator = hookgrad.accelerator.current_accelerator()
    device = accelerator if accelerator is not None else hookgrad.device("cpu")
    assert hookgrad.ones(2, device=device).device == hookgrad.device("cpu")


def test_public_names_exist_in_torch(torch):
    for module, reference in ((hookgrad.accelerator, torch.accelerator), (hookgrad.mps, torch.mps)):
        assert [name for name in module.__all__ if not hasattr(reference, name)] == []


def test_cpu_module_matches_torch(torch):
    def scenario(m):
        return [
            m.cpu.is_available(),
            m.cpu.is_initialized(),
            m.cpu.device_count(),
            m.cpu.current_device(),
            m.cpu.synchronize(),
            m.cpu.set_device("cpu"),
        ]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_deprecated_cpu_amp_matches_torch(torch):
    def scenario(m):
        with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
            region = m.cpu.amp.autocast()
        with region:
            enabled = m.is_autocast_enabled("cpu")
        with pytest.warns(FutureWarning, match=r"torch.cpu.amp.GradScaler\(args...\)` is dep"):
            scaler = m.cpu.amp.GradScaler(init_scale=4.0)
        return [enabled, region.device, scaler.is_enabled(), scaler.state_dict()]

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)
