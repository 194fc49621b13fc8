"""Linear algebra ops: the matrix products (mm, bmm, mv, dot, addmm ...), einsum, trace;
``linalg_cross``, ``addcmul``/``addcdiv``, and the distances and norms (``dist``,
``norm`` with a dim, ``renorm``, ``cdist``, ``pdist``). The factorizations and solvers of
``torch.linalg`` are in ``hookgrad.ops.decompositions``.

The two-operand products (mm, bmm, mv, dot, vdot, addmm, addmv, baddbmm, addr) are entries
of the derivative table (``hookgrad.ops.table``) with torch's formulas: ``mm``'s gradients
are ``mm``s of the gradient with the other operand, transposed as torch's
``mm_mat1_backward`` does for an operand laid out column by column. ``addbmm`` and
``trace`` are hand-written with torch's formulas (they read sizes the table does not save).

``einsum`` is hand-written, as its backward is an algorithm: the gradient of one operand
is the einsum of the output gradient with the conjugates of the other operands, mapped
back to that operand's labels (``ik,jk->ij`` gives ``grad @ mat2^H``). So its backward is
an einsum call on tensors (``grad._einsum(equation, *others)``), which is itself
differentiable: higher derivatives come for free.

The forward of an einsum runs on arrays (``contract``): each operand first loses its
repeated labels (diagonals) and the labels nothing else needs (sums), then the operands
are multiplied pairwise, left to right, each pair as one batched ``np.matmul`` (BLAS).
"""

from __future__ import annotations

import functools
import math
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.kernels import blas
from hookgrad.ops.reduction import VectorNorm
from hookgrad.ops.table import ARRAY_NAMESPACE, ENTRIES, call, entry, function, helper

LETTERS = string.ascii_uppercase + string.ascii_lowercase

# ---------------------------------------------------------------- einsum on arrays


def contract(inputs: tuple[str, ...], output: str, arrays: Sequence[Any]) -> Any:
    """``einsum`` on NumPy arrays; ``inputs``/``output`` are label strings without ``...``.

    Every label must have one size in all operands (broadcasting is the caller's job).
    Example: ``contract(("ij", "jk"), "ik", (a, b))`` is ``a @ b``.
    """
    reductions, steps, final = _plan(inputs, output, tuple(a.shape for a in arrays))
    arrays = [a if spec is None else np.einsum(a, *spec) for a, spec in zip(arrays, reductions)]
    result = arrays[0]
    for step, operand in zip(steps, arrays[1:]):
        result = _multiply_pair(result, operand, step)
    if final is not None:
        result = result.transpose(final)
    if len(arrays) == 1 and np.may_share_memory(result, arrays[0]):
        result = result.copy()  # a transpose or diagonal is a view: own the memory
    return result


@functools.lru_cache(maxsize=1024)
def _plan(inputs: tuple[str, ...], output: str, shapes: tuple[tuple[int, ...], ...]) -> Any:
    """How ``contract`` runs: per-operand reductions, pairwise steps, final transpose."""
    sizes = {c: n for labels, shape in zip(inputs, shapes) for c, n in zip(labels, shape)}
    reductions: list[Any] = []
    prepared = []
    for k, labels in enumerate(inputs):
        if len(inputs) == 1:
            kept = output
        else:
            needed = set(output).union(*(inputs[i] for i in range(len(inputs)) if i != k))
            kept = "".join(dict.fromkeys(c for c in labels if c in needed))
        if kept == labels:
            reductions.append(None)
        else:
            index = {c: i for i, c in enumerate(dict.fromkeys(labels))}
            reductions.append(([index[c] for c in labels], [index[c] for c in kept]))
        prepared.append(kept)
    steps = []
    current = prepared[0]
    for k in range(1, len(prepared)):
        keep = set(output).union(*prepared[k + 1 :])
        last = k == len(prepared) - 1
        step, current = _pair_plan(current, prepared[k], keep, sizes, output if last else None)
        steps.append(step)
    final = None if current == output else tuple(current.index(c) for c in output)
    return reductions, steps, final


