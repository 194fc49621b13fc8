"""``torch.sum`` and ``torch.mean`` with torch's CPU bits (``hookgrad.ops.kernels.sum``),
compared bit for bit with torch on layouts, dimension subsets, dtypes and thread counts;
and the iteration geometry they rest on (``hookgrad.ops.kernels.tensor_iterator``)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from hookgrad.ops.kernels import cpu, tensor_iterator
from hookgrad.ops.kernels import sum as kernels

DTYPES = [np.float32, np.float64, np.float16, np.complex64, np.complex128]
TORCH_DTYPES = {
    np.float16: torch.float16,
    np.float32: torch.float32,
    np.float64: torch.float64,
    np.complex64: torch.complex64,
    np.complex128: torch.complex128,
}
SIZES = [1, 7, 15, 16, 17, 31, 32, 33, 64, 100, 1000, 5000, 40000, 100000, 1_000_000]


def _name(dtype) -> str:
    return np.dtype(dtype).name


def _values(rng: np.random.Generator, count: int, dtype) -> torch.Tensor:
    """Random values of mixed magnitudes (so that the order of the additions shows)."""
    spread = 3 if dtype == np.float16 else 6
    values = rng.standard_normal(count) * 10.0 ** rng.integers(-spread, spread + 1, count)
    if np.dtype(dtype).kind == "c":
        imag = rng.standard_normal(count) * 10.0 ** rng.integers(-6, 7, count)
        values = values + 1j * imag
    return torch.from_numpy(values.astype(dtype))


def _tensor(rng: np.random.Generator, shape, dtype) -> torch.Tensor:
    return _values(rng, int(np.prod(shape)), dtype).reshape(shape)


def _layouts(rng: np.random.Generator, shape, dtype):
    """The same shape laid out contiguously, transposed, permuted, sliced with steps, and
    expanded from a size-1 dimension."""
    ndim = len(shape)
    yield "contiguous", _tensor(rng, shape, dtype)
    reverse = tuple(reversed(range(ndim)))
    yield "transposed", _tensor(rng, [shape[d] for d in reverse], dtype).permute(reverse)
    if ndim >= 3:
        order = (1, *range(2, ndim), 0)  # a rotation: neither row- nor column-major
        source = _tensor(rng, [shape[d] for d in order], dtype)
        yield "permuted", source.permute(*np.argsort(order).tolist())
    wide = [size * (2 if d == ndim - 1 else 1) for d, size in enumerate(shape)]
    yield "stepped", _tensor(rng, wide, dtype)[..., ::2]
    yield "expanded", _tensor(rng, [1, *shape[1:]], dtype).expand(*shape)


def _assert_same(got: np.ndarray, expected: torch.Tensor) -> None:
    """Same shape, dtype and bits (signed zeros included; any nan matches any nan)."""
    expected = expected.numpy()
    assert isinstance(got, np.ndarray)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    real = np.dtype(got.dtype.char.lower()) if got.dtype.kind == "c" else got.dtype
    got_parts = np.atleast_1d(got).view(real)
    expected_parts = np.atleast_1d(expected).view(real)
    nan = np.isnan(expected_parts)
    assert np.array_equal(np.isnan(got_parts), nan)
    bits = np.dtype(f"u{real.itemsize}")
    assert np.array_equal(got_parts[~nan].view(bits), expected_parts[~nan].view(bits))


def _check(t: torch.Tensor, dims, keepdim: bool) -> None:
    """Our sum and mean of ``t``'s array (same strides) against torch's."""
    a = t.numpy()
    torch_dims = tuple(range(t.dim())) if dims is None else dims
    _assert_same(kernels.sum(a, dims, keepdim), torch.sum(t, torch_dims, keepdim=keepdim))
    _assert_same(kernels.mean(a, dims, keepdim), torch.mean(t, torch_dims, keepdim=keepdim))


@pytest.fixture(params=[1, 2], ids=["1-thread", "2-threads"])
def threads(request):
    """torch and the kernels with the same intra-op thread count, restored afterwards."""
    saved = torch.get_num_threads(), cpu.num_threads()
    torch.set_num_threads(request.param)
    cpu.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(saved[0])
    cpu.set_num_threads(saved[1])


# ---------------------------------------------------------------- sizes, layouts, dims


@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
@pytest.mark.parametrize("size", SIZES)
def test_sum_and_mean_of_every_size(dtype, size):
    rng = np.random.default_rng(size)
    t = _values(rng, size, dtype)
    _check(t, None, False)
    _check(t, (0,), True)
    if size <= 100000:
        _check(_values(rng, 3 * size, dtype)[::3], None, False)
        _check(t[:1].expand(size), (-1,), False)


@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
@pytest.mark.parametrize(
    "shape", [(3, 5), (16, 17), (33, 40), (7, 300), (3, 4, 5), (17, 9, 33), (2, 3, 4, 5)]
)
def test_every_subset_of_dims_in_every_layout(dtype, shape):
    rng = np.random.default_rng(len(shape) * 1000 + shape[-1])
    ndim = len(shape)
    subsets = [None]
    subsets += [dims for r in range(1, ndim + 1) for dims in itertools.combinations(range(ndim), r)]
    for _, t in _layouts(rng, shape, dtype):
        for dims, keepdim in itertools.product(subsets, (False, True)):
            _check(t, dims, keepdim)


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_large_arrays_in_several_layouts(dtype):
    rng = np.random.default_rng(7)
    t = _tensor(rng, (1000, 1000), dtype)
    for view in (t, t.T, t[:, ::2], t[:1].expand(1000, 1000)):
        for dims in (None, (0,), (1,)):
            _check(view, dims, False)


def test_size_one_dimensions_and_odd_strides():
    rng = np.random.default_rng(3)
    t = _tensor(rng, (5, 1, 7, 1), np.float32)
    odd = torch.as_strided(_values(rng, 400, np.float32), (5, 1, 7, 1), (7, 99, 1, 3))
    for view in (t, t.permute(3, 2, 1, 0), odd):
        for dims in (None, (1,), (1, 3), (0, 1), (2, 3), (0, 2)):
            for keepdim in (False, True):
                _check(view, dims, keepdim)


def test_scalars_empty_arrays_and_dims_spelled_differently():
    rng = np.random.default_rng(4)
    _check(torch.tensor(-0.0), None, False)
    _check(torch.tensor(2.5, dtype=torch.float16), (0,), True)
    _check(torch.zeros(0, 3), None, False)
    _check(torch.zeros(0, 3), (0,), True)
    _check(torch.zeros(4, 0), (0,), False)
    t = _tensor(rng, (6, 7), np.float64)
    _check(t, (-1,), False)
    assert np.array_equal(kernels.sum(t.numpy(), ()), kernels.sum(t.numpy()))
    assert np.array_equal(kernels.sum(t.numpy(), 1), torch.sum(t, 1).numpy())


def test_zeros_and_non_finite_values_come_out_as_torch_gives_them():
    _check(-torch.zeros(40), None, False)  # torch adds into +0.0
    for dtype in DTYPES:
        t = _values(np.random.default_rng(5), 300, dtype)
        t[[3, 77]] = float("inf")
        t[150] = -float("inf") if dtype != np.float64 else float("nan")
        _check(t, None, False)
        _check(t.reshape(20, 15), (1,), False)
    _check(torch.full((70000,), 60000.0, dtype=torch.float16), None, False)  # overflows


def test_bad_arguments_are_refused():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError):
        kernels.sum(a, (0, 0))
    with pytest.raises(ValueError):
        kernels.sum(a, (2,))
    with pytest.raises(TypeError):
        kernels.sum(np.ones(3, np.int64))


# ---------------------------------------------------------------- threads


@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
def test_sizes_around_the_grain_size(threads, dtype):
    rng = np.random.default_rng(threads)
    for size in (32767, 32768, 32769, 65537, 100003):
        t = _values(rng, size, dtype)
        _check(t, None, False)
        _check(_values(rng, 2 * size, dtype)[::2], None, False)
    for shape in ((400, 100), (100, 400), (4681, 7), (7, 4681), (3, 13000)):
        t = _tensor(rng, shape, dtype)
        for view in (t, t.T, _tensor(rng, (shape[0], shape[1] + 3), dtype)[:, : shape[1]]):
            for dims in (None, (0,), (1,)):
                _check(view, dims, False)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex64], ids=_name)
def test_non_contiguous_reductions_split_between_threads(threads, dtype):
    rng = np.random.default_rng(10 + threads)
    for shape in ((40, 30, 50), (7, 100, 60), (33, 33, 33)):
        base = _tensor(rng, (shape[0], shape[1], 2 * shape[2]), dtype)
        front = base[..., : shape[2]]
        views = (base[..., ::2], front.permute(2, 0, 1), front[:1].expand(shape))
        for view in views:
            for dims in (None, (0, 2), (1,), (0, 1), (2,)):
                _check(view, dims, False)


def test_thread_count_changes_torch_bits_and_ours_follow():
    """A 1-D sum above the grain size is split between threads: the bits differ."""
    differing = 0
    for seed in range(8):
        t = _values(np.random.default_rng(seed), 100000, np.float32)
        results = []
        saved = torch.get_num_threads(), cpu.num_threads()
        try:
            for count in (1, 2, 3):
                torch.set_num_threads(count)
                cpu.set_num_threads(count)
                _check(t, None, False)
                results.append(kernels.sum(t.numpy()))
        finally:
            torch.set_num_threads(saved[0])
            cpu.set_num_threads(saved[1])
        differing += len({r.tobytes() for r in results}) > 1
    assert differing >= 2


# ---------------------------------------------------------------- the order itself


def test_sixteen_floats_add_two_vectors_then_the_lanes_in_order():
    x = _values(np.random.default_rng(11), 16, np.float32).numpy()
    total = np.float32(0)
    for lane in range(8):
        total = np.float32(total + np.float32(x[lane] + x[lane + 8]))
    assert kernels.sum(x).tobytes() == total.tobytes()


def test_float16_is_widened_and_summed_in_float32():
    """A contiguous float16 row: each float32 lane adds elements ``k`` and ``k + 8`` of a
    vector of 16 halves, and the result is rounded once."""
    x = _values(np.random.default_rng(12), 16, np.float16).numpy()
    wide = x.astype(np.float32)
    total = np.float32(0)
    for lane in range(8):
        total = np.float32(total + np.float32(wide[lane] + wide[lane + 8]))
    assert kernels.sum(x).tobytes() == np.float16(total).tobytes()


def test_numpy_rounds_differently_on_this_data():
    """The data is order-sensitive: NumPy's pairwise sum misses torch's bits often."""
    rng = np.random.default_rng(13)
    misses = 0
    for _ in range(40):
        t = _values(rng, 1000, np.float32)
        expected = torch.sum(t).numpy()
        assert kernels.sum(t.numpy()).tobytes() == expected.tobytes()
        misses += np.sum(t.numpy()).tobytes() != expected.tobytes()
    assert misses >= 10


def test_long_columns_cascade_in_bigger_chunks():
    """Past 2**19 rows a column's running sums take chunks of 32 rows instead of 16."""
    t = _tensor(np.random.default_rng(16), (600000, 4), np.float32)
    _check(t, (0,), False)


