"""The public names of ``nn``, ``nn.functional``, ``linalg``, ``fft``, ``distributions``,
``utils.data`` and ``autograd`` that no other test runs, against torch: base classes
(``RNNBase``, ``Transform``, ``DFIterDataPipe``), the ``*_with_indices`` pooling
functions, ``max_unpool1d``, ``ldl_solve``, ``ifftn``, constants of ``nn.functional``, and
the submodules torch's users import by path (``torch.distributions.cauchy``,
``torch.utils.data.dataloader``, ``torch.autograd.grad_mode`` ...).

Values, dtypes, node names and gradients are compared as in ``tests/test_api_surface.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import hookgrad
from tests.distributions.cases import CASES as DISTRIBUTION_CASES
from tests.test_api_surface import (
    DTYPES,
    TOLERANCE,
    Fixed,
    assert_same,
    check_against_torch,
    check_gradients,
    check_outcome,
)

SIGNAL = np.array([[[0.3, -1.2, 0.8, 2.1, -0.4, 0.9, 1.7, -2.2]]])  # (N, C, L)
IMAGE = np.array(
    [
        [
            [
                [0.3, -1.2, 0.8, 2.1],
                [-0.4, 0.9, 1.7, -2.2],
                [1.1, 0.2, -0.7, 0.5],
                [0.6, -0.1, 1.4, -0.9],
            ]
        ]
    ]
)
VOLUME = np.random.default_rng(5).permutation(64).reshape(1, 1, 4, 4, 4) / 32 - 1  # no ties
SAMPLES_2D = Fixed(np.array([[[0.3, 0.7]]]))
SAMPLES_3D = Fixed(np.array([[[0.3, 0.7, 0.2]]]))


def _f(lib: Any) -> Any:
    return lib.nn.functional


# ---------------------------------------------------------------- pooling with indices

# (id, fn(lib, *tensors), inputs)
POOLING = [
    (
        "max_pool2d_with_indices",
        lambda t, x: _f(t).max_pool2d_with_indices(x, 2, 1, 0, 1, False, True),
        [IMAGE],
    ),
    (
        "max_pool2d_with_indices_ceil",
        lambda t, x: _f(t).max_pool2d_with_indices(x, 3, 2, ceil_mode=True),
        [IMAGE],
    ),
    (
        "max_pool3d_with_indices",
        lambda t, x: _f(t).max_pool3d_with_indices(x, 2, return_indices=True),
        [VOLUME],
    ),
    (
        "adaptive_max_pool1d_with_indices",
        lambda t, x: _f(t).adaptive_max_pool1d_with_indices(x[0], 3, True),
        [SIGNAL],
    ),
    (
        "adaptive_max_pool2d_with_indices",
        lambda t, x: _f(t).adaptive_max_pool2d_with_indices(x, (3, 2)),
        [IMAGE],
    ),
    (
        "adaptive_max_pool3d_with_indices",
        lambda t, x: _f(t).adaptive_max_pool3d_with_indices(x, 2, True),
        [VOLUME],
    ),
    (
        "fractional_max_pool2d_with_indices",
        lambda t, x, u: _f(t).fractional_max_pool2d_with_indices(
            x, 2, output_size=3, _random_samples=u
        ),
        [IMAGE, SAMPLES_2D],
    ),
    (
        "fractional_max_pool3d_with_indices",
        lambda t, x, u: _f(t).fractional_max_pool3d_with_indices(
            x, 2, output_ratio=0.5, return_indices=True, _random_samples=u
        ),
        [VOLUME, SAMPLES_3D],
    ),
    (
        "max_unpool1d",
        lambda t, x: _f(t).max_unpool1d(*_f(t).max_pool1d(x, 2, return_indices=True), 2),
        [SIGNAL],
    ),
    (
        "max_unpool1d_output_size",
        lambda t, x: _f(t).max_unpool1d(
            *_f(t).max_pool1d(x, 3, 2, 1, return_indices=True), 3, 2, 1, output_size=[8]
        ),
        [SIGNAL],
    ),
    (
        "MaxUnpool1d",
        lambda t, x: t.nn.MaxUnpool1d(2, stride=2)(*t.nn.MaxPool1d(2, return_indices=True)(x)),
        [SIGNAL],
    ),
    (
        "MaxUnpool1d_unbatched",
        lambda t, x: t.nn.MaxUnpool1d(3, 2, 1)(
            *_f(t).max_pool1d(x[0], 3, 2, 1, return_indices=True), output_size=[8]
        ),
        [SIGNAL],
    ),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,inputs", [c[1:] for c in POOLING], ids=[c[0] for c in POOLING])
def test_pooling_matches_torch(fn, inputs, dtype):
    check_against_torch(fn, inputs, dtype)


# Overlapping windows pick one element twice: unpooling writes it once, but the pooling's
# gradient counts it twice (torch's too), so finite differences cannot agree there.
OVERLAPPING = ("max_unpool1d_output_size", "MaxUnpool1d_unbatched")


@pytest.mark.parametrize(
    "fn,inputs",
    [c[1:] for c in POOLING if c[0] not in OVERLAPPING],
    ids=[c[0] for c in POOLING if c[0] not in OVERLAPPING],
)
def test_pooling_gradcheck(fn, inputs):
    check_gradients(fn, inputs)


POOLING_OUTCOMES = [
    (
        "max_unpool1d_indices_dtype",
        lambda t: _f(t).max_unpool1d(t.ones(1, 1, 2), t.tensor([[[0.0, 1.0]]]), 2),
    ),
    (
        "max_unpool1d_bad_output_size",
        lambda t: _f(t).max_unpool1d(t.ones(1, 1, 2), t.tensor([[[0, 3]]]), 2, output_size=[9]),
    ),
    ("MaxUnpool1d_repr", lambda t: repr(t.nn.MaxUnpool1d(3, 2, 1))),
    (
        "max_pool2d_with_indices_3d_kernel",
        lambda t: _f(t).max_pool2d_with_indices(t.ones(1, 4, 4), (2, 2, 2)),
    ),
    (
        "adaptive_max_pool1d_with_indices_4d",
        lambda t: _f(t).adaptive_max_pool1d_with_indices(t.ones(1, 1, 2, 2), 1),
    ),
    (
        "fractional_max_pool2d_with_indices_none",
        lambda t: _f(t).fractional_max_pool2d_with_indices(t.ones(1, 1, 4, 4), 2),
    ),
]


@pytest.mark.parametrize(
    "case", [c[1] for c in POOLING_OUTCOMES], ids=[c[0] for c in POOLING_OUTCOMES]
)
def test_pooling_outcome_as_torch(case):
    check_outcome(case, None)


def test_functional_constants_and_typing_helpers():
    """``GRID_SAMPLE_INTERPOLATION_MODES`` and ``GRID_SAMPLE_PADDING_MODES`` are the codes
    ``grid_sampler`` takes; ``BroadcastingList1``/``BroadcastingList3`` are TorchScript's
    annotations (``BroadcastingList1[int]`` is None at run time)."""

    def observe(lib):
        f = _f(lib)
        modes = f.GRID_SAMPLE_INTERPOLATION_MODES, f.GRID_SAMPLE_PADDING_MODES
        image = lib.tensor(IMAGE, dtype=lib.float32)
        grid = lib.tensor([[[[-0.6, 0.3], [0.2, 0.9]]]])
        sampled = [
            lib.grid_sampler(image, grid, modes[0][mode], modes[1][padding], False)
            for mode in ("bilinear", "nearest", "bicubic")
            for padding in ("zeros", "border", "reflection")
        ]
        helpers = [
            (type(h).__name__, h[int], h[float]) for h in (f.BroadcastingList1, f.BroadcastingList3)
        ]
        return modes, sampled, helpers

    assert_same(observe(hookgrad), observe(torch), *TOLERANCE["float32"])


# ---------------------------------------------------------------- recurrent base classes


def test_rnn_base_classes():
    """``RNNBase(mode, ...)`` builds the parameters of any recurrent layer (torch's names,
    shapes and seeded initial values); ``RNNCellBase`` those of a cell; the layers and the
    cells are their subclasses."""

    def observe(lib):
        lib.manual_seed(3)
        base = lib.nn.RNNBase("GRU", 3, 4, num_layers=2, bidirectional=True, proj_size=0)
        lstm = lib.nn.RNNBase("LSTM", 2, 3, bias=False, proj_size=2)
        cell = lib.nn.RNNCellBase(3, 4, bias=True, num_chunks=4)
        named = [(n, p) for module in (base, lstm, cell) for n, p in module.named_parameters()]
        subclasses = [
            isinstance(lib.nn.LSTM(2, 3), lib.nn.RNNBase),
            isinstance(lib.nn.GRUCell(2, 3), lib.nn.RNNCellBase),
            isinstance(base, lib.nn.Module),
        ]
        weights = [[tuple(w.shape) for w in layer] for layer in lstm.all_weights]
        base.flatten_parameters()
        reprs = [repr(base), repr(lstm), repr(cell), cell.extra_repr()]
        errors = [
            _attempt_error(lambda: lib.nn.RNNBase("ELMAN", 3, 4)),
            _attempt_error(lambda: lib.nn.RNNBase("GRU", 3, 4, proj_size=1)),
            _attempt_error(lambda: lib.nn.RNNBase("LSTM", 3, 4, proj_size=4)),
            _attempt_error(lambda: base(lib.ones(2, 1, 3))),
        ]
        return named, subclasses, weights, reprs, errors

    assert_same(observe(hookgrad), observe(torch), 0.0, 0.0)


def _attempt_error(run):
    try:
        run()
    except Exception as error:  # noqa: BLE001 (the error is the observation)
        return type(error).__name__, str(error).split("\n")[0]
    return None


# ---------------------------------------------------------------- linalg.ldl_solve, fft.ifftn

SYMMETRIC = np.array([[4.0, 1.0, -2.0], [1.0, -3.0, 0.5], [-2.0, 0.5, 2.0]])
RHS = np.array([[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75]])

LINALG_FFT = [
    (
        "ldl_solve",
        lambda t, a, b: t.linalg.ldl_solve(*t.linalg.ldl_factor(a.detach()), b),
        [SYMMETRIC, RHS],
    ),
    (
        "ldl_solve_hermitian",
        lambda t, a, b: t.linalg.ldl_solve(
            *t.linalg.ldl_factor(a, hermitian=True), b, hermitian=True
        ),
        [SYMMETRIC, RHS],
    ),
    (
        "ldl_solve_batch",
        lambda t, a, b: t.linalg.ldl_solve(*t.linalg.ldl_factor(a.expand(2, 3, 3)), b.detach()),
        [SYMMETRIC, RHS],
    ),
    ("ifftn", lambda t, x: t.fft.ifftn(x), [IMAGE[0, 0]]),
    (
        "ifftn_s_dim_norm",
        lambda t, x: t.fft.ifftn(x, s=(3, 5), dim=(0, 1), norm="ortho"),
        [IMAGE[0, 0]],
    ),
    (
        "ifftn_complex_last",
        lambda t, x: t.fft.ifftn(x * (1 + 2j), dim=(-1,), norm="forward"),
        [VOLUME[0, 0]],
    ),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,inputs", [c[1:] for c in LINALG_FFT], ids=[c[0] for c in LINALG_FFT])
def test_linalg_fft_match_torch(fn, inputs, dtype):
    check_against_torch(fn, inputs, dtype)


@pytest.mark.parametrize(
    "fn,inputs",
    [c[1:] for c in LINALG_FFT if c[0].startswith("ifftn")],
    ids=[c[0] for c in LINALG_FFT if c[0].startswith("ifftn")],
)
def test_ifftn_gradcheck(fn, inputs):
    check_gradients(lambda t, x: t.view_as_real(fn(t, x)), inputs)


LINALG_FFT_OUTCOMES = [
    (
        "ldl_solve_dtypes",
        lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(t.eye(2)), t.ones(2, 1, dtype=t.float64)),
    ),
    ("ldl_solve_sizes", lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(t.eye(2)), t.ones(3, 1))),
    ("ldl_solve_vector", lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(t.eye(2)), t.ones(2))),
    (
        "ldl_solve_long_pivots",
        lambda t: t.linalg.ldl_solve(t.eye(2), t.tensor([1, 2]), t.ones(2, 1)),
    ),
    (
        "ldl_solve_float_pivots",
        lambda t: t.linalg.ldl_solve(t.eye(2), t.tensor([1.0, 2.0]), t.ones(2, 1)),
    ),
    (
        "ldl_solve_out",
        lambda t: t.linalg.ldl_solve(*t.linalg.ldl_factor(t.eye(2)), t.ones(2, 1), out=t.empty(0)),
    ),
    ("ifftn_out", lambda t: t.fft.ifftn(t.ones(2, 2), out=t.empty(0, dtype=t.complex64))),
    ("ifftn_bad_norm", lambda t: t.fft.ifftn(t.ones(2), norm="half")),
    ("ifftn_s_dim_lengths", lambda t: t.fft.ifftn(t.ones(2, 2), s=(2,), dim=(0, 1))),
]


@pytest.mark.parametrize(
    "case", [c[1] for c in LINALG_FFT_OUTCOMES], ids=[c[0] for c in LINALG_FFT_OUTCOMES]
)
def test_linalg_fft_outcome_as_torch(case):
    check_outcome(case, None)


# ---------------------------------------------------------------- distributions

# Every submodule of ``torch.distributions``, as users import them by path.
DISTRIBUTION_MODULES = (
    "bernoulli", "beta", "binomial", "categorical", "cauchy", "chi2", "constraint_registry",
    "constraints", "continuous_bernoulli", "dirichlet", "distribution", "exp_family",
    "exponential", "fishersnedecor", "gamma", "generalized_pareto", "geometric", "gumbel",
    "half_cauchy", "half_normal", "independent", "inverse_gamma", "kl", "kumaraswamy",
    "laplace", "lkj_cholesky", "log_normal", "logistic_normal", "lowrank_multivariate_normal",
    "mixture_same_family", "multinomial", "multivariate_normal", "negative_binomial", "normal",
    "one_hot_categorical", "pareto", "poisson", "relaxed_bernoulli", "relaxed_categorical",
    "studentT", "transformed_distribution", "transforms", "uniform", "utils", "von_mises",
    "weibull", "wishart",
)  # fmt: skip


def test_distribution_modules_are_torchs():
    """The list above is torch's, and each of hookgrad's modules has the names torch's
    exports, the same objects as ``hookgrad.distributions`` has."""
    modules = {
        name
        for name in dir(torch.distributions)
        if not name.startswith("_")
        and type(getattr(torch.distributions, name)).__name__ == "module"
    }
    assert modules == set(DISTRIBUTION_MODULES)
    for name in DISTRIBUTION_MODULES:
        theirs = getattr(torch.distributions, name)
        ours = getattr(hookgrad.distributions, name)
        for exported in getattr(theirs, "__all__", ()):
            value = getattr(ours, exported)
            if getattr(torch.distributions, exported, None) is getattr(theirs, exported):
                assert value is getattr(hookgrad.distributions, exported), (name, exported)


class _Through:
    """``lib`` whose ``distributions`` looks names up in one of its submodules first: a
    case built through it takes its class from that module
    (``torch.distributions.cauchy.Cauchy``), and anything else from the package."""

    def __init__(self, lib: Any, module: str | None = None) -> None:
        self._lib = lib
        if module is not None:
            self._module = getattr(lib.distributions, module)
            self.distributions = _Through(lib.distributions)
            self.distributions._module = self._module

    def __getattr__(self, name: str) -> Any:
        module = self.__dict__.get("_module")
        if module is not None and hasattr(module, name):
            return getattr(module, name)
        return getattr(self._lib, name)


def _module_of(class_name: str) -> str | None:
    for name in DISTRIBUTION_MODULES:
        if class_name in getattr(getattr(torch.distributions, name), "__all__", ()):
            if name not in ("distribution", "exp_family", "transforms", "kl", "constraints"):
                return name
    return None


MODULE_CASES = [
    (case, _module_of(case.name.split("_")[0]))
    for case in DISTRIBUTION_CASES
    if _module_of(case.name.split("_")[0]) is not None
]


@pytest.mark.parametrize(
    "case,module", MODULE_CASES, ids=[f"{m}-{c.name}" for c, m in MODULE_CASES]
)
def test_distribution_through_its_module(case, module):
    """Built from the class of its module, each distribution scores and summarises a
    value as torch's (float64)."""

    def observe(lib):
        default = lib.get_default_dtype()
        if case.default_dtype:
            lib.set_default_dtype(lib.float64)
        try:
            params = [lib.tensor(p, dtype=lib.float64) for p in case.params]
            dist = case.build(_Through(lib, module), *params)
            value = lib.tensor(case.value, dtype=lib.float64)
            return type(dist).__name__, dist.log_prob(value), dist.batch_shape, dist.event_shape
        finally:
            lib.set_default_dtype(default)

    assert_same(observe(hookgrad), observe(torch), 1e-7, 1e-9)


