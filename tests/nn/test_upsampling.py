"""``F.interpolate`` in every mode, ``nn.Upsample`` and its fixed-mode forms, and the
deprecated ``F.upsample*`` against torch: values and gradients in float32 and float64, node
names, the input positions each output reads for awkward sizes and scales, uint8 images,
errors; gradcheck / gradgradcheck in float64."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from hookgrad.ops.upsample import tap_matrix, taps
from tests.oracle import assert_close

CASES = [
    # (id, interpolate keyword arguments, input shape)
    ("nearest1d", {"scale_factor": 2.5}, (2, 3, 5)),
    ("nearest2d_size", {"size": (7, 3)}, (2, 3, 4, 5)),
    ("nearest3d", {"scale_factor": (2, 1.5, 0.5)}, (1, 2, 3, 4, 4)),
    # twice the size with another scale: torch's 2-d kernel copies each row twice, its
    # 1-d and 3-d kernels follow the scale
    ("nearest1d_near_double", {"scale_factor": 2.3}, (2, 3, 3)),
    ("nearest2d_near_double", {"scale_factor": (2.3, 1.0)}, (1, 2, 3, 2)),
    ("nearest_exact2d", {"size": (7, 3), "mode": "nearest-exact"}, (2, 3, 4, 5)),
    ("linear", {"scale_factor": 1.7, "mode": "linear"}, (2, 3, 5)),
    ("linear_corners", {"size": 9, "mode": "linear", "align_corners": True}, (2, 3, 5)),
    ("bilinear", {"scale_factor": 2, "mode": "bilinear"}, (2, 3, 4, 5)),
    ("bilinear_shrink", {"size": (3, 2), "mode": "bilinear", "align_corners": True}, (2, 3, 4, 5)),
    (
        "bilinear_recompute",
        {"scale_factor": 1.3, "mode": "bilinear", "recompute_scale_factor": True},
        (2, 3, 4, 5),
    ),
    ("trilinear", {"scale_factor": (1.5, 2, 0.7), "mode": "trilinear"}, (1, 2, 3, 4, 5)),
    ("bicubic", {"scale_factor": 2, "mode": "bicubic"}, (2, 3, 4, 5)),
    ("bicubic_corners", {"size": (6, 3), "mode": "bicubic", "align_corners": True}, (2, 3, 4, 5)),
    ("bilinear_antialias", {"size": (3, 4), "mode": "bilinear", "antialias": True}, (2, 3, 7, 9)),
    (
        "bicubic_antialias",
        {"scale_factor": (0.4, 1.5), "mode": "bicubic", "antialias": True},
        (2, 3, 7, 9),
    ),
    ("lanczos", {"size": (3, 5), "mode": "lanczos", "antialias": True}, (2, 3, 7, 9)),
    ("area", {"size": (3, 2), "mode": "area"}, (2, 3, 7, 9)),
    ("area1d", {"scale_factor": 0.5, "mode": "area"}, (2, 3, 7)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_matches_torch(torch, dtype, case):
    _, kwargs, shape = case
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    results = []
    for lib in (hookgrad, torch):
        xt = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.interpolate(xt, **kwargs)
        grad = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype)
        out.backward(lib.tensor(grad))
        results.append((out, xt.grad, out.grad_fn.name()))
    tolerance = (
        {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}
    )
    assert_close(results[0][:2], results[1][:2], **tolerance)
    assert results[0][2] == results[1][2]


# lanczos: torch has no double backward for it. nearest1d_near_double: torch's backward
# is not the derivative of its forward there (see the cases), and hookgrad's is torch's.
NOT_CHECKED = {"lanczos", "nearest1d_near_double"}


@pytest.mark.parametrize("case", [c for c in CASES if c[0] not in NOT_CHECKED], ids=lambda c: c[0])
def test_gradcheck_and_gradgradcheck(case):
    _, kwargs, shape = case
    x = hookgrad.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
    fn = lambda x: F.interpolate(x, **kwargs)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "linear", "bicubic", "antialias"])
def test_taps_read_torch_s_positions(torch, mode):
    """For awkward sizes and scale factors, each output reads the input positions torch
    reads, with its weights: resampling the identity matrix shows them."""
    interpolation = {"antialias": "bilinear", "linear": "bilinear"}.get(mode, mode)
    for dtype in (np.float32, np.float64):
        for size in (3, 7, 10):
            for size_or_scale in ((None, 4), (None, 9), (None, 14), (0.3, None), (2.3, None)):
                scale, out_size = size_or_scale
                if scale is not None and int(size * scale) == 0:
                    continue
                corners = {} if "nearest" in mode else {"align_corners": size == 7}
                eye = torch.eye(size, dtype=getattr(torch, np.dtype(dtype).name))
                out = torch.nn.functional.interpolate(
                    eye.reshape(size, 1, 1, size),
                    size=None if out_size is None else (1, out_size),
                    scale_factor=None if scale is None else (1.0, scale),
                    mode=interpolation,
                    antialias=mode == "antialias",
                    **corners,
                )
                expected = out.reshape(size, -1).numpy().T
                index, weight = taps(
                    interpolation,
                    size,
                    expected.shape[0],
                    scale,
                    corners.get("align_corners", False),
                    mode == "antialias",
                    dtype,
                    exact_cases=True,
                )
                assert_close(tap_matrix(index, weight, size), expected, rtol=2e-6, atol=2e-6)


def test_uint8_images(torch):
    """uint8 images: nearest copies exactly; the filters round per pass as torch's
    fixed-point kernels do, off by at most one or two in a few pixels."""
    x = np.random.default_rng(0).integers(0, 256, (2, 3, 9, 11)).astype(np.uint8)
    for kwargs in (
        {"scale_factor": 1.7},
        {"size": (5, 4), "mode": "nearest-exact"},
        {"scale_factor": 2.0, "mode": "bilinear"},
        {"size": (4, 5), "mode": "bicubic", "antialias": True},
    ):
        ours = F.interpolate(hookgrad.tensor(x), **kwargs).numpy().astype(int)
        theirs = torch.nn.functional.interpolate(torch.tensor(x), **kwargs).numpy().astype(int)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        exact = "nearest" in kwargs.get("mode", "nearest")
        assert np.abs(ours - theirs).max() <= (0 if exact else 2)
        assert (ours != theirs).mean() <= 0.15


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"),
        lambda nn: nn.Upsample(size=(5, 7), mode="bicubic", align_corners=True),
        lambda nn: nn.Upsample(scale_factor=(1.5, 2.0), recompute_scale_factor=True),
        lambda nn: nn.UpsamplingNearest2d(scale_factor=3),
        lambda nn: nn.UpsamplingBilinear2d(size=6),
    ],
)
def test_modules_match_torch(torch, make):
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype(np.float32)
    ours, theirs = make(hookgrad.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert_close(ours(hookgrad.tensor(x)), theirs(torch.tensor(x)), 1e-5, 1e-6)


def test_deprecated_functions(torch):
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype(np.float32)
    for name, kwargs in (
        ("upsample", {"scale_factor": 2, "mode": "bilinear"}),
        ("upsample_nearest", {"size": 5}),
        ("upsample_bilinear", {"scale_factor": 2}),
    ):
        with pytest.warns(UserWarning, match="is deprecated"):
            ours = getattr(F, name)(hookgrad.tensor(x), **kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = getattr(torch.nn.functional, name)(torch.tensor(x), **kwargs)
        assert_close(ours, theirs, 1e-5, 1e-6)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.interpolate(x, size=(0, 2)),
        lambda F, x: F.interpolate(x, scale_factor=0.1),
        lambda F, x: F.interpolate(x[:, :0], scale_factor=2),
        lambda F, x: F.interpolate(x, scale_factor=2, mode="linear"),
        lambda F, x: F.interpolate(x, scale_factor=2, mode="bilnear"),
        lambda F, x: F.interpolate(x.long(), scale_factor=2, mode="bilinear"),
        lambda F, x: F.interpolate(x[0, 0], scale_factor=2),
        lambda F, x: F.interpolate(x, size=3, scale_factor=2),
        lambda F, x: F.interpolate(x),
        lambda F, x: F.interpolate(x, size=(2, 2, 2)),
        lambda F, x: F.interpolate(x, size=(2.5, 2)),
        lambda F, x: F.interpolate(x, size=2, recompute_scale_factor=True),
        lambda F, x: F.interpolate(x, size=2, align_corners=True),
        lambda F, x: F.interpolate(x, scale_factor=2, antialias=True),
        lambda F, x: F.interpolate(x, scale_factor=(2, 2, 2)),
        lambda F, x: F.interpolate(x, size=2, mode="lanczos"),
        lambda F, x: F.interpolate(x.half(), size=2, mode="bilinear", antialias=True),
        lambda F, x: F.interpolate(x[0].long(), size=2),
    ],
)
def test_errors_match_torch(torch, call):
    x = np.zeros((2, 3, 4, 4), np.float32)
    outcomes = []
    for lib in (hookgrad, torch):
        with pytest.raises((ValueError, TypeError, RuntimeError, NotImplementedError)) as info:
            call(lib.nn.functional, lib.tensor(x))
        outcomes.append((type(info.value), str(info.value)))
    assert outcomes[0] == outcomes[1]
