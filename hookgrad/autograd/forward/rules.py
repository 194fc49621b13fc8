"""Tangent rules: how an op maps its inputs' tangents to its outputs' (``J v``).

The derivative table stores backward formulas only; forward mode reads them four ways,
chosen per op class, as torch's ``derivatives.yaml`` chooses with its ``result:`` lines:

- **formula**: torch's forward formula, written with ``<input>_p`` (the primal),
  ``<input>_t`` (the tangent, zeros for an input without one) and ``result``
  (``mul.Tensor``: ``other_t * self_p + self_t * other_p``);
- **elementwise** (torch's ``auto_element_wise``): the op's own backward formula, with
  ``grad`` replaced by the conjugate tangent and the result conjugated (for an
  elementwise op the Jacobian is diagonal, so ``J v = (v^H J)^H``);
- **linear** (torch's ``auto_linear``): the op itself applied to the tangents (views,
  sums, concatenation, indexing ...); a view's tangent is then a view of its input's.
  An *affine* op (a fill with a number) is linear once that number is zero; a
  *multilinear* op (``einsum``) sums the op with one input at a time replaced by its
  tangent;
- **fallback**, every other op: the "double vjp". The backward ``g -> J^T g`` is linear in
  ``g``, so its vector-Jacobian product with cotangent ``v`` is ``J v``; every backward is
  differentiable (its formulas run on tensors), so the engine computes it from a copy
  of the op's node recorded on detached inputs.

Rules run on arrays (fast, no graph) unless an input or a tangent requires grad and grad
mode is on: then on tensors, through hookgrad's ops, so that the tangent is itself
differentiable (reverse over forward); the fallback then records the node on the inputs
themselves and differentiates with ``create_graph=True``.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import (
    conversion,
    diagonal,
    fft,
    fold,
    indexing,
    inplace,
    linalg,
    normalization,
    padding,
    pooling,
    scatter_reduce,
    shape,
    shape_copies,
    table,
    upsample,
    vision,
)
from hookgrad.ops.bilinear import Trilinear
from hookgrad.ops.conv import Convolution
from hookgrad.tensor import dispatch
from hookgrad.tensor.tensor import Tensor

_state = grad_mode._state

# ---------------------------------------------------------------- torch's rules, by op

# torch's ``result:`` formulas for the common entries (its C++ spelled in Python).
FORMULAS = {
    "add.Tensor": "self_t + maybe_multiply(other_t, alpha)",
    "add.Scalar": "clone(self_t)",
    "sub.Tensor": "self_t - maybe_multiply(other_t, alpha)",
    "mul.Tensor": "other_t * self_p + self_t * other_p",
    "mul.Scalar": "self_t * other",
    "div.Tensor": "(self_t - other_t * result) / other_p",
    "div.Scalar": "self_t / other",
    "frac": "clone(self_t)",
    "abs": "handle_r_to_c(result, self_t.conj() * self_p.sgn())",
    "atan2": "(-self_p * other_t + other_p * self_t) / (self_p.pow(2) + other_p.pow(2))",
    "maximum": "other_t + where(self_p == other_p, 0.5, where(self_p > other_p, 1.0, 0.0))"
    " * (self_t - other_t)",
    "minimum": "other_t + where(self_p == other_p, 0.5, where(self_p < other_p, 1.0, 0.0))"
    " * (self_t - other_t)",
    "lerp.Scalar": "lerp(self_t, end_t, weight)",
    "lerp.Tensor": "lerp(self_t, end_t, weight_p) + weight_t * (end_p - self_p)",
    "where.self": "where(condition, self_t, other_t)",
    "mm": "mm(self_t, mat2_p) + mm(self_p, mat2_t)",
    "bmm": "bmm(self_t, mat2_p) + bmm(self_p, mat2_t)",
    "mv": "mv(self_t, vec_p) + mv(self_p, vec_t)",
    "dot": "dot(self_t, tensor_p) + dot(self_p, tensor_t)",
    "vdot": "vdot(self_t, other_p) + vdot(self_p, other_t)",
    "addmm": "maybe_multiply(self_t, beta) + maybe_multiply(mm(mat1_t, mat2_p), alpha)"
    " + maybe_multiply(mm(mat1_p, mat2_t), alpha)",
    "addmv": "maybe_multiply(self_t, beta) + maybe_multiply(mv(mat_t, vec_p), alpha)"
    " + maybe_multiply(mv(mat_p, vec_t), alpha)",
    "addr": "maybe_multiply(self_t, beta) + maybe_multiply(outer(vec1_t, vec2_p), alpha)"
    " + maybe_multiply(outer(vec1_p, vec2_t), alpha)",
    "baddbmm": "maybe_multiply(self_t, beta) + maybe_multiply(bmm(batch1_t, batch2_p), alpha)"
    " + maybe_multiply(bmm(batch1_p, batch2_t), alpha)",
    "_softmax": "result * (self_t - logsumexp_jvp(self_p, self_t, dim, True))",
    "_log_softmax": "self_t - logsumexp_jvp(self_p, self_t, dim, True)",
    "logcumsumexp": "logcumsumexp_jvp(self_p, self_t, dim)",
}

# torch's ``auto_element_wise`` entries: the tangent comes from the backward formula.
ELEMENTWISE = frozenset(
    """acos acosh asin asinh atan atanh ceil celu clamp clamp_max clamp_min cos cosh digamma
    elu erf erfc erfinv exp exp2 expm1 floor gelu hardshrink hardsigmoid hardswish hardtanh
    i0 leaky_relu lgamma log log10 log1p log2 logit mish mvlgamma nan_to_num neg polygamma
    pow.Scalar pow.Tensor_Scalar reciprocal relu remainder.Scalar round round.decimals
    rrelu_with_noise rsqrt rsub.Scalar sigmoid sign silu sin sinc sinh softplus softshrink
    special_entr special_erfcx special_i0e special_i1 special_i1e special_log_ndtr
    special_ndtri special_xlog1py.other_scalar special_xlog1py.self_scalar sqrt sub.Scalar
    tan tanh threshold trunc xlogy.Scalar_Other xlogy.Scalar_Self""".split()
)

# torch's ``auto_linear`` entries of the table.
LINEAR_ENTRIES = frozenset(
    """sum sum.dim_IntList mean mean.dim cumsum rot90 _fft_r2c _fft_c2r conj_physical
    diagonal_backward select_backward slice_backward unfold_backward""".split()
)

# Hand-written ops that are linear in their differentiable inputs (jointly).
LINEAR_OPS: tuple[type, ...] = (
    conversion.Clone,
    conversion.ToCopy,
    conversion.Conj,
    conversion.Real,
    conversion.Imag,
    conversion.ViewAsReal,
    conversion.ViewAsComplex,
    shape.Reshape,
    shape.ReshapeAlias,
    shape.UnsafeView,
    shape.ContiguousCopy,
    shape.Expand,
    shape.Transpose,
    shape.MatrixT,
    shape.Permute,
    shape.Squeeze,
    shape.SqueezeDim,
    shape.SqueezeDims,
    shape.Unsqueeze,
    shape.Cat,
    shape.Stack,
    shape.Split,
    shape.SplitWithSizes,
    shape.Unbind,
    shape.Slice,
    shape.Select,
    shape.Alias,
    shape.SliceScatter,
    shape.SelectScatter,
    shape_copies.Flip,
    shape_copies.Roll,
    shape_copies.Repeat,
    shape.UnsafeSplit,
    shape.UnsafeSplitWithSizes,
    shape_copies.NarrowCopy,
    shape_copies.ViewCopy,
    shape_copies.Unfold,
    shape_copies.BlockDiag,
    shape_copies.Complex,
    shape_copies.ConjPhysical,
    diagonal.Diagonal,
    diagonal.DiagonalCopy,
    diagonal.DiagonalScatter,
    diagonal.DiagEmbed,
    diagonal.Tril,
    diagonal.Triu,
    indexing.Index,
    indexing.IndexPut,
    indexing.Gather,
    indexing.Scatter,
    indexing.ScatterAdd,
    indexing.IndexSelect,
    indexing.IndexAdd,
    scatter_reduce.IndexCopy,
    indexing.IndexFillTensor,
    indexing.MaskedFillTensor,
    indexing.MaskedSelect,
    indexing.MaskedScatter,
    indexing.Take,
    indexing.Put,
    inplace.Copy,
    inplace.Zero,
    inplace.FillTensor,
    padding.IndexPad,
    fold.Im2Col,
    fold.Col2Im,
    pooling.AvgPool,
    pooling.AdaptiveAvgPool,
    upsample.Upsample,
    vision.PixelShuffle,
    vision.PixelUnshuffle,
    vision.ChannelShuffle,
    vision.AffineGridGenerator,
    fft.FftC2C,
    linalg.Trace,
)

# Ops that add a number (``value``): linear once it is zero.
AFFINE_OPS: tuple[type, ...] = (
    inplace.Fill,
    indexing.ScatterValue,
    indexing.IndexFill,
    indexing.MaskedFill,
    padding.ConstantPad,
)

# Normalizations: torch's own forward formulas (``_normalization_rule``).
NORMALIZATION_OPS: tuple[type, ...] = (
    normalization.NativeBatchNorm,
    normalization.NativeLayerNorm,
    normalization.NativeGroupNorm,
)

# Ops linear in each input separately: the sum over inputs of the op with that input's
# tangent in its place.
MULTILINEAR_OPS: tuple[type, ...] = (linalg.Einsum, Trilinear)


# ---------------------------------------------------------------- what formulas call


def _logsumexp_jvp_arrays(self_p: Any, self_t: Any, dim: Any, keepdim: bool) -> Any:
    axis = _axes(dim, self_p.ndim)
    shifted = self_p - np.amax(self_p, axis=axis, keepdims=True) if self_p.size else self_p
    exp = np.exp(shifted)
    return (exp * self_t).sum(axis=axis, keepdims=keepdim) / exp.sum(axis=axis, keepdims=keepdim)


def _logsumexp_jvp_tensors(self_p: Any, self_t: Any, dim: Any, keepdim: bool) -> Any:
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    shifted = self_p - self_p.amax(dims, True) if self_p.numel() else self_p
    exp = shifted.exp()
    return (exp * self_t).sum(dims, keepdim) / exp.sum(dims, keepdim)


def _logcumsumexp_jvp_arrays(self_p: Any, self_t: Any, dim: int) -> Any:
    if not self_p.ndim:
        return self_t.copy()
    axis = dim % self_p.ndim
    exp = np.exp(self_p - np.amax(self_p, axis=axis, keepdims=True)) if self_p.size else self_p
    return np.cumsum(exp * self_t, axis=axis) / np.cumsum(exp, axis=axis)


def _logcumsumexp_jvp_tensors(self_p: Any, self_t: Any, dim: int) -> Any:
    if not self_p.dim():
        return self_t.clone()
    exp = (self_p - self_p.amax(dim, True)).exp() if self_p.numel() else self_p
    return (exp * self_t).cumsum(dim) / exp.cumsum(dim)


def _axes(dim: Any, ndim: int) -> tuple[int, ...]:
    if not ndim:
        return ()
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(d % ndim for d in dims)


def _handle_r_to_c(result: Any, value: Any) -> Any:
    """torch's ``handle_r_to_c``: the real part of ``value`` when the result is real."""
    if result.dtype.is_complex if isinstance(result, Tensor) else np.iscomplexobj(result):
        return value
    return value.real