def test_exponential_family_base():
    """``exp_family.ExponentialFamily`` computes the entropy of a subclass from its natural
    parameters and log normalizer (torch's Bregman-divergence formula)."""

    def observe(lib):
        family = lib.distributions.exp_family.ExponentialFamily

        class Unit(family):
            arg_constraints = {}

            def __init__(self, rate):
                self.rate = rate
                super().__init__(batch_shape=rate.shape, validate_args=False)

            @property
            def _natural_params(self):
                return (-self.rate,)

            def _log_normalizer(self, x):
                return -lib.log(-x)

            @property
            def _mean_carrier_measure(self):
                return 0

        rate = lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)
        entropy = Unit(rate).entropy()
        return entropy, _attempt_error(lambda: lib.autograd.grad(entropy.sum(), rate))

    assert_same(observe(hookgrad), observe(torch), 1e-7, 1e-9)


def test_transform_base_class():
    """``Transform`` is the base of every transform: its own methods raise, its inverse is
    an ``_InverseTransform``, and a subclass that defines ``_call``, ``_inverse`` and
    ``log_abs_det_jacobian`` works in a ``TransformedDistribution`` (with caching)."""

    def observe(lib):
        D = lib.distributions
        base = D.Transform()
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)

        class Cube(D.Transform):
            domain = D.constraints.real
            codomain = D.constraints.real
            bijective = True

            def __init__(self, cache_size=0):
                super().__init__(cache_size=cache_size)

            def _call(self, x):
                return x**3

            def _inverse(self, y):
                return y.sign() * y.abs() ** (1 / 3)

            def log_abs_det_jacobian(self, x, y):
                return (3 * x**2).log()

        cube = Cube(cache_size=1)
        y = cube(x)
        dist = D.TransformedDistribution(D.Normal(0.0, 1.0), [Cube()])
        score = dist.log_prob(lib.tensor([0.125, -8.0], dtype=lib.float64))
        return [
            repr(base),
            repr(base.inv),
            base.inv.inv is base,
            base == D.Transform(),
            base.bijective,
            _attempt_error(lambda: base.event_dim),
            _attempt_error(lambda: base(lib.ones(1))),
            _attempt_error(lambda: base.sign),
            _attempt_error(lambda: D.Transform(cache_size=2)),
            y,
            cube.inv(y) is x,
            cube.with_cache(1) is cube,
            _attempt_error(lambda: cube.with_cache(0)),  # a subclass with its own __init__
            score,
            lib.autograd.grad(y.sum() + cube.log_abs_det_jacobian(x, y).sum(), x),
        ]

    assert_same(observe(hookgrad), observe(torch), 1e-7, 1e-9)


