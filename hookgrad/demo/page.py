"""The parts of a gradient-inspection report that do not depend on the model or data:
the page around the sections, embedded figures, the autograd graph drawn as inline SVG,
and the hook-trace table. The demo's report and ``hookgrad.inspect`` build on them."""

from __future__ import annotations

import base64
import dataclasses
import html
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from typing import Any

from hookgrad import utils

__all__ = ["PER_SAMPLE_ABOUT", "graph", "hook_trace", "img", "page", "per_sample"]

PER_SAMPLE_ABOUT = (
    "Per-example gradients from per_sample_grads's hooks (a forward hook and a gradient "
    "hook on every layer with parameters, closed forms per layer): the spread of each "
    "layer's per-example gradient norm over training, the examples with the largest "
    "gradients, and the simple gradient noise scale B_simple = tr(Sigma) / |G|^2 "
    "(McCandlish et al. 2018, 'An Empirical Model of Large-Batch Training'), about the "
    "batch size beyond which larger batches stop paying off."
)

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


def page(heading: str, sections: Iterable[tuple[str, str, str, str]]) -> str:
    """A self-contained HTML page: ``heading``, then one ``<section id=key>`` per
    ``(key, title, about, body)``; ``about`` is text, ``body`` is HTML."""
    parts = "\n".join(
        f'<section id="{key}">\n<h2>{html.escape(title)}</h2>\n<p>{html.escape(about)}</p>\n'
        f"{body}\n</section>"
        for key, title, about, body in sections
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>hookgrad report</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(heading)}</h1>\n{parts}\n</body>\n</html>\n"
    )


def img(png: bytes, alt: str) -> str:
    """A PNG embedded as an ``<img>`` (base64 data URL)."""
    encoded = base64.b64encode(png).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{encoded}">'


def graph(loss: Any, named_parameters: dict[str, Any]) -> str:
    """The autograd graph of ``loss`` (``make_dot``, parameters named) as inline SVG, or
    its DOT source where no Graphviz program is installed."""
    dot = utils.make_dot(loss, params=named_parameters)
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
    ``graphviz-pure`` program the ``demo`` extra installs; None if neither is there (or
    both take over a minute)."""
    for program in ("dot", "graphviz-pure"):
        path = shutil.which(program, path=_search_path())
        if path is None:
            continue
        # NOTE: Courier's wider metrics keep node labels inside their boxes when the
        # browser draws the SVG with its own monospace font.
        try:
            done = subprocess.run(
                [path, "-Tsvg", "-Nfontname=Courier"],
                input=source.encode(),
                capture_output=True,
                timeout=60,
            )
        except subprocess.TimeoutExpired:
            continue
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


def per_sample(monitor: Any, largest: str | None = None) -> str:
    """The per-sample section of a ``PerSampleMonitor``'s record: norm and noise-scale
    figures, then ``largest`` (HTML showing the examples) or a table of them."""
    from hookgrad.demo import plots

    history = monitor.history
    if not history:
        return '<p class="missing">No per-example gradients were recorded.</p>'
    layer_norms: dict[str, list[Any]] = {}
    for record in history:
        for name, norms in record.layer_norms.items():
            layer_norms.setdefault(name or "(model)", []).append(norms)
    parts = [
        img(plots.per_example_norms(layer_norms), "per-example gradient norms"),
        img(
            plots.noise_scale(monitor.noise_scale_series(1), monitor.noise_scale_series()),
            "gradient noise scale",
        ),
        f"<p>B_simple over the whole run: {monitor.noise_scale():.4g} examples "
        f"(batch size used: {len(history[-1].norms)}).</p>",
    ]
    if monitor.hooks.skipped:
        skipped = ", ".join(html.escape(name) for name in monitor.hooks.skipped)
        parts.append(f'<p class="missing">Left out (no closed form): {skipped}.</p>')
    if largest is None:
        rows = "".join(
            f"<tr><td>{norm:.4g}</td><td>{step}</td><td>{html.escape(str(name))}</td></tr>"
            for norm, step, name in monitor.largest()
        )
        largest = (
            "<table><tr><th>gradient norm</th><th>step</th><th>example (position in its "
            f"batch)</th></tr>{rows}</table>"
        )
    parts.append(f"<h3>Largest per-example gradients</h3>\n{largest}")
    return "\n".join(parts)


def hook_trace(trace: Any) -> str:
    """A ``HookTrace``'s records as a table, one row per hook firing."""
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
