"""``autocast`` and ``custom_fwd``/``custom_bwd``: the region's state as in torch.

hookgrad keeps autocast's state but casts nothing, and its CPU dtype is float16 (torch's
is bfloat16, which hookgrad lacks); CUDA autocast disables itself as in a CPU-only torch.
These answers are written here; the build-independent ones are compared with torch.
"""

import threading
import warnings

import pytest

import hookgrad
from tests.oracle import outcome


def test_cpu_region_state_matches_torch(torch):
    def scenario(m):
        log = [m.is_autocast_enabled("cpu"), m.is_autocast_enabled()]
        with m.autocast("cpu") as region:
            log += [m.is_autocast_enabled("cpu"), m.is_autocast_enabled("cuda"), region.device]
            with m.autocast("cpu", enabled=False):
                log.append(m.is_autocast_enabled("cpu"))
            log.append(m.is_autocast_enabled("cpu"))
            with m.amp.autocast(device_type="cpu", dtype=m.float16):
                log.append(str(m.get_autocast_dtype("cpu")))
        log.append(m.is_autocast_enabled("cpu"))

        @m.autocast("cpu")
        def inside():
            return m.is_autocast_enabled("cpu")

        log += [inside(), m.is_autocast_enabled("cpu")]
        try:
            with m.autocast("cpu"):
                raise KeyError("boom")
        except KeyError:
            log.append(m.is_autocast_enabled("cpu"))
        return log

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


CASES = [
    lambda m: m.autocast(1),
    lambda m: m.autocast("foo"),
    lambda m: m.amp.is_autocast_available("cpu"),
    lambda m: m.amp.is_autocast_available("foo"),
    lambda m: m.autocast("cpu", enabled=False)._enabled,
    lambda m: m.autocast("cpu", dtype=m.float16)._enabled,
    lambda m: m.autocast("cpu", dtype=m.float32)._enabled,
    lambda m: m.autocast("cpu", dtype=m.float64)._enabled,
    lambda m: m.autocast is m.amp.autocast,
    lambda m: m.amp.custom_fwd(lambda ctx, x: x),
]


@pytest.mark.parametrize("case", CASES)
def test_construction_matches_torch(torch, case):
    assert outcome(case, hookgrad) == outcome(case, torch)


def test_unsupported_cpu_dtype_warns_as_torch(torch):
    for lib in (hookgrad, torch):
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not"):
            region = lib.autocast("cpu", dtype=lib.float32)
        assert not region._enabled


def test_cpu_autocast_casts_nothing():
    x = hookgrad.ones(2, 2, requires_grad=True)
    with hookgrad.autocast("cpu"):
        assert hookgrad.get_autocast_dtype("cpu") is hookgrad.float16
        y = x @ x
        z = hookgrad.nn.functional.linear(x, x)
    assert (y.dtype, z.dtype) == (hookgrad.float32, hookgrad.float32)
    y.sum().backward()
    assert x.grad.tolist() == [[4.0, 4.0], [4.0, 4.0]]


def test_cuda_autocast_disables_itself_as_in_cpu_only_torch():
    with pytest.warns(UserWarning, match="^CUDA is not available or torch_xla is imported"):
        region = hookgrad.autocast("cuda")
    assert (region.device, region._enabled, region.fast_dtype) == ("cuda", False, hookgrad.float16)
    with region:
        assert not hookgrad.is_autocast_enabled("cuda")
        assert not hookgrad.is_autocast_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not hookgrad.autocast("cuda", enabled=False)._enabled
    assert hookgrad.amp.is_autocast_available("cuda")
    assert hookgrad.get_autocast_dtype("cuda") is hookgrad.float16


def test_autocast_state_is_per_thread():
    seen = []
    with hookgrad.autocast("cpu"):
        worker = threading.Thread(target=lambda: seen.append(hookgrad.is_autocast_enabled("cpu")))
        worker.start()
        worker.join()
        seen.append(hookgrad.is_autocast_enabled("cpu"))
    assert seen == [False, True]


def _scaled_function(m):
    class Scale(m.autograd.Function):
        @staticmethod
        @m.amp.custom_fwd(device_type="cpu", cast_inputs=m.float64)
        def forward(ctx, x):
            ctx.seen = (str(x.dtype), m.is_autocast_enabled("cpu"))
            return x * 2

        @staticmethod
        @m.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            ctx.backward_seen = m.is_autocast_enabled("cpu")
            return grad * 2

    return Scale


def test_custom_fwd_and_bwd_match_torch(torch):
    def scenario(m):
        scale = _scaled_function(m)
        x = m.ones(2, requires_grad=True)
        log = []
        with m.autocast("cpu"):
            y = scale.apply(x)
        log += [str(y.dtype), y.grad_fn.seen]
        y.sum().backward()
        log += [y.grad_fn.backward_seen, x.grad.tolist()]
        z = scale.apply(x)  # outside autocast: inputs are not cast
        log += [str(z.dtype), z.grad_fn.seen]
        return log

    assert outcome(scenario, hookgrad) == outcome(scenario, torch)


def test_custom_bwd_runs_in_the_forward_autocast_state():
    class Probe(hookgrad.autograd.Function):
        @staticmethod
        @hookgrad.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        @hookgrad.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            ctx.state = (hookgrad.is_autocast_enabled("cpu"), hookgrad.get_autocast_dtype("cpu"))
            return grad

    x = hookgrad.ones(1, requires_grad=True)
    with hookgrad.autocast("cpu"):
        y = Probe.apply(x)
    y.backward()
    assert y.grad_fn.state == (True, hookgrad.float16)
    assert not hookgrad.is_autocast_enabled("cpu")