# ---------------------------------------------------------------- utils.data and autograd


def test_dataframe_datapipe_and_dataloader_module():
    """``DFIterDataPipe`` is the iterable DataPipe of DataFrames (a ``_is_dfpipe()``
    ``IterDataPipe``); ``utils.data.dataloader`` is the module of ``DataLoader``,
    ``default_collate`` and ``get_worker_info``."""

    def observe(lib):
        data = lib.utils.data

        class Rows(data.DFIterDataPipe):
            def __iter__(self):
                yield from ([1, 2], [3, 4], [5, 6])

        pipe = Rows()
        module = data.dataloader
        dataset = data.TensorDataset(lib.arange(6.0).reshape(3, 2), lib.tensor([0, 1, 0]))
        return [
            issubclass(data.DFIterDataPipe, data.IterDataPipe),
            pipe._is_dfpipe(),
            list(pipe),
            list(pipe.batch(2)),
            module.DataLoader is data.DataLoader,
            list(module.DataLoader(dataset, batch_size=2)),
            module.default_collate(
                [{"a": lib.tensor([1.0]), "b": 2}, {"a": lib.tensor([3.0]), "b": 4}]
            ),
            module.default_convert(np.arange(3)),
            module.get_worker_info(),
            sorted(module.__all__),
        ]

    assert_same(observe(hookgrad), observe(torch), 0.0, 0.0)


