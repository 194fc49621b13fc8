"""``grid_sample`` (every mode, padding mode and ``align_corners``, 2-d and 3-d),
``affine_grid``, ``pixel_shuffle`` / ``pixel_unshuffle``, ``channel_shuffle`` and
``fold`` / ``unfold`` with their modules, against torch: values and gradients in float32 and
float64, second derivatives, errors, reprs; gradcheck / gradgradcheck in float64."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import hookgrad
from hookgrad.autograd import gradcheck, gradgradcheck
from hookgrad.nn import functional as F
from tests.oracle import assert_close

DTYPES = ["float32", "float64"]


def _tolerance(dtype: str) -> dict:
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}


def _grids(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """An input and a grid reaching a little outside ``[-1, 1]`` (to exercise padding)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    grid = rng.uniform(-1.3, 1.3, (shape[0], 3, 2) + ((2,) if len(shape) == 5 else ()))
    return x, grid[..., None].repeat(len(shape) - 2, -1) * rng.uniform(0.5, 1, len(shape) - 2)


SAMPLING = [
    (mode, padding, corners, dims)
    for mode, padding, corners in itertools.product(
        ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True)
    )
    for dims in (2, 3)
    if not (mode == "bicubic" and dims == 3)
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", SAMPLING, ids=lambda c: "-".join(map(str, c)))
def test_grid_sample_matches_torch(torch, dtype, config):
    mode, padding, corners, dims = config
    x, grid = _grids((2, 3, 4, 5) if dims == 2 else (2, 2, 3, 4, 3))
    results = []
    for lib in (hookgrad, torch):
        xt = lib.tensor(x.astype(dtype), requires_grad=True)
        gt = lib.tensor(grid.astype(dtype), requires_grad=True)
        out = lib.nn.functional.grid_sample(
            xt, gt, mode=mode, padding_mode=padding, align_corners=corners
        )
        seed = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype))
        out.backward(seed)
        results.append((out, xt.grad, gt.grad, out.grad_fn.name()))
    assert_close(results[0][:3], results[1][:3], **_tolerance(dtype))
    assert results[0][3] == results[1][3]


@pytest.mark.parametrize(
    "config",
    [("bilinear", "zeros", False), ("bicubic", "reflection", True), ("bilinear", "border", True)],
)
def test_grid_sample_second_derivatives(torch, config):
    """The double backward (``GridSampler2DBackwardBackward0``) gives torch's second
    derivatives for the input, the grid and the output gradient."""
    mode, padding, corners = config
    x, grid = _grids((1, 2, 3, 4))
    results = []
    for lib in (hookgrad, torch):
        xt = lib.tensor(x, requires_grad=True)
        gt = lib.tensor(grid, requires_grad=True)
        out = lib.nn.functional.grid_sample(
            xt, gt, mode=mode, padding_mode=padding, align_corners=corners
        )
        seed = lib.linspace(-1, 2, out.numel(), dtype=lib.float64).reshape(out.shape)
        seed.requires_grad_()
        gx, gg = lib.autograd.grad(out, (xt, gt), seed, create_graph=True)
        ((gx * gx).sum() + (gg * gg * gg).sum()).backward()
        results.append((gx, gg, xt.grad, gt.grad, seed.grad, gx.grad_fn.name()))
    assert_close(results[0][:5], results[1][:5], rtol=1e-9, atol=1e-10)
    assert results[0][5] == results[1][5] == "GridSampler2DBackwardBackward0"
    inputs = [hookgrad.tensor(v, requires_grad=True) for v in (x, grid)]
    fn = lambda x, g: F.grid_sample(x, g, mode, padding, corners)  # noqa: E731
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 1, 4), (2, 3, 1, 6)])
def test_affine_grid_matches_torch(torch, dtype, corners, size):
    nd = len(size) - 2
    theta = np.random.default_rng(0).standard_normal((2, nd, nd + 1)).astype(dtype)
    results = []
    for lib in (hookgrad, torch):
        th = lib.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grid = lib.nn.functional.affine_grid(th, size, align_corners=corners)
        grid.backward(lib.ones_like(grid) * lib.arange(nd, dtype=grid.dtype))
        results.append((grid, th.grad))
    assert_close(results[0], results[1], **_tolerance(dtype))


def test_affine_grid_then_grid_sample_is_the_identity():
    image = hookgrad.randn(1, 3, 5, 6)
    theta = hookgrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(theta, image.shape, align_corners=False)
    assert_close(F.grid_sample(image, grid, align_corners=False), image, 1e-6, 1e-6)


REARRANGEMENTS = [
    ("pixel_shuffle", lambda t, x: t.nn.functional.pixel_shuffle(x, 2), (2, 8, 2, 3)),
    ("pixel_shuffle_5d", lambda t, x: t.pixel_shuffle(x, 2), (2, 1, 4, 3, 2)),
    ("pixel_unshuffle", lambda t, x: t.nn.PixelUnshuffle(3)(x), (1, 2, 6, 3)),
    ("channel_shuffle", lambda t, x: t.nn.ChannelShuffle(3)(x), (2, 6, 2, 2)),
    ("channel_shuffle_1d", lambda t, x: t.channel_shuffle(x, 2), (2, 4, 3)),
    (
        "unfold",
        lambda t, x: t.nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1))(x),
        (2, 3, 5, 6),
    ),
    ("unfold_unbatched", lambda t, x: t.nn.functional.unfold(x, 2), (3, 4, 4)),
    ("fold", lambda t, x: t.nn.Fold((4, 5), (2, 3), padding=(1, 0), stride=(2, 1))(x), (2, 12, 9)),
    ("fold_unbatched", lambda t, x: t.nn.functional.fold(x, 3, 2), (8, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", REARRANGEMENTS, ids=lambda c: c[0])
def test_rearrangements_match_torch(torch, dtype, case):
    _, call, shape = case
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    results = []
    for lib in (hookgrad, torch):
        xt = lib.tensor(x, requires_grad=True)
        out = call(lib, xt)
        out.backward(
            lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype))
        )
        results.append((out, xt.grad, out.grad_fn.name()))
    assert_close(results[0][:2], results[1][:2], **_tolerance(dtype))
    assert results[0][2] == results[1][2]


