"""The ``hookgrad-inspect`` command line: run the script with hookgrad as torch, watch
the model it trains, write the report; one line on stderr when the script needs an API
hookgrad lacks (exit status 1, the report of what ran is still written)."""

from __future__ import annotations

import argparse
import os
import random
import re
import runpy
import sys
import time
import traceback
import warnings
from collections.abc import Sequence
from types import ModuleType, TracebackType
from typing import Any

import hookgrad
from hookgrad.demo.cli import DEMO_PACKAGES
from hookgrad.demo.errors import DemoError
from hookgrad.inspect.aliasing import MissingAPI, public_name, torch_is_hookgrad
from hookgrad.inspect.session import Inspection, StopScript
from hookgrad.vision.datasets.synthetic import SYNTHETIC_ENV

__all__ = ["main", "parser"]

PROG = "hookgrad-inspect"


def parser() -> argparse.ArgumentParser:
    """The argument parser: options, then the script and its own arguments."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Run an unmodified PyTorch script with hookgrad standing in for torch, "
        "and write the gradient-inspection report of the model it trains.",
    )
    parser.add_argument(
        "--out", default="hookgrad-report", help="report directory, default: hookgrad-report"
    )
    parser.add_argument("--seed", type=int, help="seed torch, random and NumPy first")
    parser.add_argument("--steps", type=_positive, help="stop the script after N steps")
    parser.add_argument(
        "--every", type=_positive, default=1, help="record every K-th step (default 1)"
    )
    parser.add_argument(
        "--synthetic-data",
        action="store_true",
        help="datasets whose files are missing give synthetic images instead of an error "
        f"(sets {SYNTHETIC_ENV}=1)",
    )
    parser.add_argument("script", help="the PyTorch script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hookgrad-inspect`` with ``argv`` (default ``sys.argv[1:]``); the exit status."""
    from hookgrad.demo.output import Staging

    args = parser().parse_args(argv)
    if not os.path.isfile(args.script):
        print(f"{PROG}: error: {args.script}: no such file", file=sys.stderr)
        return 1
    try:
        staging = Staging(args.out)
    except DemoError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    started = time.perf_counter()
    inspection = Inspection(args.steps, args.every)
    try:
        status, ending = _run(args, inspection)
        out = _write_report(inspection, args, ending, staging)
    except ModuleNotFoundError as error:
        package = (error.name or "").split(".")[0]
        if package not in DEMO_PACKAGES:
            raise
        print(
            f"{PROG}: error: the report needs {package}: pip install 'hookgrad[demo]'",
            file=sys.stderr,
        )
        return 1
    finally:
        staging.discard()
    print(f"{PROG}: report: {(out / 'index.html').absolute()}", file=sys.stderr)
    print(f"{PROG}: took {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return status


def _run(args: argparse.Namespace, inspection: Inspection) -> tuple[int, str]:
    """Run the script under ``inspection``: ``(exit status, how it ended)``."""
    if args.seed is not None:
        import numpy as np

        hookgrad.manual_seed(args.seed)
        random.seed(args.seed)
        np.random.seed(args.seed)
    script = os.path.abspath(args.script)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    saved_synthetic = os.environ.get(SYNTHETIC_ENV)
    if args.synthetic_data:
        os.environ[SYNTHETIC_ENV] = "1"
    sys.argv = [args.script, *args.args]
    sys.path.insert(0, os.path.dirname(script))
    inspection.start()
    try:
        with torch_is_hookgrad():
            runpy.run_path(script, run_name="__main__")
    except StopScript as stop:
        return 0, str(stop)
    except SystemExit as done:
        code = done.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        return status, f"exited with status {status}"
    except KeyboardInterrupt:
        return 130, "interrupted"
    except Exception as error:  # noqa: BLE001 - the script's own error, reported below
        line = _missing_api(error, script)
        if line is None:
            traceback.print_exception(error)
            line = f"the script raised {type(error).__name__}: {error}"
        print(f"{PROG}: {line}", file=sys.stderr)
        return 1, line
    finally:
        inspection.stop()
        sys.argv, sys.path[:] = saved_argv, saved_path
        _restore_environment(SYNTHETIC_ENV, saved_synthetic)
    return 0, "finished"


def _missing_api(error: BaseException, script: str) -> str | None:
    """One line naming the torch API hookgrad lacks and where the script used it, or
    None when ``error`` is not about a missing API."""
    where = _where(error.__traceback__, script)
    if isinstance(error, MissingAPI):
        return f"{where}: hookgrad has no {error.name} yet"
    if isinstance(error, ModuleNotFoundError) and error.name is not None:
        top = error.name.split(".")[0]
        return (
            f"{where}: needs the module {top}, which is not installed "
            "(hookgrad stands in for torch and torchvision only)"
        )
    if isinstance(error, AttributeError):
        name = _torch_name(getattr(error, "obj", None), getattr(error, "name", None))
        if name is not None:
            return f"{where}: hookgrad has no {name} yet"
    if isinstance(error, ImportError):
        found = re.match(r"cannot import name '(\w+)' from '(hookgrad[\w.]*)'", str(error))
        if found:
            return f"{where}: hookgrad has no {public_name(found.group(2))}.{found.group(1)} yet"
    return None


def _torch_name(obj: Any, name: str | None) -> str | None:
    """``torch.nn.Foo`` for a missing attribute ``name`` of a hookgrad module or object."""
    if name is None:
        return None
    if isinstance(obj, ModuleType):
        if obj.__name__ == "hookgrad" or obj.__name__.startswith("hookgrad."):
            return public_name(obj.__name__) + "." + name
        return None
    cls = obj if isinstance(obj, type) else type(obj)
    if cls.__module__.startswith("hookgrad"):
        owner = "torch.Tensor" if issubclass(cls, hookgrad.Tensor) else cls.__name__
        return f"{owner}.{name}"
    return None


def _where(tb: TracebackType | None, script: str) -> str:
    """``main.py:42``: the last line of ``script`` in the traceback."""
    where = os.path.basename(script)
    for frame, line in traceback.walk_tb(tb):
        if os.path.abspath(frame.f_code.co_filename) == script:
            where = f"{os.path.basename(script)}:{line}"
    return where


def _write_report(
    inspection: Inspection, args: argparse.Namespace, ending: str, staging: Any
) -> Any:
    from hookgrad.inspect.report import build_report

    run = {
        "script": " ".join([args.script, *args.args]),
        "ended": ending,
        "seed": "not set" if args.seed is None else str(args.seed),
    }
    with warnings.catch_warnings():
        # NOTE: matplotlib warns about log axes of a run too short to have positive values.
        warnings.simplefilter("ignore")
        text = build_report(inspection, run)
    (staging.path / "index.html").write_text(text, encoding="utf-8")
    return staging.publish()


def _restore_environment(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value
