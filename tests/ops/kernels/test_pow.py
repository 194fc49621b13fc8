"""torch's CPU ``pow`` (``hookgrad.ops.kernels.pow``, Sleef's pow in ``sleef``) against
torch itself, bit for bit: every size around the vector width and the thread split, many
exponents, special values, tensor exponents, a number base, strided layouts, one and two
threads, and torch's AVX2 and portable kernels in fresh processes."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from hookgrad.ops.kernels import cpu
from hookgrad.ops.kernels.pow import pow_scalar_tensor, pow_tensor_scalar, pow_tensor_tensor
from hookgrad.ops.kernels.sleef import powd_u10, powf_u10

SIZES = (1, 7, 31, 32, 33, 100, 1000, 40000, 100000)
EXPONENTS = (2, 3, 4, 5, -2, -3, 1.5, 2.5, -0.5, -1, 1.7, -2.3, 1 / 3, 10, 30, 0, 1)
SPECIALS = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, np.inf, -np.inf, np.nan)
SPECIALS += (1e-45, 1e-40, 3.4e38, 16777216.0, 16777217.0, 2.0**31, -(2.0**24), 5e-324, 1e308)


def assert_same(ours: np.ndarray, theirs: torch.Tensor) -> None:
    """Same shape, dtype and bits (any NaN matches any NaN)."""
    expected = theirs.numpy()
    assert ours.shape == expected.shape and ours.dtype == expected.dtype
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[ours.dtype.itemsize]
    same_bits = np.ascontiguousarray(ours).view(bits) == np.ascontiguousarray(expected).view(bits)
    both_nan = np.isnan(ours) & np.isnan(expected)
    mismatches = np.argwhere(~(same_bits | both_nan))
    assert mismatches.size == 0, f"{len(mismatches)} differ, first at {mismatches[:5].tolist()}"


@contextlib.contextmanager
def threads(count: int):
    """Both libraries on ``count`` intra-op threads, restored afterwards."""
    before = (torch.get_num_threads(), cpu.num_threads())
    torch.set_num_threads(count)
    cpu.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before[0])
        cpu.set_num_threads(before[1])


def bases(rng: np.random.Generator, size: int, dtype: type) -> np.ndarray:
    """Magnitudes over several decades, a few negatives, zeros and ones."""
    values = rng.random(size) * 10.0 ** rng.integers(-3, 3, size)
    values[rng.random(size) < 0.05] *= -1
    values[rng.random(size) < 0.02] = 0
    values[rng.random(size) < 0.02] = 1
    return values.astype(dtype)


# ---------------------------------------------------------------- a number exponent


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", SIZES)
def test_number_exponent(dtype, size):
    x = bases(np.random.default_rng(size), size, dtype)
    # Sleef's float64 emulation is slow: the largest sizes get fewer exponents.
    exponents = EXPONENTS if size * np.dtype(dtype).itemsize <= 8000 else (4, 1.7, 1 / 3, -3)
    for exponent in exponents:
        assert_same(pow_tensor_scalar(x, exponent), torch.from_numpy(x) ** exponent)


def test_float32_vector_lanes_and_tail_see_the_exponent_differently():
    """1/3 is a float32 in the vector lanes and a double in the scalar tail."""
    x = np.linspace(1.1, 9.7, 40, dtype=np.float32)
    ours = pow_tensor_scalar(x, 1 / 3)
    assert_same(ours, torch.from_numpy(x) ** (1 / 3))
    lanes = 2 * cpu.vector_bytes() // 4
    assert np.array_equal(ours[:lanes], powf_u10(x[:lanes], np.float32(1 / 3)))
    assert np.any(ours[lanes:] != powf_u10(x[lanes:], np.float32(1 / 3)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_square_root_is_correctly_rounded_where_torch_uses_mkl(dtype):
    """torch's ``x ** 0.5`` is MKL's square root, which rounds some results one ulp low;
    ours is correctly rounded, and NaNs (positive, as MKL's) agree."""
    x = bases(np.random.default_rng(5), 20000, dtype)
    x[:4] = [-1, -np.inf, np.nan, -0.0]
    ours = pow_tensor_scalar(x, 0.5)
    theirs = (torch.from_numpy(x) ** 0.5).numpy()
    assert np.array_equal(ours, np.sqrt(np.abs(x)) * np.where(x < 0, np.nan, 1), equal_nan=True)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    nan = np.isnan(theirs)
    assert np.array_equal(ours[nan].view(bits), theirs[nan].view(bits))
    low = ours[~nan] != theirs[~nan]
    assert np.array_equal(theirs[~nan][low], np.nextafter(ours[~nan][low], dtype(0)))
    assert low.mean() < 0.02


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(dtype):
    with np.errstate(over="ignore"):
        x = np.array(SPECIALS, dtype)
        exponents = np.array(SPECIALS, dtype)
    # 0.5 is torch's MKL square root (test_square_root_is_correctly_rounded_where_...).
    others = [e for e in SPECIALS if e != 0.5]
    for exponent in (*others, *EXPONENTS, 0.5001, -7, 1e10, -1e10, 127.5, -149.5):
        tiled = np.tile(x, 5)  # vector lanes and a tail
        assert_same(pow_tensor_scalar(tiled, exponent), torch.from_numpy(tiled) ** exponent)
    grid_x, grid_y = (a.ravel() for a in np.meshgrid(x, exponents))
    expected = torch.pow(torch.from_numpy(grid_x), torch.from_numpy(grid_y))
    assert_same(pow_tensor_tensor(grid_x, grid_y), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_overflow_underflow_and_subnormal_results(dtype):
    rng = np.random.default_rng(3)
    limit = 100.0 if dtype == np.float32 else 800.0
    x = rng.uniform(0.05, 20, 4096).astype(dtype)
    y = (rng.uniform(-limit, limit, 4096) / np.log(x.astype(np.float64))).astype(dtype)
    assert_same(pow_tensor_tensor(x, y), torch.pow(torch.from_numpy(x), torch.from_numpy(y)))
    tiny = (rng.random(1024) * np.finfo(dtype).tiny).astype(dtype)  # subnormal bases
    assert_same(pow_tensor_scalar(tiny, 0.7), torch.from_numpy(tiny) ** 0.7)


def test_float16_through_float32():
    """float16 rounds a number exponent to float16 and computes in float32; every
    float16 value, every special exponent included (torch's Half has no shortcuts)."""
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    for exponent in (0.5, -0.5, -1, 2, 3, -2, 1.7, 2.2, 0, 1):
        assert_same(pow_tensor_scalar(x, exponent), torch.from_numpy(x) ** exponent)
    y = np.random.default_rng(0).permutation(x)
    assert_same(pow_tensor_tensor(x, y), torch.pow(torch.from_numpy(x), torch.from_numpy(y)))


# ---------------------------------------------------------------- a tensor exponent or base


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [1, 31, 32, 33, 1000, 40001])
def test_tensor_exponent(dtype, size):
    rng = np.random.default_rng(size)
    x = bases(rng, size, dtype)
    y = rng.uniform(-6, 6, size).astype(dtype)
    integer = rng.random(size) < 0.2
    y[integer] = np.round(y[integer])
    expected = torch.pow(torch.from_numpy(x), torch.from_numpy(y))
    assert_same(pow_tensor_tensor(x, y), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_number_base(dtype):
    y = np.random.default_rng(1).uniform(-40, 40, 1000).astype(dtype)
    y[:3] = [np.nan, np.inf, -np.inf]
    for base in (2.0, 0.5, 10, -2.0, 0.0, 1.0, 1.0000001):
        assert_same(pow_scalar_tensor(base, y), torch.pow(base, torch.from_numpy(y)))


def test_exponent_of_another_dtype_is_cast():
    x = np.linspace(0.5, 3, 100, dtype=np.float32)
    y = np.linspace(-3, 3, 100)  # float64, cast to float32 as torch casts it
    assert_same(
        pow_tensor_tensor(x, y), torch.pow(torch.from_numpy(x), torch.from_numpy(y).float())
    )


# ---------------------------------------------------------------- layouts and threads


def _views(a):
    """Strided views, the same for a NumPy array and a torch tensor."""
    expand = (lambda v, shape: v.expand(*shape)) if torch.is_tensor(a) else np.broadcast_to
    permute = (lambda v, *dims: v.permute(*dims)) if torch.is_tensor(a) else np.transpose
    rows, cols = a.shape
    return {
        "contiguous": a,
        "transposed": a.T,
        "column slice": a[:, : cols - 5],
        "every other row": a[::2],
        "every other column": a[:, ::2],
        "expanded row": expand(a[:1], (rows, cols)),
        "expanded column": expand(a[:, :1], (rows, cols)),
        "3-d permuted": permute(a.reshape(3, rows // 3, cols), (2, 0, 1)),
    }


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(12, 45), (60, 700)])
def test_layouts(dtype, shape):
    rng = np.random.default_rng(2)
    a = rng.uniform(0, 3, shape).astype(dtype)
    b = rng.uniform(-2, 2, shape).astype(dtype)
    views_a = _views(a)
    views_ta = _views(torch.from_numpy(a))
    views_b = _views(b)
    views_tb = _views(torch.from_numpy(b))
    for name, view in views_a.items():
        t = views_ta[name]
        assert view.strides == tuple(s * a.itemsize for s in t.stride()), name
        ours = pow_tensor_scalar(view, 1.7)
        assert_same(ours, t**1.7)
        assert ours.strides == tuple(s * a.itemsize for s in (t**1.7).stride()), name
        assert_same(pow_scalar_tensor(2.5, view), torch.pow(2.5, t))
        for other, exponent in views_b.items():
            if exponent.shape == view.shape:
                assert_same(pow_tensor_tensor(view, exponent), torch.pow(t, views_tb[other]))
    row, column = b[0], b[:, :1]
    for x, y in ((row, a), (a, row), (column, row), (a, column), (a, b[0, 0])):
        expected = torch.pow(torch.from_numpy(np.asarray(x)), torch.from_numpy(np.asarray(y)))
        assert_same(pow_tensor_tensor(x, y), expected)


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_threads_split_the_walk(count, dtype):
    """Past 32768 elements each thread's piece ends in its own scalar tail."""
    rng = np.random.default_rng(count)
    with threads(count):
        for size in (32768, 40001, 65537) if dtype == np.float32 else (40001,):
            x = bases(rng, size, dtype)
            assert_same(pow_tensor_scalar(x, 1.7), torch.from_numpy(x) ** 1.7)
            y = rng.uniform(-3, 3, size).astype(dtype)
            expected = torch.pow(torch.from_numpy(x), torch.from_numpy(y))
            assert_same(pow_tensor_tensor(x, y), expected)
        wide = bases(rng, 40000 * 3, np.float32).reshape(3, 40000)[:, :39999]
        assert_same(pow_tensor_scalar(wide, 2.5), torch.from_numpy(wide) ** 2.5)


# ---------------------------------------------------------------- Sleef and other kernels


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sleef_pow_on_random_bits(dtype):
    """Any two numbers (all lanes vector: a multiple of 32 elements)."""
    rng = np.random.default_rng(4)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    x, y = (rng.integers(0, np.iinfo(bits).max, 3200, dtype=bits).view(dtype) for _ in "xy")
    ours = (powf_u10 if dtype == np.float32 else powd_u10)(x, y)
    assert_same(ours, torch.pow(torch.from_numpy(x), torch.from_numpy(y)))


def test_python_fallback_for_the_c_library():
    """Where no C library loads, Python's pow stands in, with C's NaNs and infinities."""
    from hookgrad.ops.kernels.pow import _libm, _python_pow

    c_pow = _libm()[0]
    cases = [(2.0, 10.0), (-8.0, 1 / 3), (-10.0, 401.0), (-10.0, 400.0), (1e300, 2.0)]
    cases += [(-0.5, -2001.0), (0.0, -1.0), (-0.0, -3.0), (np.inf, -2.0), (np.nan, 0.0)]
    for x, y in cases:
        ours, theirs = _python_pow(x, y), c_pow(x, y)
        assert ours == theirs or (np.isnan(ours) and np.isnan(theirs)), (x, y)
        assert np.signbit(ours) == np.signbit(theirs) or np.isnan(ours), (x, y)


def test_float32_fused_multiply_add_at_a_midpoint():
    """Sleef's float32 fused steps go through float64; where the float64 sum rounds onto a
    float32 midpoint (here 1 + 2**-23 + 2**-24 - 2**-70), they are redone exactly."""
    from hookgrad.ops.kernels.sleef import _fma

    a = np.float32([2**-12 * (1 + 2**-23)])
    b = np.float32([2**-12 * (1 - 2**-23)])
    c = np.float32([1 + 2**-23])
    assert _fma(a, b, c)[0] == np.float32(1 + 2**-23)
    assert (a.astype(np.float64) * b + c).astype(np.float32)[0] == np.float32(1 + 2**-22)


def test_unsupported_dtype():
    with pytest.raises(TypeError):
        pow_tensor_scalar(np.arange(4), 2.5)


_SUBPROCESS_CHECK = textwrap.dedent(
    """
    import numpy as np, torch
    from hookgrad.ops.kernels.pow import pow_tensor_scalar, pow_tensor_tensor
    rng = np.random.default_rng(0)
    cases = mismatches = 0
    for dtype in (np.float32, np.float64):
        for size in (15, 16, 17, 31, 33, 100, 40001):
            x = (rng.random(size) * 4).astype(dtype)
            y = (rng.random(size) * 6 - 3).astype(dtype)
            tx, ty = torch.from_numpy(x), torch.from_numpy(y)
            pairs = [(pow_tensor_scalar(x, e), tx ** e) for e in (1.7, 1 / 3)]
            pairs.append((pow_tensor_tensor(x, y), torch.pow(tx, ty)))
            for ours, theirs in pairs:
                cases += 1
                mismatches += ours.tobytes() != theirs.numpy().tobytes()
    print(torch.backends.cpu.get_cpu_capability(), cases, mismatches)
    """
)


def test_avx2_and_portable_kernels_in_subprocesses():
    """torch picks its kernels at start-up: AVX2 (16 float32 per loop step) and the
    portable ones (the C library in every lane) need fresh processes, run side by side."""
    runs = {
        capability: subprocess.Popen(
            [sys.executable, "-c", _SUBPROCESS_CHECK],
            env=dict(os.environ, ATEN_CPU_CAPABILITY=capability),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for capability in ("avx2", "default")
    }
    for capability, run in runs.items():
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        chosen, cases, mismatches = out.split()
        assert chosen in (capability.upper(), "DEFAULT")  # DEFAULT on a CPU without AVX2
        assert (int(cases), int(mismatches)) == (42, 0)