def _pair_plan(
    a: str, b: str, keep: set[str], sizes: dict[str, int], output: str | None
) -> tuple[tuple[Any, ...], str]:
    """One pairwise step: labels shared and kept are batch dims, shared and not kept are
    summed (the matmul's inner dim); the rest belong to one side each."""
    batch = [c for c in a if c in b and c in keep]
    summed = [c for c in a if c in b and c not in keep]
    left = [c for c in a if c not in b]
    right = [c for c in b if c not in a]
    swap = output is not None and "".join(batch + right + left) == output
    if swap:  # b @ a gives the output order directly: no transposed result
        a, b, left, right = b, a, right, left
    batch_shape = tuple(sizes[c] for c in batch)
    left_shape = tuple(sizes[c] for c in left)
    right_shape = tuple(sizes[c] for c in right)
    if summed:
        inner = math.prod(sizes[c] for c in summed)
        rows, cols = math.prod(left_shape), math.prod(right_shape)
        layout_a = _layout(a, batch + left + summed, sizes, (*batch_shape, rows, inner))
        layout_b = _layout(b, batch + summed + right, sizes, (*batch_shape, inner, cols))
        out_shape: tuple[int, ...] | None = (*batch_shape, *left_shape, *right_shape)
        if out_shape == (*batch_shape, rows, cols):
            out_shape = None
    else:  # no sum: a broadcast elementwise product
        ones_a, ones_b = (1,) * len(right), (1,) * len(left)
        layout_a = _layout(a, batch + left, sizes, (*batch_shape, *left_shape, *ones_a))
        layout_b = _layout(b, batch + right, sizes, (*batch_shape, *ones_b, *right_shape))
        out_shape = None
    return (swap, layout_a, layout_b, bool(summed), out_shape), "".join(batch + left + right)


def _layout(
    labels: str, order: list[str], sizes: dict[str, int], shape: tuple[int, ...]
) -> tuple[Any, Any]:
    """The transpose (None if none) and reshape (None if none) taking an operand with
    ``labels`` to ``shape``, its dims in ``order``."""
    perm = [labels.index(c) for c in order]
    in_order = tuple(sizes[c] for c in order)
    return (None if perm == sorted(perm) else perm, None if shape == in_order else shape)


def _multiply_pair(a: Any, b: Any, step: tuple[Any, ...]) -> Any:
    swap, (perm_a, shape_a), (perm_b, shape_b), summed, out_shape = step
    if swap:
        a, b = b, a
    if perm_a is not None:
        a = a.transpose(perm_a)
    if shape_a is not None:
        a = a.reshape(shape_a)
    if perm_b is not None:
        b = b.transpose(perm_b)
    if shape_b is not None:
        b = b.reshape(shape_b)
    result = np.matmul(a, b) if summed else a * b
    return result if out_shape is None else result.reshape(out_shape)


# ---------------------------------------------------------------- einsum


class Einsum(Op):
    """``einsum`` over any number of operands, given as explicit label strings.

    The gradient of operand ``k`` is the einsum of the output gradient with the other
    operands (conjugated). Two kinds of labels of operand ``k`` need more than that:
    labels nothing else has (summed away in the forward) come back by a ``ones`` operand,
    and repeated labels (a diagonal) by an identity operand that puts the gradient back
    on the diagonal.
    """

    def __init__(self, inputs: tuple[str, ...], output: str) -> None:
        self.inputs = inputs
        self.output = output
        self.input_names = self.saves = _operand_names(len(inputs))

    def forward(self, *arrays: Any) -> Any:
        return contract(self.inputs, self.output, arrays)

    def backward(self, grad: Any) -> Any:
        operands = self.unpack()
        grads: list[Any] = []
        for k, needed in enumerate(self.needs_input_grad):
            if not needed:
                grads.append(None)
                continue
            equation, constants = _einsum_grad_equation(
                self.inputs, self.output, k, tuple(operands[k].shape)
            )
            others = [x.conj() for i, x in enumerate(operands) if i != k]
            extra = [grad.new_tensor(array) for array in constants]
            grads.append(grad._einsum(equation, *others, *extra))
        return tuple(grads)


@functools.cache
def _operand_names(count: int) -> tuple[str, ...]:
    return tuple(f"operand{i}" for i in range(count))


