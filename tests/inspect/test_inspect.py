"""``hookgrad-inspect``: an unmodified PyTorch script runs on hookgrad, prints what it
prints on torch, and leaves a report of the model it trained; a missing API is one line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "train_mlp.py"
SECTIONS = [
    "summary",
    "training",
    "gradients",
    "activations",
    "dead-relus",
    "per-sample",
    "graph",
    "hook-trace",
]


def _python(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd
    )


def _inspect(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "report"
    done = _python("-m", "hookgrad.inspect", "--out", str(out), *args)
    page = (out / "index.html").read_text(encoding="utf-8")
    sections = dict(re.findall(r'<section id="([a-z-]+)">(.*?)</section>', page, flags=re.S))
    return done, sections


def _summary(sections: dict) -> dict[str, str]:
    return dict(re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", sections["summary"]))


def _script(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    return path


def test_example_prints_what_it_prints_on_torch_and_leaves_a_full_report(
    tmp_path: Path,
) -> None:
    expected = _python(str(EXAMPLE), "--epochs", "2")
    assert expected.returncode == 0, expected.stderr
    done, sections = _inspect(tmp_path, str(EXAMPLE), "--epochs", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected.stdout
    assert list(sections) == SECTIONS
    for key, body in sections.items():
        if key == "per-sample" and "attaches no PerSampleMonitor" in body:
            continue  # NOTE: the session does not record per-example gradients yet
        assert len(body) > 300, key  # a figure, graph or table, not a placeholder
    summary = _summary(sections)
    assert summary["model"] == "Sequential"
    assert summary["steps"] == "32"  # 2 epochs of 512 / 32 batches
    assert summary["updated by"] == "an optimizer"
    assert summary["ended"] == "finished"
    assert "<svg" in sections["graph"] and "0.weight" in sections["graph"]
    assert "param_grad" in sections["hook-trace"] and "module_forward" in sections["hook-trace"]


def test_steps_stops_the_script_and_every_thins_the_record(tmp_path: Path) -> None:
    done, sections = _inspect(
        tmp_path, "--steps", "5", "--every", "2", str(EXAMPLE), "--epochs", "3"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # stopped inside the first epoch
    summary = _summary(sections)
    assert summary["ended"] == "stopped after 5 steps (--steps)"
    assert summary["steps"] == "5"


def test_a_model_updated_by_hand_is_found(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        """
        import torch
        import torch.nn.functional as F

        fc = torch.nn.Linear(3, 1)
        x, y = torch.randn(16, 3), torch.randn(16, 1)
        for _ in range(4):
            fc.zero_grad()
            loss = F.smooth_l1_loss(fc(x), y)
            loss.backward()
            for param in fc.parameters():
                param.data.add_(-0.1 * param.grad)
        print("done")
        """,
    )
    done, sections = _inspect(tmp_path, "--seed", "0", str(script))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    summary = _summary(sections)
    assert summary["model"] == "Linear"
    assert summary["steps"] == "4"
    assert summary["updated by"] == "hand (no optimizer step)"
    assert summary["seed"] == "0"


@pytest.mark.parametrize(
    "line, message",
    [
        ("torch.not_an_api(x)", "hookgrad has no torch.not_an_api yet"),
        ("import torch.not_a_module", "hookgrad has no torch.not_a_module yet"),
        ("from torch.nn import NotALayer", "hookgrad has no torch.nn.NotALayer yet"),
        ("x.not_a_method()", "hookgrad has no torch.Tensor.not_a_method yet"),
        (
            "from torchvision.datasets import ImageNet",
            "hookgrad has no torchvision.datasets.ImageNet yet",
        ),
        (
            "import not_installed_anywhere",
            "needs the module not_installed_anywhere, which is not installed (hookgrad stands "
            "in for torch and torchvision only)",
        ),
    ],
)
def test_a_missing_api_is_one_line_naming_it_and_where(
    tmp_path: Path, line: str, message: str
) -> None:
    script = _script(
        tmp_path,
        f"""
        import torch
        model = torch.nn.Linear(2, 1)
        model(torch.ones(1, 2)).sum().backward()
        x = torch.ones(2)
        {line}
        """,
    )
    done, sections = _inspect(tmp_path, str(script))
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if "report:" not in line]
    errors = [line for line in errors if "took" not in line]
    assert errors == [f"hookgrad-inspect: script.py:6: {message}"]
    assert _summary(sections)["steps"] == "1"  # the report of what ran
    assert list(sections) == SECTIONS


def test_the_scripts_own_error_keeps_its_traceback(tmp_path: Path) -> None:
    script = _script(tmp_path, "import torch\nraise ValueError('bad data')\n")
    done, sections = _inspect(tmp_path, str(script))
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "ValueError: bad data" in done.stderr
    assert "hookgrad-inspect: the script raised ValueError: bad data" in done.stderr
    assert "No model received gradients" in sections["training"]


def test_torch_means_hookgrad_only_inside_the_block() -> None:
    import torch as real_torch

    import hookgrad
    from hookgrad.inspect.aliasing import torch_is_hookgrad

    with torch_is_hookgrad():
        import torch
        import torch.nn.functional as F
        from torch.utils import data

        assert torch is hookgrad
        assert F is hookgrad.nn.functional
        assert data is hookgrad.utils.data
        assert hookgrad.nn.functional.__spec__.name == "hookgrad.nn.functional"
    import torch

    assert torch is real_torch
    assert sys.modules["torch.nn.functional"] is real_torch.nn.functional


def test_torchvision_means_hookgrad_vision_inside_the_block() -> None:
    import hookgrad
    from hookgrad.inspect.aliasing import public_name, torch_is_hookgrad

    with torch_is_hookgrad():
        import torchvision
        import torchvision.transforms.functional as TF
        from torchvision import datasets

        assert torchvision is hookgrad.vision
        assert datasets is hookgrad.vision.datasets
        assert TF is hookgrad.vision.transforms.functional
    assert "torchvision" not in sys.modules
    assert public_name("hookgrad.vision.models.resnet") == "torchvision.models.resnet"
    assert public_name("hookgrad.nn") == "torch.nn"


TORCHVISION_SCRIPT = """
    import torch
    from torchvision import datasets, transforms

    mnist = datasets.MNIST(
        "{root}/data", train=False, download=True, transform=transforms.ToTensor()
    )
    loader = torch.utils.data.DataLoader(mnist, batch_size=32)
    model = torch.nn.Linear(784, 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for images, labels in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(images.flatten(1)), labels)
        loss.backward()
        optimizer.step()
        torch.save(model, "{root}/model.pt")
