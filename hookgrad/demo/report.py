"""The demo's report: one self-contained ``index.html`` (PNG figures embedded as base64, the
autograd graph as inline SVG where Graphviz's ``dot`` program exists, else as DOT text)
with a section per view of the training run; the generic parts are in ``page``."""

from __future__ import annotations

import html
from typing import Any

import numpy as np

import hookgrad
from hookgrad import nn, utils
from hookgrad.demo import page, plots
from hookgrad.demo.data import Dataset
from hookgrad.demo.train import TrainingResult

__all__ = ["SECTIONS", "build_report"]

ATTRIBUTION_SAMPLES = 6

# (id, title, what the section shows)
SECTIONS = [
    ("summary", "Summary", "The run at a glance."),
    ("training", "Training", "Loss per step and training accuracy per epoch."),
    (
        "gradients",
        "Gradient norms per layer",
        "Recorded by GradientMonitor's parameter-grad hooks and full backward pre-hooks. "
        "Vanishing gradients show as lines falling towards zero, exploding ones as lines "
        "shooting up; an update ratio far from about 1e-3 hints at a learning rate that is "
        "too large or too small.",
    ),
    (
        "activations",
        "Activation statistics",
        "Mean and std of every layer's output, pooled over each step by forward hooks.",
    ),
    (
        "dead-relus",
        "Dead ReLUs",
        "The fraction of ReLU outputs that are exactly zero; a fraction near 1 means units "
        "that no longer learn.",
    ),
    (
        "attribution",
        "Which pixels the predictions depend on",
        "For held-out digits: saliency |d score / d pixel|, guided backpropagation (a "
        "backward hook on every ReLU lets only positive gradients through; red positive, "
        "blue negative) and Grad-CAM on conv2 (forward and backward hooks on the layer).",
    ),
    ("per-sample", "Per-example gradients", page.PER_SAMPLE_ABOUT),
    (
        "graph",
        "Autograd graph of one step",
        "make_dot of the first training step's loss; parameters in blue, nodes and "
        "tensors that carry hooks outlined in red.",
    ),
    (
        "hook-trace",
        "Hook trace of one training step",
        "Every hook that fired during step 0 (forward, backward, optimizer step), recorded "
        "by trace_hooks: mostly GradientMonitor's own hooks; input/output shapes and "
        "whether the hook replaced the value.",
    ),
]


def build_report(
    model: nn.Module, data: Dataset, result: TrainingResult, settings: dict[str, Any]
) -> str:
    """The report's HTML for a trained ``model``; ``settings`` (epochs, lr, seed, ...) are
    listed in the summary."""
    relu_names = [name for name, module in model.named_modules() if isinstance(module, nn.ReLU)]
    bodies = {
        "summary": _summary(model, data, result, settings),
        "training": page.img(plots.training(result.history, result.epoch_accuracy), "training"),
        "gradients": page.img(plots.gradient_norms(result.history), "gradient norms"),
        "activations": page.img(plots.activation_stats(result.history), "activation statistics"),
        "dead-relus": page.img(plots.dead_relus(result.history, relu_names), "dead ReLUs"),
        "attribution": _attribution(model, data),
        "per-sample": page.per_sample(result.per_sample, _largest(data, result)),
        "graph": page.graph(result.first_loss, dict(model.named_parameters())),
        "hook-trace": page.hook_trace(result.hook_trace),
    }
    sections = [(key, title, about, bodies[key]) for key, title, about in SECTIONS]
    return page.page("hookgrad gradient inspector", sections)


def _summary(
    model: nn.Module, data: Dataset, result: TrainingResult, settings: dict[str, Any]
) -> str:
    rows = {
        "held-out accuracy": f"{result.test_accuracy:.2%} ({len(data.x_test)} images)",
        "data": f"{data.source}: {len(data.x_train)} training, {len(data.x_test)} test images "
        f"of {data.image_shape[0]}x{data.image_shape[1]}, {data.classes} classes",
        "parameters": f"{sum(p.numel() for p in model.parameters()):,}",
        "steps": str(len(result.history)),
        **{key: str(value) for key, value in settings.items()},
    }
    cells = "".join(
        f"<tr><th>{html.escape(key)}</th><td>{html.escape(value)}</td></tr>"
        for key, value in rows.items()
    )
    return f"<table>{cells}</table>\n<pre>{html.escape(repr(model))}</pre>"


def _attribution(model: nn.Module, data: Dataset) -> str:
    picks = _one_per_class(data.y_test, ATTRIBUTION_SAMPLES)
    images = data.x_test[picks]
    with hookgrad.no_grad():
        predicted = model(hookgrad.tensor(images)).numpy().argmax(axis=1)
    maps = {
        "saliency": utils.saliency(model, images, target=predicted),
        "guided backprop": utils.guided_backprop(model, images, target=predicted)[:, 0],
        "Grad-CAM": utils.grad_cam(model, model.conv2, images, target=predicted),
    }
    png = plots.attribution_grid(images[:, 0], data.y_test[picks], predicted, maps)
    return page.img(png, "attribution maps")


def _largest(data: Dataset, result: TrainingResult) -> str | None:
    """The training digits with the largest per-example gradients (None: none recorded)."""
    largest = result.per_sample.largest()
    if not largest:
        return None
    images = data.x_train[[index for _, _, index in largest], 0]
    titles = [
        f"#{index} label {data.y_train[index]}\nnorm {norm:.3g} (step {step})"
        for norm, step, index in largest
    ]
    return page.img(plots.largest_examples(images, titles), "largest per-example gradients")


def _one_per_class(labels: np.ndarray, count: int) -> np.ndarray:
    """Indices of up to ``count`` samples, the first of each class before any repeats."""
    _, first = np.unique(labels, return_index=True)
    rest = np.setdiff1d(np.arange(len(labels)), first)
    return np.concatenate([np.sort(first), rest])[:count]
