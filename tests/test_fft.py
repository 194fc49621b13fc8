"""``hookgrad.fft`` against torch: dtypes, shapes and errors (``tests.oracle.outcome``),
the nodes of the three primitives with their ``_saved_*`` values, and double-backward
graphs through complex gradients. Values and gradients of every transform are rows of
the op table (``tests/ops/cases/fft.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, node_names, outcome, saved_values


def _x(lib, shape=(3, 4), dtype=None):
    rng = np.random.default_rng(0)
    return lib.tensor(rng.standard_normal(shape), dtype=dtype or lib.float32)


def _z(lib, shape=(3, 4)):
    rng = np.random.default_rng(1)
    return lib.tensor(rng.standard_normal(shape) + 1j * rng.standard_normal(shape))


PROGRAMS = [
    ("fft_float32_gives_complex64", lambda t: t.fft.fft(_x(t))),
    ("rfft_float64", lambda t: t.fft.rfft(_x(t, dtype=t.float64), dim=0)),
    ("fft_integers", lambda t: t.fft.fft(t.arange(5))),
    ("irfft_real_input", lambda t: t.fft.irfft(_x(t))),
    ("hfft_odd", lambda t: t.fft.hfft(_z(t), n=5)),
    ("ihfft_norm", lambda t: t.fft.ihfft(_x(t), norm="forward") * 1),
    ("fftn_default_dims", lambda t: t.fft.fftn(_x(t, (2, 3, 2)))),
    ("rfftn_s_pads_and_trims", lambda t: t.fft.rfftn(_x(t), s=(2, 6))),
    ("irfftn_s_minus_one", lambda t: t.fft.irfftn(_z(t), s=(-1, 5))),
    ("hfftn", lambda t: t.fft.hfftn(_z(t, (2, 3, 3)), dim=(0, 2))),
    ("ihfftn", lambda t: t.fft.ihfftn(_x(t, (2, 3, 4)), s=(3, 4))),
    ("fftfreq", lambda t: t.fft.fftfreq(7, d=0.25)),
    ("fftfreq_float64", lambda t: t.fft.fftfreq(4, dtype=t.float64)),
    ("rfftfreq", lambda t: t.fft.rfftfreq(8)),
    ("fftshift_dims", lambda t: t.fft.fftshift(t.arange(12).reshape(3, 4), dim=(0,))),
    ("ifftshift", lambda t: t.fft.ifftshift(t.arange(5))),
    # bad input
    ("norm_mode", lambda t: t.fft.fft(_x(t), norm="bad")),
    ("n_zero", lambda t: t.fft.fft(_x(t), n=0)),
    ("rfft_complex", lambda t: t.fft.rfft(_z(t))),
    ("rfftn_complex", lambda t: t.fft.rfftn(_z(t))),
    ("dim_out_of_range", lambda t: t.fft.fft(_x(t), dim=2)),
    ("scalar_input", lambda t: t.fft.fft(t.tensor(1.0))),
    ("dims_repeated", lambda t: t.fft.fftn(_x(t), dim=(0, 0))),
    ("s_and_dim_lengths", lambda t: t.fft.fftn(_x(t), s=(2,), dim=(0, 1))),
    ("s_too_long", lambda t: t.fft.fftn(_x(t), s=(2, 2, 2))),
    ("s_invalid", lambda t: t.fft.fftn(_x(t), s=(0, 2))),
    ("irfft_one_point", lambda t: t.fft.irfft(t.ones(1, dtype=t.complex64))),
    ("half_precision", lambda t: t.fft.fft(t.ones(4, dtype=t.float16))),
    ("fftfreq_integer_dtype", lambda t: t.fft.fftfreq(4, dtype=t.int64)),
    # short-time transforms
    ("stft_return_complex_required", lambda t: t.stft(_x(t, (20,)), 8)),
    ("stft_real_pairs", lambda t: t.stft(_x(t, (20,)), 8, window=t.ones(8), return_complex=False)),
    ("stft_integers", lambda t: t.stft(t.arange(20), 8, return_complex=True)),
    ("stft_3d", lambda t: t.stft(t.ones(2, 2, 20), 8, return_complex=True)),
    ("stft_n_fft", lambda t: t.stft(_x(t, (20,)), 30, return_complex=True, center=False)),
    ("stft_hop", lambda t: t.stft(_x(t, (20,)), 8, hop_length=0, return_complex=True)),
    ("stft_win_length", lambda t: t.stft(_x(t, (20,)), 8, win_length=9, return_complex=True)),
    ("stft_window", lambda t: t.stft(_x(t, (20,)), 8, window=t.ones(5), return_complex=True)),
    ("stft_complex_onesided", lambda t: t.stft(_z(t, (20,)), 8, window=t.ones(8), onesided=True)),
    ("istft_real", lambda t: t.istft(_x(t, (5, 11)), 8)),
    ("istft_frequencies", lambda t: t.istft(_z(t, (5, 11)), 10)),
    ("istft_hop", lambda t: t.istft(_z(t, (5, 11)), 8, hop_length=9)),
    ("istft_window", lambda t: t.istft(_z(t, (5, 11)), 8, window=t.ones(5))),
    ("istft_zero_window", lambda t: t.istft(_z(t, (5, 11)), 8, window=t.zeros(8))),
    ("istft_long_length", lambda t: t.istft(_z(t, (5, 11)), 8, window=t.ones(8), length=40)),
    ("istft_empty", lambda t: t.istft(t.zeros(5, 0, dtype=t.complex64), 8)),
]


@pytest.mark.parametrize("program", [p for _, p in PROGRAMS], ids=[name for name, _ in PROGRAMS])
def test_outcome_matches_torch(program, torch):
    ours, theirs = outcome(program, hookgrad), outcome(program, torch)
    if ours[0] == "ok" and theirs[0] == "ok":
        assert_close(program(hookgrad), program(torch), 1e-5, 1e-5)
    else:
        assert ours == theirs


# (id, transform of a leaf, leaf shape, complex leaf)
NODES = [
    ("fft_real", lambda t, x: t.fft.fft(x, n=6), (2, 4), False),
    ("fft_complex", lambda t, x: t.fft.ifft(x, norm="ortho"), (2, 4), True),
    ("rfft", lambda t, x: t.fft.rfft2(x, norm="forward"), (3, 4), False),
    ("irfft", lambda t, x: t.fft.irfft(x, n=7), (2, 4), True),
    ("irfftn", lambda t, x: t.fft.irfftn(x), (3, 4), True),
    ("hfft2", lambda t, x: t.fft.hfft2(x), (3, 4), True),
    ("ihfft2", lambda t, x: t.fft.ihfft2(x), (3, 4), False),
    ("fftn_s", lambda t, x: t.fft.fftn(x, s=(2, 5)), (3, 4), True),
]
IDS = [row[0] for row in NODES]


def _graph(lib, program, shape, complex_leaf):
    rng = np.random.default_rng(2)
    values = rng.standard_normal(shape)
    if complex_leaf:
        values = values + 1j * rng.standard_normal(shape)
    x = lib.tensor(values, requires_grad=True)
    out = program(lib, x)
    seed = rng.standard_normal(tuple(out.shape))
    if out.is_complex():
        seed = seed + 1j * rng.standard_normal(tuple(out.shape))
    grad_out = lib.tensor(seed, dtype=out.dtype, requires_grad=True)
    (grad,) = lib.autograd.grad(out, x, grad_out, create_graph=True)
    return out, grad


@pytest.mark.parametrize("program, shape, complex_leaf", [r[1:] for r in NODES], ids=IDS)
def test_nodes_saved_values_and_double_backward(program, shape, complex_leaf, torch):
    ours, our_grad = _graph(hookgrad, program, shape, complex_leaf)
    theirs, their_grad = _graph(torch, program, shape, complex_leaf)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    saved, expected = saved_values(ours.grad_fn), saved_values(theirs.grad_fn)
    assert sorted(saved) == sorted(expected)
    for name, value in expected.items():
        if isinstance(value, np.ndarray):
            assert_close(saved[name], value, 1e-12, 0)
        else:
            assert tuple(saved[name]) == value if isinstance(value, tuple) else saved[name] == value
    assert_close(our_grad, their_grad.resolve_conj(), 1e-10, 1e-12)
    assert node_names(our_grad.grad_fn) == node_names(their_grad.grad_fn)


def test_parseval_gradient():
    """The gradient of the spectrum's energy is the signal's, scaled by its length."""
    x = hookgrad.randn(8, dtype=hookgrad.float64, requires_grad=True)
    hookgrad.fft.fft(x).abs().pow(2).sum().backward()
    assert_close(x.grad, 2 * 8 * x.detach(), 1e-12, 1e-12)
