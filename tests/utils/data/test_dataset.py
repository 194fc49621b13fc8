"""The dataset classes and ``random_split``: torch's items, lengths, errors and warnings.
(Exact split orders after ``manual_seed`` are compared with torch in
``test_torch_streams.py``.)"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import hookgrad
from hookgrad.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    random_split,
)
from tests.oracle import outcome
from tests.utils.data.common import data_of, structure


class Squares(Dataset[int]):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> int:
        return index * index


class Stream(IterableDataset[int]):
    def __init__(self, values: list[int]) -> None:
        self.values = values

    def __iter__(self) -> Any:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def test_dataset_base_class_needs_getitem() -> None:
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement"):
        Dataset()[0]


def test_tensor_dataset_rows(torch: Any) -> None:
    def rows(lib: Any) -> Any:
        ds = data_of(lib).TensorDataset(lib.arange(6).view(3, 2), lib.tensor([0.5, 1.5, 2.5]))
        return len(ds), ds[1], ds[-1], ds[1:]

    assert structure(rows(hookgrad)) == structure(rows(torch))


def test_tensor_dataset_size_mismatch(torch: Any) -> None:
    def build(lib: Any) -> Any:
        return data_of(lib).TensorDataset(lib.zeros(3, 2), lib.zeros(4))

    assert (
        outcome(build, hookgrad)
        == outcome(build, torch)
        == (
            "error",
            "AssertionError",
            "Size mismatch between tensors",
        )
    )


def test_concat_dataset_indexes_across_parts() -> None:
    ds = ConcatDataset([range(3), Squares(2), range(10, 12)])
    assert len(ds) == 7
    assert ds.cumulative_sizes == [3, 5, 7]
    assert [ds[i] for i in range(7)] == [0, 1, 2, 0, 1, 10, 11]
    assert [ds[-1], ds[-7]] == [11, 0]
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        ds[-8]
    with pytest.raises(IndexError):
        ds[7]


def test_concat_dataset_errors() -> None:
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([range(2), Stream([1])])


def test_adding_datasets() -> None:
    joined = Squares(2) + Squares(3)
    assert isinstance(joined, ConcatDataset)
    assert [joined[i] for i in range(len(joined))] == [0, 1, 0, 1, 4]
    chained = Stream([1, 2]) + Stream([3])
    assert isinstance(chained, ChainDataset)
    assert list(chained) == [1, 2, 3]


def test_chain_dataset() -> None:
    chained = ChainDataset([Stream([1]), Stream([]), Stream([2, 3])])
    assert list(chained) == [1, 2, 3]
    assert len(chained) == 3
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([Stream([1]), range(3)]))
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(ChainDataset([range(3)]))


def test_subset() -> None:
    sub = Subset(Squares(10), [5, 0, 3])
    assert len(sub) == 3
    assert [sub[0], sub[-1]] == [25, 9]
    assert sub.__getitems__([2, 0]) == [9, 25]
    nested = Subset(StackDataset(range(10), Squares(10)), [4, 1])
    assert nested.__getitems__([1, 0]) == [(1, 1), (4, 16)]


def test_subset_with_a_list_index_asks_the_dataset_once() -> None:
    class Recorder(Dataset):
        def __getitem__(self, index: Any) -> Any:
            return ("got", index)

    assert Subset(Recorder(), [7, 8, 9])[[2, 0]] == ("got", [9, 7])


def test_subset_subclass_overriding_only_getitem_is_refused() -> None:
    class Doubled(Subset):
        def __getitem__(self, idx: int) -> Any:
            return 2 * super().__getitem__(idx)

    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        Doubled(range(3), [0])


def test_stack_dataset_tuple_and_dict(torch: Any) -> None:
    def items(lib: Any) -> Any:
        data = data_of(lib)
        by_position = data.StackDataset(range(3), "abc")
        by_name = data.StackDataset(x=range(3), y=data.Subset("abcd", [3, 2, 1]))
        return (
            len(by_position),
            by_position[1],
            by_position.__getitems__([2, 0]),
            by_name[0],
            by_name.__getitems__([1, 2]),
        )

    assert structure(items(hookgrad)) == structure(items(torch))


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((), {}),
        ((range(2),), {"a": range(2)}),
        ((range(2), range(3)), {}),
        ((), {"a": [1], "b": []}),
    ],
)
def test_stack_dataset_errors(torch: Any, args: tuple, kwargs: dict) -> None:
    def build(lib: Any) -> Any:
        return data_of(lib).StackDataset(*args, **kwargs)

    assert outcome(build, hookgrad) == outcome(build, torch)
    assert outcome(build, hookgrad)[0] == "error"


def test_stack_dataset_checks_the_size_of_a_nested_getitems() -> None:
    class Short(Dataset):
        def __len__(self) -> int:
            return 3

        def __getitem__(self, index: int) -> int:
            return index

        def __getitems__(self, indices: list) -> list:
            return indices[:-1]

    with pytest.raises(
        ValueError, match="Nested dataset's output size mismatch. Expected 2, got 1"
    ):
        StackDataset(Short()).__getitems__([0, 1])


@pytest.mark.parametrize(
    "lengths",
    [[3, 7], [0.3, 0.7], [0.5, 0.5], [1 / 3, 1 / 3, 1 / 3], [0.1, 0.1, 0.8], [0.25] * 4, [1.0]],
)
def test_random_split_lengths_match_torch(torch: Any, lengths: list) -> None:
    ours = random_split(range(10), lengths, generator=hookgrad.Generator().manual_seed(0))
    theirs = torch.utils.data.random_split(range(10), lengths, generator=torch.Generator())
    assert [len(part) for part in ours] == [len(part) for part in theirs]


def test_random_split_is_a_partition_and_repeats_with_the_seed() -> None:
    parts = random_split(
        Squares(20), [0.5, 0.3, 0.2], generator=hookgrad.Generator().manual_seed(3)
    )
    indices = [i for part in parts for i in part.indices]
    assert sorted(indices) == list(range(20))
    assert all(part.dataset.n == 20 for part in parts)
    again = random_split(Squares(20), [10, 6, 4], generator=hookgrad.Generator().manual_seed(3))
    assert [part.indices for part in again] == [part.indices for part in parts]
    other = random_split(Squares(20), [10, 6, 4], generator=hookgrad.Generator().manual_seed(4))
    assert [part.indices for part in other] != [part.indices for part in parts]


def test_random_split_warns_about_an_empty_split(torch: Any) -> None:
    def split(lib: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts = data_of(lib).random_split(range(2), [0.1, 0.1, 0.8], generator=lib.Generator())
        return [len(part) for part in parts], [str(w.message) for w in caught]

    assert split(hookgrad) == split(torch)
    assert split(hookgrad) == (
        [1, 0, 1],
        ["Length of split at index 1 is 0. This might result in an empty dataset."],
    )


@pytest.mark.parametrize("lengths", [[3, 3], [0.5, 0.6], [-0.5, 1.5], [2.5, 7.5]])
def test_random_split_errors_match_torch(torch: Any, lengths: list) -> None:
    def split(lib: Any) -> Any:
        return data_of(lib).random_split(range(10), lengths, generator=lib.Generator())

    ours = outcome(split, hookgrad)
    assert ours[0] == "error"
    assert ours[:2] == outcome(split, torch)[:2]