# The formulas' namespaces: the table's (brought up to date before each compilation, as
# entries keep being added while hookgrad imports) and these.
_ARRAY_HELPERS: dict[str, Any] = {
    "clone": np.array,
    "outer": np.multiply.outer,
    "logsumexp_jvp": _logsumexp_jvp_arrays,
    "logcumsumexp_jvp": _logcumsumexp_jvp_arrays,
    "handle_r_to_c": _handle_r_to_c,
}
_TENSOR_HELPERS: dict[str, Any] = {
    "clone": lambda x: x.clone(),
    "logsumexp_jvp": _logsumexp_jvp_tensors,
    "logcumsumexp_jvp": _logcumsumexp_jvp_tensors,
    "handle_r_to_c": _handle_r_to_c,
}
_ARRAYS: dict[str, Any] = {}
_TENSORS: dict[str, Any] = {}


def _refresh_namespaces() -> None:
    _ARRAYS.update(table.ARRAY_NAMESPACE)
    _ARRAYS.update(_ARRAY_HELPERS)
    _TENSORS.update(table.TENSOR_NAMESPACE)
    _TENSORS.update(_TENSOR_HELPERS)


# ---------------------------------------------------------------- compiled formulas


class _Compiled:
    """A tangent formula compiled twice (on arrays, on tensors) over the names it reads."""

    def __init__(self, source: str, known: set[str], params: set[str]) -> None:
        formula = table.Formula(source, known, params)
        _refresh_namespaces()
        self.names = _all_reads(formula.on_arrays, known)
        arguments = ", ".join(self.names)
        self.on_arrays = _function(arguments, formula.on_arrays, _ARRAYS)
        self.on_tensors = _function(arguments, formula.on_tensors, _TENSORS)


