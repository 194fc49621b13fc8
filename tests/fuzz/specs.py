"""The op table of the fuzzer: which calls a program may make, and on what.

Each ``OpSpec`` names a call, its family (which decides the operand shapes and how the
result's shape follows: see ``generator.py``, one builder per family), how it is called
(``method``: ``x.exp()``, ``function``: ``torch.exp(x)``, ``operator``: ``x * y``), its
domain (``positive``: every tensor input must hold values > 0, e.g. ``log``), whether its
result is positive when its inputs are, fixed extra arguments, and a weight.

Families:

- ``unary``: one tensor, same shape out (``exp``, ``pow(x, 2.5)``, ``clamp(min, max)``).
- ``binary``: two tensors broadcast together (``add(alpha=)``, ``maximum``, ``x / y``).
- ``scalar`` / ``rscalar``: a tensor and a Python scalar, ``x * 2.5`` / ``2.5 - x``.
- ``reduce``: one tensor, over all dims or ``dim=`` with ``keepdim=`` (``sum``, ``var``).
- ``multi``: several outputs (``max(dim)`` → values, indices; ``split``, ``unbind``).
- ``view``: shape and view ops (``view``, ``transpose``, indexing, ``expand``, ``detach``).
- ``matmul``, ``join`` (``cat``, ``stack``, ``where``), ``compare`` (bool results).
- ``inplace``: in-place methods on an existing slot (``add_``, ``relu_``, ``x[i] = v``).

Example::

    >>> [s.name for s in UNARY if s.domain == "positive"][:3]
    ['log', 'sqrt', 'rsqrt']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class OpSpec:
    """One callable the generator may emit (see the module docstring for the fields)."""

    name: str
    family: str
    form: str = "method"
    domain: str = "any"
    positive: bool = False
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    weight: float = 1.0
    rule: str = ""  # a shape rule of the family's builder: all_only, dim_only, one_dim, wide
    optional: bool = False  # emitted only when hookgrad has it ("topk if available")


def _unary(name: str, **kw: Any) -> OpSpec:
    return OpSpec(name, "unary", **kw)


UNARY = [
    _unary("log", domain="positive"),
    _unary("sqrt", domain="positive", positive=True),
    _unary("rsqrt", domain="positive", positive=True),
    _unary("reciprocal", domain="positive", positive=True),
    _unary("log1p", domain="positive", positive=True),
    _unary("pow", domain="positive", positive=True, args=(2.5,)),
    _unary("pow", domain="positive", positive=True, args=(-1.5,), form="function"),
    _unary("exp", positive=True, weight=2),
    _unary("exp", positive=True, form="function"),
    _unary("sigmoid", positive=True, weight=2),
    _unary("tanh", weight=2),
    _unary("relu", weight=2),
    _unary("relu", form="function"),
    _unary("abs"),
    _unary("neg"),
    _unary("neg", form="operator"),
    _unary("sin"),
    _unary("cos"),
    _unary("erf"),
    _unary("expm1"),
    _unary("square"),
    _unary("sign"),
    _unary("pow", args=(2,), positive=True),
    _unary("pow", args=(3,), form="operator", positive=True),
    _unary("clamp", kwargs={"min": -0.5, "max": 0.5}, weight=2),
    _unary("clamp", kwargs={"min": 0.25}, positive=True),
    _unary("clamp", args=(None, 0.3)),
    _unary("clone"),
    _unary("double", positive=True),
    _unary("float", positive=True),
    _unary("to", positive=True),
    _unary("softmax", kwargs={"dim": -1}, positive=True),
    _unary("cumsum", kwargs={"dim": 0}),
]
# ``positive`` on the dtype conversions and on pow(x, 2) means "keeps positivity" and is
# applied only when the input is positive (see ``generator.py``); the rest always hold.
KEEPS_POSITIVE = {"double", "float", "to", "clone", "pow", "cumsum", "abs", "square"}

BINARY = [
    OpSpec("add", "binary", form="operator", positive=True, weight=3),
    OpSpec("add", "binary", positive=True),
    OpSpec("add", "binary", kwargs={"alpha": 0.5}, positive=True),
    OpSpec("sub", "binary", form="operator", weight=2),
    OpSpec("sub", "binary", kwargs={"alpha": 2}),
    OpSpec("mul", "binary", form="operator", positive=True, weight=3),
    OpSpec("mul", "binary", form="function", positive=True),
    OpSpec("truediv", "binary", form="operator", domain="positive", positive=True),
    OpSpec("div", "binary", domain="positive", positive=True),
    OpSpec("pow", "binary", domain="positive", positive=True),
    OpSpec("maximum", "binary", form="function", positive=True),
    OpSpec("minimum", "binary", positive=True),
    OpSpec("atan2", "binary"),
]

SCALAR = [
    OpSpec("mul", "scalar", form="operator", args=(2.5,), positive=True, weight=2),
    OpSpec("add", "scalar", form="operator", args=(1.5,), positive=True),
    OpSpec("sub", "scalar", args=(0.75,)),
    OpSpec("truediv", "scalar", form="operator", args=(4.0,), positive=True),
    OpSpec("add", "scalar", args=(2,), kwargs={"alpha": 3}, positive=True),
    OpSpec("sub", "rscalar", form="operator", args=(2.0,)),
    OpSpec("truediv", "rscalar", form="operator", args=(1.0,), domain="positive", positive=True),
    OpSpec("mul", "rscalar", form="operator", args=(-3,)),
    OpSpec("pow", "rscalar", form="operator", args=(2.0,), positive=True),
]

REDUCE = [
    OpSpec("sum", "reduce", positive=True, weight=3),
    OpSpec("mean", "reduce", positive=True, weight=2),
    OpSpec("prod", "reduce", positive=True, rule="one_dim"),
    OpSpec("amax", "reduce", positive=True),
    OpSpec("amin", "reduce", positive=True),
    OpSpec("max", "reduce", positive=True, rule="all_only"),
    OpSpec("logsumexp", "reduce", rule="dim_only"),
    OpSpec("var", "reduce", rule="wide", positive=True),
    OpSpec("std", "reduce", rule="wide", positive=True),
    OpSpec("norm", "reduce", rule="all_only", positive=True),
]

MULTI = [
    OpSpec("max", "multi", positive=True, weight=2),
    OpSpec("min", "multi", positive=True),
    OpSpec("sort", "multi", positive=True, optional=True),
    OpSpec("topk", "multi", positive=True, optional=True),
    OpSpec("split", "multi", positive=True),
    OpSpec("unbind", "multi", positive=True),
    OpSpec("chunk", "multi", positive=True),
]

VIEW = [
    OpSpec(name, "view", positive=True, weight=weight)
    for name, weight in [
        ("view", 2),
        ("reshape", 1),
        ("transpose", 2),
        ("t", 0.5),
        ("permute", 1),
        ("unsqueeze", 1),
        ("squeeze", 0.5),
        ("expand", 1.5),
        ("getitem", 3),
        ("select", 1),
        ("narrow", 1),
        ("flatten", 0.5),
        ("detach", 1),
        ("contiguous", 0.5),
    ]
]

OTHER = [
    OpSpec("matmul", "matmul", form="operator", weight=2),
    OpSpec("matmul", "matmul", form="function"),
    OpSpec("cat", "join", form="function"),
    OpSpec("stack", "join", form="function", weight=0.5),
    OpSpec("where", "join", form="function"),
    OpSpec("gt", "compare", args=(0.0,)),
    OpSpec("lt", "compare", form="function", args=(0.5,)),
]

INPLACE = [
    OpSpec("add_", "inplace", weight=2),
    OpSpec("mul_", "inplace", weight=2),
    OpSpec("sub_", "inplace"),
    OpSpec("div_", "inplace", domain="positive"),
    OpSpec("relu_", "inplace", weight=2),
    OpSpec("sigmoid_", "inplace"),
    OpSpec("exp_", "inplace"),
    OpSpec("clamp_", "inplace", kwargs={"min": -0.3, "max": 0.6}),
    OpSpec("neg_", "inplace"),
    OpSpec("zero_", "inplace", weight=0.5),
    OpSpec("copy_", "inplace"),
    OpSpec("setitem", "inplace", weight=2),
]

ALL = UNARY + BINARY + SCALAR + REDUCE + MULTI + VIEW + OTHER + INPLACE
