"""The report's figures, drawn with matplotlib's Agg canvas (no display needed) and
returned as PNG bytes: training curves, per-layer gradient norms and update ratios,
activation statistics, dead-ReLU fractions and the attribution grid."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "activation_stats",
    "attribution_grid",
    "dead_relus",
    "gradient_norms",
    "largest_examples",
    "noise_scale",
    "per_example_norms",
    "training",
]


def training(history: Sequence[dict[str, Any]], epoch_accuracy: Sequence[float]) -> bytes:
    """Loss per step and training accuracy per epoch, side by side."""
    figure, (loss_axes, acc_axes) = _figure(1, 2, (10, 3.2))
    loss_axes.plot([record["loss"] for record in history], linewidth=0.8)
    loss_axes.set(title="training loss", xlabel="step", yscale="log")
    acc_axes.plot(range(1, len(epoch_accuracy) + 1), epoch_accuracy, marker="o")
    acc_axes.set(title="training accuracy", xlabel="epoch", ylim=(0, 1.02))
    return _png(figure)


def losses(history: Sequence[dict[str, Any]]) -> bytes:
    """The loss of each recorded step (steps without a loss are left out)."""
    figure, (axes,) = _figure(1, 1, (10, 3.2))
    points = [(record["step"], record["loss"]) for record in history if record["loss"]]
    axes.plot([step for step, _ in points], [loss for _, loss in points], linewidth=0.8)
    axes.set(title="training loss", xlabel="step", yscale="log")
    return _png(figure)


def gradient_norms(history: Sequence[dict[str, Any]]) -> bytes:
    """Each parameter's gradient norm, each layer's output-gradient norm and each
    parameter's update ratio over the steps (log scales)."""
    figure, axes = _figure(1, 3, (15, 4.4))
    panels = [
        ("grad_norms", "parameter gradient norm ||dL/dp||"),
        ("output_grad_norms", "layer output-gradient norm ||dL/dy||"),
        ("update_ratios", "update ratio ||dp|| / ||p||"),
    ]
    for ax, (kind, title) in zip(axes, panels):
        for name in _names(history, kind):
            ax.plot(_series(history, kind, name), label=name, linewidth=0.8)
        ax.set(title=title, xlabel="step", yscale="log")
        _legend_below(ax)
    return _png(figure)


def activation_stats(history: Sequence[dict[str, Any]]) -> bytes:
    """Each layer's activation mean and std over the steps."""
    figure, axes = _figure(1, 2, (10, 4.2))
    for ax, stat in zip(axes, ("mean", "std")):
        for name in _names(history, "activations"):
            ax.plot(_series(history, "activations", name, stat), label=name, linewidth=0.8)
        ax.set(title=f"activation {stat}", xlabel="step")
        _legend_below(ax)
    return _png(figure)


def dead_relus(history: Sequence[dict[str, Any]], relu_names: Sequence[str]) -> bytes:
    """The fraction of zero outputs of each ReLU layer over the steps."""
    figure, (ax,) = _figure(1, 1, (7, 3.2))
    for name in relu_names:
        ax.plot(_series(history, "activations", name, "zero_fraction"), label=name)
    ax.set(title="fraction of ReLU outputs that are zero", xlabel="step", ylim=(0, 1))
    ax.legend(fontsize="small")
    return _png(figure)


def attribution_grid(
    images: np.ndarray,
    labels: Sequence[int],
    predicted: Sequence[int],
    maps: dict[str, np.ndarray],
) -> bytes:
    """One row per image: the digit, then each attribution map in ``maps`` (name to
    ``(N, H, W)`` array; Grad-CAM is drawn over the digit)."""
    columns = 1 + len(maps)
    figure, axes = _figure(len(images), columns, (2.0 * columns, 2.0 * len(images)), False)
    axes = np.asarray(axes).reshape(len(images), columns)
    for row, image in enumerate(images):
        axes[row, 0].imshow(image, cmap="gray_r")
        axes[row, 0].set_title(f"label {labels[row]}, predicted {predicted[row]}", fontsize=8)
        for column, (name, values) in enumerate(maps.items(), start=1):
            ax = axes[row, column]
            if name == "Grad-CAM":
                ax.imshow(image, cmap="gray_r")
                ax.imshow(values[row], cmap="jet", alpha=0.5, vmin=0, vmax=1)
            elif name == "guided backprop":
                limit = float(np.abs(values[row]).max()) or 1.0
                ax.imshow(values[row], cmap="bwr", vmin=-limit, vmax=limit)
            else:
                ax.imshow(values[row], cmap="hot")
            ax.set_title(name, fontsize=8)
    for ax in axes.flat:
        ax.set_xticks([])
        ax.set_yticks([])
    return _png(figure)