@functools.lru_cache(maxsize=256)
def _einsum_grad_equation(
    inputs: tuple[str, ...], output: str, k: int, shape: tuple[int, ...]
) -> tuple[str, list[Any]]:
    """The equation giving operand ``k``'s gradient from (grad, other operands, constants)."""
    target = inputs[k]
    fresh = iter(c for c in LETTERS if c not in set("".join(inputs) + output))
    available = set(output).union(*(inputs[i] for i in range(len(inputs)) if i != k))
    result = []
    copies: dict[str, list[str]] = {}
    for c in target:
        if c in copies:
            copies[c].append(next(fresh))
            result.append(copies[c][-1])
        else:
            copies[c] = [c]
            result.append(c)
    terms = [output, *(inputs[i] for i in range(len(inputs)) if i != k)]
    constants = []
    lonely = ""
    for c, names in copies.items():
        size = shape[target.index(c)]
        if len(names) > 1:
            terms.append("".join(names))
            constants.append(_identity(size, len(names)))
        elif c not in available:
            lonely += c
    if lonely:
        terms.append(lonely)
        constants.append(np.ones(tuple(shape[target.index(c)] for c in lonely)))
    return ",".join(terms) + "->" + "".join(result), constants


def _identity(size: int, ndim: int) -> Any:
    """The ``ndim``-dimensional identity: 1 where all indices are equal, else 0."""
    array = np.zeros((size,) * ndim)
    array[(np.arange(size),) * ndim] = 1
    return array


# ---------------------------------------------------------------- products of the table

# torch's ``mm_mat1_backward``/``mm_mat2_backward``: an operand laid out column by column
# (a transposed matrix, ``x @ w.T``) gets its gradient computed transposed, so that after
# the transpose's backward ``w.grad`` is contiguous like ``w`` (mixed layouts make later
# elementwise ops, like an optimizer step, several times slower).
helper(
    "mm_mat1_backward(grad, mat2, mat1_sizes, mat1_strides, alpha)",
    "maybe_multiply(mat2.conj().mm(grad.t()).t(), scalar_conj(alpha)) "
    "if mat1_strides[0] == 1 and mat1_strides[1] == mat1_sizes[0] "
    "else maybe_multiply(grad.mm(mat2.t().conj()), scalar_conj(alpha))",
)
helper(
    "mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides, alpha)",
    "maybe_multiply(grad.t().mm(mat1.conj()).t(), scalar_conj(alpha)) "
    "if mat2_strides[0] == 1 and mat2_strides[1] == mat2_sizes[0] "
    "else maybe_multiply(mat1.t().conj().mm(grad), scalar_conj(alpha))",
)

Mm = entry(
    "mm(Tensor self, Tensor mat2) -> Tensor",
    blas.mm,
    self="mm_mat1_backward(grad, mat2, self.sym_sizes(), self.sym_strides(), 1)",
    mat2="mm_mat2_backward(grad, self, mat2.sym_sizes(), mat2.sym_strides(), 1)",
)
Bmm = entry(
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    np.matmul,
    self="grad.bmm(mat2.transpose(1, 2).conj())",
    mat2="self.transpose(1, 2).conj().bmm(grad)",
)
Mv = entry(
    "mv(Tensor self, Tensor vec) -> Tensor",
    blas.mv,
    self="grad.ger(vec.conj())",
    vec="self.conj().t().mv(grad)",
)
# The inner product of two vectors, without conjugation; ``vdot`` conjugates ``self``.
Dot = entry(
    "dot(Tensor self, Tensor tensor) -> Tensor",
    np.dot,
    self="grad * tensor.conj()",
    tensor="grad * self.conj()",
)
Vdot = entry(
    "vdot(Tensor self, Tensor other) -> Tensor",
    np.vdot,
    self="grad.conj() * other",
    other="grad * self",
)


def _add_product(product: Any) -> Any:
    """The kernel of ``beta * self + alpha * product(a, b)``: with ``beta == 0`` ``self``
    is ignored (its NaNs do not propagate), as in torch."""

    def kernel(c: Any, a: Any, b: Any, beta: Any, alpha: Any) -> Any:
        out = product(a, b)
        if alpha != 1:
            out = out * alpha
        if beta != 0:
            out = out + (c if beta == 1 else beta * c)
        return out.astype(np.result_type(c, a, b), copy=False)

    return kernel