def test_complex_mean_divides_as_c10_does():
    rng = np.random.default_rng(14)
    for count in (3, 7, 10, 333):
        t = _tensor(rng, (count, 40), np.complex64)
        _check(t, (0,), False)


# ---------------------------------------------------------------- iteration geometry


def test_reduction_loop_puts_reduced_dims_first_and_merges_neighbours():
    loop = tensor_iterator.reduction_loop((3, 4), (16, 4), (True, False), False, 4)
    assert (loop.shape, loop.in_strides, loop.out_strides) == ((3, 4), (16, 4), (0, 4))
    assert loop.num_reduced == 1
    everything = tensor_iterator.reduction_loop((3, 4, 5), (80, 20, 4), (True,) * 3, False, 4)
    assert (everything.shape, everything.num_reduced) == ((60,), 1)
    inner = tensor_iterator.reduction_loop((3, 4, 5), (80, 20, 4), (False, True, True), True, 4)
    assert (inner.shape, inner.in_strides, inner.out_strides) == ((20, 3), (4, 80), (0, 4))


def test_iteration_order_breaks_stride_ties_by_size():
    # Equal strides: the larger dimension goes after the smaller one, else no preference.
    assert tensor_iterator.iteration_order((1, 5), [[4, 4]], reduction=False) == [0, 1]
    assert tensor_iterator.iteration_order((5, 1), [[4, 4]], reduction=False) == [1, 0]
    # Broadcast (stride-0) dimensions compare with nothing and stay where they are.
    order = tensor_iterator.iteration_order((6, 5, 4, 3, 2), [[6, 0, 120, 0, 1]], reduction=False)
    assert order == [4, 3, 0, 1, 2]


