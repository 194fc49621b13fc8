"""Command line: ``python -m tests.fuzz -n 5000 [--seed S] [--stop-on-first]``.

Prints each program with a new (not known) disagreement, with its seed and listing, then a
summary line. ``--show-known`` also prints programs whose diffs are all known;
``--listing`` prints every program run (with ``-n 1 --seed S`` to look at one).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

from .runner import MISSING, check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("-n", type=int, default=300, help="number of programs (300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (0)")
    parser.add_argument("--stop-on-first", action="store_true", help="stop at the first new")
    parser.add_argument("--show-known", action="store_true", help="print known ones too")
    parser.add_argument("--listing", action="store_true", help="print every program")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    failed, known = 0, collections.Counter()
    for seed in range(args.seed, args.seed + args.n):
        result = check(seed)
        if result.diffs:
            known[result.known[0] or "NEW"] += 1
        if not result.ok:
            failed += 1
        if not result.ok or args.listing or (args.show_known and result.diffs):
            print(result.report(), flush=True)
            print()
        if not result.ok and args.stop_on_first:
            break
    ran = seed - args.seed + 1
    elapsed = time.perf_counter() - start
    tolerated = ", ".join(f"{k} x{v}" for k, v in sorted(known.items()) if k != "NEW")
    print(
        f"{ran} programs (seeds {args.seed}..{seed}) in {elapsed:.1f} s: "
        f"{failed} with new disagreements; programs whose first disagreement is known: "
        f"{tolerated or 'none'}; ops missing in hookgrad: {', '.join(MISSING) or 'none'}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