def test_grad_mode_and_anomaly_mode_modules():
    """``autograd.grad_mode`` and ``autograd.anomaly_mode`` are the modules of the grad
    modes and of anomaly detection."""

    def observe(lib):
        grad_mode, anomaly_mode = lib.autograd.grad_mode, lib.autograd.anomaly_mode
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        with grad_mode.no_grad():
            seen.append((x * 2).requires_grad)
            with grad_mode.enable_grad():
                seen.append((x * 2).requires_grad)
        with grad_mode.set_grad_enabled(False):
            seen.append((x * 2).requires_grad)
        with grad_mode.inference_mode():
            seen.append(((x * 2).requires_grad, (x * 2).is_inference()))
        with grad_mode.set_multithreading_enabled(False):
            seen.append((x * 2).requires_grad)
        with anomaly_mode.set_detect_anomaly(True, check_nan=False):
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with anomaly_mode.detect_anomaly(check_nan=True):
                seen.append(lib.is_anomaly_enabled())
                y = lib.tensor([0.0], requires_grad=True)
                seen.append(_attempt_error(lambda: (y / y).sum().backward()))
        seen.append(str(caught[0].message))  # the warning that anomaly mode is slow
        seen.append(lib.is_anomaly_enabled())
        seen.append(
            [
                getattr(grad_mode, name) is getattr(lib, name)
                for name in ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode")
            ]
        )
        seen.append(anomaly_mode.detect_anomaly is lib.autograd.detect_anomaly)
        return seen

    assert observe(hookgrad) == observe(torch)


