"""The hook manager: :func:`per_sample_grads` puts hooks on a model so that each
``backward()`` leaves ``p.grad_sample`` (shape ``(batch, *p.shape)``) on every trainable
parameter, computed from each layer call's inputs and output gradients.

How a call is followed:

1. a forward hook on each layer with trainable parameters of its own keeps the call's
   arguments (and their version counters) and watches its outputs;
2. when the backward pass knows the gradients of those outputs (a node pre-hook on the
   node that made them, so after any module backward pre-hook that replaced them), the
   layer's rule (``registry.py``) turns inputs and output gradients into per-example
   gradients, added to what other calls gave the same parameters in this pass (a layer
   called several times, a weight shared by two layers);
3. once a parameter's ``.grad`` is accumulated (its post-accumulate-grad hook), the pass's
   per-example gradients become ``p.grad_sample``; a later pass appends its examples
   after the earlier ones (as Opacus accumulates several batches), until ``clear()``.

With ``loss_reduction="mean"`` the output gradients carry the loss's ``1/batch``; as
Opacus does, the per-example gradients are multiplied back by the batch size, so each
row is the gradient of that example's own loss and ``p.grad`` is their mean.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hookgrad import engine, grad_mode
from hookgrad.hooks import RemovableHandle
from hookgrad.nn.modules._hooks import BoundaryNode
from hookgrad.tensor import Tensor
from hookgrad.utils.per_sample import generic, registry
from hookgrad.utils.per_sample.call import Call, Factored, flat_rows, materialize

__all__ = ["PerSampleBatch", "PerSampleGrads", "per_sample_grads"]


@dataclass
class _Layer:
    """A layer under per-sample hooks: its rule and its own trainable parameters."""

    name: str
    rule: registry.Rule
    params: dict[str, Any]


class PerSampleBatch:
    """The per-example gradients of one backward pass, per parameter, as the rules gave
    them (weights of linear and convolution layers still factored): what DP-SGD and the
    inspector's statistics read without forming every ``(batch, *shape)`` array."""

    def __init__(self, entries: list[tuple[Any, list[Any]]]) -> None:
        # NOTE: keyed by id: a parameter is a tensor, whose ``==`` compares elementwise.
        self._params = {id(param): param for param, _ in entries}
        self._pieces = {id(param): pieces for param, pieces in entries}
        sizes = {len(p) if isinstance(p, np.ndarray) else p.batch for _, v in entries for p in v}
        if len(sizes) > 1:
            raise RuntimeError(
                f"per-sample gradients of one backward pass have different batch sizes "
                f"{sorted(sizes)}: every layer must see the same examples"
            )
        self.batch_size = sizes.pop() if sizes else 0

    @property
    def params(self) -> list[Any]:
        """The parameters the pass reached, in the order their gradients were accumulated."""
        return list(self._params.values())

    def __contains__(self, param: Any) -> bool:
        return id(param) in self._pieces

    def materialize(self, param: Any) -> np.ndarray:
        """The ``(batch, *param.shape)`` per-example gradients of ``param``."""
        values = self._pieces[id(param)]
        total = materialize(values[0]).astype(param._data.dtype, copy=len(values) > 1)
        for value in values[1:]:
            total += materialize(value)
        return total

    def squared_norms(self, param: Any) -> np.ndarray:
        """``|g_i|^2`` of each example's gradient of ``param`` (float64)."""
        values = self._pieces[id(param)]
        if len(values) == 1 and isinstance(values[0], Factored):
            return values[0].squared_norms().astype(np.float64)
        grads = flat_rows(self.materialize(param), 1).astype(np.float64)
        return np.einsum("ij,ij->i", grads, grads)

    def weighted_sum(self, param: Any, weights: np.ndarray) -> np.ndarray:
        """``sum_i weights[i] * g_i`` for ``param``, with its shape and dtype."""
        total = np.zeros(param._data.shape, param._data.dtype)
        for value in self._pieces[id(param)]:
            if isinstance(value, Factored):
                total += value.weighted_sum(weights)
            else:
                w = weights.astype(value.dtype).reshape((-1,) + (1,) * (value.ndim - 1))
                total += (value * w).sum(axis=0)
        return total