def per_example_norms(layer_norms: dict[str, list[np.ndarray]]) -> bytes:
    """For each layer (name to one array of per-example gradient norms per step): the
    median over each step's examples, the band from the 10th to the 90th percentile, and
    the largest (log scale)."""
    columns = min(3, max(1, len(layer_norms)))
    rows = math.ceil(len(layer_norms) / columns)
    figure, axes = _figure(rows, columns, (5.0 * columns, 3.0 * rows), False)
    for ax, (name, steps) in zip(np.asarray(axes).flat, layer_norms.items()):
        low, median, high = np.array([np.percentile(norms, [10, 50, 90]) for norms in steps]).T
        x = np.arange(len(steps))
        ax.fill_between(x, low, high, alpha=0.3, label="10-90%")
        ax.plot(x, median, linewidth=0.9, label="median")
        ax.plot(x, [norms.max() for norms in steps], linewidth=0.6, label="largest")
        ax.set(title=f"{name}: per-example gradient norm", xlabel="step", yscale="log")
        ax.legend(fontsize="x-small")
    for ax in list(np.asarray(axes).flat)[len(layer_norms) :]:
        ax.set_axis_off()
    return _png(figure)


def noise_scale(per_step: Sequence[float], smoothed: Sequence[float]) -> bytes:
    """The simple gradient noise scale: each step's estimate (points, where positive) and
    the estimate over a window of steps (line)."""
    figure, (ax,) = _figure(1, 1, (8, 3.2))
    steps = np.arange(len(per_step))
    values = np.asarray(per_step, dtype=np.float64)
    positive = np.isfinite(values) & (values > 0)
    ax.scatter(steps[positive], values[positive], s=4, alpha=0.4, label="one step")
    line = np.asarray(smoothed, dtype=np.float64)
    line = np.where(np.isfinite(line) & (line > 0), line, np.nan)
    ax.plot(steps, line, linewidth=1.2, color="C1", label="over the last steps")
    ax.set(title="gradient noise scale B_simple = tr(Sigma) / |G|^2", xlabel="step", yscale="log")
    ax.legend(fontsize="x-small")
    return _png(figure)


def largest_examples(images: np.ndarray, titles: Sequence[str]) -> bytes:
    """The training examples with the largest per-example gradients, one titled image
    each, in a row."""
    figure, axes = _figure(1, len(images), (1.8 * len(images), 2.2), False)
    for ax, image, title in zip(np.asarray(axes).flat, images, titles):
        ax.imshow(image, cmap="gray_r")
        ax.set_title(title, fontsize=7)
        ax.set_xticks([])
        ax.set_yticks([])
    return _png(figure)


def _figure(rows: int, columns: int, size: tuple[float, float], squeeze: bool = True) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False)
    return figure, (axes.flat if squeeze else axes)


def _legend_below(ax: Any) -> None:
    """A legend under the axes, so it never hides a line."""
    ax.legend(fontsize="x-small", ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.2))


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    return buffer.getvalue()


def _names(history: Sequence[dict[str, Any]], kind: str) -> list[str]:
    return list(dict.fromkeys(name for record in history for name in record[kind]))


def _series(
    history: Sequence[dict[str, Any]], kind: str, name: str, stat: str | None = None
) -> list[float]:
    values = []
    for record in history:
        value = record[kind].get(name, math.nan)
        values.append(value[stat] if stat is not None and isinstance(value, dict) else value)
    return values
