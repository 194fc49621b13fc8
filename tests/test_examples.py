"""The user stories in ``shared/examples`` print the same on hookgrad as on torch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO.parent / "shared" / "examples"


def run_example(name: str, library: str) -> str:
    env = dict(os.environ, TORCHLIKE=library)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="shared/examples is not checked out")
@pytest.mark.parametrize("name", ["tensor_hooks.py", "saved_tensor_hooks.py"])
def test_example_prints_the_same_as_torch(torch: Any, name: str) -> None:
    expected = run_example(name, "torch")
    assert expected
    assert run_example(name, "hookgrad") == expected