class PerSampleGrads:
    """Per-sample gradient hooks on ``model``; see :func:`per_sample_grads`.

    ``materialize=False`` (what ``make_private`` uses) keeps each pass's per-example
    gradients factored for :meth:`take` instead of writing ``p.grad_sample``.
    ``strict=False`` (for diagnostics such as ``PerSampleMonitor``, never for DP-SGD):
    layers without a closed form get no hooks (their names are in ``skipped``), a
    parameter used outside its layer is left out of the pass instead of raising, a
    second pass replaces the one not yet taken, and a batch-norm layer switched to
    training mode disables the hooks (``refused`` says why) instead of raising.
    """

    def __init__(
        self,
        model: Any,
        loss_reduction: str = "mean",
        batch_first: bool = True,
        *,
        materialize: bool = True,
        strict: bool = True,
    ) -> None:
        if loss_reduction not in ("mean", "sum"):
            raise ValueError(
                f"loss_reduction must be 'mean' or 'sum', but got loss_reduction={loss_reduction!r}"
            )
        self.model = model
        self.loss_reduction = loss_reduction
        self.batch_dim = 0 if batch_first else 1
        self.materialize = materialize
        self.strict = strict
        self.skipped: list[str] = []
        self.refused: str | None = None
        self.names = {id(p): n for n, p in model.named_parameters() if p.requires_grad}
        self._enabled = True
        self._handles: list[RemovableHandle] = []
        # This pass's per-example gradients, per parameter: (backward pass id, pieces).
        self._current: dict[int, tuple[int, list[Any]]] = {}
        self._pending: dict[int, tuple[Any, list[Any]]] = {}
        self.layers = self._find_layers()
        try:
            self._register()
        except Exception:
            self.remove()
            raise

    # -- setup ----------------------------------------------------------------------------
    def _find_layers(self) -> dict[Any, _Layer]:
        layers = {}
        covered: set[int] = set()  # children whose parameters their parent's rule covers
        for name, module in self.model.named_modules():
            reason = registry.refusal(name, module)
            if reason is not None:
                raise registry.UnsupportedModuleError(reason)
            if id(module) in covered:
                continue
            params = {n: p for n, p in module.named_parameters(recurse=False) if p.requires_grad}
            rule = registry.rule_for(module)
            for child_name in registry.covered_children(module):
                child = getattr(module, child_name)
                covered.add(id(child))
                for n, p in child.named_parameters():
                    if p.requires_grad:
                        params[f"{child_name}.{n}"] = p
            if not params:
                continue
            if rule is generic.per_example and not self.strict:
                self.skipped.append(name)
                continue
            layers[module] = _Layer(name, rule, params)
        return layers

    def _register(self) -> None:
        for module, layer in self.layers.items():
            hook = self._capture_hook(module, layer)
            self._handles.append(module.register_forward_hook(hook, with_kwargs=True))
        for name, module in self.model.named_modules():
            if registry.may_refuse(module):
                self._handles.append(module.register_forward_pre_hook(self._refuse_hook(name)))
        covered = {id(p) for layer in self.layers.values() for p in layer.params.values()}
        for param in self.model.parameters():
            if param.requires_grad and (self.strict or id(param) in covered):
                if self.materialize:
                    param.grad_sample = None
                self._handles.append(param.register_post_accumulate_grad_hook(self._promote))

    def _refuse_hook(self, name: str) -> Callable[..., None]:
        def refuse(module: Any, args: Any) -> None:
            reason = registry.refusal(name, module)
            if reason is None or not self._enabled:
                return
            if self.strict:
                raise registry.UnsupportedModuleError(reason)
            self.refused = reason
            self.remove()

        return refuse

    # -- forward --------------------------------------------------------------------------
    def _capture_hook(self, module: Any, layer: _Layer) -> Callable[..., None]:
        def capture(module: Any, args: Any, kwargs: Any, output: Any) -> Any:
            if not self._enabled or generic.recomputing() or not grad_mode.is_grad_enabled():
                return None
            outputs = generic.flatten_tensors(output)
            watched = [i for i, out in enumerate(outputs) if out.requires_grad]
            if not watched:
                return None
            inputs = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
            versions = [(t, t._version) for t in inputs]

            def backprop(grads: list[Any]) -> None:
                if not self._enabled:
                    return
                arrays: list[Any] = [None] * len(outputs)
                for i, grad in zip(watched, grads):
                    arrays[i] = None if grad is None else grad._data
                self._contribute(
                    module, layer, Call(args, kwargs, outputs, arrays, self.batch_dim), versions
                )

            return _watch(output, [outputs[i] for i in watched], backprop)

        return capture

    # -- backward -------------------------------------------------------------------------
    def _contribute(
        self, module: Any, layer: _Layer, call: Call, versions: list[tuple[Tensor, int]]
    ) -> None:
        for position, (tensor, version) in enumerate(versions):
            if tensor._version != version:
                raise RuntimeError(
                    f"per-sample gradients of '{layer.name}' ({type(module).__name__}): its "
                    f"input {position} was modified by an inplace operation after the layer "
                    f"used it: it is at version {tensor._version}; expected version {version} "
                    "instead."
                )
        values = layer.rule(module, call)
        task = engine.current_graph_task_id()
        for name, param in layer.params.items():
            if not param.requires_grad:
                continue
            value = values[name]
            if self.loss_reduction == "mean":
                value = _scaled(value)
            entry = self._current.get(id(param))
            if entry is None or entry[0] != task:
                self._current[id(param)] = (task, [value])
            else:
                entry[1].append(value)

    def _promote(self, param: Any) -> None:
        """After ``param.grad`` was accumulated: this pass's per-example gradients of
        ``param`` become its ``grad_sample`` (or wait for ``take()``)."""
        if not self._enabled:
            return
        entry = self._current.pop(id(param), None)
        if entry is None or entry[0] != engine.current_graph_task_id():
            if not self.strict:
                return
            raise RuntimeError(
                f"parameter '{self.names.get(id(param), '?')}' received a gradient but no "
                "per-sample gradient: it was used outside the forward of the layer that owns "
                "it (or by a layer called under no_grad). Use it through its layer, or give "
                "the module that uses it a rule with register_grad_sampler."
            )
        pieces = entry[1]
        if not self.materialize:
            if id(param) in self._pending and self.strict:
                raise RuntimeError(
                    "a second backward pass before the per-sample gradients of the first "
                    "were used (DP-SGD takes one backward pass per optimizer step)"
                )
            self._pending[id(param)] = (param, pieces)
            return
        grads = PerSampleBatch([(param, pieces)]).materialize(param)
        previous = param.grad_sample
        if previous is not None:
            grads = np.concatenate([previous._data, grads])
        param.grad_sample = Tensor._make(grads)

    # -- results --------------------------------------------------------------------------
    def take(self) -> PerSampleBatch:
        """The per-example gradients of the last backward pass (``materialize=False``),
        removed from the manager."""
        pending, self._pending = self._pending, {}
        return PerSampleBatch(list(pending.values()))

    def clear(self) -> None:
        """Forget every per-example gradient: ``p.grad_sample = None``."""
        self._pending = {}
        self._current = {}
        for param in self.model.parameters():
            if param.requires_grad and hasattr(param, "grad_sample"):
                param.grad_sample = None

    def remove(self) -> None:
        """Remove every hook (idempotent); ``p.grad_sample`` stays as it is. Graphs
        recorded before still hold their hooks, which then do nothing."""
        self._enabled = False
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def __enter__(self) -> PerSampleGrads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _scaled(value: Any) -> Any:
    """Per-example gradients of a mean loss times the batch size (Opacus's convention)."""
    if isinstance(value, Factored):
        return Factored(value.a, value.b, value.shape, value.scale * value.batch)
    return value * value.shape[0]


