"""``hookgrad.vision.utils``: ``make_grid`` tiles a batch as torchvision does, and
``save_image`` writes a PNG whose pixels are the grid's, rounded as torchvision rounds."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import hookgrad
from hookgrad.vision.utils import make_grid, save_image, write_png


def read_png(data: bytes) -> np.ndarray:
    """The pixels of an 8-bit, non-interlaced PNG whose rows use filter 0."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        position += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and interlace == 0 and b"IEND" in chunks
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, -1)
    assert not rows[:, 0].any()  # filter type 0 on every row
    return rows[:, 1:].reshape(height, width, channels)


def test_make_grid_tiles_images_with_padding() -> None:
    batch = hookgrad.arange(5 * 2 * 3, dtype=hookgrad.float32).reshape(5, 1, 2, 3)
    grid = make_grid(batch, nrow=2, padding=1, pad_value=-1.0)
    assert tuple(grid.shape) == (3, 3 * 3 + 1, 2 * 4 + 1)  # 1 channel becomes 3
    expected = np.full((3 * 3 + 1, 2 * 4 + 1), -1.0, np.float32)
    for index in range(5):
        row, column = divmod(index, 2)
        top, left = 1 + row * 3, 1 + column * 4
        expected[top : top + 2, left : left + 3] = batch[index, 0].numpy()
    for channel in range(3):
        assert np.array_equal(grid[channel].numpy(), expected)
    assert tuple(make_grid([hookgrad.ones(3, 4, 4)] * 3).shape) == (3, 8, 20)
    assert tuple(make_grid(hookgrad.ones(1, 4, 4)).shape) == (3, 4, 4)  # one image: no padding


def test_make_grid_normalizes_to_the_range() -> None:
    batch = hookgrad.tensor([[[[0.0, 2.0]]], [[[4.0, 8.0]]]])
    grid = make_grid(batch, padding=0, normalize=True)
    assert grid[0].tolist() == [[0.0, 0.25, 0.5, 1.0]]
    each = make_grid(batch, padding=0, normalize=True, scale_each=True)
    assert each[0].tolist() == [[0.0, 1.0, 0.0, 1.0]]
    clipped = make_grid(batch, padding=0, normalize=True, value_range=(0.0, 4.0))
    assert clipped[0].tolist() == [[0.0, 0.5, 1.0, 1.0]]
    assert batch[1, 0, 0, 1].item() == 8.0  # the input is left as it was
    with pytest.raises(TypeError, match="value_range has to be a tuple"):
        make_grid(batch, normalize=True, value_range=[0, 1])
    with pytest.raises(
        TypeError, match="tensor or list of tensors expected, got a list containing"
    ):
        make_grid([hookgrad.ones(1, 2, 2), np.ones((1, 2, 2))])


def test_save_image_writes_the_grids_pixels(tmp_path: Path) -> None:
    hookgrad.manual_seed(0)
    batch = hookgrad.rand(6, 3, 5, 4)
    path = tmp_path / "grid.png"
    save_image(batch, path, nrow=3, padding=1)
    grid = make_grid(batch, nrow=3, padding=1)
    expected = (grid * 255 + 0.5).clamp(0, 255).to(hookgrad.uint8).numpy().transpose(1, 2, 0)
    assert np.array_equal(read_png(path.read_bytes()), expected)


def test_write_png_channels_and_errors(tmp_path: Path) -> None:
    for channels in (1, 2, 3, 4):
        pixels = np.random.default_rng(channels).integers(0, 256, (3, 5, channels)).astype(np.uint8)
        path = tmp_path / f"{channels}.png"
        write_png(pixels, path)
        assert np.array_equal(read_png(path.read_bytes()), pixels)
    with pytest.raises(ValueError, match="write_png needs uint8 pixels"):
        write_png(np.zeros((2, 2, 5), np.uint8), tmp_path / "bad.png")
    with pytest.raises(ValueError, match="needs format="):
        save_image(hookgrad.zeros(1, 2, 2), (tmp_path / "f.png").open("wb"))
