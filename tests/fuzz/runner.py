"""Runs one seed on both libraries and sorts its diffs into known and new ones.

Example::

    >>> result = check(0)
    >>> result.ok in (True, False)
    True
"""

from __future__ import annotations

from dataclasses import dataclass

import hookgrad

from . import specs
from .compare import Diff, compare, report
from .generator import generate
from .interpreter import run
from .known import match
from .program import Program


def available(name: str) -> bool:
    """Whether hookgrad has an optional op (``topk``, ``sort``): emitted only then."""
    return hasattr(hookgrad.Tensor, name)


MISSING = sorted({s.name for s in specs.ALL if s.optional and not available(s.name)})


@dataclass
class Result:
    """One program's outcome: every diff, and the known entry matching each (or "").
    It is ``ok`` when there is no diff or the first one is known (see ``known.py``)."""

    program: Program
    diffs: list[Diff]
    known: list[str]

    @property
    def ok(self) -> bool:
        return not self.known or bool(self.known[0])

    def report(self) -> str:
        return report(self.program, self.diffs, self.known)


def check(seed: int) -> Result:
    """Generate the program for ``seed``, run it on torch and hookgrad, diff the records."""
    import torch

    program = generate(seed, available)
    diffs = compare(run(program, torch), run(program, hookgrad), program)
    known = []
    for diff in diffs:
        entry = match(diff, program)
        known.append(entry.name if entry else "")
    return Result(program, diffs, known)