# ``nn.Linear``'s op.
Addmm = entry(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    _add_product(blas.mm),
    self="maybe_multiply(grad, beta.conj())",
    mat1="mm_mat1_backward(grad, mat2, mat1.sym_sizes(), mat1.sym_strides(), alpha)",
    mat2="mm_mat2_backward(grad, mat1, mat2.sym_sizes(), mat2.sym_strides(), alpha)",
)
Addmv = entry(
    "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    _add_product(blas.mv),
    self="maybe_multiply(grad, beta.conj())",
    mat="maybe_multiply(grad.ger(vec.conj()), alpha.conj())",
    vec="maybe_multiply(mat.t().conj().mv(grad), alpha.conj())",
)
Baddbmm = entry(
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)"
    " -> Tensor",
    _add_product(np.matmul),
    self="maybe_multiply(grad, beta.conj())",
    batch1="maybe_multiply(grad.bmm(batch2.transpose(1, 2).conj()), alpha.conj())",
    batch2="maybe_multiply(batch1.transpose(1, 2).conj().bmm(grad), alpha.conj())",
)
Addr = entry(
    "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    _add_product(np.multiply.outer),
    self="maybe_multiply(grad, beta.conj())",
    vec1="maybe_multiply(grad.mv(vec2.conj()), alpha.conj())",
    vec2="maybe_multiply(grad.t().mv(vec1.conj()), alpha.conj())",
)


def _bmm_sum(a: Any, b: Any) -> Any:
    return contract(("bij", "bjk"), "ik", (a, b))


_addbmm = _add_product(_bmm_sum)


class Addbmm(Op):
    """``beta * self + alpha * sum_b batch1[b] @ batch2[b]``, with torch's formulas (the
    gradient expanded over the batch, then ``bmm``).

    Hand-written: torch's formulas read ``batch1.sym_size(0)`` (saved as
    ``_saved_batch1_sym_argsize_0``), which the table does not save.
    """

    input_names = ("self", "batch1", "batch2")
    saves = ("batch1", "batch2")
    saved_for = {"batch1": ("batch2",), "batch2": ("batch1",)}
    saved_attributes = (
        "alpha",
        "batch1_sym_argsize_0",
        "batch1_sym_argsize_1",
        "batch2_sym_argsize_2",
        "beta",
    )

    def __init__(self, beta: Any = 1, alpha: Any = 1) -> None:
        self.beta = beta
        self.alpha = alpha

    def forward(self, c: Any, a: Any, b: Any) -> Any:
        self.batch1_sym_argsize_0, self.batch1_sym_argsize_1 = a.shape[:2]
        self.batch2_sym_argsize_2 = b.shape[2]
        return _addbmm(c, a, b, self.beta, self.alpha)

    def backward(self, grad: Any) -> Any:
        # NOTE: in torch's order, the inputs by name (batch1, batch2, self): a second
        # backward runs the nodes by creation order.
        batch1, batch2 = self.unpack()
        needs = self.needs_input_grad
        grad_c = grad_a = grad_b = None
        alpha = _conj(self.alpha)
        if needs[1]:
            grad_a = self._expanded(grad).bmm(batch2.transpose(1, 2).conj())
            grad_a = call("maybe_multiply", grad_a, alpha)
        if needs[2]:
            grad_b = batch1.transpose(1, 2).conj().bmm(self._expanded(grad))
            grad_b = call("maybe_multiply", grad_b, alpha)
        if needs[0]:
            grad_c = call("maybe_multiply", grad, _conj(self.beta))
        return grad_c, grad_a, grad_b

    def _expanded(self, grad: Any) -> Any:
        """``grad`` repeated over the batch: one ``batch1[b] @ batch2[b]``'s gradient."""
        sizes = (self.batch1_sym_argsize_0, self.batch1_sym_argsize_1, self.batch2_sym_argsize_2)
        return grad.unsqueeze(0).expand(sizes)


