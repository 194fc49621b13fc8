"""``einsum``: Einstein summation over tensors, torch's composite of permutes, reshapes and
batched products (so its graph is torch's), with the equation and sublist forms, ``...``
broadcasting and torch's checks and errors; ``einsum_of`` is the form backward formulas
call (``Tensor._einsum``).

Example: ``hookgrad.einsum("ij,jk->ik", a, b)`` equals ``a @ b``.
"""

from __future__ import annotations

import functools
from typing import Any

from hookgrad.linalg.checks import different_dtypes, type_name
from hookgrad.ops import linalg as ops
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.tensor import Tensor

__all__ = ["einsum"]


# ---------------------------------------------------------------- einsum


def einsum(*args: Any) -> Any:
    """Sum of products over the labelled dims, as an equation: ``"ij,jk->ik"`` is ``a @ b``.

    Forms: ``einsum("ij,jk->ik", a, b)``, ``einsum("ij,jk", [a, b])``, and the sublist
    form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``. Labels are letters; ``...`` stands for
    broadcast dims; a label repeated in one operand takes its diagonal; without ``->``
    the output has the labels used once, in alphabetical order (``...`` first). Dims of
    size 1 broadcast against the same label's size elsewhere.

    Example::

        hookgrad.einsum("bij,bjk->bik", x, y)   # batched matmul
        hookgrad.einsum("ii", m)                # trace
        hookgrad.einsum("i,j->ij", u, v)        # outer product
    """
    if not args:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at "
            "least one operand and its subscripts list"
        )
    if isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    elif isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    else:
        raise TypeError(
            f"einsum(): argument 'equation' (position 1) must be str, not {type(args[0]).__name__}"
        )
    if not operands:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at "
            "least one operand and its subscripts list"
        )
    for i, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(operand).__name__}"
            )
    return einsum_of(equation, operands)


def einsum_of(equation: str, operands: tuple[Any, ...]) -> Any:
    """``einsum`` once its arguments are an equation and a tuple of tensors."""
    inputs, output, expanded = _einsum_labels(equation, tuple(x._data.shape for x in operands))
    for operand in operands[1:]:
        if different_dtypes(operand, operands[0]):
            raise RuntimeError(
                f"expected scalar type {type_name(operands[0])} but found {type_name(operand)}"
            )
    if expanded:
        operands = tuple(
            x if shape == x._data.shape else x.expand(shape) for x, shape in zip(operands, expanded)
        )
    return apply(ops.Einsum(inputs, output), *operands)


def _sublist_equation(args: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """The equation string of the sublist form ``(op, [0, 1], op, [1, 2], [0, 2])``."""
    operands = args[0::2]
    equation = ",".join(_sublist_term(sublist) for sublist in args[1::2])
    if len(args) % 2:
        operands = operands[:-1]
        equation += "->" + _sublist_term(args[-1])
    return equation, tuple(operands)


def _sublist_term(sublist: Any) -> str:
    term = ""
    for label in sublist:
        if label is Ellipsis:
            term += "..."
        elif not 0 <= label < 52:
            raise ValueError(
                "einsum(): subscript in subscript list is not within the valid range [0, 52)"
            )
        else:
            term += ops.LETTERS[label]
    return term


@functools.lru_cache(maxsize=1024)
def _einsum_labels(
    equation: str, shapes: tuple[tuple[int, ...], ...]
) -> tuple[tuple[str, ...], str, tuple[tuple[int, ...], ...] | None]:
    """Parse and check ``equation`` for operands of ``shapes``.

    Returns one label string per operand and the output's, with ``...`` replaced by
    letters the equation does not use, and the shapes to broadcast the operands to (None
    when no dim of size 1 broadcasts).
    """
    terms, output_term = _split_equation(equation, len(shapes))
    unused = [c for c in ops.LETTERS if c not in equation]
    ellipsis_ndim = 0
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        named = len(term.replace("...", ""))
        if "..." not in term and named != len(shape):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match "
                f"the number of dimensions ({len(shape)}) for operand {k} and no ellipsis "
                "was given"
            )
        if named > len(shape):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) is more than "
                f"the number of dimensions ({len(shape)}) for operand {k}"
            )
        if "..." in term:
            ellipsis_ndim = max(ellipsis_ndim, len(shape) - named)
    ellipsis = "".join(unused[:ellipsis_ndim])
    inputs = []
    for term, shape in zip(terms, shapes):
        covered = len(shape) - len(term.replace("...", ""))
        inputs.append(term.replace("...", ellipsis[ellipsis_ndim - covered :]))
    if output_term is None:
        counts = "".join(terms)
        once = sorted(c for c in set(counts) if c != "." and counts.count(c) == 1)
        output = ellipsis + "".join(once)
    else:
        output = output_term.replace("...", ellipsis)
    sizes = _label_sizes(inputs, shapes, ellipsis)
    expanded = tuple(tuple(sizes[c] for c in labels) for labels in inputs)
    return tuple(inputs), output, None if expanded == shapes else expanded


def _split_equation(equation: str, count: int) -> tuple[list[str], str | None]:
    """The operand terms and the output term (None without ``->``), checked."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) < count:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > count:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    position = 0
    for k, term in enumerate(terms):
        _check_term(term, f"operand {k}", position)
        position += len(term) + 1
    if not arrow:
        return terms, None
    _check_term(rhs, "output", len(lhs) + 2)
    for c in rhs.replace("...", ""):
        if c not in lhs:
            raise RuntimeError(
                f"einsum(): output subscript {c} does not appear in the equation for any "
                "input operand"
            )
        if rhs.count(c) > 1:
            raise RuntimeError(
                f"einsum(): output subscript {c} appears more than once in the output"
            )
    return terms, rhs


def _check_term(term: str, what: str, position: int) -> None:
    found = False
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if found:
                raise RuntimeError(
                    f"einsum(): found '.' for {what} for which an ellipsis was already found"
                    if what != "output"
                    else "einsum(): found '.' for output but an ellipsis (...) was already found"
                )
            if term[i : i + 3] != "...":
                raise RuntimeError(
                    f"einsum(): found '.' for {what} that is not part of any ellipsis"
                )
            found = True
            i += 3
            continue
        if c not in ops.LETTERS:
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {position + i} in the equation "
                "string, subscripts must be in [a-zA-Z]"
            )
        i += 1


def _label_sizes(
    inputs: list[str], shapes: tuple[tuple[int, ...], ...], ellipsis: str
) -> dict[str, int]:
    """The size of every label (the largest, when others are 1), with torch's errors."""
    sizes: dict[str, int] = {}
    for k, (labels, shape) in enumerate(zip(inputs, shapes)):
        seen: dict[str, int] = {}
        for dim, (c, n) in enumerate(zip(labels, shape)):
            if c in seen and seen[c] != n:
                raise RuntimeError(
                    f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't "
                    f"match, {n} != {seen[c]}"
                )
            seen[c] = n
            known = sizes.get(c, 1)
            if n != known and n != 1 and known != 1:
                if c in ellipsis:
                    raise RuntimeError(
                        f"einsum(): dimension {dim} covered by ellipsis in operand {k}has size "
                        f"{n} which does not broadcast with previously seen ellipsis with size "
                        f"{known} for the respective dimension"
                    )
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {n} for operand {k} which does not "
                    f"broadcast with previously seen size {known}"
                )
            if c not in sizes or known == 1:
                sizes[c] = n
    return sizes
