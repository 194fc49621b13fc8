"""The demo (``python -m hookgrad.demo``): a complete report from a tiny run, the user's own
``--data``, and a one-line error with no traceback and no report for each bad input."""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image as mpimg

from hookgrad.demo.cli import main
from hookgrad.demo.report import SECTIONS  # noqa: E402

TINY = ["--epochs", "1", "--subset", "120"]
REPO = Path(__file__).resolve().parents[2]


def _sections(page: str) -> dict[str, str]:
    found = re.findall(r'<section id="([a-z-]+)">(.*?)</section>', page, flags=re.S)
    return dict(found)


def _images(body: str) -> list[np.ndarray]:
    encoded = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', body)
    return [mpimg.imread(io.BytesIO(base64.b64decode(data)), format="png") for data in encoded]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo as the README runs it (default flags; ~15 s)."""
    out = tmp_path_factory.mktemp("demo") / "report"
    capture = io.StringIO()
    stdout = sys.stdout
    sys.stdout = capture
    try:
        status = main(["--out", str(out)])
    finally:
        sys.stdout = stdout
    assert status == 0
    return out, capture.getvalue()


def test_tiny_run_prints_accuracy_and_path(tiny_run: tuple[Path, str]) -> None:
    out, printed = tiny_run
    accuracy = re.search(r"^held-out accuracy: (\d+\.\d\d)%$", printed, flags=re.M)
    assert accuracy is not None
    assert float(accuracy.group(1)) >= 95.0  # what the README promises
    assert f"report: {(out / 'index.html').absolute()}" in printed
    assert sorted(path.name for path in out.parent.iterdir()) == ["report"]  # no temp dir left


def test_report_has_every_section_with_content(tiny_run: tuple[Path, str]) -> None:
    page = (tiny_run[0] / "index.html").read_text(encoding="utf-8")
    sections = _sections(page)
    assert list(sections) == [key for key, _, _ in SECTIONS]
    for key, body in sections.items():
        content = re.sub(r"<h2>.*?</h2>|<p>.*?</p>", "", body, flags=re.S).strip()
        assert len(content) > 50, key
    assert "held-out accuracy" in sections["summary"]


@pytest.mark.parametrize(
    "key, count",
    [("training", 1), ("gradients", 1), ("activations", 1), ("dead-relus", 1), ("per-sample", 3)],
)
def test_plots_decode(tiny_run: tuple[Path, str], key: str, count: int) -> None:
    sections = _sections((tiny_run[0] / "index.html").read_text(encoding="utf-8"))
    images = _images(sections[key])
    assert len(images) == count
    assert all(image.shape[0] > 100 and image.shape[1] > 100 for image in images)
    assert all(image.std() > 0 for image in images)  # not a blank picture


def test_per_sample_section_names_the_noise_scale(tiny_run: tuple[Path, str]) -> None:
    body = _sections((tiny_run[0] / "index.html").read_text(encoding="utf-8"))["per-sample"]
    scale = re.search(r"B_simple over the whole run: ([0-9.e+]+) examples", body)
    assert scale is not None and 1 < float(scale.group(1)) < 1e5
    assert "Largest per-example gradients" in body and 'class="missing"' not in body


def test_attribution_grid_shows_six_digits_by_four_columns(tiny_run: tuple[Path, str]) -> None:
    sections = _sections((tiny_run[0] / "index.html").read_text(encoding="utf-8"))
    (grid,) = _images(sections["attribution"])
    height, width = grid.shape[:2]
    assert height / width == pytest.approx(6 / 4, rel=0.05)


def test_graph_names_parameters_and_nodes(tiny_run: tuple[Path, str]) -> None:
    graph = _sections((tiny_run[0] / "index.html").read_text(encoding="utf-8"))["graph"]
    for name in ("conv1.weight", "conv2.bias", "fc.weight", "NllLossBackward0"):
        assert name in graph
    # The test extra installs a dot program (graphviz-pure), so the graph is a picture.
    assert "<svg" in graph


def test_hook_trace_table(tiny_run: tuple[Path, str]) -> None:
    trace = _sections((tiny_run[0] / "index.html").read_text(encoding="utf-8"))["hook-trace"]
    assert '<table class="trace">' in trace
    assert "param_grad" in trace and "conv1 (Conv2d)" in trace


def test_graph_is_drawn_without_an_activated_environment(tmp_path: Path) -> None:
    """``.venv/bin/python -m hookgrad.demo`` finds the environment's ``graphviz-pure``
    although its ``bin`` folder is not on PATH."""
    out = tmp_path / "report"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "hookgrad.demo", *TINY, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    graph = _sections((out / "index.html").read_text(encoding="utf-8"))["graph"]
    assert "<svg" in graph


def test_own_data_and_existing_out_directory(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=60)
    images = rng.normal(size=(60, 1, 6, 6)) + labels[:, None, None, None]
    data = tmp_path / "mine.npz"
    np.savez(data, x=images, y=labels)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    (out / "index.html").write_text("old")
    assert main(["--epochs", "1", "--data", str(data), "--out", str(out)]) == 0
    assert (out / "keep.txt").read_text() == "mine"
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "6x6, 3 classes" in page
    assert sorted(path.name for path in tmp_path.iterdir()) == ["mine.npz", "out"]


def _npz(path: Path, **arrays: np.ndarray) -> Path:
    np.savez(path, **arrays)
    return path


BAD_DATA = {
    "missing file": (lambda d: d / "nope.npz", "no such file"),
    "not an npz": (lambda d: _text(d / "bad.npz", "not a zip"), "not a readable .npz"),
    "no y array": (lambda d: _npz(d / "a.npz", x=np.zeros((9, 8, 8))), "missing array(s) y"),
    "x is 2-D": (
        lambda d: _npz(d / "a.npz", x=np.zeros((9, 64)), y=np.zeros(9, int)),
        "x must have shape (N, H, W)",
    ),
    "y too short": (
        lambda d: _npz(d / "a.npz", x=np.zeros((9, 8, 8)), y=np.zeros(5, int)),
        "y must have shape (9,)",
    ),
    "tiny images": (
        lambda d: _npz(d / "a.npz", x=np.zeros((9, 2, 2)), y=np.zeros(9, int)),
        "at least 4x4",
    ),
    "fractional labels": (
        lambda d: _npz(d / "a.npz", x=np.zeros((9, 8, 8)), y=np.full(9, 0.5)),
        "integer class labels",
    ),
    "pickled objects": (
        lambda d: _npz(d / "a.npz", x=np.array([None] * 9), y=np.zeros(9, int)),
        "not a readable .npz",
    ),
}


def _text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", list(BAD_DATA))
def test_bad_data_is_one_line_error(case: str, tmp_path: Path, capsys) -> None:
    make, message = BAD_DATA[case]
    data = make(tmp_path)
    out = tmp_path / "report"
    assert main([*TINY, "--data", str(data), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"hookgrad-demo: error: --data {data}: ")
    assert message in captured.err
    assert not out.exists()
    assert sorted(tmp_path.iterdir()) == sorted(p for p in [data] if p.exists())


@pytest.mark.parametrize("where", ["out is a file", "parent is a file"])
def test_unwritable_out_is_one_line_error(where: str, tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = blocker if where == "out is a file" else blocker / "report"
    assert main([*TINY, "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"hookgrad-demo: error: --out {out}: ")
    assert blocker.read_text() == "x"
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_command_line_error_has_no_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "missing.npz"
    result = subprocess.run(
        [sys.executable, "-m", "hookgrad.demo", "--data", str(missing), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr == f"hookgrad-demo: error: --data {missing}: no such file\n"
    assert result.stdout == ""
