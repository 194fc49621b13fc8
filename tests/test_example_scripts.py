"""The scripts of pytorch/examples, as the replicas in ``tests/stories/examples`` (their
models, initialisation, optimizers, schedulers, losses and loops on synthetic data),
print the same losses on hookgrad as on torch.

Each library runs every replica once, in one process (``python -c`` with ``TORCHLIKE``
set). A replica's first lines must be the same text: its first losses, printed to 6
significant digits. Where rounding can differ after that, the numbers must agree to a
relative 1e-5:

- hookgrad's ``exp``, ``log``, ``tanh`` and ``sigmoid`` round as NumPy's, torch's as its
  SLEEF vector code (1 ulp apart on about a third of the inputs), so LSTM states,
  log-softmax and softmax differ in their last bit;
- matrix products wider than what ``hookgrad/ops/kernels/blas.py`` reproduces round as
  NumPy's, not as MKL's;
- without the CPU whose MKL kernels are reproduced (``blas.emulates_mkl()``) no line is
  expected to be the same text.

The Siamese network normalises batches of 4 through ResNet-18's batch norms, which
magnifies rounding: torch's own oneDNN and native convolutions give test losses 1e-4
apart, so its numbers are compared to a relative 1e-4.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from hookgrad.ops.kernels import blas

REPO = Path(__file__).resolve().parents[1]
STORIES = REPO / "tests" / "stories" / "examples"
MARKER = "=== story "


class Expectation(NamedTuple):
    exact_lines: int  # leading lines that must be the same text
    rel: float = 1e-5
    abs: float = 0.0


EXPECTATIONS = {
    "mnist_cnn.py": Expectation(1),
    "mnist_rnn.py": Expectation(1),
    "vae.py": Expectation(10),
    "time_sequence.py": Expectation(3, rel=1e-8),
    "word_language_model.py": Expectation(1),
    # A policy loss is a sum of terms of both signs: its error is relative to the terms.
    "reinforce.py": Expectation(1, abs=1e-6),
    "actor_critic.py": Expectation(1),
    "siamese_network.py": Expectation(0, rel=1e-4),
}

# Runs each story as ``python story.py`` would, one after the other, in one process.
RUNNER = f"""
import runpy, sys, traceback
for path in sys.argv[1:]:
    print({MARKER!r} + path, flush=True)
    try:
        runpy.run_path(path, run_name="__main__")
    except BaseException:
        traceback.print_exc(file=sys.stdout)
    sys.stdout.flush()
"""


def _start(library: str) -> subprocess.Popen[str]:
    env = dict(os.environ, TORCHLIKE=library, PYTHONWARNINGS="ignore")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    paths = [str(STORIES / name) for name in EXPECTATIONS]
    return subprocess.Popen(
        [sys.executable, "-c", RUNNER, *paths],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(STORIES),
    )


def _outputs(process: subprocess.Popen[str]) -> dict[str, str]:
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    parts = re.split(rf"^{re.escape(MARKER)}(.*)\n", stdout, flags=re.M)
    return {Path(path).name: text for path, text in zip(parts[1::2], parts[2::2])}


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, str]]:
    """Every story's output under torch and under hookgrad (run side by side)."""
    processes = {library: _start(library) for library in ("torch", "hookgrad")}
    return {library: _outputs(process) for library, process in processes.items()}


def _numbers(line: str) -> tuple[list[str], list[float]]:
    """The words of ``line`` that are not numbers, and the numbers."""
    words, numbers = [], []
    for word in line.split():
        try:
            numbers.append(float(word))
        except ValueError:
            words.append(word)
    return words, numbers


def assert_same_losses(expected: str, got: str, expectation: Expectation) -> None:
    """``got`` prints ``expected``'s lines: the first ``exact_lines`` as the same text
    (on a CPU whose MKL kernels hookgrad reproduces), the others with the same words and
    numbers within the tolerances."""
    expected_lines, got_lines = expected.splitlines(), got.splitlines()
    assert len(got_lines) == len(expected_lines), got
    exact = expectation.exact_lines if blas.emulates_mkl() else 0
    assert got_lines[:exact] == expected_lines[:exact]
    for want, line in zip(expected_lines[exact:], got_lines[exact:]):
        want_words, want_numbers = _numbers(want)
        words, numbers = _numbers(line)
        assert words == want_words, (want, line)
        assert numbers == pytest.approx(want_numbers, rel=expectation.rel, abs=expectation.abs), (
            want,
            line,
        )


@pytest.mark.parametrize("story", list(EXPECTATIONS))
def test_replica_prints_torchs_losses(runs: dict[str, dict[str, str]], story: str) -> None:
    expected = runs["torch"][story]
    assert "loss" in expected and "Traceback" not in expected, expected
    got = runs["hookgrad"][story]
    assert "Traceback" not in got, got
    assert_same_losses(expected, got, EXPECTATIONS[story])


def test_the_comparison_fails_on_a_changed_loss() -> None:
    expected = "epoch 1 batch 0 loss 2.31427\nepoch 1 batch 1 loss 3.39036\n"
    assert_same_losses(expected, expected, Expectation(1))
    with pytest.raises(AssertionError):
        assert_same_losses(expected, expected.replace("2.31427", "2.31428"), Expectation(1))
    with pytest.raises(AssertionError):
        assert_same_losses(expected, expected.replace("3.39036", "3.39046"), Expectation(1))
    with pytest.raises(AssertionError):
        assert_same_losses(expected, expected.replace("batch 1", "batch 2"), Expectation(1))