def test_dense_strides_match_torch_to():
    rng = np.random.default_rng(15)
    base = _tensor(rng, (4, 6, 10), np.float16)
    views = (
        base[:, ::2],
        base.permute(2, 0, 1)[::2],
        base[:1].expand(3, 6, 10),
        base[:, :1].expand(4, 6, 10).transpose(1, 2),
        base[:, 0, :1].expand(4, 7),
        base.permute(1, 2, 0),
    )
    for view in views:
        dense = tensor_iterator.dense_strides(view.shape, view.stride())
        assert dense == view.to(torch.float32).stride()


def test_thread_ranges_and_blocks_cover_the_work_once():
    assert tensor_iterator.thread_ranges(0, 32768, 32768, 2) == [(0, 32768)]
    assert tensor_iterator.thread_ranges(0, 100001, 32768, 2) == [(0, 50001), (50001, 100001)]
    assert tensor_iterator.thread_ranges(0, 40000, 32768, 4) == [(0, 20000), (20000, 40000)]
    shape = (5, 4, 3)
    found = tensor_iterator.blocks(shape, 7, 53)
    covered = sum(b.size0 * b.size1 * b.count for b in found)
    assert covered == 53 - 7
    steps = [(b.size0, b.size1, b.count) for b in found]
    assert steps == [(3, 1, 1), (5, 2, 1), (5, 4, 1), (5, 2, 1), (3, 1, 1)]
    assert [(b.size0, b.size1, b.count) for b in tensor_iterator.blocks(shape, 0, 60)] == [
        (5, 4, 3)
    ]


