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
  non-tensor argument, or ``self.sym_sizes()``, ``self.sym_strides()`` (in elements),
  ``self.sym_numel()``, ``self.scalar_type()``, ``self.dim()`` (saved as
  ``_saved_self_sym_sizes`` ...).
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
from hookgrad.ops.strides import elementwise_layout

_state = grad_mode._state

# ``self.sym_sizes()`` and friends: values of an input a formula may read, saved as
# ``<input>_<method>`` and computed from the input's array in the forward.
_DERIVED: dict[str, Callable[[np.ndarray], Any]] = {
    "sym_sizes": lambda a: tuple(a.shape),
    "sym_strides": lambda a: tuple(s // a.itemsize for s in a.strides),
    "sym_numel": lambda a: int(a.size),
    "scalar_type": lambda a: a.dtype,
    "dim": lambda a: a.ndim,
}

# The names formulas see on arrays and on tensors (the latter filled by ``bind``).
ARRAY_NAMESPACE: dict[str, Any] = {"__builtins__": __builtins__}
TENSOR_NAMESPACE: dict[str, Any] = {"__builtins__": __builtins__}
ARRAY_NAMESPACE.update(array_api.FUNCTIONS)
TENSOR_NAMESPACE.update(array_api.CONSTANTS)
TENSOR_NAMESPACE.update(
    scalar_conj=array_api.scalar_conj,
    scalar_log=array_api.scalar_log,
    is_grad_enabled=grad_mode.is_grad_enabled,  # torch's ``GradMode::is_enabled()``
)


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
        self.types: dict[str, str] = {}
        self.defaults: dict[str, Any] = {}
        for argument in _split_arguments(arguments):
            if argument == "*":
                continue
            declaration, _, default = argument.partition("=")
            type_name, name = declaration.split()
            self.arguments.append(name)
            self.types[name] = type_name
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
    """One derivative formula: its source, the names it reads (in order), and its
    expression on tensors and on arrays (where methods are ``array_api`` functions)."""

    def __init__(self, source: str, known: set[str], params: set[str] = frozenset()) -> None:
        self.source = source
        tree = ast.parse(source.strip(), mode="eval").body
        tree = _Derived(known, set(params)).visit(tree)
        self.reads = _reads(tree, known)
        self.on_tensors = ast.unparse(_ArithmeticAsCalls().visit(_copy(tree)))
        self.on_arrays = ast.unparse(_MethodsAsFunctions().visit(_copy(tree)))


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


class _ArithmeticAsCalls(ast.NodeTransformer):
    """``a * b`` -> ``_mul(a, b)`` (likewise ``+``, ``-``, ``/``) in formulas on tensors:
    with a Python number on one side the op is torch's ``Scalar`` overload, as in its C++
    formulas (``MulBackward1``, one edge), not a wrapped-number tensor."""

    _CALLS = {ast.Add: "_add", ast.Sub: "_sub", ast.Mult: "_mul", ast.Div: "_div"}

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        self.generic_visit(node)
        name = self._CALLS.get(type(node.op))
        if name is None:
            return node
        return ast.Call(
            func=ast.Name(id=name, ctx=ast.Load()), args=[node.left, node.right], keywords=[]
        )


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


def _function(source: str, name: str, namespace: dict[str, Any]) -> Any:
    """The function ``name`` defined by ``source``, with ``namespace`` as its globals."""
    code = compile(source, f"<derivative table: {name}>", "exec")
    scope: dict[str, Any] = {}
    exec(code, namespace, scope)  # noqa: S102 (the table's own generated code)
    return scope[name]


def _backward_source(
    name: str, formulas: tuple[Formula | None, ...], saves: tuple[str, ...], on_arrays: bool
) -> str:
    """The source of one node class's backward, straight-line, in one mode.

    On arrays it reads ``grad``'s and the saved tensors' arrays and wraps each gradient
    as a tensor; on tensors it works on tensors throughout (a saved Python number is
    wrapped, as torch wraps numbers). A formula runs only if its input needs a gradient.
    """
    lines = [f"def {name}(node, grad):"]
    if on_arrays:
        lines.append("    grad_tensor = grad")
        lines.append("    grad = grad._data")
    lines.append("    meta = node._input_meta")
    if saves:
        lines.append("    saved = node._saved")
    unwrap = "_array" if on_arrays else "_tensor"
    for index, value in enumerate(saves):
        lines.append(f"    {value} = {unwrap}(saved[{index}].unpack(node))")
    attributes = {r for f in formulas if f is not None for r in f.reads}
    for value in sorted(attributes - {"grad", *saves}):
        lines.append(f"    {value} = node.{value}")
    results = []
    for index, formula in enumerate(formulas):
        if formula is None:
            results.append("None")
            continue
        expression = formula.on_arrays if on_arrays else formula.on_tensors
        if on_arrays:
            # NOTE: a gradient passed on as it is (``self: grad``) keeps its tensor.
            expression = "grad_tensor" if expression == "grad" else f"_wrap({expression})"
        results.append(f"None if meta[{index}] is None else {expression}")
    lines.append(f"    return ({', '.join(results)},)")
    return "\n".join(lines) + "\n"


_DERIVED_SOURCE = {
    "sym_sizes": "tuple({}.shape)",
    "sym_strides": "tuple(s // {0}.itemsize for s in {0}.strides)",
    "sym_numel": "int({}.size)",
    "scalar_type": "{}.dtype",
    "dim": "{}.ndim",
}


def _forward(
    kernel: Callable[..., Any], signature: Signature, derived: list, elementwise: bool
) -> Any:
    """The node's ``forward(*arrays)``: the kernel itself when it needs nothing else,
    else a generated function that records derived values and adds the arguments (and,
    for an ``elementwise`` entry, lays the result out as torch's ``TensorIterator``)."""
    if not signature.params and not derived and not elementwise:
        return staticmethod(kernel)
    inputs = [f"a{index}" for index in range(len(signature.inputs))]
    lines = [f"def forward(node, {', '.join(inputs)}):"]
    for name, index, _ in derived:
        method = name[len(signature.inputs[index]) + 1 :]
        lines.append(f"    node.{name} = {_DERIVED_SOURCE[method].format(inputs[index])}")
    arguments = inputs + [f"node.{param}" for param in signature.params]
    call = f"kernel({', '.join(arguments)})"
    if elementwise:
        call = f"elementwise_layout({call}, ({', '.join(inputs)},))"
    lines.append(f"    return {call}")
    namespace = {"kernel": kernel, "elementwise_layout": elementwise_layout}
    return _function("\n".join(lines) + "\n", "forward", namespace)


def _array(value: Any) -> Any:
    """A saved value as formulas see it on arrays: a tensor's array, a number as is."""
    return value._data if hasattr(value, "_data") else value


def _tensor(value: Any) -> Any:
    """A saved value as formulas see it on tensors: a number wrapped (as torch does)."""
    if value is None or hasattr(value, "_data"):
        return value
    tensor = _make(np.asarray(value))
    # NOTE: torch's "wrapped number": promotion treats it as the number it holds
    # (``hookgrad.tensor.promotion.wrapped_number``).
    tensor._wrapped_number = True
    return tensor


def _wrap(array: Any) -> Any:
    """A gradient computed on arrays, as the tensor the engine passes on (None: torch's
    undefined gradient, as ``norm_backward`` gives for ``ord=0``)."""
    if type(array) is not np.ndarray:
        if array is None:
            return None
        array = np.asarray(array)
    return _make(array)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, complex, np.number))


