"""Synthetic stand-ins for the image datasets, used when their files are missing and the
user asked for them (``HOOKGRAD_SYNTHETIC_DATA=1``, or ``hookgrad-inspect
--synthetic-data``).

The images are deterministic: scikit-learn's handwritten digits (8x8, bundled with
scikit-learn, no download) scaled up and centred as MNIST's are, or, without
scikit-learn, seeded noise around one random pattern per class. The first 1500 samples
are the training split, the other 297 the test split.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["SYNTHETIC_ENV", "TRAIN_SIZE", "color_images", "gray_images", "synthetic_requested"]

SYNTHETIC_ENV = "HOOKGRAD_SYNTHETIC_DATA"
TRAIN_SIZE = 1500
_TOTAL = 1797  # scikit-learn's digits
# One colour per class for the colour images (RGB, 0-255).
_PALETTE = np.array(
    [
        [230, 25, 75],
        [60, 180, 75],
        [255, 225, 25],
        [0, 130, 200],
        [245, 130, 48],
        [145, 30, 180],
        [70, 240, 240],
        [240, 50, 230],
        [210, 245, 60],
        [250, 190, 212],
    ],
    dtype=np.float64,
)


def synthetic_requested() -> bool:
    """Whether the user asked for synthetic data where a dataset's files are missing."""
    return os.environ.get(SYNTHETIC_ENV, "") not in ("", "0")


def gray_images(train: bool, size: int = 28, margin: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """``(images, labels)``: ``uint8`` images ``(N, size, size)``, a digit in the middle
    ``size - 2 * margin`` pixels (MNIST's layout), and ``int64`` labels 0-9.

    Example::

        images, labels = gray_images(train=True)
        images.shape, labels[:3]   # (1500, 28, 28), [0 1 2]
    """
    images, labels = _digits(size - 2 * margin)
    images = np.pad(images, ((0, 0), (margin, margin), (margin, margin)))
    return _split(np.round(images * 255.0).astype(np.uint8), labels, train)


def color_images(train: bool, size: int = 32, margin: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """``(images, labels)``: ``uint8`` images ``(N, size, size, 3)`` (CIFAR-10's layout):
    a digit drawn in its class's colour over seeded dark noise, and ``int64`` labels.

    Example::

        images, labels = color_images(train=False)
        images.shape   # (297, 32, 32, 3)
    """
    digits, labels = _digits(size - 2 * margin)
    ink = np.pad(digits, ((0, 0), (margin, margin), (margin, margin)))[..., None]
    background = np.random.default_rng(10).integers(0, 80, (len(labels), size, size, 3))
    images = ink * _PALETTE[labels][:, None, None, :] + (1.0 - ink) * background
    return _split(np.round(images).astype(np.uint8), labels, train)


def _split(images: np.ndarray, labels: np.ndarray, train: bool) -> tuple[np.ndarray, np.ndarray]:
    if train:
        return images[:TRAIN_SIZE], labels[:TRAIN_SIZE]
    return images[TRAIN_SIZE:], labels[TRAIN_SIZE:]


def _digits(size: int) -> tuple[np.ndarray, np.ndarray]:
    """All digits as float images in [0, 1] of ``size x size``, and their labels."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        return _noise(size)
    digits = load_digits()
    images = digits.images / 16.0
    return _resize(images, size), digits.target.astype(np.int64)


def _noise(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Without scikit-learn: one random pattern per class, blurred by scaling up, with
    seeded noise on each sample."""
    rng = np.random.default_rng(0)
    patterns = _resize((rng.random((10, 6, 6)) > 0.55).astype(np.float64), size)
    labels = np.arange(_TOTAL, dtype=np.int64) % 10
    noise = rng.normal(0.0, 0.15, (_TOTAL, size, size))
    return np.clip(patterns[labels] + noise, 0.0, 1.0), labels


def _resize(images: np.ndarray, size: int) -> np.ndarray:
    """Bilinear resizing of ``(N, h, w)`` images to ``size x size`` (pixel centres)."""
    rows = _weights(images.shape[1], size)
    columns = _weights(images.shape[2], size)
    return np.einsum("ij,njk,lk->nil", rows, images, columns)


def _weights(n_in: int, n_out: int) -> np.ndarray:
    """The ``(n_out, n_in)`` matrix of linear interpolation between pixel centres."""
    centres = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
    low = np.floor(centres).astype(int)
    high = np.minimum(low + 1, n_in - 1)
    frac = centres - low
    weights = np.zeros((n_out, n_in))
    weights[np.arange(n_out), low] += 1.0 - frac
    weights[np.arange(n_out), high] += frac
    return weights
