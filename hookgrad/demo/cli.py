"""The ``hookgrad-demo`` command line: parse the flags, run data -> model -> training ->
report, print the held-out accuracy and the report's path. Bad input ends in one line on
stderr and exit status 1, never a traceback or a half-written report."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

import hookgrad
from hookgrad.demo.errors import DemoError

__all__ = ["main", "parser"]

PROG = "hookgrad-demo"
DEMO_PACKAGES = {"sklearn", "matplotlib", "tqdm", "graphviz"}


def parser() -> argparse.ArgumentParser:
    """The argument parser (``--subset`` is hidden: it keeps only the first N shuffled
    samples, for quick tests)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Train a small CNN on handwritten digits with hookgrad and write an HTML "
        "report of its gradients, activations, attributions, autograd graph and hooks.",
    )
    parser.add_argument("--epochs", type=_positive(int), default=10, help="default: 10")
    parser.add_argument("--seed", type=int, default=0, help="default: 0")
    parser.add_argument("--lr", type=_positive(float), default=3e-3, help="Adam's, default 3e-3")
    parser.add_argument(
        "--out", default="hookgrad-report", help="report directory, default: hookgrad-report"
    )
    parser.add_argument(
        "--data",
        metavar="FILE.npz",
        help="your own images instead of the digits: an .npz with x (N, H, W) and labels y (N,)",
    )
    parser.add_argument("--subset", type=_positive(int), help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    args = parser().parse_args(argv)
    try:
        run(args)
    except DemoError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as error:
        if error.name not in DEMO_PACKAGES:
            raise
        print(
            f"{PROG}: error: the demo needs {error.name}: pip install 'hookgrad[demo]'",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted, no report written", file=sys.stderr)
        return 130
    return 0


def run(args: argparse.Namespace) -> None:
    """Train and write the report for parsed ``args``; raises DemoError on bad input."""
    from hookgrad.demo.data import load_dataset
    from hookgrad.demo.model import DigitsCNN
    from hookgrad.demo.output import Staging
    from hookgrad.demo.report import build_report
    from hookgrad.demo.train import train

    started = time.perf_counter()
    staging = Staging(args.out)
    try:
        data = load_dataset(args.data, args.seed, args.subset)
        hookgrad.manual_seed(args.seed)
        model = DigitsCNN(data.image_shape, data.classes)
        result = train(model, data, args.epochs, args.lr, args.seed)
        settings = {"epochs": args.epochs, "learning rate (Adam)": args.lr, "seed": args.seed}
        page = build_report(model, data, result, settings)
        try:
            (staging.path / "index.html").write_text(page, encoding="utf-8")
        except OSError as error:
            raise DemoError(f"--out {args.out}: cannot write the report ({error})") from None
        out = staging.publish()
    finally:
        staging.discard()
    print(f"held-out accuracy: {result.test_accuracy:.2%}")
    print(f"report: {(out / 'index.html').absolute()}")
    print(f"took {time.perf_counter() - started:.1f} s")


def _positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    """An argparse type: ``kind(text)``, rejected unless positive."""

    def convert(text: str) -> float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    convert.__name__ = getattr(kind, "__name__", "value")
    return convert
