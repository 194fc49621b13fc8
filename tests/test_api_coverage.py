"""The share of torch's public API that hookgrad has (``tools/api_coverage.py``) meets the
issue's thresholds, and every name counted as present is tested against torch.

"Tested against torch" is checked as: the name occurs as a word in a test file that
compares with torch, that is a file under ``tests/`` that names torch, or a module such a
file imports (the declarative case tables, whose rows run on either library).
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

# The acceptance: the share of the counted names hookgrad has, per namespace.
THRESHOLDS = {
    "torch": 0.90,
    "torch.Tensor": 0.90,
    "torch.nn": 0.95,
    "torch.nn.functional": 0.95,
    "torch.nn.init": 0.95,
    "torch.linalg": 0.95,
    "torch.special": 0.95,
    "torch.fft": 0.95,
    "torch.distributions": 0.95,
    "torch.optim": 0.95,
    "torch.optim.lr_scheduler": 0.95,
    "torch.utils.data": 0.95,
    "torch.autograd": 0.95,
}


@cache
def _tool():
    """``tools/api_coverage.py``, imported by path (``tools`` is not a package)."""
    spec = importlib.util.spec_from_file_location("api_coverage", ROOT / "tools/api_coverage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@cache
def _coverage(namespace: str):
    return _tool().coverage(namespace, _tool().NAMESPACES[namespace])


def _module_file(name: str) -> Path | None:
    """The file of the ``tests.*`` module ``name``, if there is one."""
    path = ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imported_test_modules(path: Path) -> set[Path]:
    """The files of the ``tests.*`` modules ``path`` imports (``from tests.x import y``
    may name a module ``y`` as well as an attribute)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            if name.split(".")[0] == "tests" and (target := _module_file(name)) is not None:
                found.add(target)
    return found


@cache
def _words_tested_against_torch() -> frozenset[str]:
    """Every word of the test files that compare with torch (this file aside)."""
    files = sorted(path for path in TESTS.rglob("*.py") if path != Path(__file__).resolve())
    texts = {path: path.read_text() for path in files}
    comparing = {path for path, text in texts.items() if re.search(r"\btorch\b", text)}
    pending = list(comparing)
    while pending:
        for imported in _imported_test_modules(pending.pop()):
            if imported not in comparing:
                comparing.add(imported)
                pending.append(imported)
    words: set[str] = set()
    for path in comparing:
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", texts[path]))
    return frozenset(words)


@pytest.mark.parametrize("namespace", sorted(THRESHOLDS))
def test_coverage_meets_the_threshold(namespace):
    report = _coverage(namespace)
    assert report.share >= THRESHOLDS[namespace], (
        f"{namespace}: {report.share:.1%} < {THRESHOLDS[namespace]:.0%}; missing: "
        + " ".join(report.missing)
    )


@pytest.mark.parametrize("namespace", list(_tool().NAMESPACES))
def test_every_counted_name_is_tested_against_torch(namespace):
    words = _words_tested_against_torch()
    untested = [name for name in _coverage(namespace).present if name not in words]
    assert not untested, f"{namespace}: not in any test against torch: " + " ".join(untested)


def test_the_check_sees_the_case_tables():
    """A name used only by a row of the op-case tables (which name no library) counts:
    the tables are imported by the test that runs them on torch."""
    cases = (TESTS / "ops" / "cases" / "unary.py").read_text()
    assert not re.search(r"\btorch\b", cases) and "erfinv" in cases
    assert "erfinv" in _words_tested_against_torch()
    assert "not_a_torch_name_at_all" not in _words_tested_against_torch()