# ---------------------------------------------------------------- trace


class Trace(Op):
    """The sum of a matrix's diagonal; torch's ``trace_backward``: ``grad`` filled into
    the diagonal of flat zeros (``index_fill``), viewed as the matrix."""

    input_names = ("self",)
    saved_attributes = ("self_sym_sizes",)

    def forward(self, a: Any) -> Any:
        self.self_sym_sizes = a.shape
        return np.trace(a)

    def backward(self, grad: Any) -> Any:
        rows, cols = self.self_sym_sizes
        diagonal = grad.new_tensor(np.arange(0, rows * cols, cols + 1), dtype=np.int64)
        return grad.new_zeros(rows * cols).index_fill(0, diagonal, grad).view(rows, cols)


def _conj(value: Any) -> Any:
    return value.conjugate() if isinstance(value, complex) else value


# ---------------------------------------------------------------- cross, addcmul, addcdiv

# ``linalg.cross`` (``torch.cross`` too): 3-vectors along ``dim``, batch dims broadcast.
LinalgCross = entry(
    "linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
    lambda a, b, dim: np.cross(a, b, axis=dim),
    self="linalg_cross(other.conj(), grad, dim)",
    other="linalg_cross(grad, self.conj(), dim)",
)
# ``self + value * tensor1 * tensor2`` in one kernel (torch's order of operations).
Addcmul = entry(
    "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    lambda a, t1, t2, value: a + value * t1 * t2,
    self="grad",
    tensor1="grad * (tensor2 * value).conj()",
    tensor2="grad * (tensor1 * value).conj()",
)
# torch's C++ ``Scalar / Tensor``: the number filled into a tensor, then divided
# (DivBackward0), unlike a ``double / Tensor`` (a reciprocal times the number).
function(
    "scalar_div", lambda number, x: number / x, lambda number, x: x.new_full(x.shape, number) / x
)
Addcdiv = entry(
    "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
    lambda a, t1, t2, value: a + value * t1 / t2,
    quiet=True,
    self="grad",
    tensor1="grad * scalar_div(value, tensor2).conj()",
    tensor2="-grad * (value * tensor1 / (tensor2 * tensor2)).conj()",
)


# ---------------------------------------------------------------- distances and norms


def _pnorm(size: Any, p: float, axis: Any) -> Any:
    """The ``p``-norm of non-negative ``size`` over ``axis`` (0: non-zeros counted)."""
    if p == 0:
        return np.sum(size != 0, axis=axis, dtype=size.dtype)
    if p == math.inf:
        return np.amax(size, axis=axis, initial=0)
    if p == -math.inf:
        return np.amin(size, axis=axis)
    if p == 1:
        return np.sum(size, axis=axis)
    if p == 2:
        return np.sqrt(np.sum(size * size, axis=axis))
    return np.sum(size**p, axis=axis) ** (1.0 / p)


def _dist(a: Any, b: Any, p: float) -> Any:
    size = np.abs(a - b)
    return np.asarray(_pnorm(size, p, None), dtype=size.dtype)


# ``torch.dist``: the ``p``-norm of ``self - other`` over all elements (broadcast).
Dist = entry(
    "dist(Tensor self, Tensor other, Scalar p=2) -> Tensor",
    _dist,
    quiet=True,
    self="norm_backward(grad, self - other, p, result, (), True)",
    other="-norm_backward(grad, self - other, p, result, (), True)",
)
# ``torch.norm(x, p, dim)`` with a dim (``frobenius_norm`` calls it): NormBackward1.
NormScalarOptDim = entry(
    "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
    lambda a, p, dim, keepdim: _pnorm_keep(np.abs(a), 2 if p is None else p, dim, keepdim),
    node="NormBackward1",
    quiet=True,
    self="norm_backward(grad, self, p, result, dim, keepdim)",
)


def _pnorm_keep(size: Any, p: float, dim: Any, keepdim: bool) -> Any:
    axis = tuple(d % max(size.ndim, 1) for d in dim) if size.ndim else None
    result = np.asarray(_pnorm(size, p, axis))
    if keepdim and size.ndim:
        result = np.expand_dims(result, axis)
    return result


