"""The report: one self-contained ``index.html`` (PNG figures embedded as base64, the
autograd graph as inline SVG where Graphviz's ``dot`` program exists, else as DOT text)
with a section per view of the training run."""

from __future__ import annotations

import base64
import dataclasses
import html
import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Any

import numpy as np

import hookgrad
from hookgrad import nn, utils
from hookgrad.demo import plots
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

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; }
section { margin-bottom: 2.5em; }
img, svg { max-width: 100%; height: auto; display: block; }
pre { background: #f6f6f6; padding: 1em; overflow: auto; max-height: 40em;
      font-size: 12px; }
table { border-collapse: collapse; }
td, th { border: 1px solid #ccc; padding: 0.3em 0.8em; text-align: left; }
table.trace { font-size: 12px; font-family: monospace; }
.missing { border-left: 4px solid #e0a000; padding-left: 1em; }
"""


def build_report(
    model: nn.Module, data: Dataset, result: TrainingResult, settings: dict[str, Any]
) -> str:
    """The report's HTML for a trained ``model``; ``settings`` (epochs, lr, seed, ...) are
    listed in the summary."""
    relu_names = [name for name, module in model.named_modules() if isinstance(module, nn.ReLU)]
    bodies = {
        "summary": _summary(model, data, result, settings),
        "training": _img(plots.training(result.history, result.epoch_accuracy), "training"),
        "gradients": _img(plots.gradient_norms(result.history), "gradient norms"),
        "activations": _img(plots.activation_stats(result.history), "activation statistics"),
        "dead-relus": _img(plots.dead_relus(result.history, relu_names), "dead ReLUs"),
        "attribution": _attribution(model, data),
        "graph": _graph(model, result),
        "hook-trace": _hook_trace(result.hook_trace),
    }
    sections = "\n".join(
        f'<section id="{key}">\n<h2>{title}</h2>\n<p>{html.escape(about)}</p>\n'
        f"{bodies[key]}\n</section>"
        for key, title, about in SECTIONS
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>hookgrad report</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>hookgrad gradient inspector</h1>\n{sections}\n</body>\n</html>\n"
    )


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
    return _img(png, "attribution maps")


def _one_per_class(labels: np.ndarray, count: int) -> np.ndarray:
    """Indices of up to ``count`` samples, the first of each class before any repeats."""
    _, first = np.unique(labels, return_index=True)
    rest = np.setdiff1d(np.arange(len(labels)), first)
    return np.concatenate([np.sort(first), rest])[:count]


def _graph(model: nn.Module, result: TrainingResult) -> str:
    dot = utils.make_dot(result.first_loss, params=dict(model.named_parameters()))
    svg = _render_svg(dot.source)
    if svg is not None:
        return svg
    return (
        "<p>Graphviz's <code>dot</code> program is not installed, so here is the graph's "
        "DOT source (paste it into any Graphviz viewer):</p>\n"
        f'<pre class="dot">{html.escape(dot.source)}</pre>'
    )


def _render_svg(source: str) -> str | None:
    """The graph as inline SVG, drawn by Graphviz's ``dot`` or, failing that, by the
    ``graphviz-pure`` program the ``demo`` extra installs; None if neither is there."""
    for program in ("dot", "graphviz-pure"):
        path = shutil.which(program, path=_search_path())
        if path is None:
            continue
        # NOTE: Courier's wider metrics keep node labels inside their boxes when the
        # browser draws the SVG with its own monospace font.
        done = subprocess.run(
            [path, "-Tsvg", "-Nfontname=Courier"],
            input=source.encode(),
            capture_output=True,
            timeout=60,
        )
        if done.returncode == 0 and b"<svg" in done.stdout:
            svg = done.stdout.decode("utf-8")
            return svg[svg.index("<svg") :]
    return None


def _search_path() -> str:
    """PATH, after the folder where this Python's packages install their programs: a
    virtual environment's ``bin`` is searched even when it was not activated
    (``.venv/bin/python -m hookgrad.demo``)."""
    folders = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    return os.pathsep.join([*folders, os.environ.get("PATH", "")])


def _hook_trace(trace: Any) -> str:
    """The trace's records as a table, one row per hook firing."""
    rows = [dataclasses.asdict(record) for record in trace.records]
    if not rows:
        return '<p class="missing">No hook fired in the traced step.</p>'
    head = "".join(f"<th>{html.escape(column)}</th>" for column in rows[0])
    body = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(_cell(value))}</td>" for value in row.values())
        + "</tr>"
        for row in rows
    )
    return f'<table class="trace"><tr>{head}</tr>{body}</table>'


def _cell(value: Any) -> str:
    """A trace value as text: shapes as ``(2, 3)``, lists of them comma-separated, dicts
    of them as ``weight (2, 3), bias (2)``."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {_cell(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        if all(isinstance(item, int) for item in value):
            return "(" + ", ".join(map(str, value)) + ")"
        return ", ".join(_cell(item) for item in value)
    return "-" if value is None else str(value)


def _img(png: bytes, alt: str) -> str:
    encoded = base64.b64encode(png).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{encoded}">'
