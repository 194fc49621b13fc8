"""Which rule computes the per-example gradients of which layer: the table of closed
forms, :func:`register_grad_sampler` for users' own layers, ``vmap(grad(...))`` for any
other layer with parameters, and the layers that are refused because their per-example
gradients are undefined (batch normalization in training mode)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookgrad import nn
from hookgrad.nn.modules.normalization import _BatchNorm
from hookgrad.utils.per_sample import (
    activation,
    attention,
    conv,
    embedding,
    generic,
    linear,
    normalization,
    recurrent,
)
from hookgrad.utils.per_sample.call import Call

__all__ = [
    "CHILDREN",
    "RULES",
    "UnsupportedModuleError",
    "may_refuse",
    "refusal",
    "register_grad_sampler",
    "rule_for",
]

Rule = Callable[[Any, Call], dict[str, Any]]

RULES: dict[type, Rule] = {
    nn.Linear: linear.linear,
    nn.Bilinear: linear.bilinear,
    nn.Conv1d: conv.conv,
    nn.Conv2d: conv.conv,
    nn.Conv3d: conv.conv,
    nn.ConvTranspose1d: conv.conv_transpose,
    nn.ConvTranspose2d: conv.conv_transpose,
    nn.ConvTranspose3d: conv.conv_transpose,
    nn.Embedding: embedding.embedding,
    nn.EmbeddingBag: embedding.embedding_bag,
    nn.LayerNorm: normalization.layer_norm,
    nn.RMSNorm: normalization.rms_norm,
    nn.GroupNorm: normalization.group_norm,
    nn.InstanceNorm1d: normalization.instance_norm,
    nn.InstanceNorm2d: normalization.instance_norm,
    nn.InstanceNorm3d: normalization.instance_norm,
    nn.BatchNorm1d: normalization.batch_norm,
    nn.BatchNorm2d: normalization.batch_norm,
    nn.BatchNorm3d: normalization.batch_norm,
    nn.PReLU: activation.prelu,
    nn.RNN: recurrent.recurrent,
    nn.LSTM: recurrent.recurrent,
    nn.GRU: recurrent.recurrent,
    nn.RNNCell: recurrent.cell,
    nn.LSTMCell: recurrent.cell,
    nn.GRUCell: recurrent.cell,
    nn.MultiheadAttention: attention.multihead_attention,
}

# Children whose parameters a layer uses without calling them: its rule covers them too.
CHILDREN: dict[type, tuple[str, ...]] = {nn.MultiheadAttention: ("out_proj",)}


class UnsupportedModuleError(ValueError):
    """A layer whose per-example gradients are undefined (it mixes the examples of a
    batch), named with the usual fix."""


def register_grad_sampler(*module_types: type) -> Callable[[Rule], Rule]:
    """Decorator: use ``rule(module, call)`` for the per-example gradients of layers of
    ``module_types`` (replacing a built-in rule, or ``vmap(grad(...))``).

    ``call`` is a :class:`~hookgrad.utils.per_sample.call.Call` (the layer's inputs,
    outputs and output gradients, batch first through ``call.input(i)``/``call.grad(i)``);
    the rule returns ``{name: array of shape (batch, *parameter.shape)}`` for the layer's
    own parameters. Example::

        @register_grad_sampler(Scale)
        def scale(module, call):          # y = x * module.weight
            return {"weight": (call.grad(0) * call.input(0)).reshape(len(call.input(0)), -1)
                    .sum(1, keepdims=True)}
    """

    def register(rule: Rule) -> Rule:
        for module_type in module_types:
            RULES[module_type] = rule
        return rule

    return register


def covered_children(module: Any) -> tuple[str, ...]:
    """The children of ``module`` whose parameters its rule covers."""
    for base in type(module).__mro__:
        if base in CHILDREN:
            return CHILDREN[base]
    return ()


def rule_for(module: Any) -> Rule:
    """The rule for ``module``: the closed form of its class or of a base class whose
    ``forward`` it keeps, else ``generic.per_example`` (``vmap(grad(...))``)."""
    cls: Any = type(module)
    for base in cls.__mro__:
        rule = RULES.get(base)
        if rule is not None:
            return rule if cls.forward is base.forward else generic.per_example
    return generic.per_example


def may_refuse(module: Any) -> bool:
    """Whether ``module`` is refused in some mode (then checked at each call)."""
    return isinstance(module, _BatchNorm)


def refusal(name: str, module: Any) -> str | None:
    """Why per-example gradients of a model containing ``module`` (called ``name``) are
    undefined right now, or None."""
    if isinstance(module, _BatchNorm) and (module.training or not module.track_running_stats):
        label = f"'{name}' ({type(module).__name__})" if name else type(module).__name__
        return (
            f"per-sample gradients are undefined with {label} in training mode: batch "
            "normalization mixes the examples of a batch, so no example has a gradient of "
            f"its own. Replace it with nn.GroupNorm (e.g. nn.GroupNorm(min(32, C), C) for C "
            "channels), or put it in eval mode with running statistics."
        )
    return None
