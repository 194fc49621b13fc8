"""torch-level names that belong to no op family, against torch: constants, ``typename``,
``can_cast``, ``fill``, ``get_device``, flags, ``TorchVersion``, ``layout``, ``Event``
and ``Stream``, exceptions, ``torch.functional``, ``one_hot``, ``linear_cross_entropy``'s
options and module, ``nn.functional``'s helpers, ``nn.factory_kwargs``,
``nn.attention``."""

from __future__ import annotations

import copy
import itertools
import math
import pickle
import warnings

import numpy as np
import pytest

import hookgrad
from tests.oracle import outcome


def test_constants_and_build_flags(torch):
    for name in ("e", "pi", "inf", "newaxis", "has_lapack", "has_spectral"):
        assert getattr(hookgrad, name) == getattr(torch, name), name
    assert math.isnan(hookgrad.nan)
    assert hookgrad.legacy_contiguous_format is hookgrad.contiguous_format
    assert repr(hookgrad.legacy_contiguous_format) == repr(torch.legacy_contiguous_format)
    assert (hookgrad.has_mkl, hookgrad.has_openmp) == (False, False)  # NumPy's BLAS, one thread


def _small_utilities(lib):
    x = lib.zeros(2, 3)
    return (
        lib.typename(x),
        lib.typename(x.long()),
        lib.typename(lib.zeros(1, requires_grad=True)),
        lib.typename(3),
        lib.typename(lib.nn.Linear(1, 1)).rsplit(".", 1)[-1],
        lib.typename(lib.nn.Parameter).rsplit(".", 1)[-1],
        lib.get_device(x),
        x.get_device(),
        lib.fill(lib.zeros(2, dtype=lib.int64), 2.7).tolist(),
        lib.can_cast(float, lib.int8),
        lib.can_cast(int, lib.int8),
        repr(lib.strided),
        x.layout is lib.strided,
        copy.deepcopy(lib.strided) is lib.strided,
    )


def test_small_utilities_match_torch(torch):
    assert _small_utilities(hookgrad) == _small_utilities(torch)


def test_can_cast_matches_torch_for_every_pair(torch):
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
             "float64", "complex64", "complex128"]  # fmt: skip
    for a, b in itertools.product(names, names):
        ours = hookgrad.can_cast(getattr(hookgrad, a), getattr(hookgrad, b))
        assert ours == torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


def _flags(lib):
    before = (lib.is_warn_always_enabled(), lib.get_deterministic_debug_mode())
    lib.set_warn_always(True)
    modes = []
    try:
        for mode in ("warn", 2, "default", 1):
            lib.set_deterministic_debug_mode(mode)
            modes.append(
                (lib.get_deterministic_debug_mode(), lib.are_deterministic_algorithms_enabled())
            )
        enabled = lib.is_warn_always_enabled()
    finally:
        lib.set_warn_always(False)
        lib.set_deterministic_debug_mode(0)
    return before, modes, enabled


def test_flags_match_torch(torch):
    assert _flags(hookgrad) == _flags(torch)


def test_torch_version_compares_as_torchs(torch):
    ours, theirs = hookgrad.torch_version.TorchVersion, torch.torch_version.TorchVersion
    versions = ["2.13.0+cpu", "2.13", "2.13.0", "1.10.0a0", "1.10.0", "1.10.0.dev1", "1!0.1",
                "1.10.0rc1", "1.10.0.post1", "0.1.0", "parrot", "2.13.0+cpu.1"]  # fmt: skip
    others = [*versions, (2, 13), (2, 14, 0), (1,)]
    for a, b in itertools.product(versions, others):
        for method in ("__lt__", "__le__", "__eq__", "__ge__", "__gt__"):
            assert getattr(ours(a), method)(b) == getattr(theirs(a), method)(b), (a, b, method)
    assert isinstance(hookgrad.__version__, ours) and hookgrad.__version__ >= (0, 1)


def _events(lib):
    event, stream = lib.Event(), lib.Stream()
    calls = [
        lambda: repr(event),
        lambda: repr(lib.Event(enable_timing=True)),
        lambda: (str(event.device), event.event_id, event.query(), event.synchronize()),
        lambda: (event.wait(), event.wait(stream)),
        lambda: event.record(),
        lambda: event.elapsed_time(event),
        lambda: event.ipc_handle(),
        lambda: (repr(stream), str(stream.device), stream.device_index, stream.device_type),
        lambda: (stream.stream_id, stream.query(), stream.synchronize(), stream.is_capturing()),
        lambda: (stream.wait_event(event), stream == lib.Stream("cpu")),
        lambda: stream.record_event(),
        lambda: stream.wait_stream(stream),
        lambda: stream.native_handle,
        lambda: lib.Event(device="cuda"),
        lambda: lib.Stream(device="cuda"),
        lambda: repr(stream.__enter__()),
    ]
    return [outcome(lambda _lib, call=call: call(), lib) for call in calls]


