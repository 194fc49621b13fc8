"""``DataLoader`` in the main process (``num_workers=0``): torch's batches for every way of
choosing them, ``len(loader)``, re-iteration, torch's errors and warnings, and the
batched ``TensorDataset`` path giving the same batches as sample-by-sample loading.
(Loading with worker processes is tested in ``test_worker.py``.)"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import hookgrad
from hookgrad.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
)
from tests.oracle import outcome
from tests.utils.data.common import data_of, structure


def tensor_dataset(lib: Any, n: int = 10) -> Any:
    features = lib.arange(n * 3, dtype=lib.float32).view(n, 3)
    return data_of(lib).TensorDataset(features, lib.arange(n))


def squares(lib: Any, n: int = 7) -> Any:
    class Squares(data_of(lib).Dataset):
        def __len__(self) -> int:
            return n

        def __getitem__(self, index: int) -> Any:
            return {"x": float(index), "sq": np.array([index * index]), "name": f"s{index}"}

    return Squares()


def stream(lib: Any, values: list[int], length: int | None = None) -> Any:
    class Stream(data_of(lib).IterableDataset):
        def __iter__(self) -> Any:
            return iter(values)

        def __len__(self) -> int:
            return len(values) if length is None else length

    return Stream()


def by_tens(lib: Any) -> Any:
    return [[3, 1], [0], [2, 4, 5]]


LOADERS = {
    "tensors, batch 4": lambda lib: dict(dataset=tensor_dataset(lib), batch_size=4),
    "tensors, drop_last": lambda lib: dict(
        dataset=tensor_dataset(lib), batch_size=4, drop_last=True
    ),
    "tensors, batch larger than data": lambda lib: dict(dataset=tensor_dataset(lib), batch_size=64),
    "tensors, unbatched": lambda lib: dict(dataset=tensor_dataset(lib, 3), batch_size=None),
    "dicts, batch 3": lambda lib: dict(dataset=squares(lib), batch_size=3),
    "dicts, unbatched": lambda lib: dict(dataset=squares(lib, 2), batch_size=None),
    "custom sampler": lambda lib: dict(
        dataset=tensor_dataset(lib), sampler=[9, 0, 5, 5], batch_size=3
    ),
    "batch sampler": lambda lib: dict(dataset=tensor_dataset(lib), batch_sampler=by_tens(lib)),
    "collate_fn": lambda lib: dict(dataset=squares(lib), batch_size=2, collate_fn=lambda b: len(b)),
    "subset of tensors": lambda lib: dict(
        dataset=data_of(lib).Subset(tensor_dataset(lib), [4, -1, 0, 2]), batch_size=3
    ),
    "numpy rows": lambda lib: dict(dataset=np.arange(12.0).reshape(6, 2), batch_size=4),
    "stream, batch 2": lambda lib: dict(dataset=stream(lib, [1, 2, 3, 4, 5]), batch_size=2),
    "stream, drop_last": lambda lib: dict(
        dataset=stream(lib, [1, 2, 3, 4, 5]), batch_size=2, drop_last=True
    ),
    "stream, unbatched": lambda lib: dict(
        dataset=stream(lib, [np.float64(1.5), 2]), batch_size=None
    ),
}


@pytest.mark.parametrize("name", LOADERS)
def test_batches_match_torch(torch: Any, name: str) -> None:
    ours = DataLoader(**LOADERS[name](hookgrad))
    theirs = torch.utils.data.DataLoader(**LOADERS[name](torch))
    assert structure(list(ours)) == structure(list(theirs))


@pytest.mark.parametrize("name", [name for name in LOADERS if "stream" not in name])
def test_length_matches_torch(torch: Any, name: str) -> None:
    ours = DataLoader(**LOADERS[name](hookgrad))
    theirs = torch.utils.data.DataLoader(**LOADERS[name](torch))
    assert len(ours) == len(theirs) == len(list(ours))


@pytest.mark.parametrize(
    "batch_size, drop_last", [(None, False), (2, False), (2, True), (3, False)]
)
def test_length_of_an_iterable_dataset_loader_matches_torch(
    torch: Any, batch_size: int | None, drop_last: bool
) -> None:
    def length(lib: Any) -> Any:
        loader = data_of(lib).DataLoader(
            stream(lib, [1, 2, 3, 4, 5]), batch_size=batch_size, drop_last=drop_last
        )
        return len(loader)

    assert length(hookgrad) == length(torch)


def test_length_of_an_iterable_dataset_without_length(torch: Any) -> None:
    def length(lib: Any) -> Any:
        class Endless(data_of(lib).IterableDataset):
            def __iter__(self) -> Any:
                return iter([1])

        return len(data_of(lib).DataLoader(Endless()))

    ours = outcome(length, hookgrad)
    assert ours[:2] == ("error", "TypeError")
    assert ours[2] == outcome(length, torch)[2].replace("torch", "hookgrad")


def test_iterable_dataset_longer_than_its_length_warns(torch: Any) -> None:
    def messages(lib: Any) -> Any:
        loader = data_of(lib).DataLoader(stream(lib, [1, 2, 3], length=2), batch_size=None)
        assert len(loader) == 2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = [int(x) for x in loader]
        return batches, [str(w.message).split(" was reported")[1] for w in caught]

    assert messages(hookgrad) == messages(torch)
    assert len(messages(hookgrad)[1]) == 1


def test_each_iteration_is_a_new_pass() -> None:
    loader = DataLoader(tensor_dataset(hookgrad), batch_size=4)
    first, second = list(loader), list(loader)
    assert structure(first) == structure(second)
    it1, it2 = iter(loader), iter(loader)
    assert it1 is not it2
    next(it1)
    assert next(it2)[1].tolist() == [0, 1, 2, 3]
    assert len(it1) == 3


def test_shuffle_gives_a_new_permutation_each_epoch() -> None:
    loader = DataLoader(
        range(30), batch_size=7, shuffle=True, generator=hookgrad.Generator().manual_seed(0)
    )
    epochs = [[int(i) for batch in loader for i in batch] for _ in range(2)]
    assert sorted(epochs[0]) == sorted(epochs[1]) == list(range(30))
    assert epochs[0] != epochs[1]
    again = DataLoader(
        range(30), batch_size=7, shuffle=True, generator=hookgrad.Generator().manual_seed(0)
    )
    assert [[int(i) for batch in again for i in batch] for _ in range(2)] == epochs


def test_shuffle_without_generator_follows_manual_seed() -> None:
    hookgrad.manual_seed(11)
    first = [int(i) for batch in DataLoader(range(20), batch_size=3, shuffle=True) for i in batch]
    hookgrad.manual_seed(11)
    second = [int(i) for batch in DataLoader(range(20), batch_size=3, shuffle=True) for i in batch]
    assert first == second
    assert sorted(first) == list(range(20))


def test_getitems_is_used_for_a_batch() -> None:
    class Batched(Dataset):
        calls: list = []

        def __len__(self) -> int:
            return 5

        def __getitem__(self, index: int) -> int:
            raise AssertionError("__getitems__ should be used")

        def __getitems__(self, indices: list) -> list:
            self.calls.append(list(indices))
            return [10 * i for i in indices]

    batches = [b.tolist() for b in DataLoader(Batched(), batch_size=2)]
    assert batches == [[0, 10], [20, 30], [40]]
    assert Batched.calls == [[0, 1], [2, 3], [4]]


TENSOR_CASES = {
    "float rows": lambda: (hookgrad.randn(9, 2, 3), hookgrad.arange(9)),
    "one tensor": lambda: (hookgrad.randn(9, 4, dtype=hookgrad.float64),),
    "vectors": lambda: (hookgrad.arange(9.0), hookgrad.ones(9, dtype=hookgrad.bool)),
    "non-contiguous": lambda: (hookgrad.randn(4, 9).t(), hookgrad.arange(18)[::2]),
}


@pytest.mark.parametrize("case", TENSOR_CASES)
@pytest.mark.parametrize(
    "order", [None, [8, 0, -1, 3, 3, 2, 1], BatchSampler(SequentialSampler(range(9)), 4, False)]
)
def test_tensor_dataset_batches_equal_stacked_samples(case: str, order: Any) -> None:
    tensors = TENSOR_CASES[case]()
    if isinstance(order, BatchSampler):
        kwargs: dict = {"batch_sampler": order}
    else:
        kwargs = {"sampler": order, "batch_size": 3}
    fast = list(DataLoader(TensorDataset(*tensors), **kwargs))
    slow = list(
        DataLoader(TensorDataset(*tensors), collate_fn=lambda b: default_collate(b), **kwargs)
    )
    assert structure(fast) == structure(slow)
    for fast_batch, slow_batch in zip(fast, slow):
        for a, b in zip(fast_batch, slow_batch):
            assert a.stride() == b.stride()
            assert not a.requires_grad and a.grad_fn is None


def test_tensor_dataset_with_grad_stacks_samples() -> None:
    weights = hookgrad.randn(4, 2, requires_grad=True)
    (batch,) = next(iter(DataLoader(TensorDataset(weights), batch_size=4)))
    assert type(batch.grad_fn).__name__ == "StackBackward0"


def test_out_of_range_keys_raise_as_sample_by_sample(torch: Any) -> None:
    def load(lib: Any) -> Any:
        return list(data_of(lib).DataLoader(tensor_dataset(lib, 4), sampler=[0, 4], batch_size=2))

    ours = outcome(load, hookgrad)
    assert ours[:2] == outcome(load, torch)[:2] == ("error", "IndexError")


def test_subset_of_a_tensor_dataset_with_a_custom_getitems_is_honoured() -> None:
    class Reversed(Subset):
        def __getitem__(self, idx: int) -> Any:
            return super().__getitem__(len(self) - 1 - idx)

        def __getitems__(self, indices: list) -> list:
            return [self[i] for i in indices]

    data = Reversed(TensorDataset(hookgrad.arange(5)), [0, 1, 2, 3, 4])
    (batch,) = next(iter(DataLoader(data, batch_size=2)))
    assert batch.tolist() == [4, 3]


ARGUMENT_ERRORS = {
    "negative workers": lambda lib: dict(dataset=range(4), num_workers=-1),
    "negative timeout": lambda lib: dict(dataset=range(4), timeout=-1),
    "prefetch without workers": lambda lib: dict(dataset=range(4), prefetch_factor=2),
    "negative prefetch": lambda lib: dict(dataset=range(4), num_workers=1, prefetch_factor=-1),
    "persistent without workers": lambda lib: dict(dataset=range(4), persistent_workers=True),
    "sampler and shuffle": lambda lib: dict(dataset=range(4), sampler=[0], shuffle=True),
    "batch_sampler and batch_size": lambda lib: dict(
        dataset=range(4), batch_sampler=[[0]], batch_size=2
    ),
    "batch_sampler and shuffle": lambda lib: dict(
        dataset=range(4), batch_sampler=[[0]], shuffle=True
    ),
    "batch_sampler and sampler": lambda lib: dict(
        dataset=range(4), batch_sampler=[[0]], sampler=[0]
    ),
    "batch_sampler and drop_last": lambda lib: dict(
        dataset=range(4), batch_sampler=[[0]], drop_last=True
    ),
    "no batching and drop_last": lambda lib: dict(
        dataset=range(4), batch_size=None, drop_last=True
    ),
    "bad batch size": lambda lib: dict(dataset=range(4), batch_size=0),
    "stream and shuffle": lambda lib: dict(dataset=stream(lib, [1]), shuffle=True),
    "stream and sampler": lambda lib: dict(dataset=stream(lib, [1]), sampler=[0]),
    "stream and batch_sampler": lambda lib: dict(dataset=stream(lib, [1]), batch_sampler=[[0]]),
    "context without workers": lambda lib: dict(dataset=range(4), multiprocessing_context="fork"),
    "unknown start method": lambda lib: dict(
        dataset=range(4), num_workers=1, multiprocessing_context="x"
    ),
    "context of a wrong type": lambda lib: dict(
        dataset=range(4), num_workers=1, multiprocessing_context=3
    ),
}


@pytest.mark.parametrize("name", ARGUMENT_ERRORS)
def test_argument_errors_match_torch(torch: Any, name: str) -> None:
    def build(lib: Any) -> Any:
        return data_of(lib).DataLoader(**ARGUMENT_ERRORS[name](lib))

    ours = outcome(build, hookgrad)
    assert ours[0] == "error"
    if "stream and" in name:  # the message shows the dataset's repr, which names its module
        assert ours[:2] == outcome(build, torch)[:2]
    else:
        assert ours == outcome(build, torch)


def test_attributes_are_frozen_after_init(torch: Any) -> None:
    for name in (
        "batch_size",
        "batch_sampler",
        "sampler",
        "drop_last",
        "dataset",
        "persistent_workers",
    ):

        def change(lib: Any, name: str = name) -> Any:
            setattr(data_of(lib).DataLoader(range(3)), name, None)

        assert outcome(change, hookgrad) == outcome(change, torch)
        assert outcome(change, hookgrad)[0] == "error"
    loader = DataLoader(range(3))
    loader.collate_fn = len
    assert list(loader) == [1, 1, 1]


def test_defaults_match_torch(torch: Any) -> None:
    def defaults(lib: Any) -> Any:
        data = data_of(lib)
        plain = data.DataLoader(range(3))
        workers = data.DataLoader(range(3), num_workers=2)
        unbatched = data.DataLoader(range(3), batch_size=None)
        shuffled = data.DataLoader(range(3), shuffle=True)
        return [
            plain.batch_size,
            type(plain.sampler).__name__,
            type(plain.batch_sampler).__name__,
            plain.collate_fn.__name__,
            plain.prefetch_factor,
            workers.prefetch_factor,
            plain.multiprocessing_context,
            unbatched.batch_sampler,
            unbatched.collate_fn.__name__,
            type(shuffled.sampler).__name__,
            shuffled.sampler.generator,
        ]

    assert defaults(hookgrad) == defaults(torch)


def test_start_method_names_become_contexts() -> None:
    loader = DataLoader(range(3), num_workers=1, multiprocessing_context="spawn")
    assert loader.multiprocessing_context.get_start_method() == "spawn"


def test_pin_memory_is_accepted_and_warns_as_torch_on_cpu(torch: Any) -> None:
    def load(lib: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = [
                b.tolist() for b in data_of(lib).DataLoader(range(4), batch_size=2, pin_memory=True)
            ]
        return batches, [str(w.message) for w in caught]

    assert load(hookgrad) == load(torch)
    assert load(hookgrad)[1]


def test_too_many_workers_warns_as_torch(torch: Any) -> None:
    def messages(lib: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data_of(lib).DataLoader(range(4), num_workers=1000)
        return [str(w.message) for w in caught]

    assert messages(hookgrad) == messages(torch)
    assert len(messages(hookgrad)) == 1


def test_iterator_cannot_be_pickled() -> None:
    import pickle

    with pytest.raises(NotImplementedError):
        pickle.dumps(iter(DataLoader(range(3))))


def test_map_and_iterable_kinds() -> None:
    assert DataLoader(range(3))._dataset_kind == hookgrad.utils.data._DatasetKind.Map
    assert isinstance(stream(hookgrad, [1]), IterableDataset)
    loader = DataLoader(stream(hookgrad, [1]))
    assert loader._dataset_kind == hookgrad.utils.data._DatasetKind.Iterable


def test_tensor_dataset_batches_are_taken_in_one_indexing(monkeypatch: Any) -> None:
    def one_by_one(self: Any, index: Any) -> Any:
        raise AssertionError("sample-by-sample indexing")

    monkeypatch.setattr(TensorDataset, "__getitem__", one_by_one)
    data = TensorDataset(hookgrad.arange(10), hookgrad.ones(10, 2))
    shuffled = DataLoader(data, batch_size=4, shuffle=True, generator=hookgrad.Generator())
    assert sorted(i for x, _ in shuffled for i in x.tolist()) == list(range(10))
    halves = DataLoader(Subset(data, [9, 8, 7]), batch_size=2)
    assert [x.tolist() for x, _ in halves] == [[9, 8], [7]]