def _all_reads(expression: str, known: set[str]) -> tuple[str, ...]:
    """The known names (and derived ones, ``self_sym_sizes``) ``expression`` loads."""
    derived = {f"{name}_{method}" for name in known for method in _DERIVED_METHODS}
    names: list[str] = []
    for node in ast.walk(ast.parse(expression, mode="eval")):
        if isinstance(node, ast.Name) and node.id not in names:
            if node.id in known or node.id in derived:
                names.append(node.id)
    return tuple(names)


# What a formula may read of an input (``self.sym_sizes()`` becomes ``self_sym_sizes``).
_DERIVED_METHODS = ("sym_sizes", "sym_strides", "sym_numel", "scalar_type", "dim")


def _function(arguments: str, body: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    scope: dict[str, Any] = {}
    source = f"def tangent({arguments}):\n    return {body}\n"
    exec(compile(source, "<tangent formula>", "exec"), namespace, scope)  # noqa: S102
    return scope["tangent"]


# ---------------------------------------------------------------- the rules


class Context:
    """One op's call as the rules see it: the op, its inputs (tensors or numbers), their
    arrays (as the kernel got them), their tangents (None: none), its outputs, and the
    mode (``on_tensors``)."""

    def __init__(
        self, op: Any, inputs: Any, arrays: Any, tangents: list[Any], outputs: Any
    ) -> None:
        self.op = op
        self.inputs = inputs
        self.arrays = arrays
        self.tangents = tangents
        self.outputs = outputs
        # An in-place op runs with grad mode off: ``_grad_enabled`` is the caller's.
        grad_enabled = op.__dict__.get("_grad_enabled", _state.grad_enabled)
        self.on_tensors = grad_enabled and any(
            (isinstance(x, Tensor) and x.requires_grad) or (t is not None and t.requires_grad)
            for x, t in zip(inputs, tangents)
        )

    def primal(self, index: int) -> Any:
        return self.inputs[index] if self.on_tensors else self.arrays[index]

    def tangent(self, index: int) -> Any:
        """The tangent of input ``index`` (zeros if it has none), in the rule's mode."""
        tangent = self.tangents[index]
        if not isinstance(self.inputs[index], Tensor):
            return 0  # a number's
        if self.on_tensors:
            if tangent is None:
                return self.inputs[index].new_zeros(self.inputs[index].shape)
            return tangent
        if tangent is None:
            return np.zeros_like(self.arrays[index])
        return tangent._data

    def result(self) -> Any:
        outputs = self.outputs
        first = outputs[0] if type(outputs) is tuple else outputs
        return first if self.on_tensors else first._data


def _formula_rule(source: str, cls: type) -> Callable[[Context], Any]:
    """A rule from one of torch's forward formulas over ``<input>_p``/``<input>_t``."""
    signature = cls.signature  # type: ignore[attr-defined]
    inputs = list(signature.inputs)
    known = {f"{name}_{kind}" for name in inputs for kind in "pt"}
    known |= {"result", *signature.params, *inputs}
    compiled = _Compiled(source, known, set(signature.params))
    getters = []
    for name in compiled.names:
        if name == "result":
            getters.append(Context.result)
        elif name[:-2] in inputs and name[-2:] == "_p":
            getters.append(_getter(Context.primal, inputs.index(name[:-2])))
        elif name[:-2] in inputs and name[-2:] == "_t":
            getters.append(_getter(Context.tangent, inputs.index(name[:-2])))
        elif name in inputs:
            getters.append(_getter(Context.primal, inputs.index(name)))
        else:
            getters.append(_attribute(name))

    def rule(context: Context) -> Any:
        function = compiled.on_tensors if context.on_tensors else compiled.on_arrays
        return function(*[get(context) for get in getters])

    return rule


def _elementwise_rule(cls: type) -> Callable[[Context], Any]:
    """torch's ``auto_element_wise``: ``(backward(grad=tangent.conj())).conj()``."""
    signature = cls.signature  # type: ignore[attr-defined]
    inputs = list(signature.inputs)
    declared = cls.edge_inputs  # type: ignore[attr-defined]
    edges = declared if declared is not None else range(len(inputs))
    (index,) = tuple(edges)
    source = cls._formulas[0].source  # type: ignore[attr-defined]
    known = {"grad", "result", *inputs, *signature.params}
    compiled = _Compiled(source, known, set(signature.params))
    getters = []
    for name in compiled.names:
        if name == "grad":
            getters.append(_conjugate_tangent(index))
        elif name == "result":
            getters.append(Context.result)
        elif name in inputs:
            getters.append(_getter(Context.primal, inputs.index(name)))
        else:
            getters.append(_attribute(name))

    def rule(context: Context) -> Any:
        function = compiled.on_tensors if context.on_tensors else compiled.on_arrays
        value = function(*[get(context) for get in getters])
        return _conj(value)

    return rule


def _getter(method: Callable[[Context, int], Any], index: int) -> Callable[[Context], Any]:
    return lambda context: method(context, index)


def _attribute(name: str) -> Callable[[Context], Any]:
    return lambda context: getattr(context.op, name)


def _conjugate_tangent(index: int) -> Callable[[Context], Any]:
    return lambda context: _conj(context.tangent(index))


def _conj(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.conj() if value.is_complex() else value
    if isinstance(value, np.ndarray) and value.dtype.kind == "c":
        return np.conj(value)
    return value


def _differentiable(op: Any, inputs: Any) -> tuple[int, ...]:
    edges = op.edge_inputs
    if edges is None:
        return tuple(i for i, x in enumerate(inputs) if isinstance(x, Tensor))
    return tuple(edges)


def _run(op: Any, context: Context, arguments: list[Any]) -> Any:
    """``op`` (a fresh copy, so that the recorded one keeps its state) on ``arguments``."""
    fresh = copy.copy(op)
    if context.on_tensors:
        return dispatch.apply(fresh, *arguments)
    with np.errstate(all="ignore"):
        return fresh.forward(*arguments)


def _linear_rule(context: Context) -> Any:
    """torch's ``auto_linear``: the op on the tangents (the other inputs as they are)."""
    differentiable = _differentiable(context.op, context.inputs)
    arguments = [
        context.tangent(i) if i in differentiable else context.primal(i)
        for i in range(len(context.inputs))
    ]
    return _run(context.op, context, arguments)


def _affine_rule(context: Context) -> Any:
    """An op adding a number: linear with that number zero."""
    op = copy.copy(context.op)
    op.value = 0
    context.op = op
    return _linear_rule(context)


def _multilinear_rule(context: Context) -> Any:
    """The sum, over the inputs with a tangent, of the op with that input's tangent."""
    total = None
    for index in _differentiable(context.op, context.inputs):
        if context.tangents[index] is None:
            continue
        arguments = [context.primal(i) for i in range(len(context.inputs))]
        arguments[index] = context.tangent(index)
        term = _run(context.op, context, arguments)
        total = term if total is None else total + term
    return total


def _convolution_rule(context: Context) -> Any:
    """A convolution is bilinear in (input, weight) plus its bias: the op on each of input
    and weight's tangents (no bias), plus the bias's tangent broadcast."""
    total = None
    for index in (0, 1):
        if context.tangents[index] is None:
            continue
        arguments = [context.primal(0), context.primal(1), None]
        arguments[index] = context.tangent(index)
        term = _run(context.op, context, arguments)
        total = term if total is None else total + term
    if len(context.inputs) > 2 and context.tangents[2] is not None:
        bias = context.tangent(2)
        term = bias.reshape((-1,) + (1,) * (context.arrays[0].ndim - 2))
        total = term if total is None else total + term
    return total


def _normalization_rule(context: Context) -> Any:
    """torch's ``batch_norm_jvp``/``layer_norm_jvp``/``group_norm_jvp``: the tangent of the
    normalized input, with the op's saved mean and inverse deviation as constants, then
    the affine part ``x_hat * w + b``."""
    op = context.op
    x, x_t = context.primal(0), context.tangent(0)
    outputs = context.outputs
    mean, rstd = (o if context.on_tensors else o._data for o in outputs[1:3])
    ndim = context.arrays[0].ndim
    channel = (1, -1) + (1,) * (ndim - 2) if ndim > 1 else (-1,)
    if isinstance(op, normalization.NativeLayerNorm):
        dims = tuple(range(ndim - len(op.normalized_shape), ndim))
        affine = tuple(x.shape[ndim - len(op.normalized_shape) :])
    elif isinstance(op, normalization.NativeGroupNorm):
        shape = tuple(x.shape)
        x, x_t = x.reshape((shape[0], op.group, -1)), x_t.reshape((shape[0], op.group, -1))
        mean, rstd = mean.reshape(mean.shape + (1,)), rstd.reshape(rstd.shape + (1,))
        dims, affine = (2,), channel
    else:
        dims, affine = tuple(d for d in range(ndim) if d != 1), channel
        if op.training:
            mean, rstd = mean.reshape(channel), rstd.reshape(channel)
        else:
            running_mean, running_var = context.primal(3), context.primal(4)
            mean = running_mean.reshape(channel)
            rstd = ((running_var + op.eps) ** -0.5).reshape(channel)
    centered = x - mean
    normalized = centered * rstd
    if isinstance(op, normalization.NativeBatchNorm) and not op.training:
        normalized_t = x_t * rstd
    else:
        # NOTE: torch's formula as written (its mean and rstd are constants here).
        count = int(np.prod([x.shape[d] for d in dims]))
        centered_t = x_t - _mean(x_t, dims)
        rstd_t = -(rstd**3) * _sum(centered_t * centered, dims) / count
        normalized_t = centered_t * rstd + centered * rstd_t
    if isinstance(op, normalization.NativeGroupNorm):
        normalized, normalized_t = normalized.reshape(shape), normalized_t.reshape(shape)
    weight, bias = context.inputs[1], context.inputs[2]
    if weight is not None:
        normalized_t = normalized_t * context.primal(1).reshape(affine)
        if context.tangents[1] is not None:
            normalized_t = normalized_t + normalized * context.tangent(1).reshape(affine)
    if bias is not None and context.tangents[2] is not None:
        normalized_t = normalized_t + context.tangent(2).reshape(affine)
    return (normalized_t, None, None)


def _mean(x: Any, dims: tuple[int, ...]) -> Any:
    if isinstance(x, Tensor):
        return x.mean(dims, True)
    return x.mean(axis=dims, keepdims=True)


def _sum(x: Any, dims: tuple[int, ...]) -> Any:
    if isinstance(x, Tensor):
        return x.sum(dims, True)
    return x.sum(axis=dims, keepdims=True)


def _fallback_rule(context: Context) -> Any:
    """The double vjp: ``J v`` as the vjp, with cotangent ``v``, of ``g -> J^T g``."""
    # NOTE: imported here: the engine's public entry sits beside this module's users.
    from hookgrad.tensor.backward import grad as autograd_grad

    op, inputs, tangents, outputs = context.op, context.inputs, context.tangents, context.outputs
    differentiable = context.on_tensors
    node = copy.copy(op)
    proxies = []
    for x, tangent in zip(inputs, tangents):
        if not isinstance(x, Tensor):
            proxies.append(x)
        elif differentiable and x.requires_grad:
            # The input itself: the backward's graph (and so the tangent) reaches it.
            proxies.append(x)
        else:
            proxy = Tensor._make(x._data)
            if tangent is not None and x._data.dtype.kind in "fc":
                proxy._requires_grad = True
            proxies.append(proxy)
    multi = type(outputs) is tuple
    proxy_outputs = tuple(Tensor._make(o._data) for o in (outputs if multi else (outputs,)))
    with grad_mode.enable_grad():
        dispatch.record(node, proxies, proxy_outputs if multi else proxy_outputs[0])
        # NOTE: any seed gives the same vjp (the backward is linear in it); zeros pass the
        # checks some backwards make of their gradient (a complex eigenvector's phase).
        seeds = [
            Tensor._make(np.zeros_like(o._data), requires_grad=True)
            for o in proxy_outputs
            if o._grad_fn is node
        ]
        try:
            grad_inputs = node._apply(seeds)
            if type(grad_inputs) is not tuple:
                grad_inputs = (grad_inputs,)
            edges = op.edge_inputs if op.edge_inputs is not None else range(len(inputs))
            roots, cotangents = [], []
            for grad_input, index in zip(grad_inputs, edges):
                tangent = tangents[index]
                if grad_input is None or tangent is None or not grad_input.requires_grad:
                    continue
                roots.append(_as_input_gradient(grad_input, inputs[index]))
                cotangents.append(tangent.to(roots[-1].dtype))
            found: tuple[Any, ...] = (None,) * len(seeds)
            if roots:
                found = autograd_grad(
                    roots, seeds, cotangents, allow_unused=True, create_graph=differentiable
                )
        except (NotImplementedError, RuntimeError) as error:
            # torch's words, with the reason: a backward that is not differentiable.
            raise NotImplementedError(
                f"Trying to use forward AD with {_op_name(node)} that does not support it "
                f"because it has not been implemented yet. ({error})"
            ) from error
    results = [
        Tensor._make(np.zeros_like(seed._data))
        if value is None
        else value
        if differentiable
        else value.detach()
        for value, seed in zip(found, seeds)
    ]
    if not multi:
        return results[0]
    mapped: list[Any] = []
    it = iter(results)
    for output in proxy_outputs:
        mapped.append(next(it) if output._grad_fn is node else None)
    return tuple(mapped)


def _as_input_gradient(grad_input: Tensor, input: Tensor) -> Tensor:
    """A gradient as the engine hands it to an input: summed to its shape, real for a
    real input, in its dtype."""
    shape = input._data.shape
    if grad_input._data.shape != shape:
        grad_input = grad_input.sum_to_size(shape)
    if grad_input.is_complex() and input._data.dtype.kind != "c":
        grad_input = grad_input.real
    if grad_input._data.dtype != input._data.dtype:
        grad_input = grad_input.to(input.dtype)
    return grad_input


def _op_name(node: Any) -> str:
    """The op's torch name: an entry's, or its node's in snake case
    (``MultiMarginLossBackward0`` -> ``multi_margin_loss``)."""
    if isinstance(node, table.TableOp):
        return node.signature.name
    head = node.name().rpartition("Backward")[0] or node.name()
    return re.sub(r"(?<!^)(?=[A-Z])", "_", head.rpartition("::")[2]).lower()


# ---------------------------------------------------------------- choosing a rule

_RULES: dict[type, Callable[[Context], Any]] = {}


def rule_for(cls: type) -> Callable[[Context], Any]:
    """The tangent rule of op class ``cls`` (cached)."""
    rule = _RULES.get(cls)
    if rule is None:
        rule = _RULES[cls] = _choose(cls)
    return rule


def _choose(cls: type) -> Callable[[Context], Any]:
    if issubclass(cls, table.TableOp):
        signature = cls.signature
        key = signature.name + (f".{signature.overload}" if signature.overload else "")
        if key in FORMULAS:
            return _formula_rule(FORMULAS[key], cls)
        if key in ELEMENTWISE:
            return _elementwise_rule(cls)
        if key in LINEAR_ENTRIES:
            return _linear_rule
        return _fallback_rule
    if issubclass(cls, Convolution):
        return _convolution_rule
    if issubclass(cls, NORMALIZATION_OPS):
        return _normalization_rule
    # The nearest class listed decides (``IndexFillTensor`` is linear, its base affine).
    for base in cls.__mro__:
        if base in LINEAR_OPS:
            return _linear_rule
        if base in AFFINE_OPS:
            return _affine_rule
        if base in MULTILINEAR_OPS:
            return _multilinear_rule
    return _fallback_rule
