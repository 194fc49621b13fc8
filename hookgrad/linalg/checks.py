"""What every ``torch.linalg`` function checks first, and what it returns.

``LinAlgError`` (torch's ``torch._C._LinAlgError``, a ``RuntimeError``) is raised for a
numerical failure the data causes (a singular matrix, one that is not positive-definite);
the message names the failing batch element and LAPACK's ``info`` as torch's does.
Wrong arguments raise ``RuntimeError`` with torch's text. The named tuples are torch's
``torch.return_types`` (``linalg_slogdet(sign=..., logabsdet=...)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.tensor import dtypes
from hookgrad.tensor.functions.generated import check_out, write_out
from hookgrad.tensor.named_tuples import ReturnType
from hookgrad.tensor.tensor import Tensor


class _LinAlgError(RuntimeError):
    """Raised by a ``torch.linalg`` function when the input's values make it fail: a
    singular matrix for ``inv`` or ``solve``, one that is not positive-definite for
    ``cholesky``. Example::

        try:
            hookgrad.linalg.inv(hookgrad.zeros(2, 2))
        except hookgrad.linalg.LinAlgError as error:
            print(error)  # linalg.inv: The diagonal element 1 is zero, ...
    """


_LinAlgError.__module__ = "torch._C"
LinAlgError = _LinAlgError


# ---------------------------------------------------------------- argument checks


def check_tensor(value: Any, function: str, name: str, position: int) -> None:
    """torch's TypeError when argument ``name`` (at ``position``) of ``function`` is not a
    tensor."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{function}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


def type_name(tensor: Any) -> str:
    """The legacy type name of ``tensor``'s dtype in torch's messages (``Float``)."""
    return dtypes.legacy_name(tensor.dtype)


def different_dtypes(a: Any, b: Any) -> bool:
    """Whether two tensors have different dtypes."""
    return a._data.dtype != b._data.dtype


def check_floating(tensor: Any, api: str, low_precision: bool = True) -> None:
    """torch's ``checkFloatingOrComplex``: float or complex, not half precision."""
    kind = tensor._data.dtype.kind
    if kind not in "fc":
        raise RuntimeError(
            f"{api}: Expected a floating point or complex tensor as input. Got {type_name(tensor)}"
        )
    if low_precision and tensor._data.dtype.itemsize < 4:
        raise RuntimeError(f"{api}: Low precision dtypes not supported. Got {type_name(tensor)}")


def check_matrix(tensor: Any, api: str, name: str = "A") -> None:
    if tensor.ndim < 2:
        raise RuntimeError(f"{api}: The input tensor {name} must have at least 2 dimensions.")


def check_square(tensor: Any, api: str, name: str = "A") -> None:
    """torch's ``squareCheckInputs``: at least 2-D, the last two dims equal."""
    check_matrix(tensor, api, name)
    rows, cols = tensor._data.shape[-2:]
    if rows != cols:
        raise RuntimeError(
            f"{api}: {name} must be batches of square matrices, but they are {rows} by {cols} "
            "matrices"
        )


def check_same_dtype(a: Any, b: Any, api: str, a_name: str = "A", b_name: str = "B") -> None:
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"{api}: Expected {a_name} and {b_name} to have the same dtype, but found {a_name} "
            f"of type {type_name(a)} and {b_name} of type {type_name(b)} instead"
        )


def raise_for_info(info: np.ndarray, api: str, kind: str) -> None:
    """torch's ``_linalg_check_errors``: raise for the first failing matrix of a batch.

    ``kind`` names the failure: ``inv``, ``solve``, ``cholesky``, ``lu_factor``,
    ``svd``, ``eig``, ``lstsq``.
    """
    info = np.asarray(info)
    if not np.any(info):
        return
    flat = info.reshape(-1)
    index = int(np.flatnonzero(flat)[0])
    code = int(flat[index])
    where = "" if info.ndim == 0 else f": (Batch element {index})"
    if kind == "inv":
        raise LinAlgError(
            f"{api}{where}: The diagonal element {code} is zero, the inversion could not be "
            "completed because the input matrix is singular."
        )
    if kind == "solve":
        raise LinAlgError(f"{api}{where}: The solver failed because the input matrix is singular.")
    if kind == "cholesky":
        raise LinAlgError(
            f"{api}{where}: The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {code} is not positive-definite)."
        )
    if kind == "lu_factor":
        raise RuntimeError(
            f"{api}{where}: U[{code},{code}] is zero and using it on lu_solve would result in a "
            "division by zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )
    if kind == "lstsq":
        raise LinAlgError(
            f"{api}{where}: The least squares solution could not be computed because the input "
            f"matrix does not have full rank (error code: {code})."
        )
    repeated = "singular values" if kind == "svd" else "eigenvalues"
    raise LinAlgError(
        f"{api}{where}: The algorithm failed to converge because the input matrix is "
        f"ill-conditioned or has too many repeated {repeated} (error code: {code})."
    )


def real_dtype(tensor: Any) -> Any:
    """The real dtype of ``tensor``'s (float32 for complex64 ...)."""
    return dtypes.from_numpy_dtype(np.empty(0, tensor._data.dtype).real.dtype)


def requires_grad(*tensors: Any) -> bool:
    """Whether autograd will record an op on ``tensors``."""
    return grad_mode.is_grad_enabled() and any(
        isinstance(t, Tensor) and t.requires_grad for t in tensors
    )


# ---------------------------------------------------------------- out=


def with_out(name: str, inputs: tuple[Any, ...], result: Any, out: Any) -> Any:
    """``result`` written into ``out`` (a tensor, or a tuple matching a tuple result)."""
    if out is None:
        return result
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(
                f"{name}(): argument 'out' must be tuple of Tensors of size {len(result)}"
            )
        for target in out:
            check_out(name, inputs, target)
        written = tuple(write_out(value, target) for value, target in zip(result, out))
        return type(result)(written) if isinstance(result, ReturnType) else written
    check_out(name, inputs, out)
    return write_out(result, out)
