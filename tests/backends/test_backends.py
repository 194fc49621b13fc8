"""``hookgrad.backends`` and the process-wide settings (threads, float32 matmul
precision, deterministic algorithms) against torch.

The flags' defaults, checks and links are build-independent and compared with torch;
what depends on the build (cuDNN and CUDA availability) is compared with a CPU-only
torch's answers, written here.
"""

import pytest

import hookgrad
from hookgrad.backends import _settings
from tests.oracle import outcome


@pytest.fixture
def restore_flags(torch):
    """Put back every flag and setting these tests change, in both libraries."""
    saved = {
        lib: (
            lib.get_num_threads(),
            lib.get_float32_matmul_precision(),
            lib.are_deterministic_algorithms_enabled(),
            lib.is_deterministic_algorithms_warn_only_enabled(),
            [getattr(lib.backends.cudnn, name) for name in _CUDNN_FLAGS],
        )
        for lib in (hookgrad, torch)
    }
    yield
    for lib, (threads, precision, deterministic, warn_only, flags) in saved.items():
        lib.set_num_threads(threads)
        lib.set_float32_matmul_precision(precision)
        lib.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        for name, value in zip(_CUDNN_FLAGS, flags):
            setattr(lib.backends.cudnn, name, value)


_CUDNN_FLAGS = ("enabled", "benchmark", "deterministic", "allow_tf32")


def test_availability_of_cpu_only_torch():
    assert hookgrad.backends.cudnn.is_available() is False
    assert hookgrad.backends.cudnn.version() is None
    assert hookgrad.backends.cudnn.is_acceptable(hookgrad.ones(1)) is False
    assert hookgrad.backends.cuda.is_built() is False
    assert hookgrad.backends.mps.is_available() is False
    assert hookgrad.backends.mps.is_built() is False
    assert hookgrad.backends.cudnn.benchmark_limit is None


@pytest.mark.usefixtures("restore_flags")
def test_cudnn_flags_match_torch(torch):
    def scenario(m):
        cudnn = m.backends.cudnn
        log = [[getattr(cudnn, name) for name in _CUDNN_FLAGS]]
        cudnn.deterministic = True
        cudnn.benchmark = True
        log.append([getattr(cudnn, name) for name in _CUDNN_FLAGS])
        for name in _CUDNN_FLAGS:
            log.append(outcome(lambda m, name=name: setattr(cudnn, name, 1), m))
        with cudnn.flags(enabled=False, benchmark=False, deterministic=True, allow_tf32=False):
            log.append([getattr(cudnn, name) for name in _CUDNN_FLAGS])
        with cudnn.flags():
            log.append([getattr(cudnn, name) for name in _CUDNN_FLAGS])
        log.append([getattr(cudnn, name) for name in _CUDNN_FLAGS])
        return log

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


@pytest.mark.usefixtures("restore_flags")
def test_matmul_flags_and_precision_match_torch(torch):
    def scenario(m):
        matmul = m.backends.cuda.matmul
        log = [
            matmul.allow_tf32,
            matmul.allow_fp16_reduced_precision_reduction,
            matmul.allow_bf16_reduced_precision_reduction,
            m.get_float32_matmul_precision(),
        ]
        m.set_float32_matmul_precision("high")
        log += [matmul.allow_tf32, m.get_float32_matmul_precision()]
        m.set_float32_matmul_precision("highest")
        matmul.allow_tf32 = True
        log += [matmul.allow_tf32, m.get_float32_matmul_precision()]
        matmul.allow_tf32 = False
        log += [matmul.allow_tf32, m.get_float32_matmul_precision()]
        matmul.allow_fp16_reduced_precision_reduction = False
        log.append(matmul.allow_fp16_reduced_precision_reduction)
        matmul.allow_fp16_reduced_precision_reduction = True
        for bad in (
            lambda m: matmul.foo,
            lambda m: setattr(matmul, "foo", 1),
            lambda m: setattr(matmul, "allow_tf32", 1),
            lambda m: setattr(matmul, "allow_bf16_reduced_precision_reduction", "x"),
            lambda m: m.set_float32_matmul_precision(3),
        ):
            log.append(outcome(bad, m))
        return log

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


@pytest.mark.usefixtures("restore_flags")
def test_unknown_precision_warns_and_changes_nothing(torch):
    for lib in (hookgrad, torch):
        with pytest.warns(UserWarning, match="foo is not one of 'highest', 'high', or 'medium'"):
            lib.set_float32_matmul_precision("foo")
        assert lib.get_float32_matmul_precision() == "highest"


@pytest.mark.usefixtures("restore_flags")
def test_deterministic_algorithms_match_torch(torch):
    def scenario(m):
        log = [m.are_deterministic_algorithms_enabled()]
        m.use_deterministic_algorithms(True)
        log.append(m.are_deterministic_algorithms_enabled())
        m.use_deterministic_algorithms(True, warn_only=True)
        log.append(m.is_deterministic_algorithms_warn_only_enabled())
        m.use_deterministic_algorithms(False)
        log += [m.are_deterministic_algorithms_enabled()]
        log.append(m.is_deterministic_algorithms_warn_only_enabled())
        log.append(outcome(lambda m: m.use_deterministic_algorithms(1), m))
        log.append(outcome(lambda m: m.use_deterministic_algorithms(True, warn_only=1), m))
        return log

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


@pytest.mark.usefixtures("restore_flags")
def test_thread_counts_match_torch(torch):
    def scenario(m):
        m.set_num_threads(3)
        log = [m.get_num_threads()]
        for bad in (0, -1, 1.5, True, "2", None):
            log.append(outcome(lambda m, bad=bad: m.set_num_threads(bad), m))
            log.append(outcome(lambda m, bad=bad: m.set_num_interop_threads(bad), m))
        log.append(m.get_num_threads())
        return log

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)
    assert hookgrad.get_num_interop_threads() >= 1


def test_interop_threads_are_set_once(monkeypatch):
    monkeypatch.setattr(_settings, "_interop_set", False)
    monkeypatch.setitem(_settings._threads, "inter-op", 4)
    hookgrad.set_num_interop_threads(2)
    assert hookgrad.get_num_interop_threads() == 2
    with pytest.raises(RuntimeError, match="cannot set number of interop threads after"):
        hookgrad.set_num_interop_threads(1)
    assert hookgrad.get_num_interop_threads() == 2
