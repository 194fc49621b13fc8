"""Matrix products as torch's BLAS (Intel MKL) rounds them, where that is known.

torch multiplies matrices with MKL, NumPy with OpenBLAS; both sum each dot product in
their own order, so the last bits differ. MKL's code is closed, but its order can be read
off its results. For a product with one side a vector (``mm`` with a one-column or
one-row operand, ``mv``, ``nn.Linear`` with one output, its weight gradient for one
output) in float32 on an Intel CPU with AVX-512 (where MKL runs its AVX-512 kernels), two
kernels do the work, depending on which dimension of the matrix is contiguous:

- **dot kernel** (the summed dimension is contiguous, ``A @ x`` with ``A`` row-major):
  each output is one dot product, computed four rows at a time. The first term is
  multiplied alone; the rest go through 16-lane vectors with fused multiply-adds, the
  running value in lane 0 of the first vector; the lanes are then halved 16 -> 8 -> 4 ->
  2 -> 1. A tail shorter than 16 starts a new vector with the halved value in lane 0.
  Rows left over after the groups of four use other kernels, and products above 8,192
  multiply-adds are split between threads; those stay with NumPy.
- **axpy kernel** (the output dimension is contiguous, ``x.T @ g``): the output vector
  (up to 15 elements) accumulates one term per step, in order, each step one fused
  multiply-add. With ``T`` threads and at least ``128 * T`` terms, the terms are split
  into ``T`` nearly equal runs (the first ones one longer) whose results are added in
  order.

Everything else (other dtypes, wider products, other CPUs, AVX2's MKL kernels) is
``np.matmul``. ``MKL_ENABLE_INSTRUCTIONS=AVX2`` makes torch's MKL avoid AVX-512; it does
the same here.

Example::

    mm(np.ones((32, 4), np.float32), np.ones((4, 1), np.float32))   # MKL's dot kernel
"""

from __future__ import annotations

import os

import numpy as np

from hookgrad.ops.kernels import cpu
from hookgrad.ops.kernels.fma import fma32

_LANES = 16  # float32 lanes of one AVX-512 register
_ROW_GROUP = 4  # the dot kernel's rows per pass
_SINGLE_THREAD_WORK = 8192  # multiply-adds up to which MKL's dot kernel runs on one thread
_AXPY_WIDTH = 16  # outputs the axpy kernel holds in one masked register
_TERMS_PER_THREAD = 128  # the axpy kernel uses T threads from 128 * T terms on


def emulates_mkl() -> bool:
    """Whether MKL would run the AVX-512 kernels this module reproduces: on an Intel CPU
    with AVX-512, unless ``MKL_ENABLE_INSTRUCTIONS`` asks for less (on other CPUs MKL
    runs other kernels, and NumPy's products are used)."""
    asked = os.environ.get("MKL_ENABLE_INSTRUCTIONS", "").upper()
    if asked and not asked.startswith("AVX512"):
        return False
    return cpu.vendor() == "GenuineIntel" and cpu.avx512_supported()


def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` of two matrices, rounded as MKL does where this module knows how."""
    result = _known_product(a, b)
    return np.matmul(a, b) if result is None else result


def mv(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector``, rounded as MKL does where this module knows how."""
    result = _known_product(matrix, vector[:, None])
    return np.matmul(matrix, vector) if result is None else result[:, 0]


def _known_product(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    if a.ndim != 2 or b.ndim != 2 or a.dtype != np.float32 or b.dtype != np.float32:
        return None
    rows, inner = a.shape
    cols = b.shape[1]
    if inner == 0 or (rows == 1) == (cols == 1) or not emulates_mkl():
        return None
    if cols == 1:
        matrix, vector, transposed = a, b[:, 0], False
    else:
        matrix, vector, transposed = b.T, a[0], True
    if matrix.strides[1] == matrix.itemsize:
        out = _dot_kernel(matrix, vector)
    elif matrix.strides[0] == matrix.itemsize:
        out = _axpy_kernel(matrix, vector)
    else:
        return None
    if out is None:
        return None
    return out[None, :] if transposed else out[:, None]


def _dot_kernel(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray | None:
    """``matrix @ vector`` for a row-major matrix: MKL's four-row dot kernel."""
    rows, inner = matrix.shape
    grouped = rows - rows % _ROW_GROUP
    if grouped == 0 or rows * inner > _SINGLE_THREAD_WORK:
        return None
    terms = matrix[:grouped].T  # (inner, grouped): one row of terms per step
    running = terms[0] * vector[0]
    full_vectors, tail = divmod(inner - 1, _LANES)
    if full_vectors:
        lanes = np.zeros((_LANES, grouped), np.float32)
        lanes[0] = running
        for start in range(1, 1 + full_vectors * _LANES, _LANES):
            stop = start + _LANES
            lanes = fma32(terms[start:stop], vector[start:stop, None], lanes)
        running = _halve(lanes)
    if tail:
        lanes = np.zeros((_LANES, grouped), np.float32)
        lanes[0] = running
        start = inner - tail
        lanes[:tail] = fma32(terms[start:], vector[start:, None], lanes[:tail])
        running = _halve(lanes)
    if grouped == rows:
        return running
    rest = np.matmul(matrix[grouped:], vector)
    return np.concatenate([running, rest])


def _halve(lanes: np.ndarray) -> np.ndarray:
    """The horizontal sum of a register: its halves added until one lane is left."""
    while lanes.shape[0] > 1:
        half = lanes.shape[0] // 2
        lanes = lanes[:half] + lanes[half:]
    return lanes[0]


def _axpy_kernel(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray | None:
    """``matrix @ vector`` for a column-major matrix: MKL's axpy kernel, one term at a
    time, its terms split between threads as MKL splits them."""
    rows, inner = matrix.shape
    if rows >= _AXPY_WIDTH:
        return None
    threads = cpu.num_threads()
    runs = threads if inner >= _TERMS_PER_THREAD * threads else 1
    base, longer = divmod(inner, runs)
    total = None
    start = 0
    for run in range(runs):
        stop = start + base + (run < longer)
        partial = _axpy_run(matrix[:, start:stop], vector[start:stop])
        total = partial if total is None else total + partial
        start = stop
    return total


def _axpy_run(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    accumulator = np.zeros(matrix.shape[0], np.float32)
    columns = np.ascontiguousarray(matrix.T)
    for column, weight in zip(columns, vector):
        accumulator = fma32(column, weight, accumulator)
    return accumulator
