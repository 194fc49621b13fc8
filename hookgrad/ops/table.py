"""The derivative table's machinery: one ``entry`` per op builds its node class.

An entry is what a line of torch's ``derivatives.yaml`` says, in Python::

    Exp = entry("exp(Tensor self) -> Tensor", np.exp, self="grad * result.conj()")

- the **signature** names the op, its tensor inputs (one edge each) and its non-tensor
  arguments (saved as ``_saved_<name>`` when a formula reads them);
- the **kernel** computes the forward on NumPy arrays, tensor inputs first, then the
  non-tensor arguments in signature order; it makes no node;
- one **formula** per differentiable input, written as torch writes it. The names a
  formula reads decide what the node saves: ``self``/``other``/... (an input; one read
  by a single formula is saved only when that formula will run), ``result``, a
  non-tensor argument, or ``self.sym_sizes()``, ``self.sym_numel()``,
  ``self.scalar_type()``, ``self.dim()`` (saved as ``_saved_self_sym_sizes`` ...).
  Saved tensors are packed in torch's order: inputs by name, then the result.

The built class is named as torch's node (``ExpBackward0``; the name comes from the op's
name as torch's code generator forms it, or ``node=``). Its backward runs each formula
twice over, from the same source:

- on **arrays** when no graph is being recorded (``create_graph=False``, the common case):
  method calls (``result.conj()``) become calls of ``hookgrad.ops.array_api`` functions,
  with no promotion, checks or nodes on the way;
- on **tensors** under ``create_graph=True``: the formula's calls are tensor methods and
  hookgrad's public functions, so the second backward records torch's graph (``tanh``'s
  formula calls ``tanh_backward``, itself an entry, and makes ``TanhBackwardBackward0``).

Inputs that need no gradient are skipped here, in one place: their formula never runs.
The tensor layer binds the tensor namespace and the Tensor constructor (``bind``), so
that this layer never imports it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import array_api
from hookgrad.ops.base import Op

_state = grad_mode._state

# ``self.sym_sizes()`` and friends: values of an input a formula may read, saved as
# ``<input>_<method>`` and computed from the input's array in the forward.
_DERIVED: dict[str, Callable[[np.ndarray], Any]] = {
    "sym_sizes": lambda a: tuple(a.shape),
    "sym_numel": lambda a: int(a.size),
    "scalar_type": lambda a: a.dtype,
    "dim": lambda a: a.ndim,
}

# The names formulas see on arrays and on tensors (the latter filled by ``bind``).
ARRAY_NAMESPACE: dict[str, Any] = {"__builtins__": __builtins__}
TENSOR_NAMESPACE: dict[str, Any] = {"__builtins__": __builtins__}
ARRAY_NAMESPACE.update(array_api.FUNCTIONS)
TENSOR_NAMESPACE.update(array_api.CONSTANTS)
TENSOR_NAMESPACE.update(scalar_conj=array_api.scalar_conj, scalar_log=array_api.scalar_log)


def _unbound(*args: Any) -> Any:
    raise RuntimeError("hookgrad.ops.table: the tensor layer has not called bind()")


# Set by ``bind``: wrap an array as a Tensor; run a node on tensors (``dispatch.apply``).
_make: Callable[[np.ndarray], Any] = _unbound
_apply_node: Callable[..., Any] = _unbound

# Every entry by torch name (``tanh_backward`` ...): formulas may call one another.
ENTRIES: dict[str, type[TableOp]] = {}


def bind(
    make: Callable[[np.ndarray], Any], apply: Callable[..., Any], functions: dict[str, Any]
) -> None:
    """Called once by the tensor layer: how to wrap an array as a Tensor, how to run a
    node on tensors, and the public functions formulas call on tensors (``where`` ...).
    A public function takes the place of an entry of the same name: formulas call what
    torch's call, the public ``at::`` function with its checks and overloads."""
    global _make, _apply_node
    _make = make
    _apply_node = apply
    TENSOR_NAMESPACE.update(functions)


# ------------------------------------------------------------------ signatures


