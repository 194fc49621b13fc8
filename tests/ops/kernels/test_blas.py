"""Matrix-vector products rounded as torch's MKL rounds them (``hookgrad.ops.kernels.blas``):
on an Intel CPU with AVX-512 they are torch's bits; elsewhere, and outside the shapes
whose order is known, they are NumPy's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import hookgrad
from hookgrad.ops.kernels import blas, cpu

F32 = np.float32


def _matrix(rng: np.random.Generator, shape: tuple[int, int], column_major: bool) -> np.ndarray:
    """A float32 matrix of mixed magnitudes, row-major or column-major."""
    values = (rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 3, shape)).astype(F32)
    return np.asfortranarray(values) if column_major else np.ascontiguousarray(values)


def _expected(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """torch's bits where this machine's MKL is the one reproduced, else NumPy's."""
    if blas.emulates_mkl():
        return torch.from_numpy(a).mm(torch.from_numpy(b)).numpy()
    return np.matmul(a, b)


@pytest.fixture(params=[1, 2], ids=["1-thread", "2-threads"])
def threads(request):
    before = (torch.get_num_threads(), cpu.num_threads())
    torch.set_num_threads(request.param)
    cpu.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before[0])
    cpu.set_num_threads(before[1])


# (rows, inner) of the matrix: dot-kernel shapes (rows in fours, within one thread's work)
DOT_SHAPES = [(4, 1), (4, 4), (32, 4), (8, 16), (8, 17), (12, 18), (16, 33), (4, 100), (28, 256)]
# (outputs, terms): axpy-kernel shapes, across the thread split at 128 terms per thread
AXPY_SHAPES = [(2, 3), (4, 32), (4, 255), (4, 256), (7, 257), (15, 300), (3, 1001)]


KERNEL_SHAPES = [("dot", shape) for shape in DOT_SHAPES] + [("axpy", s) for s in AXPY_SHAPES]


@pytest.mark.parametrize("kernel, shape", KERNEL_SHAPES)
def test_matrix_vector_products_match_torch(threads, kernel, shape):
    """The dot kernel: a row-major matrix times a column, and a row times its transpose;
    the axpy kernel: a column-major matrix times a column, and ``g.T @ x``."""
    rng = np.random.default_rng(shape[0] * 1000 + shape[1])
    for _ in range(5):
        a = _matrix(rng, shape, column_major=kernel == "axpy")
        b = _matrix(rng, (shape[1], 1), column_major=False)
        assert np.array_equal(blas.mm(a, b), _expected(a, b))
        assert np.array_equal(blas.mv(a, b[:, 0]), _expected(a, b)[:, 0])
        assert np.array_equal(blas.mm(b.T, a.T), _expected(b.T, a.T))


def test_rows_beyond_the_groups_of_four_are_numpys():
    rng = np.random.default_rng(0)
    a = _matrix(rng, (7, 20), column_major=False)
    b = _matrix(rng, (20, 1), column_major=False)
    result = blas.mm(a, b)
    assert np.array_equal(result[4:], np.matmul(a[4:], b))
    assert np.array_equal(result[:4], blas.mm(a[:4], b))


@pytest.mark.parametrize(
    "a_shape, b_shape, column_major",
    [
        ((64, 129), (129, 1), False),  # more work than one thread does
        ((3, 8), (8, 2), False),  # no side is a vector
        ((1, 20), (20, 1), False),  # a dot product
        ((16, 40), (40, 1), True),  # 16 outputs: wider than one register
    ],
)
def test_products_of_unknown_order_are_numpys(a_shape, b_shape, column_major):
    rng = np.random.default_rng(1)
    a = _matrix(rng, a_shape, column_major)
    b = _matrix(rng, b_shape, column_major=False)
    assert np.array_equal(blas.mm(a, b), np.matmul(a, b))
    assert np.array_equal(blas.mm(a.astype(np.float64), b), np.matmul(a.astype(np.float64), b))


def test_mkl_without_avx512_is_not_reproduced(monkeypatch):
    monkeypatch.setenv("MKL_ENABLE_INSTRUCTIONS", "AVX2")
    assert not blas.emulates_mkl()
    rng = np.random.default_rng(2)
    a, b = _matrix(rng, (32, 4), False), _matrix(rng, (4, 1), False)
    assert np.array_equal(blas.mm(a, b), np.matmul(a, b))


def test_linear_layer_with_one_output_matches_torch(threads):
    """``nn.Linear(4, 1)`` (``addmm`` and its weight gradient ``x.T @ grad``) as in a
    regression script: torch's bits where MKL's kernels are reproduced."""
    rng = np.random.default_rng(3)
    x = _matrix(rng, (32, 4), column_major=False)
    weight = _matrix(rng, (1, 4), column_major=False)
    bias = _matrix(rng, (1, 1), column_major=False)[0]
    grad = _matrix(rng, (32, 1), column_major=False)
    results = []
    for lib in (torch, hookgrad):
        w = lib.tensor(weight, requires_grad=True)
        out = lib.nn.functional.linear(lib.tensor(x), w, lib.tensor(bias))
        out.backward(lib.tensor(grad))
        results.append((out.detach().numpy(), w.grad.numpy()))
    (torch_out, torch_grad), (out, weight_grad) = results
    if blas.emulates_mkl():
        assert np.array_equal(out, torch_out)
        assert np.array_equal(weight_grad, torch_grad)
    else:
        np.testing.assert_allclose(out, torch_out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(weight_grad, torch_grad, rtol=1e-5, atol=1e-6)