def _renorm_dims(ndim: int, dim: int) -> tuple[int, ...]:
    """All dims but ``dim``: ``renorm`` normalises each slice along ``dim``."""
    dim = dim % max(ndim, 1)
    return tuple(d for d in range(ndim) if d != dim)


def _accumulate(dtype: Any) -> Any:
    """torch's CPU accumulation dtype: double for float, complex double for complex."""
    return np.complex128 if np.dtype(dtype).kind == "c" else np.float64


def _renorm(a: Any, p: float, dim: int, maxnorm: float) -> Any:
    dims = _renorm_dims(a.ndim, dim)
    norm = _pnorm(np.abs(a.astype(_accumulate(a.dtype))), p, dims)
    norm = np.expand_dims(norm, dims) if dims else norm
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return (a * factor.astype(a.real.dtype if a.dtype.kind == "c" else a.dtype)).astype(a.dtype)


def _renorm_backward_arrays(grad: Any, a: Any, p: float, dim: int, maxnorm: float) -> Any:
    dims = _renorm_dims(a.ndim, dim)
    accumulate = _accumulate(a.dtype)
    size = np.abs(a.astype(accumulate))
    norm = _pnorm(size, p, dims)
    norm = np.expand_dims(norm, dims) if dims else norm
    product = np.conj(a) * grad
    if product.dtype.kind == "c":
        product = product.real
    product = np.sum(product, axis=dims, keepdims=True, dtype=np.float64)
    nb = ARRAY_NAMESPACE["norm_backward"](product, a, p, norm, dims, True)
    with np.errstate(divide="ignore", invalid="ignore"):
        invnorm = 1 / (norm + 1e-7)
        scaled = maxnorm * invnorm * (grad - invnorm * nb)
        return np.where(norm > maxnorm, scaled.astype(grad.dtype), grad)


def _renorm_backward_tensors(grad: Any, a: Any, p: float, dim: int, maxnorm: float) -> Any:
    dims = _renorm_dims(a.ndim, dim)
    accumulate = _accumulate(a._data.dtype)
    norm = a._apply_op(VectorNorm(p, dims, True, np.dtype(accumulate)))
    product = a.conj() * grad
    if product.is_complex():
        product = product.real
    product = product.sum(dims, True, dtype=norm.dtype)
    nb = call("norm_backward", product, a, p, norm, dims, True)
    # torch's C++ arithmetic with numbers: ``norm + 1e-7`` and ``maxnorm * x`` are the
    # Scalar overloads (AddBackward1, MulBackward1).
    invnorm = norm._apply_op(ENTRIES["add.Scalar"](1e-7)).reciprocal()
    scaled = invnorm._apply_op(ENTRIES["mul.Scalar"](maxnorm)) * (grad - invnorm * nb)
    return scaled.to(grad.dtype).where(norm > maxnorm, grad)


# torch's ``renorm_backward``: the norm (in double) of each slice along ``dim``, and the
# gradient of the rescaling where it exceeded ``maxnorm``.
function("renorm_backward", _renorm_backward_arrays, _renorm_backward_tensors)
Renorm = entry(
    "renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor",
    _renorm,
    self="renorm_backward(grad, self, p, dim, maxnorm)",
)


def _pairs(x1: Any, x2: Any) -> Any:
    """``x1[..., i, :] - x2[..., j, :]`` for every pair ``(i, j)``."""
    return x1[..., :, None, :] - x2[..., None, :, :]


class Cdist(Op):
    """torch's ``_cdist_forward``: the ``p``-norm distance of every row of ``x1`` to every
    row of ``x2`` (batch dims broadcast), summed directly over the columns."""

    input_names = ("x1", "x2")
    saves = ("x1", "x2", "result")
    saved_attributes = ("p",)
    quiet = True

    def __init__(self, p: float, compute_mode: int | None = None) -> None:
        self.p = p
        self.compute_mode = compute_mode

    def forward(self, x1: Any, x2: Any) -> Any:
        return np.asarray(_pnorm(np.abs(_pairs(x1, x2)), self.p, -1), dtype=x1.dtype)

    def backward(self, grad: Any) -> Any:
        x1, x2, dist = self.unpack()
        needs_x1, needs_x2 = self.needs_input_grad
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
        contributions = _distance_gradient(grad.unsqueeze(-1), diff, dist.unsqueeze(-1), self.p)
        return (
            contributions.sum(-2) if needs_x1 else None,
            -contributions.sum(-3) if needs_x2 else None,
        )


