"""``hookgrad.utils.monitor``: :class:`GradientMonitor`, per-step statistics of a model's
activations, gradients and parameter updates, gathered with module hooks only.

It shows the things that go wrong in training: vanishing or exploding gradients (gradient
norms per layer), dead ReLUs (the fraction of zero activations), saturated or drifting
activations (mean and std), and a learning rate that is too large or too small (the update
ratio ``||delta p|| / ||p||``, healthy around 1e-3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.hooks import RemovableHandle
from hookgrad.tensor import Tensor

__all__ = ["GradientMonitor"]

STAT_KINDS = ("activations", "output_grad_norms", "grad_norms", "update_ratios")


@dataclass
class _ActivationSums:
    """Running sums over every element of a layer's outputs during one step."""

    count: int = 0
    total: float = 0.0
    squares: float = 0.0
    zeros: int = 0

    def add(self, values: np.ndarray) -> None:
        values = values.astype(np.float64, copy=False)
        self.count += values.size
        self.total += float(values.sum())
        self.squares += float(np.square(values).sum())
        self.zeros += int(np.count_nonzero(values == 0))

    def summary(self) -> dict[str, float]:
        mean = self.total / self.count
        variance = max(self.squares / self.count - mean * mean, 0.0)
        return {"mean": mean, "std": math.sqrt(variance), "zero_fraction": self.zeros / self.count}