def test_event_and_stream_match_torchs_cpu_ones(torch):
    assert _events(hookgrad) == _events(torch)


def test_exception_classes_and_aliases(torch):
    for name in ("AcceleratorError", "OutOfMemoryError", "FatalError", "JITException"):
        ours, theirs = getattr(hookgrad, name), getattr(torch, name)
        assert [c.__name__ for c in ours.__mro__[1:]] == [c.__name__ for c in theirs.__mro__[1:]]
        assert ours.__name__ == theirs.__name__
    assert hookgrad.GradScaler is hookgrad.amp.GradScaler
    assert hookgrad.get_device_module() is hookgrad.cpu
    assert hookgrad.get_device_module(hookgrad.device("cuda")) is hookgrad.cuda
    assert outcome(lambda t: t.get_device_module(3), hookgrad) == outcome(
        lambda t: t.get_device_module(3), torch
    )

    class Config:
        @hookgrad.classproperty
        def name(cls):
            return cls.__name__

    assert Config.name == "Config" and Config().name == "Config"


def _removed_and_legacy(lib):
    x = lib.zeros(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        volatile = x.volatile
        x.volatile = True
    return [
        volatile,
        [str(w.message) for w in caught],
        x.name,
        x.is_maia,
        outcome(lambda t: setattr(x, "name", "a"), lib)[:2],
        outcome(lambda t: x.reinforce(1.0), lib),
        outcome(lambda t: t.matrix_rank(t.ones(2, 2)), lib),
        outcome(lambda t: t.native_norm(t.ones(2)), lib, first_line=True)[:2],
        lib.bilinear is lib.nn.functional.bilinear,
    ]


def test_removed_and_legacy_names_match_torch(torch):
    ours, theirs = _removed_and_legacy(hookgrad), _removed_and_legacy(torch)
    assert ours[:-2] == theirs[:-2]
    assert ours[-2][:2] == theirs[-2][:2]  # torch goes on to list its dispatch keys
    assert ours[-1] and theirs[-1]


def test_functional_module_has_torchs_functions(torch):
    for name in torch.functional.__all__:
        assert getattr(hookgrad.functional, name) is getattr(hookgrad, name), name
    assert hookgrad.functional.__all__ == torch.functional.__all__


def test_storage_module():
    x = hookgrad.arange(3.0)
    assert isinstance(x.untyped_storage(), hookgrad.storage.UntypedStorage)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert isinstance(x.storage(), hookgrad.storage.TypedStorage)
    assert issubclass(x.storage_type(), hookgrad.storage.TypedStorage)


# ---------------------------------------------------------------- nn.functional


ONE_HOT = {
    "classes": lambda t: t.nn.functional.one_hot(t.tensor([0, 2, 1]), 4),
    "inferred": lambda t: t.nn.functional.one_hot(t.tensor([[0, 2], [1, 1]])),
    "scalar": lambda t: t.nn.functional.one_hot(t.tensor(2)),
    "keyword": lambda t: t.nn.functional.one_hot(input=t.tensor([1]), num_classes=3),
    "empty": lambda t: t.nn.functional.one_hot(t.tensor([], dtype=t.int64), 3),
    "float": lambda t: t.nn.functional.one_hot(t.tensor([0.0, 1.0])),
    "int32": lambda t: t.nn.functional.one_hot(t.tensor([0, 1], dtype=t.int32)),
    "too_large": lambda t: t.nn.functional.one_hot(t.tensor([0, 5]), 3),
    "negative": lambda t: t.nn.functional.one_hot(t.tensor([-1, 0])),
    "empty_inferred": lambda t: t.nn.functional.one_hot(t.tensor([], dtype=t.int64)),
    "zero_classes": lambda t: t.nn.functional.one_hot(t.tensor([0, 1]), 0),
}


@pytest.mark.parametrize("name", ONE_HOT)
def test_one_hot_matches_torch(name, torch):
    assert outcome(ONE_HOT[name], hookgrad) == outcome(ONE_HOT[name], torch)


def test_one_hot_values_and_dtype(torch):
    ours = hookgrad.nn.functional.one_hot(hookgrad.tensor([[3, 0], [1, 2]]), 5)
    theirs = torch.nn.functional.one_hot(torch.tensor([[3, 0], [1, 2]]), 5)
    assert ours.dtype is hookgrad.int64 and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def _options(lib):
    options = lib.nn.LinearCrossEntropyOptions
    cases = [
        lambda: options(acc_policy="x"),
        lambda: options(chunking_method="aspect_ratio:0"),
        lambda: options(batch_chunk_size=0),
        lambda: options(acc_dtype=lib.int32),
        lambda: repr(options(batch_chunk_size=4)._adjust(10, 3, 7, lib.float32, lib.device("cpu"))),
        lambda: repr(options()._adjust(100, 3, 7, lib.float32, lib.device("cpu"))),
        lambda: lib.nn.functional.linear_cross_entropy(
            lib.ones(3),
            lib.ones(4, 3),
            lib.tensor(1),
            options=options(batch_chunk_size=2, chunking_method="aspect_ratio"),
        ),  # fmt: skip
    ]
    return [outcome(lambda _lib, case=case: case(), lib) for case in cases]


def test_linear_cross_entropy_options_match_torch(torch):
    assert _options(hookgrad) == _options(torch)


LCE_ERRORS = {
    "input_3d": lambda t: t.nn.functional.linear_cross_entropy(
        t.ones(1, 2, 3), t.ones(4, 3), t.tensor([0])
    ),
    "weight_1d": lambda t: t.nn.functional.linear_cross_entropy(
        t.ones(2, 3), t.ones(3), t.tensor([0, 1])
    ),
    "features": lambda t: t.nn.functional.linear_cross_entropy(
        t.ones(2, 3), t.ones(4, 2), t.tensor([0, 1])
    ),
    "bias": lambda t: t.nn.functional.linear_cross_entropy(
        t.ones(2, 3), t.ones(4, 3), t.tensor([0, 1]), linear_bias=t.ones(3)
    ),
    "unbatched_kdim": lambda t: t.nn.functional.linear_cross_entropy(
        t.ones(3), t.ones(4, 2, 3), t.tensor([0, 1])
    ),
    "probabilities_ignore_index": lambda t: t.nn.functional.linear_cross_entropy(
        t.ones(2, 3), t.ones(4, 3), t.ones(2, 4) / 4, ignore_index=0
    ),
    "module_weight": lambda t: t.nn.LinearCrossEntropyLoss(3, 4, weight=t.ones(3)),
    "module_smoothing": lambda t: t.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=2.0),
}