@pytest.mark.parametrize("case", REARRANGEMENTS, ids=lambda c: c[0])
def test_rearrangements_gradcheck(case):
    _, call, shape = case
    x = hookgrad.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
    assert gradcheck(lambda x: call(hookgrad, x), (x,))
    assert gradgradcheck(lambda x: call(hookgrad, x), (x,))


def test_integer_rearrangements_and_native_channel_shuffle(torch):
    x = np.arange(2 * 8 * 2 * 2).reshape(2, 8, 2, 2)
    for name, arg in (("pixel_shuffle", 2), ("channel_shuffle", 4), ("native_channel_shuffle", 2)):
        ours = getattr(hookgrad, name)(hookgrad.tensor(x), arg)
        assert_close(ours, getattr(torch, name)(torch.tensor(x), arg), 0, 0)
    y = hookgrad.native_channel_shuffle(hookgrad.ones(1, 4, 2, requires_grad=True), 2)
    assert not y.requires_grad


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.PixelShuffle(3),
        lambda nn: nn.PixelUnshuffle(2),
        lambda nn: nn.ChannelShuffle(4),
        lambda nn: nn.Fold(output_size=(4, 5), kernel_size=2, stride=(1, 2)),
        lambda nn: nn.Unfold(kernel_size=3, dilation=2, padding=1),
    ],
)
def test_module_reprs(torch, make):
    assert repr(make(hookgrad.nn)) == repr(make(torch.nn))


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x, g: F.grid_sample(x, g[:1], align_corners=False),
        lambda F, x, g: F.grid_sample(x, g[..., :1], align_corners=False),
        lambda F, x, g: F.grid_sample(x[:, :, :0], g, align_corners=False),
        lambda F, x, g: F.grid_sample(x, g.double(), align_corners=False),
        lambda F, x, g: F.grid_sample(x[0], g[0], align_corners=False),
        lambda F, x, g: F.grid_sample(x.reshape(2, 3, 2, 2, 5), g, mode="bicubic"),
        lambda F, x, g: F.grid_sample(
            x.reshape(2, 3, 2, 2, 5),
            g.reshape(2, 1, 3, 2, 2)[..., :1].expand(2, 1, 3, 2, 3),
            mode="bicubic",
            align_corners=False,
        ),
        lambda F, x, g: F.grid_sample(x, g, mode="area"),
        lambda F, x, g: F.grid_sample(x, g, padding_mode="wrap"),
        lambda F, x, g: F.grid_sample(x.long(), g.long(), align_corners=False),
        lambda F, x, g: F.affine_grid(g[:, :2, 0], (2, 3, 4, 5, 6), align_corners=False),
        lambda F, x, g: F.affine_grid(g[:, :2, 0].expand(2, 2, 3), (2, 3, 4), align_corners=False),
        lambda F, x, g: F.affine_grid(g[:, :2, 0].long(), (2, 3, 4, 5), align_corners=False),
        lambda F, x, g: F.affine_grid(
            g[:, :2, 0].expand(2, 2, 3), (2, 3, 0, 5), align_corners=False
        ),
        lambda F, x, g: F.affine_grid(
            g[:1, :2, 0].expand(3, 2, 3), (2, 3, 4, 5), align_corners=False
        ),
        lambda F, x, g: F.pixel_shuffle(x, 2),
        lambda F, x, g: F.pixel_shuffle(x[0, 0], 2),
        lambda F, x, g: F.pixel_shuffle(x, 0),
        lambda F, x, g: F.pixel_unshuffle(x, 2),
        lambda F, x, g: F.pixel_unshuffle(x[:, :, :4, :4], 0),
        lambda F, x, g: F.channel_shuffle(x, 2),
        lambda F, x, g: F.channel_shuffle(x[0, 0], 2),
        lambda F, x, g: F.channel_shuffle(x, 0),
        lambda F, x, g: F.unfold(x, 0),
        lambda F, x, g: F.unfold(x, 2, stride=0),
        lambda F, x, g: F.unfold(x, 2, padding=-1),
        lambda F, x, g: F.unfold(x, 7),
        lambda F, x, g: F.unfold(x[:, :0], 2),
        lambda F, x, g: F.unfold(x, (2, 2, 2)),
        lambda F, x, g: F.fold(x[0], 5, 3),
        lambda F, x, g: F.fold(x[0, 0], 2, 2),
        lambda F, x, g: F.fold(x[0, :, :4].reshape(1, 12, 4), 4, 2),
        lambda F, x, g: F.fold(x[0], (5, 5, 5), 2),
    ],
)
def test_errors_match_torch(torch, call):
    x = np.zeros((2, 3, 4, 5), np.float32)
    grid = np.zeros((2, 3, 3, 2), np.float32)
    outcomes = []
    for lib in (hookgrad, torch):
        with pytest.raises((ValueError, RuntimeError, NotImplementedError)) as info:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(lib.nn.functional, lib.tensor(x), lib.tensor(grid))
        outcomes.append((type(info.value), str(info.value)))
    assert outcomes[0] == outcomes[1]


def test_align_corners_default_warns(torch):
    x, grid = hookgrad.zeros(1, 1, 2, 2), hookgrad.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F.grid_sample(x, grid)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F.affine_grid(hookgrad.zeros(1, 2, 3), [1, 1, 2, 2])
