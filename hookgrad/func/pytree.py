"""Nested containers of tensors ("pytrees"), as ``torch.utils._pytree`` sees them.

Tuples, lists, dicts and namedtuples are containers; everything else (tensors, numbers,
None) is a leaf. ``tree_flatten`` gives the leaves in order and a ``TreeSpec`` (whose
``repr`` is torch's, for the error messages that print one); ``tree_unflatten`` rebuilds
the container. ``broadcast_to_and_flatten`` matches a prefix tree (``vmap``'s
``in_dims``: an int stands for every leaf below it) to a spec.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class TreeSpec:
    """The shape of a pytree: a container's type, its context (a dict's keys, a
    namedtuple's class) and its children's specs; a leaf's spec is ``LEAF``."""

    def __init__(self, kind: Any, context: Any, children: list[TreeSpec]) -> None:
        self.kind = kind
        self.context = context
        self.children = children

    @property
    def num_leaves(self) -> int:
        if self.kind is None:
            return 1
        return sum(child.num_leaves for child in self.children)

    def is_leaf(self) -> bool:
        return self.kind is None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TreeSpec)
            and self.kind == other.kind
            and self.context == other.context
            and self.children == other.children
        )

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, indent: int = 0) -> str:
        if self.kind is None:
            return "*"
        name = "namedtuple" if self.kind == "namedtuple" else self.kind.__name__
        text = f"TreeSpec({name}, {self.context}, ["
        if self.children:
            indent += 2
            text += self.children[0].__repr__(indent)
            text += "," if len(self.children) > 1 else ""
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return text + "])"

    def pprint(self) -> str:
        """torch's ``treespec_pprint``: the structure with ``*`` for each leaf."""
        if self.kind is None:
            return "*"
        parts = [child.pprint() for child in self.children]
        if self.kind is dict:
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.context, parts)) + "}"
        if self.kind is list:
            return "[" + ", ".join(parts) + "]"
        if len(parts) == 1 and self.kind is tuple:
            return f"({parts[0]},)"
        if self.kind == "namedtuple":
            fields = ", ".join(f"{f}={p}" for f, p in zip(self.context._fields, parts))
            return f"{self.context.__name__}({fields})"
        name = "" if self.kind is tuple else self.kind.__name__
        return name + "(" + ", ".join(parts) + ")"


LEAF = TreeSpec(None, None, [])


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _node(value: Any) -> tuple[Any, Any, list[Any]] | None:
    """(kind, context, children) of a container; None for a leaf. A tuple class of
    torch's ``return_types`` (``max``: values, indices) is a container of its own kind."""
    if _is_namedtuple(value):
        return "namedtuple", type(value), list(value)
    if type(value) in (tuple, list) or isinstance(value, tuple):
        return type(value), None, list(value)
    if type(value) is dict:
        return dict, list(value.keys()), list(value.values())
    return None


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree`` in order, and its spec. Example::

    tree_flatten((x, {"a": y}))   # ([x, y], TreeSpec(tuple, None, [*, ...]))
    """
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list[Any]) -> TreeSpec:
    node = _node(tree)
    if node is None:
        leaves.append(tree)
        return LEAF
    kind, context, children = node
    return TreeSpec(kind, context, [_flatten(child, leaves) for child in children])


def tree_unflatten(leaves: list[Any], spec: TreeSpec) -> Any:
    """The container of ``spec`` holding ``leaves`` (the inverse of ``tree_flatten``)."""
    iterator = iter(leaves)
    return _unflatten(iterator, spec)


def _unflatten(leaves: Any, spec: TreeSpec) -> Any:
    if spec.kind is None:
        return next(leaves)
    children = [_unflatten(leaves, child) for child in spec.children]
    if spec.kind == "namedtuple":
        return spec.context(*children)
    if spec.kind is dict:
        return dict(zip(spec.context, children))
    return spec.kind(tuple(children)) if issubclass(spec.kind, tuple) else spec.kind(children)


def tree_map(function: Callable[[Any], Any], tree: Any) -> Any:
    """``tree`` with ``function`` applied to each leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([function(leaf) for leaf in leaves], spec)


def broadcast_to_and_flatten(prefix: Any, spec: TreeSpec) -> list[Any] | None:
    """One value of the prefix tree ``prefix`` per leaf of ``spec`` (a leaf of ``prefix``
    covers a whole subtree); None when ``prefix`` is not a prefix of ``spec``."""
    out: list[Any] = []
    return out if _broadcast(prefix, spec, out) else None


def _broadcast(prefix: Any, spec: TreeSpec, out: list[Any]) -> bool:
    node = _node(prefix)
    if node is None:
        out.extend([prefix] * spec.num_leaves)
        return True
    kind, context, children = node
    if kind != spec.kind or context != spec.context or len(children) != len(spec.children):
        return False
    return all(_broadcast(child, sub, out) for child, sub in zip(children, spec.children))