def _scalar_op(overload: str, tensor: Any, number: Any) -> Any:
    """``tensor <op> number`` through the op's ``Scalar`` overload entry."""
    return _apply_node(ENTRIES[overload](number), tensor)


def _mul(a: Any, b: Any) -> Any:
    if _is_number(b) and not _is_number(a):
        return _scalar_op("mul.Scalar", a, b)
    if _is_number(a) and not _is_number(b):
        return _scalar_op("mul.Scalar", b, a)
    return a * b


def _add(a: Any, b: Any) -> Any:
    if _is_number(b) and not _is_number(a):
        return _scalar_op("add.Scalar", a, b)
    if _is_number(a) and not _is_number(b):
        return _scalar_op("add.Scalar", b, a)
    return a + b


def _sub(a: Any, b: Any) -> Any:
    if _is_number(b) and not _is_number(a):
        return _scalar_op("sub.Scalar", a, b)
    if _is_number(a) and not _is_number(b):
        # torch's C++ ``number - tensor`` subtracts from a filled tensor: SubBackward0.
        return _make(np.asarray(a, dtype=b._data.dtype)) - b
    return a - b


def _div(a: Any, b: Any) -> Any:
    if _is_number(b) and not _is_number(a):
        return _scalar_op("div.Scalar", a, b)
    if _is_number(a) and not _is_number(b):
        # torch's C++ ``number / tensor`` is ``tensor.reciprocal() * number``.
        return _scalar_op("mul.Scalar", b.reciprocal(), a)
    return a / b