class GradientMonitor:
    """Record, per training step, what flows through every layer of ``model``.

    Hooks attached (all through the public module hook API):

    * a forward hook and a full backward pre-hook (it sees ``grad_output``; unlike a full
      backward hook it needs no input that requires grad) on every leaf module (a module
      without children), named by its path in ``model.named_modules()`` (the class name
      for a model that is itself a leaf);
    * a parameter-grad hook on every module that owns parameters, named as in
      ``model.named_parameters()`` (a shared parameter is reported once).

    Call :meth:`step` once per training step, after ``optimizer.step()``; it closes the
    step and appends one record to :attr:`history`, a list of dicts of plain floats::

        {
            "step": 0,                      # index in history
            "loss": 0.71,                   # what step(loss=...) got, else None
            "activations": {"0": {"mean": ..., "std": ..., "zero_fraction": ...}, ...},
            "output_grad_norms": {"0": ..., ...},   # ||d loss / d layer output||
            "grad_norms": {"0.weight": ..., ...},   # ||gradient of the step||
            "update_ratios": {"0.weight": ..., ...},  # ||p_after - p_before|| / ||p_before||
        }

    Activation statistics pool every element of a leaf module's tensor output over all
    calls made in the step with grad enabled (calls under ``no_grad``, such as evaluation,
    are skipped); ``std`` is the population std (``ddof=0``); ``zero_fraction`` of a ReLU
    output is its dead-ReLU fraction. A layer's output-gradient norm is the 2-norm of all
    its output gradients of the step together. A parameter's gradient norm is the norm of
    the sum of its gradients of the step (what ``.grad`` gained); its update ratio compares
    its value at :meth:`step` with its value when its first gradient of the step arrived
    (``before`` is 0 gives ``inf``, no change gives 0). Layers or parameters that saw
    nothing in a step are absent from that step's record.

    :meth:`remove` detaches every hook; used as a context manager the monitor removes
    them on exit. Example::

        with GradientMonitor(model) as monitor:
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                monitor.step(loss=loss.item())
        print(monitor.series("grad_norms", "0.weight"))
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.history: list[dict[str, Any]] = []
        self._handles: list[RemovableHandle] = []
        self._parameter_names: dict[int, str] = {
            id(param): name for name, param in model.named_parameters()
        }
        self._parameters = dict(model.named_parameters())
        self._reset_step()
        for path, module in model.named_modules():
            if next(module.children(), None) is None:
                self._watch_layer(path or type(module).__name__, module)
            if next(module.parameters(recurse=False), None) is not None:
                self._watch_parameters(module)

    # -- hooks ----------------------------------------------------------------------------
    def _watch_layer(self, name: str, module: Any) -> None:
        def forward_hook(module: Any, args: tuple[Any, ...], output: Any) -> None:
            if isinstance(output, Tensor) and grad_mode.is_grad_enabled():
                sums = self._activations.setdefault(name, _ActivationSums())
                sums.add(output.detach().numpy())

        def backward_pre_hook(module: Any, grad_output: Any) -> None:
            squares = sum(_squared_norm(g) for g in grad_output if isinstance(g, Tensor))
            self._output_grad_squares[name] = self._output_grad_squares.get(name, 0.0) + squares

        self._handles.append(module.register_forward_hook(forward_hook))
        self._handles.append(module.register_full_backward_pre_hook(backward_pre_hook))

    def _watch_parameters(self, module: Any) -> None:
        global_names = {
            local: self._parameter_names[id(param)]
            for local, param in module.named_parameters(recurse=False)
        }

        def parameter_grad_hook(module: Any, grads: dict[str, Tensor]) -> None:
            for local, grad in grads.items():
                name = global_names[local]
                grad_array = grad.detach().numpy().astype(np.float64)
                if name in self._grad_sums:
                    self._grad_sums[name] = self._grad_sums[name] + grad_array
                else:
                    self._grad_sums[name] = grad_array
                    self._before[name] = self._value(name)

        self._handles.append(module.register_parameter_grad_hook(parameter_grad_hook))

    # -- steps ----------------------------------------------------------------------------
    def step(self, loss: float | None = None) -> dict[str, Any]:
        """Close the current training step (call it after ``optimizer.step()``): append
        its record to :attr:`history` and return it. ``loss`` is stored as given."""
        record: dict[str, Any] = {
            "step": len(self.history),
            "loss": None if loss is None else float(loss),
            "activations": {name: sums.summary() for name, sums in self._activations.items()},
            "output_grad_norms": {
                name: math.sqrt(squares) for name, squares in self._output_grad_squares.items()
            },
            "grad_norms": {
                name: float(np.linalg.norm(grad)) for name, grad in self._grad_sums.items()
            },
            "update_ratios": {
                name: _ratio(self._value(name) - before, before)
                for name, before in self._before.items()
            },
        }
        self.history.append(record)
        self._reset_step()
        return record

    @property
    def pending(self) -> bool:
        """True when gradients reached the model since the last :meth:`step`."""
        return bool(self._grad_sums or self._output_grad_squares)

    def series(self, kind: str, name: str, stat: str = "mean") -> list[float]:
        """One statistic over all recorded steps, ``nan`` where a step lacks it.

        ``kind`` is one of ``"activations"`` (then ``stat`` picks ``"mean"``, ``"std"``
        or ``"zero_fraction"``), ``"output_grad_norms"``, ``"grad_norms"`` or
        ``"update_ratios"``; ``name`` a layer or parameter name. Example:
        ``monitor.series("activations", "1", "zero_fraction")``.
        """
        if kind not in STAT_KINDS:
            raise ValueError(f"kind must be one of {STAT_KINDS}, got {kind!r}")
        values = []
        for record in self.history:
            value = record[kind].get(name, math.nan)
            if kind == "activations" and isinstance(value, dict):
                value = value[stat]
            values.append(value)
        return values

    def names(self, kind: str) -> list[str]:
        """The layer or parameter names that appear for ``kind`` in :attr:`history`, in
        order of first appearance."""
        if kind not in STAT_KINDS:
            raise ValueError(f"kind must be one of {STAT_KINDS}, got {kind!r}")
        return list(dict.fromkeys(name for record in self.history for name in record[kind]))

    # -- plotting -------------------------------------------------------------------------
    def plot(self, path: str | Path) -> Path:
        """Draw the recorded history (gradient norms, update ratios, activation std and
        zero fractions over the steps) into an image file at ``path``; return the path.
        Needs matplotlib (``pip install hookgrad[demo]``)."""
        try:
            from matplotlib.figure import Figure
        except ImportError as error:
            raise ImportError(
                "GradientMonitor.plot needs matplotlib: pip install hookgrad[demo]"
            ) from error
        panels = [
            ("grad_norms", "mean", "parameter gradient norm", True),
            ("update_ratios", "mean", "update ratio ||dp|| / ||p||", True),
            ("activations", "std", "activation std", False),
            ("activations", "zero_fraction", "fraction of zero activations", False),
        ]
        figure = Figure(figsize=(11, 7), layout="constrained")
        for axes, (kind, stat, title, log_scale) in zip(figure.subplots(2, 2).flat, panels):
            for name in self.names(kind):
                axes.plot(self.series(kind, name, stat), label=name)
            axes.set_title(title)
            axes.set_xlabel("step")
            if log_scale:
                axes.set_yscale("log")
            if self.names(kind):
                axes.legend(fontsize="small")
        path = Path(path)
        figure.savefig(path)
        return path

    # -- lifetime -------------------------------------------------------------------------
    def remove(self) -> None:
        """Detach every hook this monitor attached (safe to call twice)."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def __enter__(self) -> GradientMonitor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.remove()

    def _reset_step(self) -> None:
        self._activations: dict[str, _ActivationSums] = {}
        self._output_grad_squares: dict[str, float] = {}
        self._grad_sums: dict[str, np.ndarray] = {}
        self._before: dict[str, np.ndarray] = {}

    def _value(self, name: str) -> np.ndarray:
        """A float64 copy of parameter ``name``'s current value."""
        return self._parameters[name].detach().numpy().astype(np.float64)


def _squared_norm(tensor: Tensor) -> float:
    return float(np.square(tensor.detach().numpy().astype(np.float64)).sum())


def _ratio(delta: np.ndarray, before: np.ndarray) -> float:
    delta_norm = float(np.linalg.norm(delta))
    before_norm = float(np.linalg.norm(before))
    if delta_norm == 0.0:
        return 0.0
    return delta_norm / before_norm if before_norm > 0.0 else math.inf