# ---------------------------------------------------------------- other CPU kernels


def test_avx2_kernels_in_a_subprocess():
    """torch picks its kernels at start-up, so the AVX2 ones need a fresh process."""
    script = textwrap.dedent(
        """
        import numpy as np, torch
        from hookgrad.ops.kernels import sum as kernels
        rng = np.random.default_rng(0)
        mismatches = cases = 0
        for dtype in (np.float32, np.float16, np.complex64):
            for shape in ((100,), (33, 40), (17, 9, 33), (40000,)):
                values = rng.standard_normal(int(np.prod(shape))) * 10.0 ** rng.integers(
                    -3, 4, int(np.prod(shape)))
                t = torch.from_numpy(values.astype(dtype)).reshape(shape)
                for view in (t, t.transpose(0, -1)):
                    for dims in (tuple(range(t.dim())), (0,), (t.dim() - 1,)):
                        for op in ("sum", "mean"):
                            ours = getattr(kernels, op)(view.numpy(), dims)
                            theirs = getattr(torch, op)(view, dims).numpy()
                            cases += 1
                            mismatches += ours.tobytes() != theirs.tobytes()
        print(torch.backends.cpu.get_cpu_capability(), cases, mismatches)
        """
    )
    env = dict(os.environ, ATEN_CPU_CAPABILITY="avx2")
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    capability, cases, mismatches = done.stdout.split()
    assert capability in ("AVX2", "DEFAULT")  # DEFAULT on a CPU without AVX2
    assert int(cases) == 144
    assert int(mismatches) == 0