class Signature:
    """A torch schema: ``add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)``.

    Attributes: ``name`` (``add``), ``overload`` (``Tensor``), ``inputs`` (the tensor
    arguments, in order), ``params`` (the other arguments, in order) and ``defaults``.
    """

    _PATTERN = re.compile(r"^(\w+)(?:\.(\w+))?\((.*)\)\s*->\s*(.+)$")

    def __init__(self, schema: str) -> None:
        match = self._PATTERN.match(schema.strip())
        if match is None:
            raise ValueError(f"not a torch schema: {schema!r}")
        self.name, self.overload, arguments, self.returns = match.groups()
        self.arguments: list[str] = []
        self.inputs: list[str] = []
        self.params: list[str] = []
        self.defaults: dict[str, Any] = {}
        for argument in _split_arguments(arguments):
            if argument == "*":
                continue
            declaration, _, default = argument.partition("=")
            type_name, name = declaration.split()
            self.arguments.append(name)
            if type_name.startswith("Tensor"):
                self.inputs.append(name)
            else:
                self.params.append(name)
            if default:
                self.defaults[name] = _default(default)


def _split_arguments(text: str) -> list[str]:
    """Arguments split at top-level commas (``int[1]? dim=None`` stays whole)."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += char in "[(" and 1 or char in "])" and -1 or 0
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def _default(text: str) -> Any:
    text = text.strip()
    return ast.literal_eval({"true": "True", "false": "False"}.get(text, text))


def node_name(op_name: str, overload_index: int = 0) -> str:
    """The name torch's code generator gives the node of ``op_name``:
    ``log1p`` -> ``Log1PBackward0``, ``tanh_backward`` -> ``TanhBackwardBackward0``."""
    camel = "".join(part.title() for part in op_name.split("_"))
    return f"{camel}Backward{overload_index}"


# ------------------------------------------------------------------ formulas


class Formula:
    """One derivative formula: its source, the names it reads (in order), and the two
    functions compiled from it (on arrays, on tensors)."""

    def __init__(self, source: str, known: set[str], params: set[str] = frozenset()) -> None:
        self.source = source
        tree = ast.parse(source.strip(), mode="eval").body
        tree = _Derived(known, set(params)).visit(tree)
        self.reads = _reads(tree, known)
        self.on_tensors = _compile(tree, self.reads, TENSOR_NAMESPACE)
        self.on_arrays = _compile(
            _MethodsAsFunctions().visit(_copy(tree)), self.reads, ARRAY_NAMESPACE
        )


class _Derived(ast.NodeTransformer):
    """``self.sym_sizes()`` -> the name ``self_sym_sizes``; a method of a non-tensor
    argument (``alpha.conj()``) -> ``scalar_conj(alpha)``."""

    def __init__(self, known: set[str], params: set[str]) -> None:
        self.known = known
        self.params = params

    def visit_Call(self, node: ast.Call) -> Any:
        function = node.func
        if (
            isinstance(function, ast.Attribute)
            and isinstance(function.value, ast.Name)
            and function.value.id in self.params
        ):
            return ast.Call(
                func=ast.Name(id=f"scalar_{function.attr}", ctx=ast.Load()),
                args=[function.value, *node.args],
                keywords=node.keywords,
            )
        if (
            isinstance(function, ast.Attribute)
            and isinstance(function.value, ast.Name)
            and function.value.id in self.known
            and function.attr in _DERIVED
            and not node.args
        ):
            return ast.Name(id=f"{function.value.id}_{function.attr}", ctx=ast.Load())
        return self.generic_visit(node)


class _MethodsAsFunctions(ast.NodeTransformer):
    """``x.conj()`` -> ``conj(x)``: on arrays, methods are ``array_api`` functions."""

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        function = node.func
        if isinstance(function, ast.Attribute):
            return ast.Call(
                func=ast.Name(id=function.attr, ctx=ast.Load()),
                args=[function.value, *node.args],
                keywords=node.keywords,
            )
        return node


def _copy(tree: ast.AST) -> Any:
    return ast.parse(ast.unparse(tree), mode="eval").body


def _reads(tree: ast.AST, known: set[str]) -> tuple[str, ...]:
    """The known names ``tree`` loads, in source order, each once."""
    seen: list[str] = []

    class Visitor(ast.NodeVisitor):
        def visit_Name(self, node: ast.Name) -> None:
            if node.id in known and node.id not in seen:
                seen.append(node.id)

    Visitor().visit(tree)
    return tuple(seen)


def _compile(tree: ast.AST, reads: tuple[str, ...], namespace: dict[str, Any]) -> Any:
    """``lambda <reads>: <tree>`` with ``namespace`` as its globals."""
    arguments = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(arg=name) for name in reads],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )
    lambda_ = ast.Expression(body=ast.Lambda(args=arguments, body=tree))
    ast.fix_missing_locations(lambda_)
    return eval(compile(lambda_, "<derivative formula>", "eval"), namespace)


# ------------------------------------------------------------------ nodes


class TableOp(Op):
    """The base of every node class the table builds (see the module docstring).

    Class attributes set by ``entry``: ``signature``, ``kernel``, ``params`` (non-tensor
    argument names), ``_formulas`` (one Formula or None per tensor input), ``_derived``
    (``(name, input index, function)`` for ``self_sym_sizes`` ...), ``_read_params``.
    """

    signature: Signature
    params: tuple[str, ...] = ()
    _formulas: tuple[Formula | None, ...] = ()
    _derived: tuple[tuple[str, int, Callable[[np.ndarray], Any]], ...] = ()
    _read_params: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # NOTE: most ops have no non-tensor arguments: no attribute is written then.
        if args or kwargs:
            values = dict(zip(self.params, args))
            values.update(kwargs)
            for name in self.params:
                self.__dict__[name] = values[name] if name in values else self._default(name)

    @classmethod
    def _default(cls, name: str) -> Any:
        if name not in cls.signature.defaults:
            raise TypeError(f"{cls.signature.name}() missing required argument '{name}'")
        return cls.signature.defaults[name]

    @staticmethod
    def kernel(*arrays: Any) -> Any:
        raise NotImplementedError

    def forward(self, *arrays: Any) -> Any:
        for name, index, function in self._derived:
            self.__dict__[name] = function(arrays[index])
        if self.params:
            arguments = self.__dict__
            params = [
                arguments[name] if name in arguments else self._default(name)
                for name in self.params
            ]
            return self.kernel(*arrays, *params)
        return self.kernel(*arrays)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("_saved_") and name[7:] in self._read_params:
                return self._default(name[7:])
            raise

    def __dir__(self) -> list[str]:
        names = set(super().__dir__()) - {"_saved", "_saved_named"}
        for name in self.saves:
            names.update((f"_saved_{name}", f"_raw_saved_{name}"))
        for name in self._read_params + tuple(name for name, _, _ in self._derived):
            names.add(f"_saved_{name}")
        return sorted(names)

    def _apply(self, grad_outputs: list[Any]) -> Any:
        grad = grad_outputs[0]
        on_arrays = not _state.grad_enabled
        values: dict[str, Any] = {"grad": grad._data if on_arrays else grad}
        if self.saves:
            for name, saved in zip(self.saves, self._saved):
                value = saved.unpack(self)
                if value is not None:
                    if on_arrays:
                        value = getattr(value, "_data", value)
                    elif not hasattr(value, "_data"):
                        value = _make(np.asarray(value))  # a Python number, as torch wraps
                values[name] = value
        arguments = self.__dict__
        for name in self._read_params:
            values[name] = arguments[name] if name in arguments else self._default(name)
        for name, _, _ in self._derived:
            values[name] = arguments[name]
        grad_inputs = []
        for formula, meta in zip(self._formulas, self._input_meta):
            if formula is None or meta is None:
                grad_inputs.append(None)
                continue
            function = formula.on_arrays if on_arrays else formula.on_tensors
            result = function(*[values[name] for name in formula.reads])
            if on_arrays:
                result = _make(result if type(result) is np.ndarray else np.asarray(result))
            grad_inputs.append(result)
        return tuple(grad_inputs)


def entry(
    schema: str,
    kernel: Callable[..., Any],
    *,
    node: str | None = None,
    quiet: bool = False,
    doc: str | None = None,
    **formulas: str,
) -> type[TableOp]:
    """Build the node class of one op from its torch ``schema``, its NumPy ``kernel`` and
    one formula per differentiable tensor input (keyword arguments named as the inputs).

    ``node``: the node's name when it is not the generated one (an overload's number,
    ``PowBackward1``). ``quiet``: the kernel may divide by zero or leave its domain;
    NumPy's warnings are off (torch is silent there). Example::

        Tanh = entry("tanh(Tensor self) -> Tensor", np.tanh,
                     self="tanh_backward(grad, result)")
    """
    signature = Signature(schema)
    unknown = set(formulas) - set(signature.inputs)
    if unknown:
        raise ValueError(f"{signature.name}: formulas for unknown inputs {sorted(unknown)}")
    derived_names = {
        f"{name}_{method}": (index, function)
        for index, name in enumerate(signature.inputs)
        for method, function in _DERIVED.items()
    }
    known = {"grad", "result", *signature.inputs, *signature.params, *derived_names}
    params = set(signature.params)
    compiled = {name: Formula(source, known, params) for name, source in formulas.items()}
    saves: list[str] = []
    users: dict[str, list[str]] = {}
    read_params: list[str] = []
    derived: list[tuple[str, int, Callable[[np.ndarray], Any]]] = []
    for input_name, formula in compiled.items():
        for name in formula.reads:
            if name in signature.inputs or name == "result":
                if name not in saves:
                    saves.append(name)
                users.setdefault(name, []).append(input_name)
            elif name in signature.params and name not in read_params:
                read_params.append(name)
            elif name in derived_names and name not in [d[0] for d in derived]:
                derived.append((name, *derived_names[name]))
    # torch saves the inputs in alphabetical order of their names, then the outputs (its
    # pack hooks see them so).
    saves.sort(key=lambda value: (value == "result", value))
    name = node or node_name(signature.name)
    attributes = {
        "__doc__": doc or f"``{schema}``: {name}'s forward and formulas, from the table.",
        "__module__": "hookgrad.ops.table",
        "signature": signature,
        "kernel": staticmethod(kernel),
        "node_name": name,
        "quiet": quiet,
        "input_names": tuple(signature.inputs),
        "params": tuple(signature.params),
        "saves": tuple(saves),
        # torch's rule: an input read by one formula only is saved only when that
        # formula's input needs a gradient; the result is always saved.
        "saved_for": {
            value: tuple(readers)
            for value, readers in users.items()
            if value != "result" and len(readers) == 1
        },
        "_formulas": tuple(compiled.get(input_name) for input_name in signature.inputs),
        "_derived": tuple(derived),
        "_read_params": tuple(read_params),
    }
    cls = type(name, (TableOp,), attributes)
    # Formulas may call an entry by its name (``tanh_backward``): the first overload,
    # unless ``array_api`` (on arrays) or a public function (on tensors) has that name.
    if signature.name not in ENTRIES:
        ENTRIES[signature.name] = cls
        ARRAY_NAMESPACE.setdefault(signature.name, _array_function(cls))
        TENSOR_NAMESPACE.setdefault(signature.name, _tensor_function(cls))
    return cls


def _arguments(cls: type[TableOp], args: tuple, kwargs: dict) -> tuple[list, list]:
    """A call's arguments, in signature order, split into tensor inputs and the rest."""
    signature = cls.signature
    values = dict(zip(signature.arguments, args))
    values.update(kwargs)
    inputs = [values[name] for name in signature.inputs]
    params = [values[name] if name in values else cls._default(name) for name in signature.params]
    return inputs, params


