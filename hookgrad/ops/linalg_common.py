"""What the ``torch.linalg`` nodes (``decompositions.py``, ``factorizations.py``,
``lu.py``) share: the conjugate transpose of tensors (``mH``) and arrays (``mH_array``),
torch's ``double * tensor`` (``times_scalar``), the machine epsilon of an array's real
type, whether torch factors ``A^T``, and ``values * I`` for batches (``diag_matrices``).

Example: ``mH_array(np.array([[1j, 2]]))`` is ``[[-1j], [2]]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad.ops.table import ENTRIES


def mH(x: Any) -> Any:
    """The conjugate transpose of the last two dims (a tensor)."""
    return x.mT.conj() if x.is_complex() else x.mT


def times_scalar(x: Any, number: float) -> Any:
    """``number * x`` as torch's C++ writes it (a ``double`` times a tensor: the Scalar
    overload, ``MulBackward1``)."""
    return x._apply_op(ENTRIES["mul.Scalar"](number))


def real_eps(array: np.ndarray) -> float:
    """The machine epsilon of ``array``'s real type (of its parts, for complex)."""
    return float(np.finfo(array.real.dtype if array.dtype.kind == "c" else array.dtype).eps)


def use_transpose(a: np.ndarray) -> bool:
    """torch factors ``A^T`` when ``A`` is real and C-contiguous (``use_A_T``)."""
    return a.dtype.kind != "c" and a.flags.c_contiguous


def diag_matrices(values: Any, pivots: Any) -> Any:
    """``diag_embed(values.unsqueeze(-1).expand_as(pivots)).mT``: ``values * I``."""
    return values.unsqueeze(-1).expand(*pivots.shape).diag_embed().mT


def mH_array(x: np.ndarray) -> np.ndarray:
    """The conjugate transpose of the last two dims of an array."""
    x = np.swapaxes(x, -1, -2)
    return x.conj() if x.dtype.kind == "c" else x