@pytest.mark.parametrize("name", LCE_ERRORS)
def test_linear_cross_entropy_errors_match_torch(name, torch):
    expected = outcome(LCE_ERRORS[name], torch)
    assert expected[0] == "error"
    assert outcome(LCE_ERRORS[name], hookgrad) == expected


def test_linear_cross_entropy_warns_as_torch_when_options_cannot_apply(torch):
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.linear_cross_entropy(
                lib.ones(2, 3), lib.ones(4, 3), lib.ones(2, 4) / 4,
                options=lib.nn.LinearCrossEntropyOptions(),
            )  # fmt: skip
        return [str(w.message) for w in caught]

    assert run(hookgrad) == run(torch)


def _loss_module(lib):
    lib.manual_seed(283)
    loss = lib.nn.LinearCrossEntropyLoss(5, 10, out_features=(4, 3), bias=True)
    input = lib.randn(2, 5, dtype=lib.float64, requires_grad=True)
    target = lib.randint(0, 10, (2, 4, 3))
    loss.double()
    out = loss(input, target)
    out.backward()
    return (
        repr(loss),
        [tuple(p.shape) for p in loss.parameters()],
        out.item(),
        input.grad.numpy().copy(),
        loss.linear.weight.grad.numpy().copy(),
    )


def test_linear_cross_entropy_module_matches_torch(torch):
    ours, theirs = _loss_module(hookgrad), _loss_module(torch)
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-10, atol=1e-12)


def _functional_helpers(lib):
    F = lib.nn.functional

    def if_true(x, flag=False):
        """docs"""
        return "true", x

    def if_false(x, flag=False):
        return "false", x

    chosen = F.boolean_dispatch("flag", 1, False, if_true, if_false, "mod", "chosen")
    results = [chosen(1), chosen(2, True), chosen(3, flag=True), chosen.__name__]
    results += [chosen.__module__, chosen.__doc__, if_false.__doc__]
    results.append(F.BroadcastingList2[int])
    results.append(outcome(lambda _: F.assert_int_or_pair((1, 2, 3), "k", "{} bad"), lib))
    results.append(F.assert_int_or_pair(3, "k", "{} bad"))
    results.append(F.Tensor is lib.Tensor)
    results.append(sorted(n for n in dir(F.grad) if n.startswith("conv")))
    results.append(F.has_torch_function_unary(lib.ones(1)))
    return results