def _array_function(cls: type[TableOp]) -> Callable[..., Any]:
    """The op as formulas call it on arrays: its kernel."""

    def on_arrays(*args: Any, **kwargs: Any) -> Any:
        inputs, params = _arguments(cls, args, kwargs)
        return cls.kernel(*inputs, *params)

    return on_arrays


def _tensor_function(cls: type[TableOp]) -> Callable[..., Any]:
    """The op as formulas call it on tensors: its node, recorded when grad mode is on."""

    def on_tensors(*args: Any, **kwargs: Any) -> Any:
        inputs, params = _arguments(cls, args, kwargs)
        return _apply_node(cls(*params), *inputs)

    return on_tensors


def helper(signature: str, source: str) -> None:
    """A composite function formulas may call (torch's ``FunctionsManual``), written as a
    formula over its arguments, so it runs on arrays and on tensors alike. Example::

        helper("pow_backward(grad, self, exponent)",
               "zeros_like(grad) if exponent == 0 else "
               "grad * (exponent * self.pow(exponent - 1)).conj()")
    """
    name, _, rest = signature.partition("(")
    arguments = tuple(part.strip() for part in rest.rstrip(")").split(","))
    formula = Formula(source, set(arguments))
    on_arrays, on_tensors = _reordered(formula, arguments)
    ARRAY_NAMESPACE[name] = on_arrays
    TENSOR_NAMESPACE[name] = on_tensors


def _reordered(formula: Formula, arguments: tuple[str, ...]) -> tuple[Any, Any]:
    """The formula's two functions taking ``arguments`` in the helper's own order."""
    positions = [arguments.index(name) for name in formula.reads]

    def on_arrays(*args: Any) -> Any:
        return formula.on_arrays(*[args[i] for i in positions])

    def on_tensors(*args: Any) -> Any:
        return formula.on_tensors(*[args[i] for i in positions])

    return on_arrays, on_tensors
