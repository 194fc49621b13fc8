"""``LinearCrossEntropyOptions``: the options of ``linear_cross_entropy``'s chunked path
(torch's ``torch.nn.LinearCrossEntropyOptions``), validated as torch validates them.

torch computes the chunked path a batch chunk at a time, to save memory; hookgrad
computes the loss as ``cross_entropy(linear(input, weight), target)`` whatever the
options say (the same values, rounded as that reference path rounds them).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, NamedTuple

from hookgrad.tensor import dtypes

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


# torch's per-(device, dtype) picks for ``"auto"`` (half precisions only); the fallback.
_AUTO_DEFAULTS = {
    ("cpu", dtypes.float16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")
_ACC_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How ``linear_cross_entropy`` chunks its batch (torch's options; pass
    ``options=None`` for the reference path).

    Fields: ``allow_retain_graph`` (allow a second backward), ``batch_chunk_size`` (rows
    per chunk; None: one chunk), ``chunking_method`` (``"auto"``, ``"aspect_ratio"``,
    ``"aspect_ratio:N"`` or None), ``acc_policy`` (``"accurate"``, ``"balanced"``,
    ``"compact"``, ``"auto"``), ``acc_dtype`` (the accumulation dtype, or None).
    Invalid values raise ``ValueError`` as torch's do. Example::

        F.linear_cross_entropy(x, w, y, options=nn.LinearCrossEntropyOptions(batch_chunk_size=64))
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                "acc_dtype=None to let the op pick automatically."
            )

    def _compute_batch_chunk_size(
        self, num_batches: int, in_features: int, num_classes: int, method: str
    ) -> int:
        """The chunk size the ``aspect_ratio[:N]`` heuristic picks."""
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        target = _ceil_div(num_batches, _ceil_div(num_classes, in_features))
        chunk_size = 1 << (target - 1).bit_length()
        return min(chunk_size // factor, num_batches)

    def _adjust(
        self, num_batches: int, in_features: int, num_classes: int, dtype: Any, device: Any = None
    ) -> LinearCrossEntropyOptions:
        """The options with ``"auto"`` and None resolved for one call (torch's rules;
        ``ValueError`` when ``batch_chunk_size`` and ``chunking_method`` disagree)."""
        acc_policy, chunking_method = self.acc_policy, self.chunking_method
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None
        if acc_policy == "auto" or chunking_method == "auto":
            key = (device.type, dtype) if device is not None else None
            picked = _AUTO_DEFAULTS.get(key, _AUTO_FALLBACK) if key else _AUTO_FALLBACK
            if acc_policy == "auto":
                acc_policy = picked.acc_policy
            if chunking_method == "auto":
                chunking_method = picked.chunking_method
        if self.batch_chunk_size is None:
            batch_chunk_size = num_batches
        else:
            batch_chunk_size = min(self.batch_chunk_size, num_batches)
        if chunking_method is not None:
            batch_chunk_size = self._compute_batch_chunk_size(
                num_batches, in_features, num_classes, chunking_method
            )
            if self.batch_chunk_size is not None and self.batch_chunk_size != batch_chunk_size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                    f"('{chunking_method}') give different chunk sizes "
                    f"({self.batch_chunk_size} vs {batch_chunk_size}); pass only one."
                )
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            half = self.acc_policy == "auto" and dtype is dtypes.float16
            acc_dtype = dtypes.float32 if half else dtype
        return dataclasses.replace(
            self,
            acc_policy=acc_policy,
            chunking_method=chunking_method,
            batch_chunk_size=max(1, batch_chunk_size),
            acc_dtype=acc_dtype,
        )
