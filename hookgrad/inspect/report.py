"""The inspector's report: the demo's sections, for the model a script trained."""

from __future__ import annotations

import html
from typing import Any

from hookgrad import nn
from hookgrad.demo import page, plots
from hookgrad.inspect.session import Inspection
from hookgrad.tensor import Tensor

__all__ = ["MAX_GRAPH_NODES", "SECTIONS", "build_report"]

# Above this many nodes a graph takes Graphviz minutes to lay out and is unreadable.
MAX_GRAPH_NODES = 2000

# (id, title, what the section shows)
SECTIONS = [
    ("summary", "Summary", "The script, how it ended, and the model it trained."),
    ("training", "Training", "The loss of each recorded step (the loss backward started from)."),
    (
        "gradients",
        "Gradient norms per layer",
        "Recorded by GradientMonitor's parameter-grad hooks and full backward pre-hooks.",
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
    ("per-sample", "Per-example gradients", page.PER_SAMPLE_ABOUT),
    ("graph", "Autograd graph of one step", "make_dot of the first step's loss."),
    (
        "hook-trace",
        "Hook trace of one training step",
        "Every hook that fired during the model's first step, recorded by trace_hooks.",
    ),
]


def build_report(inspection: Inspection, run: dict[str, str]) -> str:
    """The report's HTML; ``run`` (script, arguments, how it ended ...) heads the summary."""
    watched = inspection.model
    bodies = {"summary": _summary(inspection, run)}
    if watched is None:
        nothing = '<p class="missing">No model received gradients: nothing was recorded.</p>'
        bodies.update({key: nothing for key, _, _ in SECTIONS[1:]})
    else:
        history = watched.monitor.history
        model = watched.model
        relus = [name for name, m in model.named_modules() if isinstance(m, nn.ReLU)]
        bodies["training"] = page.img(plots.losses(history), "training loss")
        bodies["gradients"] = page.img(plots.gradient_norms(history), "gradient norms")
        bodies["activations"] = page.img(plots.activation_stats(history), "activation statistics")
        bodies["dead-relus"] = (
            page.img(plots.dead_relus(history, relus), "dead ReLUs")
            if relus
            else '<p class="missing">The model has no ReLU module.</p>'
        )
        bodies["per-sample"] = _per_sample(watched)
        bodies["graph"] = _graph(inspection.first_loss, dict(model.named_parameters()))
        bodies["hook-trace"] = page.hook_trace(inspection.trace)
    sections = [(key, title, about, bodies[key]) for key, title, about in SECTIONS]
    return page.page("hookgrad gradient inspector", sections)


def _per_sample(watched: Any) -> str:
    """The section from the ``PerSampleMonitor`` the session attached to the model
    (``watched.per_sample``; a string says why there is none)."""
    monitor = getattr(watched, "per_sample", None)
    if monitor is None:
        return (
            '<p class="missing">Per-example gradients were not recorded in this run (the '
            "session attaches no PerSampleMonitor to the model).</p>"
        )
    if isinstance(monitor, str):
        return f'<p class="missing">No per-example gradients: {html.escape(monitor)}</p>'
    return page.per_sample(monitor)


def _graph(loss: Tensor | None, named_parameters: dict[str, Any]) -> str:
    if loss is None:
        return '<p class="missing">No backward pass was recorded.</p>'
    nodes = _count_nodes(loss)
    if nodes > MAX_GRAPH_NODES:
        return (
            f'<p class="missing">The first step\'s graph has {nodes:,} nodes, more than '
            f"{MAX_GRAPH_NODES:,}: too many to draw.</p>"
        )
    return page.graph(loss, named_parameters)


def _count_nodes(loss: Tensor) -> int:
    """The number of autograd nodes reachable from ``loss`` (iteratively: graphs of long
    sequences are deep)."""
    seen: set[int] = set()
    stack = [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def _summary(inspection: Inspection, run: dict[str, str]) -> str:
    rows = dict(run)
    watched = inspection.model
    if watched is not None:
        model = watched.model
        rows["model"] = type(model).__name__
        rows["parameters"] = f"{sum(p.numel() for p in model.parameters()):,}"
        rows["steps"] = str(watched.steps)
        rows["updated by"] = "an optimizer" if watched.managed else "hand (no optimizer step)"
        others = [type(w.model).__name__ for w in inspection.watched if w is not watched]
        if others:
            rows["other models called"] = ", ".join(others)
    cells = "".join(
        f"<tr><th>{html.escape(key)}</th><td>{html.escape(value)}</td></tr>"
        for key, value in rows.items()
    )
    model_text = f"<pre>{html.escape(repr(watched.model))}</pre>" if watched else ""
    return f"<table>{cells}</table>\n{model_text}"
