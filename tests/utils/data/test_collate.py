"""``default_collate`` and ``default_convert`` give torch's batches (types, dtypes, shapes,
values) for every kind of sample, and torch's errors; ``collate`` takes custom maps."""

from __future__ import annotations

from collections import OrderedDict, defaultdict, namedtuple
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.utils.data import default_collate, default_convert
from hookgrad.utils.data.collate import collate, default_collate_fn_map
from tests.oracle import outcome
from tests.utils.data.common import data_of, structure

Point = namedtuple("Point", ["x", "y"])


class FrozenMap(Mapping):
    """A read-only mapping built from a dict."""

    def __init__(self, items: dict) -> None:
        self._items = dict(items)

    def __getitem__(self, key: Any) -> Any:
        return self._items[key]

    def __iter__(self) -> Any:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


class Pair(Sequence):
    """A read-only sequence that cannot be built from a list (two positional args)."""

    def __init__(self, first: Any, second: Any) -> None:
        self._items = (first, second)

    def __getitem__(self, index: Any) -> Any:
        return self._items[index]

    def __len__(self) -> int:
        return 2


BATCHES = {
    "tensors": lambda lib: [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
    "int tensors": lambda lib: [lib.tensor(1), lib.tensor(2)],
    "float64 tensors": lambda lib: [lib.ones(2, 2, dtype=lib.float64)] * 3,
    "arrays": lambda lib: [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
    "int arrays": lambda lib: [np.arange(4).reshape(2, 2), np.zeros((2, 2), dtype=np.int64)],
    "numpy scalars": lambda lib: [np.float64(1.5), np.float64(2.5)],
    "numpy float32 scalars": lambda lib: [np.float32(1.5), np.float32(-2)],
    "numpy bools": lambda lib: [np.bool_(True), np.bool_(False)],
    "floats": lambda lib: [1.5, 2.0, -3.25],
    "ints": lambda lib: [1, 2, 3],
    "bools": lambda lib: [True, False],
    "strings": lambda lib: ["a", "bc"],
    "bytes": lambda lib: [b"a", b"bc"],
    "dicts": lambda lib: [{"x": lib.tensor([1.0]), "y": 1}, {"x": lib.tensor([2.0]), "y": 2}],
    "ordered dicts": lambda lib: [OrderedDict(b=1.0, a="s"), OrderedDict(b=2.0, a="t")],
    "defaultdicts": lambda lib: [defaultdict(int, a=1), defaultdict(int, a=2)],
    "frozen maps": lambda lib: [FrozenMap({"a": 1}), FrozenMap({"a": 2})],
    "tuples": lambda lib: [(lib.tensor([1.0]), 0, "a"), (lib.tensor([2.0]), 1, "b")],
    "named tuples": lambda lib: [Point(1.0, lib.tensor(2)), Point(3.0, lib.tensor(4))],
    "lists": lambda lib: [[1, 2.0], [3, 4.0]],
    "nested": lambda lib: [
        {"img": np.ones((2, 2), dtype=np.float32), "meta": [("id", 1), ("id", 2)]},
        {"img": np.zeros((2, 2), dtype=np.float32), "meta": [("id", 3), ("id", 4)]},
    ],
    "immutable sequences": lambda lib: [Pair(1, 2.0), Pair(3, 4.0)],
    "one sample": lambda lib: [(lib.arange(3), 5)],
}


@pytest.mark.parametrize("name", BATCHES)
def test_default_collate_matches_torch(torch: Any, name: str) -> None:
    ours = default_collate(BATCHES[name](hookgrad))
    theirs = torch.utils.data.default_collate(BATCHES[name](torch))
    assert structure(ours) == structure(theirs)


def test_defaultdict_keeps_its_factory() -> None:
    batch = default_collate([defaultdict(list, a=1), defaultdict(list, a=2)])
    assert isinstance(batch, defaultdict)
    assert batch["missing"] == []


ERROR_BATCHES = {
    "string arrays": lambda lib: [np.array(["a"]), np.array(["b"])],
    "object arrays": lambda lib: [np.array([None]), np.array([None])],
    "unequal lists": lambda lib: [[1, 2], [3]],
    "unsupported": lambda lib: [object(), object()],
    "none": lambda lib: [None, None],
    "mismatched shapes": lambda lib: [lib.zeros(2), lib.zeros(3)],
}


@pytest.mark.parametrize("name", ERROR_BATCHES)
def test_default_collate_errors_match_torch(torch: Any, name: str) -> None:
    def run(lib: Any) -> Any:
        return data_of(lib).default_collate(ERROR_BATCHES[name](lib))

    ours, theirs = outcome(run, hookgrad), outcome(run, torch)
    assert ours[:2] == theirs[:2]
    if name != "mismatched shapes":  # the stack message names hookgrad's kernel
        assert ours == theirs


SAMPLES = {
    "tensor": lambda lib: lib.tensor([1.0, 2.0]),
    "array": lambda lib: np.arange(3.0),
    "string array": lambda lib: np.array(["a", "b"]),
    "numpy scalar": lambda lib: np.int64(4),
    "numpy str": lambda lib: np.str_("s"),
    "int": lambda lib: 3,
    "float": lambda lib: 2.5,
    "string": lambda lib: "text",
    "dict": lambda lib: {"a": np.ones(2, dtype=np.float32), "b": "s"},
    "frozen map": lambda lib: FrozenMap({"a": np.zeros(1)}),
    "tuple": lambda lib: (np.int64(1), 2),
    "named tuple": lambda lib: Point(np.float64(1.0), 2),
    "list": lambda lib: [np.zeros(2), [np.ones(1)]],
    "immutable sequence": lambda lib: Pair(np.zeros(1), 1),
    "none": lambda lib: None,
}


@pytest.mark.parametrize("name", SAMPLES)
def test_default_convert_matches_torch(torch: Any, name: str) -> None:
    ours = default_convert(SAMPLES[name](hookgrad))
    theirs = torch.utils.data.default_convert(SAMPLES[name](torch))
    assert structure(ours) == structure(theirs)


def test_default_convert_keeps_unconvertible_values_themselves() -> None:
    strings = np.array(["a", "b"])
    assert default_convert(strings) is strings
    tensor = hookgrad.zeros(2)
    assert default_convert(tensor) is tensor


def test_collate_uses_a_custom_map_by_exact_type_then_by_isinstance() -> None:
    calls = []

    def concat(batch: Any, *, collate_fn_map: Any) -> Any:
        calls.append(len(batch))
        return hookgrad.cat(list(batch))

    def count(batch: Any, *, collate_fn_map: Any) -> Any:
        return len(batch)

    custom = {hookgrad.Tensor: concat, (int, float): count}
    batch = [(hookgrad.ones(2), 1), (hookgrad.zeros(1), 2.5)]
    out = collate(batch, collate_fn_map=custom)
    assert out[0].tolist() == [1.0, 1.0, 0.0]
    assert out[1] == 2
    assert calls == [2]


def test_extending_default_collate_fn_map_changes_default_collate() -> None:
    class Token:
        def __init__(self, text: str) -> None:
            self.text = text

    def join(batch: Any, *, collate_fn_map: Any) -> str:
        return " ".join(token.text for token in batch)

    default_collate_fn_map[Token] = join
    try:
        assert default_collate([{"t": Token("a")}, {"t": Token("b")}]) == {"t": "a b"}
    finally:
        del default_collate_fn_map[Token]
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([Token("a")])
