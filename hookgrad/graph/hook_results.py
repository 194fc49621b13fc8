"""The checks torch makes on what a gradient hook returned.

Shared by the engine (tensor and node hooks) and ``AccumulateGrad`` (post-accumulate-grad
hooks), so every hook reports a wrong result with the same error.
"""

from __future__ import annotations

from typing import Any

from hookgrad.hooks import hook_name


def check_single_result(hook: Any, original: Any, result: Any) -> None:
    """A hook may return None or a tensor like ``original``, the value it received.

    Example: a hook given a float32 ``[2]`` gradient that returns a float64 one raises
    ``RuntimeError: hook 'h' has changed the type of value (was torch.FloatTensor got
    torch.DoubleTensor)``.
    """
    if result is None:
        return
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not hasattr(result, "_data") or not hasattr(result, "grad_fn"):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if result.dtype != original.dtype:
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has changed the type of value (was "
            f"{_type_string(original.dtype)} got {_type_string(result.dtype)})"
        )
    if result.shape != original.shape:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")


def _type_string(dtype: Any) -> str:
    """torch's legacy type name as its hook errors print it: ``torch.FloatTensor``."""
    name = dtype.type_name
    if dtype.is_complex:
        return name  # NOTE: torch prints e.g. CPUComplexFloatType here, not a Tensor name
    return f"torch.{name[3:-4]}Tensor"
