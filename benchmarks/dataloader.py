"""DataLoader: one epoch over a 60,000x784 TensorDataset with batch 128 in the main process,
hookgrad vs torch (target: ratio <= 1.2); and an epoch whose samples go through a NumPy
transform that does real work, with 2 worker processes vs none (target: 2 workers faster,
ratio < 1.0; torch's ratio printed beside it). Both libraries run in the same run."""

from __future__ import annotations

import time

import numpy as np

import hookgrad
from benchmarks.common import best_time, report

ROWS, FEATURES, BATCH = 60_000, 784, 128
TRANSFORMED_SAMPLES = 2_048


def epoch(loader) -> None:
    for _ in loader:
        pass


def tensor_dataset_epoch(lib, x: np.ndarray, y: np.ndarray):
    data = lib.utils.data
    loader = data.DataLoader(data.TensorDataset(lib.tensor(x), lib.tensor(y)), batch_size=BATCH)
    return lambda: epoch(loader)


def augment(image: np.ndarray, shift: int) -> np.ndarray:
    """A transform with real work per sample (about half a millisecond): roll, upsample to
    56x56, a few elementwise passes, pool back to 28x28, normalise."""
    out = np.roll(image, shift, axis=1).repeat(2, axis=0).repeat(2, axis=1)
    for _ in range(6):
        out = np.tanh(out * 1.01 + 0.01) + np.sin(out) * 0.1
    out = out.reshape(28, 2, 28, 2).mean(axis=(1, 3))
    return (out - out.mean()) / (out.std() + 1e-6)


def transformed_dataset(lib, images: np.ndarray):
    class Augmented(lib.utils.data.Dataset):
        def __len__(self) -> int:
            return len(images)

        def __getitem__(self, index: int):
            return lib.from_numpy(augment(images[index], index % 5)), index % 10

    return Augmented()


def worker_epoch_times(lib, images: np.ndarray, rounds: int = 4) -> dict[int, float]:
    """The best epoch time with 0 and with 2 workers; the two alternate, round by round,
    so that a change of load on the machine affects both alike."""
    loaders = {
        workers: lib.utils.data.DataLoader(
            transformed_dataset(lib, images), batch_size=BATCH, num_workers=workers
        )
        for workers in (0, 2)
    }
    best = dict.fromkeys(loaders, float("inf"))
    for _ in range(rounds + 1):  # the first round warms up
        for workers, loader in loaders.items():
            start = time.perf_counter()
            epoch(loader)
            best[workers] = min(best[workers], time.perf_counter() - start)
    return best


def main() -> None:
    import torch

    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((ROWS, FEATURES)).astype(np.float32)
    y = rng.integers(0, 10, ROWS)
    results = {}
    for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
        results[name] = best_time(tensor_dataset_epoch(lib, x, y), repeat=5)
    report("DataLoader 60000x784, batch 128", results["hookgrad"], results["torch"], target=1.2)

    images = rng.standard_normal((TRANSFORMED_SAMPLES, 28, 28)).astype(np.float32)
    ratios = {}
    for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
        best = worker_epoch_times(lib, images)
        ratios[name] = best[2] / best[0]
        print(
            f"{'  ' + name + ' transform epoch':<32} 0 workers {best[0] * 1e3:9.1f} ms   "
            f"2 workers {best[2] * 1e3:9.1f} ms"
        )
    verdict = "meets" if ratios["hookgrad"] < 1.0 else "misses"
    print(
        f"{'DataLoader 2 workers / 0 workers':<32} hookgrad {ratios['hookgrad']:5.2f}x   "
        f"torch {ratios['torch']:5.2f}x  ({verdict} target < 1.00x)"
    )


if __name__ == "__main__":
    main()