def test_profiler_config_and_event():
    """``ProfilerConfig`` is what a profiler records with; ``ProfilerEvent`` the legacy
    profiler's event, with torch's methods."""

    def observe(lib):
        autograd = lib.autograd
        config = autograd.profiler.profile(record_shapes=True).config()
        # torch's binding wants its (private) experimental settings; hookgrad has none
        experimental = torch._C._profiler._ExperimentalConfig() if lib is torch else None
        made = autograd.ProfilerConfig(
            autograd.ProfilerState.CPU, True, False, False, False, False, experimental
        )
        methods = sorted(n for n in dir(autograd.ProfilerEvent) if not n.startswith("_"))
        return (
            type(config).__name__,
            isinstance(config, autograd.ProfilerConfig),
            type(made).__name__,
            methods,
        )

    actual = observe(hookgrad)
    expected = observe(torch)
    # torch's pybind11 classes carry one more internal name
    assert actual == (*expected[:3], [n for n in expected[3] if n != "_pybind11_conduit_v1_"])


def test_tensor_device_predicates():
    """A CPU tensor is on no accelerator (``is_xpu`` and the like)."""

    def observe(lib):
        x = lib.ones(2)
        return [x.is_xpu, x.is_cuda, x.is_mps, x.is_meta, x.is_cpu]

    assert observe(hookgrad) == observe(torch)