def _distance_gradient(grad: Any, diff: Any, dist: Any, p: float) -> Any:
    """torch's per-pair term of ``_cdist_backward``/``_pdist_backward``: the gradient of
    ``||diff||_p`` times ``grad``, 0 where the distance is 0."""
    if p == 0:
        return diff.new_zeros(tuple(diff.shape))
    if p == 1:
        return diff.sign() * grad
    if p == math.inf:
        return grad * diff.sign() * (diff.abs() == dist)
    at_zero = (dist == 0).expand(*diff.shape)
    if p == 2:
        return (diff * grad / dist).masked_fill(at_zero, 0)
    if p < 2:
        at_zero = at_zero | (diff == 0)
        term = diff.sign() * diff.abs().pow(p - 1) * grad / dist.pow(p - 1)
        return term.masked_fill(at_zero, 0)
    return (diff * diff.abs().pow(p - 2) * grad / dist.pow(p - 1)).masked_fill(at_zero, 0)


class EuclideanDist(Op):
    """torch's ``_euclidean_dist`` (cdist's 2-norm for many rows): through one matrix
    product, ``||a||^2 - 2 a.b + ||b||^2``, clamped at 0, square-rooted."""

    input_names = ("x1", "x2")
    saves = ("x1", "x2", "result")
    quiet = True

    def forward(self, x1: Any, x2: Any) -> Any:
        x1_norm = np.sum(x1 * x1, axis=-1, keepdims=True)
        x2_norm = np.sum(x2 * x2, axis=-1, keepdims=True)
        x1_ = np.concatenate([x1 * -2, x1_norm, np.ones_like(x1_norm)], axis=-1)
        x2_ = np.concatenate([x2, np.ones_like(x2_norm), x2_norm], axis=-1)
        result = np.matmul(x1_, np.swapaxes(x2_, -1, -2))
        return np.sqrt(np.maximum(result, 0))

    def backward(self, grad: Any) -> Any:
        x1, x2, result = self.unpack()
        ratio = (grad / result).masked_fill(result == 0, 0)
        return (
            x1 * ratio.sum(-1, True) - ratio.matmul(x2),
            x2 * ratio.sum(-2, False).unsqueeze(-1) - ratio.mT.matmul(x1),
        )


def pair_indices(n: int) -> tuple[Any, Any]:
    """The row pairs ``i < j`` of ``pdist``, in its order: (0, 1), (0, 2) ... (1, 2) ..."""
    rows, cols = np.triu_indices(n, 1)
    return rows, cols


class Pdist(Op):
    """torch's ``_pdist_forward``: the ``p``-norm distance of every pair of rows ``i < j``."""

    input_names = ("self",)
    saves = ("self", "result")
    saved_attributes = ("p",)
    quiet = True

    def __init__(self, p: float = 2) -> None:
        self.p = p

    def forward(self, x: Any) -> Any:
        rows, cols = pair_indices(x.shape[0])
        return np.asarray(_pnorm(np.abs(x[rows] - x[cols]), self.p, -1), dtype=x.dtype)

    def backward(self, grad: Any) -> Any:
        x, dist = self.unpack()
        n = x.shape[0]
        if n < 2:
            return x.new_zeros(tuple(x.shape))
        rows, cols = pair_indices(n)
        rows_t = grad.new_tensor(rows, dtype=np.int64)
        cols_t = grad.new_tensor(cols, dtype=np.int64)
        diff = x.index_select(0, rows_t) - x.index_select(0, cols_t)
        term = _distance_gradient(grad.unsqueeze(-1), diff, dist.unsqueeze(-1), self.p)
        zeros = x.new_zeros(tuple(x.shape))
        return zeros.index_add(0, rows_t, term).index_add(0, cols_t, -term)
