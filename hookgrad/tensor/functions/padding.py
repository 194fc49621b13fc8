"""``pad`` (torch's ``nn.functional.pad``): constant, reflect, replicate and circular
padding of the last dims, with torch's checks of the pad sizes and modes.

Example: ``pad(hookgrad.ones(2), (1, 1))`` is ``tensor([0., 1., 1., 0.])``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hookgrad.ops import padding
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.arguments import (
    int_tuple,
)

# ---------------------------------------------------------------- padding


_PAD_COMBINATIONS = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input: Any, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Any:
    """Pad ``input`` as ``torch.nn.functional.pad``.

    ``pad`` lists ``(before, after)`` pairs starting from the last dim; negative values
    crop. ``mode`` is ``"constant"`` (fill with ``value``, default 0), ``"reflect"``,
    ``"replicate"`` or ``"circular"``; the last three pad the last 1-3 dims of a
    (batch of) (channel-first) input. Example::

        pad(x, (1, 1))                     # one zero on each side of the last dim
        pad(img, (2, 2, 2, 2), "reflect")  # img: (N, C, H, W)
    """
    pad = int_tuple(pad, "pad", "pad")
    shape = input._data.shape
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > len(shape):
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {len(shape)}"
        )
    pairs = [(len(shape) - 1 - k, pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)]
    if mode == "constant":
        for dim, before, after in pairs:
            if shape[dim] + before + after < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
        return apply(padding.ConstantPad(pad, 0 if value is None else value), input)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if len(pairs) not in (1, 2, 3) or len(shape) not in (len(pairs) + 1, len(pairs) + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {len(shape)}D input tensor.\n"
            + _PAD_COMBINATIONS
        )
    for k, (dim, before, after) in enumerate(pairs):
        _check_pad(mode, shape, k, dim, before, after, one_dim=len(pairs) == 1)
    if mode == "circular":
        return padding.pad_circular(input, pad)
    return apply(padding.IndexPad(mode, pad), input)


def _check_pad(
    mode: str, shape: tuple[int, ...], k: int, dim: int, before: int, after: int, one_dim: bool
) -> None:
    """torch's checks of one padded dim (``k`` counts from the last dim)."""
    size = shape[dim]
    out = size + before + after
    if mode == "circular":
        # torch wraps around what is left after cropping.
        kept = size + min(before, 0) + min(after, 0)
        if max(before, after) > max(kept, 0):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        return
    if mode == "reflect" and (before >= size or after >= size):
        raise RuntimeError(
            f"Argument #{2 * k + 4}: Padding size should be less than the corresponding input "
            f"dimension, but got: padding ({before}, {after}) at dimension {dim} of input "
            f"{list(shape)}"
        )
    if one_dim and out < 1:
        raise RuntimeError(f"input (W: {size}) is too small. Calculated output W: {out}")
    if out < 0:
        new = list(shape)
        new[dim] = out
        raise RuntimeError(f"Trying to create tensor with negative dimension {out}: {new}")
