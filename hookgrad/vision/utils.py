"""``hookgrad.vision.utils``: a batch of images tiled into one grid (``make_grid``) and
written to an image file (``save_image``; PNG by a small writer of its own, other formats
through matplotlib where it is installed)."""

from __future__ import annotations

import math
import os
import struct
import zlib
from typing import Any, BinaryIO

import numpy as np

import hookgrad

__all__ = ["make_grid", "save_image", "write_png"]

_PNG_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> grey, grey+alpha, RGB, RGBA


@hookgrad.no_grad()
def make_grid(
    tensor: hookgrad.Tensor | list[hookgrad.Tensor],
    nrow: int = 8,
    padding: int = 2,
    normalize: bool = False,
    value_range: tuple[float, float] | None = None,
    scale_each: bool = False,
    pad_value: float = 0.0,
) -> hookgrad.Tensor:
    """The images of a batch ``(B, C, H, W)`` (or a list of ``(C, H, W)``) tiled ``nrow``
    to a row, ``padding`` pixels of ``pad_value`` apart, as one image ``(C', H', W')``
    (one-channel images become three). ``normalize`` maps ``value_range`` (default: the
    batch's min and max; with ``scale_each``, each image's) to [0, 1].

    Example::

        grid = make_grid(hookgrad.rand(16, 1, 28, 28), nrow=4)
        grid.shape   # (3, 122, 122)
    """
    if not isinstance(tensor, hookgrad.Tensor):
        if not isinstance(tensor, list):
            raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
        for item in tensor:
            if not isinstance(item, hookgrad.Tensor):
                raise TypeError(
                    f"tensor or list of tensors expected, got a list containing {type(item)}"
                )
        batch = hookgrad.stack(tensor, dim=0)
    else:
        batch = tensor
    if batch.dim() == 2:
        batch = batch.unsqueeze(0)
    if batch.dim() == 3:
        if batch.size(0) == 1:
            batch = hookgrad.cat((batch, batch, batch), 0)
        batch = batch.unsqueeze(0)
    if batch.dim() == 4 and batch.size(1) == 1:
        batch = hookgrad.cat((batch, batch, batch), 1)
    if normalize:
        batch = batch.clone()
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError(
                "value_range has to be a tuple (min, max) if specified. min and max are numbers"
            )
        for image in batch if scale_each else [batch]:
            low, high = (
                value_range if value_range is not None else (float(image.min()), float(image.max()))
            )
            image.clamp_(min=low, max=high)
            image.sub_(low).div_(max(high - low, 1e-5))
    if batch.size(0) == 1:
        return batch.squeeze(0)
    count = batch.size(0)
    columns = min(nrow, count)
    rows = int(math.ceil(float(count) / columns))
    height, width = int(batch.size(2) + padding), int(batch.size(3) + padding)
    grid = batch.new_full(
        (batch.size(1), height * rows + padding, width * columns + padding), pad_value
    )
    for index in range(count):
        row, column = divmod(index, columns)
        cell = grid.narrow(1, row * height + padding, height - padding)
        cell.narrow(2, column * width + padding, width - padding).copy_(batch[index])
    return grid


@hookgrad.no_grad()
def save_image(
    tensor: hookgrad.Tensor | list[hookgrad.Tensor],
    fp: str | os.PathLike | BinaryIO,
    format: str | None = None,
    **kwargs: Any,
) -> None:
    """Writes ``make_grid(tensor, **kwargs)`` (values in [0, 1]) to ``fp``, a path or a
    binary file, as 8-bit pixels. The format is ``format`` or the path's extension: PNG
    is written by ``write_png``; other formats need matplotlib (and its Pillow).

    Example::

        save_image(hookgrad.rand(64, 1, 28, 28), "samples.png")
    """
    grid = make_grid(tensor, **kwargs)
    pixels = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to(hookgrad.uint8).numpy()
    if format is None:
        if not isinstance(fp, (str, os.PathLike)):
            raise ValueError("save_image to a file object needs format= (e.g. format='png')")
        format = os.path.splitext(os.fspath(fp))[1].lstrip(".")
    if format.lower() == "png":
        write_png(pixels, fp)
        return
    try:
        from matplotlib import image as mpl_image
    except ImportError:
        raise ValueError(
            f"save_image writes PNG itself; the format {format!r} needs matplotlib"
        ) from None
    mpl_image.imsave(fp, pixels[:, :, 0] if pixels.shape[2] == 1 else pixels, format=format)


def write_png(pixels: np.ndarray, fp: str | os.PathLike | BinaryIO) -> None:
    """Writes a ``uint8`` array ``(H, W)`` or ``(H, W, C)`` (C = 1 grey, 2 grey+alpha,
    3 RGB, 4 RGBA) as a PNG file to a path or a binary file.

    Example::

        write_png(np.zeros((8, 8, 3), np.uint8), "black.png")
    """
    pixels = np.asarray(pixels)
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] not in _PNG_COLOR_TYPES:
        raise ValueError(
            f"write_png needs uint8 pixels (H, W) or (H, W, 1-4), got {pixels.dtype} "
            f"of shape {pixels.shape}"
        )
    height, width, channels = pixels.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _PNG_COLOR_TYPES[channels], 0, 0, 0)
    rows = np.concatenate(
        [np.zeros((height, 1), np.uint8), pixels.reshape(height, width * channels)], axis=1
    )
    data = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
    data += _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + _chunk(b"IEND", b"")
    if isinstance(fp, (str, os.PathLike)):
        with open(fp, "wb") as file:
            file.write(data)
    else:
        fp.write(data)


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