def test_nn_functional_helpers_match_torch(torch):
    assert _functional_helpers(hookgrad) == _functional_helpers(torch)


def _factory_kwargs(lib):
    return [
        outcome(lambda t: t.nn.factory_kwargs(None), lib),
        outcome(lambda t: sorted(t.nn.factory_kwargs({"dtype": 1, "device": 2})), lib),
        outcome(lambda t: t.nn.factory_kwargs({"factory_kwargs": {"dtype": 1}}), lib),
        outcome(lambda t: t.nn.factory_kwargs({"dtype": 1, "factory_kwargs": {"dtype": 2}}), lib),
        outcome(lambda t: t.nn.factory_kwargs({"bias": True}), lib),
    ]


def test_factory_kwargs_matches_torch(torch):
    assert _factory_kwargs(hookgrad) == _factory_kwargs(torch)


def test_sdpa_kernel_is_a_context_manager_over_torchs_backends(torch):
    ours, theirs = hookgrad.nn.attention, torch.nn.attention
    theirs_members = {name: int(m) for name, m in theirs.SDPBackend.__members__.items()}
    assert {name: int(m) for name, m in ours.SDPBackend.__members__.items()} == theirs_members
    with ours.sdpa_kernel([ours.SDPBackend.MATH, ours.SDPBackend.MATH]):
        assert ours.enabled_backends() == [ours.SDPBackend.MATH]
    assert len(ours.enabled_backends()) == 5
    expected = outcome(lambda t: t.nn.attention.sdpa_kernel("math").__enter__(), torch)
    assert outcome(lambda t: t.nn.attention.sdpa_kernel("math").__enter__(), hookgrad) == expected


def test_common_types_name_torchs_aliases(torch):
    theirs = {n for n in dir(torch.nn.common_types) if n.startswith("_") and n.endswith("_t")}
    ours = {n for n in dir(hookgrad.nn.common_types) if n.startswith("_") and n.endswith("_t")}
    assert ours == theirs


def test_layout_objects_pickle_and_cannot_be_made():
    assert pickle.loads(pickle.dumps(hookgrad.strided)) is hookgrad.strided
    with pytest.raises(TypeError, match="cannot create 'torch.layout' instances"):
        hookgrad.layout()


# ---------------------------------------------------------------- signal.windows

WINDOWS = {
    "bartlett": {},
    "blackman": {},
    "cosine": {},
    "exponential": {"tau": 2.0},
    "gaussian": {"std": 1.5},
    "general_cosine": {"a": [0.4, 0.3, 0.3]},
    "general_hamming": {"alpha": 0.6},
    "hamming": {},
    "hann": {},
    "kaiser": {"beta": 5.0},
    "nuttall": {},
}


@pytest.mark.parametrize("name", WINDOWS)
def test_windows_match_torch(name, torch):
    assert hookgrad.windows is hookgrad.signal.windows
    ours, theirs = getattr(hookgrad.windows, name), getattr(torch.windows, name)
    for length, sym, dtype in itertools.product(
        (0, 1, 2, 7), (True, False), ("float32", "float64")
    ):
        a = ours(length, sym=sym, dtype=getattr(hookgrad, dtype), **WINDOWS[name])
        b = theirs(length, sym=sym, dtype=getattr(torch, dtype), **WINDOWS[name])
        assert a.dtype.name == dtype and a.shape == b.shape
        # float32: one ulp apart where NumPy's exp/sin round otherwise than torch's
        rtol = 0 if dtype == "float64" else 2e-7
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=rtol)


WINDOW_ERRORS = {
    "negative": lambda t: t.signal.windows.hann(-1),
    "dtype": lambda t: t.signal.windows.hamming(3, dtype=t.int64),
    "tau": lambda t: t.signal.windows.exponential(3, tau=0.0),
    "center": lambda t: t.signal.windows.exponential(3, center=1.0),
    "std": lambda t: t.signal.windows.gaussian(3, std=-1.0),
    "beta": lambda t: t.signal.windows.kaiser(3, beta=-1.0),
    "coefficients": lambda t: t.signal.windows.general_cosine(3, a=[]),
    "grad": lambda t: t.signal.windows.hann(4, requires_grad=True).requires_grad,
}


@pytest.mark.parametrize("name", WINDOW_ERRORS)
def test_window_errors_match_torch(name, torch):
    assert outcome(WINDOW_ERRORS[name], hookgrad) == outcome(WINDOW_ERRORS[name], torch)


def test_storage_base(torch):
    assert isinstance(hookgrad.zeros(1).untyped_storage(), hookgrad.StorageBase)
    assert outcome(lambda t: t.StorageBase(), hookgrad) == outcome(lambda t: t.StorageBase(), torch)
