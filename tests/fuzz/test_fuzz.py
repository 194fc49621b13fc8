"""Differential fuzz test: random autograd programs agree on hookgrad and torch.

``HOOKGRAD_FUZZ_PROGRAMS`` (default 300) programs from seed ``HOOKGRAD_FUZZ_SEED``
(default 0) are each run on both libraries; a program fails when its first disagreement is
not one of ``known.py``. A failure prints the seed, every diff and the program's listing;
``python -m tests.fuzz --seed S -n 1 --listing`` runs it again.
"""

from __future__ import annotations

import os

import pytest

from .compare import Diff, compare
from .generator import generate
from .interpreter import run
from .runner import check

PROGRAMS = int(os.environ.get("HOOKGRAD_FUZZ_PROGRAMS", "300"))
SEED = int(os.environ.get("HOOKGRAD_FUZZ_SEED", "0"))


@pytest.mark.parametrize("seed", range(SEED, SEED + PROGRAMS))
def test_program_agrees_with_torch(seed: int) -> None:
    result = check(seed)
    assert result.ok, "\n" + result.report()


def test_generation_is_deterministic() -> None:
    assert generate(7).listing() == generate(7).listing()
    assert generate(7).listing() != generate(8).listing()


def test_compare_finds_a_changed_value() -> None:
    import torch

    program = generate(3)
    record = run(program, torch)
    assert compare(record, run(program, torch), program) == []
    changed = run(program, torch)
    entry = next(e for e in changed if hasattr(e.value, "values"))
    entry.value.values = entry.value.values + 1.0
    diffs = compare(record, changed, program)
    assert [d.kind for d in diffs] == ["values"]
    assert isinstance(diffs[0], Diff)
