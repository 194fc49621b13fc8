"""The MPI transport under ``hookgrad.distributed``: loading ``mpi4py`` (which starts MPI)
on first use, and the MPI datatype and reduction of each tensor dtype.

Nothing here knows tensors: it works on NumPy dtypes and arrays. ``mpi4py`` is imported
only when a process group is made, so ``import hookgrad`` never starts MPI.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import numpy as np

from hookgrad.distributed.reduce_op import ReduceOp

__all__ = ["available", "datatype", "load", "loaded", "mpi_op"]

_MPI: Any = None


def available() -> bool:
    """Whether ``mpi4py`` is installed (MPI itself is checked when it starts)."""
    return importlib.util.find_spec("mpi4py") is not None


def loaded() -> Any:
    """The ``mpi4py.MPI`` module if MPI was started, else None."""
    return _MPI


def load() -> Any:
    """Start MPI (once per process) and return the ``mpi4py.MPI`` module.

    Raises a RuntimeError naming what to install when ``mpi4py`` or an MPI library is
    missing.
    """
    global _MPI
    if _MPI is not None:
        return _MPI
    if not available():
        raise RuntimeError(
            "hookgrad.distributed needs MPI through mpi4py: pip install mpi4py mpich "
            "(or pip install 'hookgrad[distributed]'; a system Open MPI or MPICH works too)"
        )
    import mpi4py

    # NOTE: MPI_THREAD_MULTIPLE lets a DataLoader thread or a hook on another thread call
    # a collective; mpi4py asks for it by default, stated here so that it stays so.
    mpi4py.rc.thread_level = "multiple"
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise RuntimeError(
            f"mpi4py is installed but could not load an MPI library ({error}); "
            "pip install mpich, or point mpi4py at a system MPI"
        ) from error
    _MPI = MPI
    return MPI


def launched_by_mpi() -> bool:
    """Whether this process was started by an MPI launcher (``mpiexec``/``mpirun``/srun):
    MPICH's Hydra, Open MPI and PMIx set these variables in each process they start."""
    markers = ("PMI_RANK", "PMI_FD", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "MPI_LOCALRANKID")
    return any(name in os.environ for name in markers)


# MPI's name for each NumPy dtype a tensor may have (torch's dtypes that NumPy holds).
_DATATYPES = {
    "float16": "FLOAT16_T",
    "float32": "FLOAT",
    "float64": "DOUBLE",
    "complex64": "C_FLOAT_COMPLEX",
    "complex128": "C_DOUBLE_COMPLEX",
    "int8": "INT8_T",
    "int16": "INT16_T",
    "int32": "INT32_T",
    "int64": "INT64_T",
    "uint8": "UINT8_T",
    "bool": "C_BOOL",
}


_datatype_cache: dict[np.dtype, Any] = {}


def datatype(dtype: np.dtype) -> Any:
    """The MPI datatype of arrays of ``dtype``."""
    found = _datatype_cache.get(dtype)
    if found is not None:
        return found
    name = _DATATYPES.get(np.dtype(dtype).name)
    if name is None:
        raise TypeError(f"hookgrad.distributed: no MPI datatype for {dtype}")
    found = _datatype_cache[np.dtype(dtype)] = getattr(load(), name)
    return found


# The MPI reduction for each ReduceOp; bool tensors reduce logically, as torch's bool
# ``SUM`` (True + True stays True) does.
_OPS: dict[Any, tuple[str, str | None]] = {
    ReduceOp.SUM: ("SUM", "LOR"),
    ReduceOp.AVG: ("SUM", None),
    ReduceOp.PRODUCT: ("PROD", "LAND"),
    ReduceOp.MIN: ("MIN", "LAND"),
    ReduceOp.MAX: ("MAX", "LOR"),
    ReduceOp.BAND: ("BAND", "LAND"),
    ReduceOp.BOR: ("BOR", "LOR"),
    ReduceOp.BXOR: ("BXOR", "LXOR"),
}


def mpi_op(op: Any, dtype: np.dtype, collective: str) -> Any:
    """The MPI operation that reduces arrays of ``dtype`` as ``op`` (a ``ReduceOp``).

    Refuses what torch refuses: ``MIN``/``MAX``/``PRODUCT`` and the bitwise ops on complex
    tensors, the bitwise ops on floating tensors; and ``AVG`` of integer or bool tensors,
    whose mean is not a tensor of their dtype.
    """
    kind = ReduceOp.RedOpType(op) if not isinstance(op, ReduceOp) else op.op
    dtype = np.dtype(dtype)
    if kind not in _OPS:
        raise ValueError(f"{collective}: hookgrad.distributed does not support {kind}")
    if dtype.kind == "c" and not ReduceOp._supports_complex(kind):
        raise ValueError(f"{collective} does not support {kind} on complex tensors")
    if kind in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind in "fc":
        raise ValueError(f"Cannot use {kind} with non-integral dtype")
    if kind is ReduceOp.AVG and dtype.kind not in "fc":
        raise ValueError(
            f"{collective}: cannot use {kind} on {dtype} tensors (their mean is not {dtype})"
        )
    numeric, logical = _OPS[kind]
    name = logical if dtype.kind == "b" and logical is not None else numeric
    return getattr(load(), name)