"""


def test_synthetic_data_stands_in_for_missing_datasets(tmp_path: Path) -> None:
    """The script reads MNIST through torchvision and saves its whole model: the
    inspector's own hooks on it are not pickled."""
    import hookgrad

    script = _script(tmp_path, TORCHVISION_SCRIPT.format(root=tmp_path))
    done, sections = _inspect(tmp_path, "--synthetic-data", "--steps", "3", str(script))
    assert done.returncode == 0, done.stderr
    assert "using 297 synthetic images" in done.stderr
    assert _summary(sections)["steps"] == "3"
    model = hookgrad.load(tmp_path / "model.pt", weights_only=False)
    assert isinstance(model, hookgrad.nn.Linear) and not model._forward_hooks


def test_an_optimizer_with_a_closure_makes_one_step_of_its_calls(tmp_path: Path) -> None:
    """LBFGS calls the model many times inside ``step``; the first call is inside it too.
    The graph of 2,000 nodes and more is not drawn."""
    script = _script(
        tmp_path,
        """
        import torch

        model = torch.nn.Linear(1, 1)
        x = torch.ones(1, 1)
        optimizer = torch.optim.LBFGS(model.parameters(), max_iter=2)

        def closure():
            optimizer.zero_grad()
            y = x
            for _ in range(700):
                y = model(y) * 0.5
            loss = (y - 1).pow(2).sum()
            loss.backward()
            print("evaluation")
            return loss

        for _ in range(2):
            optimizer.step(closure)
        """,
    )
    done, sections = _inspect(tmp_path, "--steps", "1", str(script))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("evaluation") > 1  # every call of the first step
    summary = _summary(sections)
    assert summary["steps"] == "1" and summary["updated by"] == "an optimizer"
    assert "nodes, more than 2,000: too many to draw" in sections["graph"]


def test_bad_command_lines(tmp_path: Path) -> None:
    done = _python("-m", "hookgrad.inspect", str(tmp_path / "missing.py"))
    assert done.returncode == 1
    assert done.stderr == f"hookgrad-inspect: error: {tmp_path / 'missing.py'}: no such file\n"
    done = _python("-m", "hookgrad.inspect", "--steps", "0", str(EXAMPLE))
    assert done.returncode == 2
    assert "must be positive" in done.stderr


def test_a_missing_report_package_is_one_line(tmp_path: Path) -> None:
    """Without the demo extra (matplotlib here), the script still runs; the report cannot
    be drawn, which is said in one line naming the install command."""
    script = _script(
        tmp_path,
        """
        import torch
        model = torch.nn.Linear(2, 1)
        model(torch.ones(1, 2)).sum().backward()
        print(torch.ones(2).sum().item())
        """,
    )
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['matplotlib'] = None\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(blocker), str(REPO)]))
    done = subprocess.run(
        [sys.executable, "-m", "hookgrad.inspect", "--out", str(tmp_path / "r"), str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 1
    assert done.stdout == "2.0\n"
    assert done.stderr == (
        "hookgrad-inspect: error: the report needs matplotlib: pip install 'hookgrad[demo]'\n"
    )
    assert not (tmp_path / "r").exists()


def test_per_sample_section_from_a_monitor() -> None:
    from types import SimpleNamespace

    import hookgrad
    from hookgrad import nn
    from hookgrad.inspect.report import _per_sample
    from hookgrad.utils.per_sample import PerSampleMonitor

    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    monitor = PerSampleMonitor(model)
    for step in range(3):
        x = hookgrad.randn(6, 4, generator=hookgrad.Generator().manual_seed(step))
        nn.functional.cross_entropy(model(x), hookgrad.tensor([0, 1, 2, 0, 1, 2])).backward()
        monitor.collect()
    body = _per_sample(SimpleNamespace(per_sample=monitor))
    assert body.count("<img") == 2 and "B_simple over the whole run" in body
    assert body.count("<tr>") == 1 + 8  # the 8 largest of 18 examples, as (step, position)
    refused = _per_sample(SimpleNamespace(per_sample="BatchNorm2d in training mode"))
    assert "BatchNorm2d in training mode" in refused
