"""The differentiation transforms of ``torch.func``: ``grad``, ``grad_and_value``,
``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``linearize``, ``functionalize``.

Each runs the function on fresh inputs that autograd tracks (an input that already
requires grad, for an enclosing transform or the caller's own autograd, enters through
a view of itself, so that what this transform returns stays differentiable for them),
and asks ``autograd.grad`` for the products it needs. What a transform returns depends
on its inputs only through that enclosing tracking: when nothing outside needs it, the
results are detached; when something does, the backward is recorded
(``create_graph``), which is how ``grad(grad(f))`` and ``jacrev(jacrev(f))`` work. Inside
``vmap`` the same backward computes for the whole batch (``hookgrad.func.batching``).

``jvp`` is forward mode (``hookgrad.autograd.forward_ad``) at the top level; nested in
another transform or inside ``vmap`` (``jacfwd`` is ``vmap`` of ``jvp``) it is the
double-backward product: ``u -> J^T u`` is linear, and its vector-Jacobian product with
the tangent is ``J v``. Both give ``J v``; the rounding may differ in the last bits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from hookgrad.autograd import forward_ad, functional
from hookgrad.func.batched import current_levels
from hookgrad.func.pytree import tree_flatten, tree_map, tree_unflatten
from hookgrad.func.vmap import vmap
from hookgrad.grad_mode import enable_grad, is_grad_enabled
from hookgrad.tensor.creation import eye, zeros_like
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "vjp",
]

# ---------------------------------------------------------------- argnums


def _argnum(argnum: Any, count: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < count:
        return argnum
    if -count <= argnum < 0:
        return argnum + count
    raise RuntimeError(f"Got argnum={argnum}, but only {count} positional inputs")


def _argnums(argnums: Any, count: int) -> Any:
    """``argnums`` checked and wrapped as torch's ``_slice_argnums`` does."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _argnum(argnums, count)
    wrapped = tuple(_argnum(a, count) for a in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {wrapped}")
    return wrapped


def _sliced(args: tuple[Any, ...], argnums: Any) -> Any:
    """The differentiated arguments: one, or a tuple of them."""
    if isinstance(argnums, int):
        return args[argnums]
    return tuple(args[i] for i in argnums)


def _replaced(args: tuple[Any, ...], argnums: Any, new: Any) -> tuple[Any, ...]:
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# ---------------------------------------------------------------- tracked inputs


class _Inputs:
    """Fresh inputs for one transform: each tensor of ``tree`` as a leaf of its own that
    requires grad, or, if it requires grad already, a view of it (``private`` holds the
    fresh leaves)."""

    def __init__(self, tree: Any) -> None:
        self.private: set[int] = set()
        self.outer = False
        self.tree = tree_map(self._tracked, tree)
        self.flat = tree_flatten(self.tree)[0]

    def _tracked(self, x: Any) -> Any:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad:
            self.outer = True
            return x.view_as(x)
        if _has_tangent(x):
            # A dual tensor of an enclosing ``jvp``: a fresh leaf with the same tangent, whose
            # backward is recorded (so that the tangent flows through it).
            primal, tangent = forward_ad.unpack_dual(x)
            leaf = _tracked_leaf(primal)
            self.private.add(id(leaf))
            self.outer = True
            return _make_dual(leaf, tangent)  # type: ignore[arg-type]
        leaf = _tracked_leaf(x)
        self.private.add(id(leaf))
        return leaf

    def needs_graph(self, outputs: Sequence[Any]) -> bool:
        """Whether something outside this transform tracks ``outputs`` (an input that
        required grad, or a tensor the function closed over that requires grad)."""
        return self.outer or _reaches_outside(outputs, self.private)


# NOTE: these as they are outside vmap, which refuses them for batched tensors (see
# ``batching.core._Patches``); the transforms' own leaves and duals are made inside too.
_requires_grad = Tensor.requires_grad_
_make_dual = forward_ad.make_dual


def _tracked_leaf(x: Tensor) -> Tensor:
    """A new leaf sharing ``x``'s data, that requires grad."""
    return _requires_grad(x.detach())


def _has_tangent(x: Tensor) -> bool:
    return forward_ad._current_level >= 0 and forward_ad.unpack_dual(x).tangent is not None


def _reaches_outside(outputs: Sequence[Any], private: set[int]) -> bool:
    """Whether the graph of ``outputs`` reaches a leaf that requires grad other than the
    ``private`` ones."""
    todo = []
    for output in outputs:
        if isinstance(output, Tensor) and output.requires_grad:
            if output.grad_fn is None:
                if id(output) not in private:
                    return True
            else:
                todo.append(output.grad_fn)
    seen = set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in private:
            return True
        todo.extend(child for child, _ in node.next_functions if child is not None)
    return False


def _detached(tree: Any, keep: bool) -> Any:
    """``tree``'s tensors detached unless ``keep`` (an enclosing transform tracks them)."""
    if keep:
        return tree
    return tree_map(lambda x: x.detach() if isinstance(x, Tensor) else x, tree)


def _gradients(
    outputs: Sequence[Any],
    inputs: Sequence[Any],
    cotangents: Sequence[Any] | None,
    retain_graph: bool,
    create_graph: bool,
) -> tuple[Any, ...]:
    """torch's ``_autograd_grad``: the products for the outputs that require grad
    (``autograd.functional``'s), zeros for an input no output depends on."""
    grads = functional._grad(
        list(outputs),
        tuple(inputs),
        cotangents,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )
    return tuple(zeros_like(x) if g is None else g for g, x in zip(grads, inputs))


# ---------------------------------------------------------------- grad


def grad_and_value(
    func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """``grad``, also returning the function's value: ``(gradient, value)``, or
    ``(gradient, (value, aux))`` with ``has_aux``.

    Example::

        g, value = hookgrad.func.grad_and_value(lambda x: (x ** 2).sum())(x)
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _grad_and_value(func, argnums, has_aux, args, kwargs)

    return wrapper


def _grad_and_value(
    func: Callable[..., Any], argnums: Any, has_aux: bool, args: tuple, kwargs: dict
) -> Any:
    name = "grad_and_value(f)(*args)"
    with enable_grad():
        argnums = _argnums(argnums, len(args))
        inputs = _Inputs(_sliced(args, argnums))
        output = func(*_replaced(args, argnums, inputs.tree), **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(
                    f"{name}: output of function f should be a tuple: (output, aux) if "
                    "has_aux is True"
                )
            output, aux = output
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{name}: Expected f(*args) to return a Tensor, got {type(output)}")
        if output.ndim != 0:
            raise RuntimeError(
                f"{name}: Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{output.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        if has_aux:
            for leaf in tree_flatten(aux)[0]:
                if not isinstance(leaf, Tensor):
                    raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
        keep = inputs.needs_graph([output, *tree_flatten(aux)[0]])
        grads = _gradients([output], inputs.flat, None, retain_graph=keep, create_graph=keep)
    gradient = tree_unflatten(list(grads), tree_flatten(inputs.tree)[1])
    value = _detached(output, keep)
    if has_aux:
        return gradient, (value, _detached(aux, keep))
    return gradient, value


def grad(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The gradient of ``func`` (which returns a one-element tensor) with respect to its
    argument(s) ``argnums`` (an int, or a tuple of them: a tuple of gradients), as a
    function of the same arguments. An argument may be a tree of tensors (a dict of
    parameters): its gradient is the same tree. ``has_aux``: ``func`` returns
    ``(output, aux)``; the result is then ``(gradient, aux)``.

    Composes with the other transforms: ``vmap(grad(f))`` gives per-example gradients,
    ``grad(grad(f))`` second derivatives. Inputs no output depends on get zeros.

    Example::

        x = hookgrad.tensor([1.0, 2.0])
        hookgrad.func.grad(lambda x: (x ** 3).sum())(x)   # tensor([ 3., 12.])
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gradient, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        if has_aux:
            return gradient, value[1]
        return gradient

    return wrapper


# ---------------------------------------------------------------- vjp


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """``func(*primals)`` and a function computing vector-Jacobian products there:
    ``(output, vjp_fn)`` (``(output, vjp_fn, aux)`` with ``has_aux``), where
    ``vjp_fn(cotangents)`` (a tree shaped as ``output``) returns one product per primal,
    as a tuple. ``vjp_fn`` may be called several times, and inside ``vmap`` (that is
    ``jacrev``).

    Example::

        out, vjp_fn = hookgrad.func.vjp(hookgrad.sin, x)
        (g,) = vjp_fn(hookgrad.ones_like(out))   # cos(x)
    """
    return _vjp(func, primals, None, has_aux)


def _vjp(func: Callable[..., Any], primals: tuple, argnums: Any, has_aux: bool) -> Any:
    name = "vjp(f, *primals)"
    with enable_grad():
        if argnums is None:
            inputs = _Inputs(primals)
            args = inputs.tree
        else:
            argnums = _argnums(argnums, len(primals))
            inputs = _Inputs(_sliced(primals, argnums))
            args = _replaced(primals, argnums, inputs.tree)
        output = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(
                    f"{name}: output of function f should be a tuple: (output, aux) if "
                    "has_aux is True"
                )
            output, aux = output
        flat_out, out_spec = tree_flatten(output)
        if not flat_out or (len(flat_out) == 1 and flat_out[0] is None):
            raise RuntimeError(
                f"{name}: Expected f to be a function that has non-empty output (got output "
                f"= {flat_out})"
            )
        for out in flat_out:
            if not isinstance(out, Tensor):
                raise RuntimeError(
                    f"{name}: expected f(*primals) to return only tensors, got unsupported "
                    f"type {type(out)}"
                )
            if not (out.is_floating_point() or out.is_complex()):
                raise RuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, "
                    f"got Tensor with dtype {out.dtype}"
                )
        keep = inputs.needs_graph([*flat_out, *tree_flatten(aux)[0]])
    in_spec = tree_flatten(inputs.tree)[1]

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None) -> Any:
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {cot_spec.pprint()}, primal output: "
                f"{out_spec.pprint()}"
            )
        if create_graph is None:
            create_graph = keep and is_grad_enabled()
        with enable_grad():
            grads = _gradients(flat_out, inputs.flat, flat_cot, retain_graph, create_graph)
        return tree_unflatten(list(grads), in_spec)

    result = _detached(output, keep)
    if has_aux:
        return result, vjp_fn, _detached(aux, keep)
    return result, vjp_fn


# ---------------------------------------------------------------- jacrev


def _standard_basis(tensors: Sequence[Any]) -> list[Any]:
    """For tensors of ``n`` elements in all: per tensor, an ``(n, *shape)`` tensor whose
    rows, all tensors together, are the identity (one cotangent or tangent per element)."""
    numels = [t.numel() for t in tensors]
    total = sum(numels)
    identity = eye(total, dtype=tensors[0].dtype)
    bases = []
    start = 0
    for tensor, numel in zip(tensors, numels):
        columns = identity[:, start : start + numel].to(tensor.dtype)
        bases.append(columns.reshape((total,) + tuple(tensor.shape)))
        start += numel
    return bases


def jacrev(
    func: Callable[..., Any],
    argnums: Any = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to argument(s) ``argnums``, by reverse mode:
    one ``vjp`` per output element, all at once (``vmap``; ``chunk_size`` rows at a time
    if given, one at a time with 1). For an output of shape ``O`` and an input of shape
    ``I`` the block has shape ``O + I``; several outputs give a tuple (tree) of them,
    several ``argnums`` a tuple per output. ``has_aux``: ``(jacobian, aux)``.

    Example::

        hookgrad.func.jacrev(hookgrad.sin)(x)   # diag(cos(x))
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        _refuse_complex("jacrev", args, True)
        result = _vjp(func, args, argnums, has_aux)
        output, vjp_fn = result[0], result[1]
        flat_out, out_spec = tree_flatten(output)
        _refuse_complex("jacrev", flat_out, False)
        primals = _sliced(args, _argnums(argnums, len(args)))
        flat_primals, primals_spec = tree_flatten(
            primals if not isinstance(argnums, int) else (primals,)
        )
        basis = _standard_basis(flat_out)
        total = sum(out.numel() for out in flat_out)
        rows = []
        step = total if chunk_size is None else chunk_size
        for start in range(0, total, step):
            chunk = [b[start : start + step] for b in basis]
            if chunk_size == 1:
                cotangents = tree_unflatten([c[0] for c in chunk], out_spec)
                rows.append([g.unsqueeze(0) for g in tree_flatten(vjp_fn(cotangents))[0]])
            else:
                cotangents = tree_unflatten(chunk, out_spec)
                rows.append(tree_flatten(vmap(vjp_fn)(cotangents))[0])
        per_input = [
            rows[0][i] if len(rows) == 1 else rows[0][i]._cat([r[i] for r in rows], 0)
            for i in range(len(flat_primals))
        ]
        blocks = []
        for out_index, out in enumerate(flat_out):
            start = sum(o.numel() for o in flat_out[:out_index])
            blocks.append(
                tuple(
                    g[start : start + out.numel()].reshape(tuple(out.shape) + tuple(p.shape))
                    for g, p in zip(per_input, flat_primals)
                )
            )
        by_output = [tree_unflatten(list(block), primals_spec) for block in blocks]
        if isinstance(argnums, int):
            by_output = [b[0] for b in by_output]
        jacobian = tree_unflatten(by_output, out_spec)
        if has_aux:
            return jacobian, result[2]
        return jacobian

    return wrapper


def _refuse_complex(name: str, values: Any, is_input: bool) -> None:
    for value in tree_flatten(values)[0]:
        if isinstance(value, Tensor) and value.is_complex():
            kind = "inputs" if is_input else "outputs"
            raise RuntimeError(
                f"{name}: Expected all {kind} to be real but received complex tensor at flattened "
                f"{'input' if is_input else 'output'} idx: 0"
            )


# ---------------------------------------------------------------- jvp


def jvp(
    func: Callable[..., Any],
    primals: Any,
    tangents: Any,
    *,
    strict: bool = False,
    has_aux: bool = False,
) -> Any:
    """``func(*primals)`` and its Jacobian-vector product with ``tangents`` (shaped as
    ``primals``, a tuple): ``(output, jvp_out)``, or ``(output, jvp_out, aux)`` with
    ``has_aux``. Forward mode at the top level; inside ``vmap`` (``jacfwd``) or another
    transform, two reverse passes (see the module docstring).

    Example::

        out, tangent = hookgrad.func.jvp(hookgrad.sin, (x,), (hookgrad.ones_like(x),))
    """
    return _jvp(func, primals, tangents, None, has_aux)


def _jvp(func: Callable[..., Any], primals: Any, tangents: Any, argnums: Any, has_aux: bool) -> Any:
    name = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{name}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    diff = primals if argnums is None else _sliced(primals, _argnums(argnums, len(primals)))
    if argnums is not None and isinstance(argnums, int):
        diff = (diff,)
    flat_primals, primals_spec = tree_flatten(diff)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{name}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {primals_spec} and tangents with structure {tangents_spec}"
        )
    for values, what in ((flat_primals, "primals"), (flat_tangents, "tangents")):
        if not values:
            raise RuntimeError(f"{name}: Expected {what} to contain at least one Tensor.")
        for value in values:
            if not isinstance(value, Tensor):
                raise RuntimeError(
                    f"{name}: Expected {what} to only contain Tensors, got {type(value)}"
                )
    for primal, tangent in zip(flat_primals, flat_tangents):
        if tuple(primal.shape) != tuple(tangent.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size "
                f"{list(primal.shape)} while the given forward gradient is of size "
                f"{list(tangent.shape)}."
            )

    def call(flat: list[Any]) -> Any:
        new = tree_unflatten(flat, primals_spec)
        if argnums is None:
            args = new
        elif isinstance(argnums, int):
            args = _replaced(primals, _argnums(argnums, len(primals)), new[0])
        else:
            args = _replaced(primals, _argnums(argnums, len(primals)), new)
        output = func(*args)
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(
                    f"{name}: output of function f should be a tuple: (output, aux) if "
                    "has_aux is True"
                )
        return output

    if _forward_mode_available(flat_primals, flat_tangents):
        return _jvp_forward(call, flat_primals, flat_tangents, has_aux)
    return _jvp_double_backward(call, flat_primals, flat_tangents, has_aux)


def _forward_mode_available(primals: list[Any], tangents: list[Any]) -> bool:
    """Forward AD serves a top-level ``jvp``: no vmap and no dual level active, and no
    input tracked by an enclosing transform."""
    if current_levels() or forward_ad._current_level >= 0:
        return False
    return not any(t.requires_grad for t in (*primals, *tangents))


def _check_jvp_output(output: Any) -> tuple[list[Any], Any]:
    flat, spec = tree_flatten(output)
    for out in flat:
        if not isinstance(out, Tensor):
            raise RuntimeError(
                "jvp(f, primals, tangents): expected f(*args) to return only tensors, got "
                f"unsupported type {type(out)}"
            )
    return flat, spec


def _jvp_forward(call: Callable[..., Any], primals: list, tangents: list, has_aux: bool) -> Any:
    with forward_ad.dual_level():
        duals = [_make_dual(p, t) for p, t in zip(primals, tangents)]
        output = call(duals)
        aux = None
        if has_aux:
            output, aux = output
        flat, spec = _check_jvp_output(output)
        primal_out, tangent_out = [], []
        for out in flat:
            unpacked = forward_ad.unpack_dual(out)
            primal_out.append(unpacked.primal.detach())
            tangent = unpacked.tangent
            tangent_out.append(zeros_like(out) if tangent is None else tangent.detach())
    result = (tree_unflatten(primal_out, spec), tree_unflatten(tangent_out, spec))
    if has_aux:
        return (*result, _detached(aux, False))
    return result


def _jvp_double_backward(
    call: Callable[..., Any], primals: list, tangents: list, has_aux: bool
) -> Any:
    with enable_grad():
        inputs = _Inputs(primals)
        output = call(inputs.flat)
        aux = None
        if has_aux:
            output, aux = output
        flat, spec = _check_jvp_output(output)
        keep = inputs.needs_graph([*flat, *tree_flatten(aux)[0]]) or any(
            t.requires_grad for t in tangents
        )
        dummies = [_tracked_leaf(zeros_like(out)) for out in flat]
        pulled = _gradients(flat, inputs.flat, dummies, retain_graph=True, create_graph=True)
        pairs = [(p, t) for p, t in zip(pulled, tangents) if p.requires_grad]
        if pairs:
            pushed = _gradients(
                [p for p, _ in pairs],
                dummies,
                [t for _, t in pairs],
                retain_graph=keep,
                create_graph=keep,
            )
        else:
            pushed = tuple(zeros_like(out) for out in flat)
    result = (
        _detached(tree_unflatten(flat, spec), keep),
        _detached(tree_unflatten(list(pushed), spec), keep),
    )
    if has_aux:
        return (*result, _detached(aux, keep))
    return result


# ---------------------------------------------------------------- jacfwd, hessian


def jacfwd(
    func: Callable[..., Any],
    argnums: Any = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to argument(s) ``argnums``, by forward mode:
    one ``jvp`` per input element, all at once (``vmap``, with ``randomness``). Blocks
    and structure as ``jacrev``'s.

    Example::

        hookgrad.func.jacfwd(hookgrad.sin)(x)   # diag(cos(x))
    """

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        _refuse_complex("jacfwd", args, True)
        wrapped = _argnums(argnums, len(args))
        primals = _sliced(args, wrapped)
        flat_primals, primals_spec = tree_flatten(
            primals if not isinstance(argnums, int) else (primals,)
        )
        numels = [p.numel() for p in flat_primals]
        basis = _standard_basis(flat_primals)

        def push(flat_basis: list[Any]) -> Any:
            tangents = tree_unflatten(flat_basis, primals_spec)
            out = _jvp(func, args, tangents, argnums, has_aux)
            if has_aux:
                return out[1], out[2]
            return out[1]

        results = vmap(push, randomness=randomness)(basis)
        aux = None
        if has_aux:
            results, aux = results
            aux = tree_map(lambda value: value[0], aux)
        flat_results, spec = tree_flatten(results)
        by_output = []
        for column in flat_results:
            moved = column.movedim(0, -1)
            blocks = []
            start = 0
            for primal, numel in zip(flat_primals, numels):
                piece = moved.narrow(-1, start, numel)
                blocks.append(piece.reshape(tuple(moved.shape[:-1]) + tuple(primal.shape)))
                start += numel
            blocks_tree = tree_unflatten(blocks, primals_spec)
            by_output.append(blocks_tree[0] if isinstance(argnums, int) else blocks_tree)
        jacobian = tree_unflatten(by_output, spec)
        if has_aux:
            return jacobian, aux
        return jacobian

    return wrapper


def hessian(func: Callable[..., Any], argnums: Any = 0) -> Callable[..., Any]:
    """The Hessian of ``func`` (a one-element output) with respect to ``argnums``:
    ``jacfwd(jacrev(func))``, as in torch.

    Example::

        hookgrad.func.hessian(lambda x: (x ** 3).sum())(x)   # diag(6 * x)
    """
    return jacfwd(jacrev(func, argnums), argnums)


# ---------------------------------------------------------------- linearize, functionalize


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``func(*primals)`` and a function of tangents computing its Jacobian-vector
    product at ``primals``: ``(output, jvp_fn)``, where ``jvp_fn(*tangents)`` is
    ``jvp(func, primals, tangents)[1]`` without running ``func`` again (the backward
    graph of ``func`` is kept and the product computed by two reverse passes over it).

    Example::

        out, jvp_fn = hookgrad.func.linearize(hookgrad.sin, x)
        jvp_fn(hookgrad.ones_like(x))   # cos(x)
    """
    with enable_grad():
        inputs = _Inputs(primals)
        output = func(*inputs.tree)
        flat, spec = _check_jvp_output(output)
        dummies = [_tracked_leaf(zeros_like(out)) for out in flat]
        pulled = _gradients(flat, inputs.flat, dummies, retain_graph=True, create_graph=True)
    flat_in_spec = tree_flatten(primals)[1]

    def jvp_fn(*tangents: Any) -> Any:
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != flat_in_spec:
            raise RuntimeError(
                "linearize: Expected tangents to have the same python structure as primals. "
                f"Got primals with structure {flat_in_spec} and tangents with structure "
                f"{tangents_spec}"
            )
        with enable_grad():
            pairs = [(p, t) for p, t in zip(pulled, flat_tangents) if p.requires_grad]
            if not pairs:
                return tree_unflatten([zeros_like(out) for out in flat], spec)
            pushed = _gradients([p for p, _ in pairs], dummies, [t for _, t in pairs], True, False)
        return tree_unflatten(list(pushed), spec)

    return tree_unflatten([out.detach() for out in flat], spec), jvp_fn


def functionalize(func: Callable[..., Any], *, remove: str = "mutations") -> Callable[..., Any]:
    """``func`` itself: torch's ``functionalize`` rewrites in-place ops and views out of a
    traced program for its compilers; hookgrad runs programs eagerly, where in-place ops
    already compute what the functional program would, so there is nothing to remove.
    ``remove`` is checked as torch checks it.

    Example::

        hookgrad.func.functionalize(f)(x)   # f(x)
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
            "Valid options are:\n     remove='mutations': all inplace and out= operators will "
            "be removed from the program, and replaced with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing operators "
            "{view} will be replaced with their non-aliasing counterparts, {view}_copy.\n"
        )

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper
