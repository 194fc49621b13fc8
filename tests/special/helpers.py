"""What the tests of ``hookgrad.special`` and the pointwise functions share."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import hookgrad
from tests.oracle import assert_close


def _compare(ours: Any, theirs: Any) -> None:
    """Tensors (NaNs included) and dtypes to the last bit; tuples item by item; any other
    value (a node's name, a flag) by equality."""
    if hasattr(theirs, "detach"):
        assert_close(ours, theirs.detach().numpy(force=True), rtol=0, atol=0)
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _compare(a, b)
    else:
        assert ours == theirs


def _first_line(error: Exception) -> tuple[str, str]:
    return type(error).__name__, str(error).split("\n")[0]


def same(run: Callable[[Any], Any], torch: Any) -> None:
    """``run(lib)`` gives the same results in hookgrad and torch: values (NaNs included)
    and dtypes to the last bit, or the same error type and first line of its message."""
    results = []
    for lib in (hookgrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                results.append(("ok", run(lib)))
            except Exception as error:  # noqa: BLE001 (the error is the result)
                results.append(("error", _first_line(error)))
    (ours_kind, ours), (theirs_kind, theirs) = results
    assert ours_kind == theirs_kind, (ours, theirs)
    _compare(ours, theirs)