ARRAY_NAMESPACE.update(_array=_array, _wrap=_wrap)
TENSOR_NAMESPACE.update(_tensor=_tensor, _mul=_mul, _add=_add, _sub=_sub, _div=_div)


# ------------------------------------------------------------------ nodes


class TableOp(Op):
    """The base of every node class the table builds (see the module docstring).

    Class attributes set by ``entry``: ``signature``, ``kernel``, ``params`` (non-tensor
    argument names), ``_formulas`` (one Formula or None per tensor input), ``_derived``
    (``(name, input index, function)`` for ``self_sym_sizes`` ...), ``_read_params`` and
    ``_shown`` (the values read as ``_saved_<name>``: torch shows no saved ScalarType).
    """

    signature: Signature
    promotion = "same"
    public = False
    aliases: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    _formulas: tuple[Formula | None, ...] = ()
    _derived: tuple[tuple[str, int, Callable[[np.ndarray], Any]], ...] = ()
    _read_params: tuple[str, ...] = ()
    _shown: tuple[str, ...] = ()
    # Generated by ``entry``: the backward on arrays and on tensors.
    _on_arrays: Callable[[Any, Any], tuple[Any, ...]]
    _on_tensors: Callable[[Any, Any], tuple[Any, ...]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # NOTE: arguments left out keep their defaults as class attributes: most ops have
        # none, and then nothing is written.
        if args:
            self.__dict__.update(zip(self.params, args))
        if kwargs:
            self.__dict__.update(kwargs)

    @staticmethod
    def kernel(*arrays: Any) -> Any:
        raise NotImplementedError

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("_saved_") and name[7:] in self._read_params:
                return getattr(self, name[7:])
            raise

    def __dir__(self) -> list[str]:
        names = set(super().__dir__()) - {"_saved", "_saved_named"}
        for name in self.saves:
            names.update((f"_saved_{name}", f"_raw_saved_{name}"))
        for name in self._shown:
            names.add(f"_saved_{name}")
        return sorted(names)

    def _apply(self, grad_outputs: list[Any]) -> Any:
        if _state.grad_enabled:
            return self._on_tensors(grad_outputs[0])
        return self._on_arrays(grad_outputs[0])


def entry(
    schema: str,
    kernel: Callable[..., Any],
    *,
    node: str | None = None,
    quiet: bool = False,
    promotion: str = "same",
    public: bool = False,
    aliases: tuple[str, ...] = (),
    doc: str | None = None,
    elementwise: bool = False,
    **formulas: str,
) -> type[TableOp]:
    """Build the node class of one op from its torch ``schema``, its NumPy ``kernel`` and
    one formula per differentiable tensor input (keyword arguments named as the inputs).

    ``node``: the node's name when it is not the generated one (an overload's number,
    ``PowBackward1``). ``quiet``: the kernel may divide by zero or leave its domain;
    NumPy's warnings are off (torch is silent there). ``promotion``: the dtype the
    public function computes in, ``"same"`` as the input or ``"float"`` (integers in the
    default float dtype). ``public``: the tensor layer builds from the entry its public
    function (``hookgrad.tanh``, with ``out=``), its ``Tensor`` method and its in-place
    variant (``tanh_``), also under torch's other names (``aliases``: ``arctanh``);
    otherwise a hand-written function calls the node. ``elementwise``: the result is laid
    out as torch's ``TensorIterator`` lays it out (``x.t() + y`` as ``x.t()``, where
    NumPy's order favours C order; needed where the kernel's own order is not torch's).
    Example::

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
    # torch saves a ScalarType (``self.scalar_type()``, a ``dtype`` argument) but shows none.
    shown = [name for name in read_params if not signature.types[name].startswith("ScalarType")]
    shown += [name for name, _, _ in derived if not name.endswith("_scalar_type")]
    read_params = [name for name in read_params if name in shown]
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
        "promotion": promotion,
        "public": public,
        "aliases": aliases,
        "input_names": tuple(signature.inputs),
        "params": tuple(signature.params),
        "saves": tuple(saves),
        # torch's rule: an input read by one formula only is saved only when that
        # formula's input needs a gradient; the result is always saved, and so is
        # everything of an op with one formula or of a ``*_backward`` op.
        "saved_for": {}
        if len(compiled) <= 1 or "backward" in signature.name
        else {
            value: tuple(readers)
            for value, readers in users.items()
            if value != "result" and len(readers) == 1
        },
        # Edges for the inputs with a formula only, as torch's nodes have.
        "edge_inputs": None
        if len(compiled) == len(signature.inputs)
        else tuple(
            index for index, input_name in enumerate(signature.inputs) if input_name in compiled
        ),
        "_formulas": tuple(
            compiled[input_name] for input_name in signature.inputs if input_name in compiled
        ),
        "_derived": tuple(derived),
        "_read_params": tuple(read_params),
        "_shown": tuple(shown),
    }
    for param in signature.params:
        if hasattr(TableOp, param):
            raise ValueError(f"{signature.name}: argument name '{param}' shadows a node attribute")
        if param in signature.defaults:
            attributes[param] = signature.defaults[param]
    attributes["forward"] = _forward(kernel, signature, derived, elementwise)
    formula_list = attributes["_formulas"]
    saved = attributes["saves"]
    attributes["_on_arrays"] = _function(
        _backward_source("on_arrays", formula_list, saved, True), "on_arrays", ARRAY_NAMESPACE
    )
    attributes["_on_tensors"] = _function(
        _backward_source("on_tensors", formula_list, saved, False), "on_tensors", TENSOR_NAMESPACE
    )
    cls = type(name, (TableOp,), attributes)
    # Formulas may call an entry by its name (``tanh_backward``): the first overload,
    # unless ``array_api`` (on arrays) or a public function (on tensors) has that name.
    if signature.overload is not None:
        ENTRIES[f"{signature.name}.{signature.overload}"] = cls
    if signature.name not in ENTRIES:
        ENTRIES[signature.name] = cls
        ARRAY_NAMESPACE.setdefault(signature.name, _array_function(cls))
        TENSOR_NAMESPACE.setdefault(signature.name, _tensor_function(cls))
    return cls


def public_entries() -> list[type[TableOp]]:
    """The entries whose public function, method and in-place variant are generated."""
    return [cls for name, cls in ENTRIES.items() if cls.public and name == cls.signature.name]


def _arguments(cls: type[TableOp], args: tuple, kwargs: dict) -> tuple[list, list]:
    """A call's arguments, in signature order, split into tensor inputs and the rest."""
    signature = cls.signature
    values = dict(zip(signature.arguments, args))
    values.update(kwargs)
    inputs = [values[name] for name in signature.inputs]
    params = [values[name] if name in values else getattr(cls, name) for name in signature.params]
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


def call(name: str, *args: Any) -> Any:
    """Run ``name`` (an entry, or a function formulas call) on tensors, as a formula does:
    for hand-written nodes whose backward is an entry. Example::

        call("select_backward", grad, (3, 4), 0, 1)  # records SelectBackwardBackward0
    """
    return TENSOR_NAMESPACE[name](*args)


def node_function(name: str, node: Callable[..., Op]) -> None:
    """Let formulas call the hand-written view node ``node`` as ``name(x, *params)``: on
    arrays its forward runs, on tensors ``node(*params)`` is recorded. Example::

        node_function("slice_symint", Slice)  # slice_symint(grad, dim, start, end, step)
    """
    ARRAY_NAMESPACE[name] = lambda x, *params: node(*params).forward(x)
    TENSOR_NAMESPACE[name] = lambda x, *params: _apply_node(node(*params), x)


def helper(signature: str, source: str) -> None:
    """A composite function formulas may call (torch's ``FunctionsManual``), written as a
    formula over its arguments, so it runs on arrays and on tensors alike. Example::

        helper("pow_backward(grad, self, exponent)",
               "zeros_like(grad) if exponent == 0 else "
               "grad * (exponent * self.pow(exponent - 1)).conj()")
    """
    name, _, rest = signature.partition("(")
    arguments = ", ".join(part.strip() for part in rest.rstrip(")").split(","))
    formula = Formula(source, {part.strip() for part in arguments.split(",")})
    for namespace, body in (
        (ARRAY_NAMESPACE, formula.on_arrays),
        (TENSOR_NAMESPACE, formula.on_tensors),
    ):
        namespace[name] = _function(
            f"def {name}({arguments}):\n    return {body}\n", name, namespace
        )


def function(name: str, on_arrays: Callable[..., Any], on_tensors: Callable[..., Any]) -> None:
    """A function formulas may call, written in Python for each mode: a step of torch's C++
    that a formula cannot say (an in-place change under ``NoGradGuard``). Example::

        function("halved_test", lambda x: x / 2, lambda x: x.detach() / 2)
    """
    ARRAY_NAMESPACE[name] = on_arrays
    TENSOR_NAMESPACE[name] = on_tensors