def _watch(output: Any, tensors: list[Tensor], callback: Callable[[list[Any]], None]) -> Any:
    """Call ``callback(grads)`` once per backward pass with the gradients that reach the
    layer's output ``tensors`` from outside the layer: through a pre-hook of the node
    that made them all (after any hook that replaces them; ``output`` stays as it is,
    None is returned), else through one identity node that the tensors pass through
    (the output with them replaced by its aliases is returned). A tensor hook would not
    do: an output computed from another (an LSTM's ``h`` from its ``c``) would also get
    the gradient that flows from one to the other inside the layer."""
    node = tensors[0].grad_fn
    positions = [out._output_nr for out in tensors]
    if (
        node is not None
        and all(out.grad_fn is node for out in tensors)
        and len(set(positions)) == len(positions)
    ):

        def prehook(grad_outputs: Any) -> None:
            callback([grad_outputs[i] for i in positions])

        node.register_prehook(prehook)
        return None

    def identity(grads: list[Any]) -> tuple[Any, ...]:
        callback(list(grads))
        return tuple(grads)

    boundary = BoundaryNode(tensors, identity)
    aliases = {id(t): boundary.alias(t, i) for i, t in enumerate(tensors)}
    return _replaced(output, aliases)


def _replaced(value: Any, aliases: dict[int, Tensor]) -> Any:
    """``value`` (a tensor or nested tuples, lists and dicts of them) with the tensors in
    ``aliases`` replaced."""
    if isinstance(value, Tensor):
        return aliases.get(id(value), value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple
        return type(value)(*(_replaced(item, aliases) for item in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_replaced(item, aliases) for item in value)
    if isinstance(value, dict):
        return {key: _replaced(item, aliases) for key, item in value.items()}
    return value


def per_sample_grads(
    model: Any, loss_reduction: str = "mean", batch_first: bool = True
) -> PerSampleGrads:
    """Per-example gradients for every trainable parameter of ``model``: after each
    ``backward()``, ``p.grad_sample`` holds one gradient per example, shape
    ``(batch, *p.shape)``.

    Use it as a context manager, or call it and ``remove()`` the handle it returns.

    Args:
        model: the model; every layer with trainable parameters of its own gets hooks.
            ``Linear``, ``Bilinear``, the convolutions and transposed convolutions,
            ``Embedding``, ``EmbeddingBag``, ``LayerNorm``, ``GroupNorm``, ``RMSNorm``,
            ``InstanceNorm*``, eval-mode ``BatchNorm*``, ``PReLU``, the recurrent layers
            and cells and ``MultiheadAttention`` have closed forms; any other layer goes
            through ``hookgrad.func.vmap(grad(...))`` of the layer alone (``generic.py``).
            ``BatchNorm`` in training mode is refused (``UnsupportedModuleError``): use
            ``GroupNorm``.
        loss_reduction: ``"mean"`` if the loss averages over the batch (each row is then
            scaled by the batch size, so it is the gradient of that example's loss and
            ``p.grad`` is the rows' mean), ``"sum"`` if it sums (``p.grad`` is their sum).
        batch_first: whether the batch is dim 0 of every layer's inputs and outputs;
            False: dim 1 (``[K, batch, ...]``). Recurrent layers follow their own
            ``batch_first``.

    Every trainable parameter starts with ``p.grad_sample = None``; a second
    ``backward()`` appends its examples (several batches accumulated, as Opacus does)
    until the handle's ``clear()``. Example::

        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
        with per_sample_grads(model, loss_reduction="sum"):
            model(hookgrad.randn(8, 3)).square().sum().backward()
        model[0].weight.grad_sample.shape    # (8, 4, 3)
    """
    return PerSampleGrads(model, loss_reduction, batch_first)
