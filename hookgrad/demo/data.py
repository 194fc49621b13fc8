"""The demo's data: scikit-learn's digits (1,797 8x8 images shipped inside the package, no
download) or the user's ``--data FILE.npz``; checked, split into train and test, and
standardised with the training set's mean and std."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hookgrad.demo.errors import DemoError

__all__ = ["Dataset", "load_dataset"]

TEST_FRACTION = 0.2
MIN_SIDE = 4  # two 2x2 max-pools need at least 4x4 images


@dataclass
class Dataset:
    """Images of shape ``(N, 1, H, W)`` (float32, standardised) and int64 labels ``0..C-1``."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: int
    source: str

    @property
    def image_shape(self) -> tuple[int, int]:
        """``(H, W)`` of every image."""
        return self.x_train.shape[2], self.x_train.shape[3]


def load_dataset(path: str | None, seed: int, subset: int | None = None) -> Dataset:
    """Load the digits (``path`` None) or ``path`` (an ``.npz`` with ``x`` of shape
    ``(N, H, W)`` or ``(N, 1, H, W)`` and integer labels ``y`` of shape ``(N,)``), keep the
    first ``subset`` samples of a seeded shuffle if given, hold out 20% for testing and
    standardise. Raises :class:`DemoError` naming what is wrong with the file."""
    if path is None:
        x, y, source = _digits()
        label = source
    else:
        x, y = _read_npz(Path(path))
        source, label = str(path), f"--data {path}"
    x, y = _check(x, y, label)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order[:subset]], y[order[:subset]]
    if len(x) < 2:
        raise DemoError(f"{label}: need at least 2 samples, got {len(x)}")
    n_test = max(1, round(len(x) * TEST_FRACTION))
    x_train, x_test = x[n_test:], x[:n_test]
    mean, std = float(x_train.mean()), float(x_train.std())
    scale = std if std > 0 else 1.0
    return Dataset(
        x_train=((x_train - mean) / scale).astype(np.float32),
        y_train=y[n_test:],
        x_test=((x_test - mean) / scale).astype(np.float32),
        y_test=y[:n_test],
        classes=int(y.max()) + 1,
        source=source,
    )


def _digits() -> tuple[np.ndarray, np.ndarray, str]:
    from sklearn.datasets import load_digits

    digits = load_digits()
    return digits.images, digits.target, "scikit-learn digits"


def _read_npz(path: Path) -> tuple[np.ndarray, np.ndarray]:
    if not path.exists():
        raise DemoError(f"--data {path}: no such file")
    if not path.is_file():
        raise DemoError(f"--data {path}: not a file")
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = [key for key in ("x", "y") if key not in archive.files]
            if missing:
                found = ", ".join(archive.files) or "none"
                raise DemoError(
                    f"--data {path}: missing array(s) {', '.join(missing)} (found: {found})"
                )
            return archive["x"], archive["y"]
    except DemoError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise DemoError(f"--data {path}: not a readable .npz file ({error})") from None


def _check(x: np.ndarray, y: np.ndarray, source: str) -> tuple[np.ndarray, np.ndarray]:
    """``x`` as float64 ``(N, 1, H, W)`` and ``y`` as int64 ``(N,)``, or a DemoError whose
    message starts with ``source``."""
    if x.ndim == 4 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim != 3:
        raise DemoError(f"{source}: x must have shape (N, H, W) or (N, 1, H, W), got {x.shape}")
    if y.ndim != 1 or len(y) != len(x):
        raise DemoError(f"{source}: y must have shape ({len(x)},) to match x, got {y.shape}")
    if min(x.shape[1:]) < MIN_SIDE:
        raise DemoError(
            f"{source}: images must be at least {MIN_SIDE}x{MIN_SIDE}, got {x.shape[1:]}"
        )
    if not (np.issubdtype(x.dtype, np.number) and np.isfinite(x).all()):
        raise DemoError(f"{source}: x must hold finite numbers, got dtype {x.dtype}")
    if not np.issubdtype(y.dtype, np.number) or not np.array_equal(y, np.round(y)):
        raise DemoError(f"{source}: y must hold integer class labels, got dtype {y.dtype}")
    if y.min() < 0:
        raise DemoError(f"{source}: class labels must be >= 0, got {y.min()}")
    return x.astype(np.float64)[:, None], y.astype(np.int64)
