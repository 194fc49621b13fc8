"""DataPipes (``hookgrad.utils.data.datapipes``, ``graph``, ``graph_settings`` and
``DataLoader`` over DataPipes) against torch's: the same samples, lengths, seeded
orders, graphs and errors."""

from __future__ import annotations

import pytest

import hookgrad
from tests.oracle import outcome


def _same(scenario, torch):
    """``scenario(lib)`` observed the same way for hookgrad and torch."""
    assert outcome(lambda _: scenario(hookgrad), hookgrad) == outcome(
        lambda _: scenario(torch), torch
    )


def add_one(x):
    return x + 1


def is_even(x):
    return x % 2 == 0


def parity(x):
    return x % 2


# ---------------------------------------------------------------- scenarios


def _chains(lib):
    I = lib.utils.data.datapipes.iter
    source = I.IterableWrapper(range(10))
    mapped = source.map(add_one).filter(is_even)
    batches = I.IterableWrapper(range(7)).batch(3)
    return [
        list(mapped),
        list(batches),
        len(batches),
        len(I.IterableWrapper(range(7)).batch(3, drop_last=True)),
        list(I.IterableWrapper([[[0, 1], [2]], [[3]]]).unbatch(2)),
        list(I.IterableWrapper([[[0, 1], [2]], [[3]]]).unbatch(-1)),
        list(I.IterableWrapper([[1, 2], [3, 4]]).collate()),
        list(I.IterableWrapper(range(3)).concat(I.IterableWrapper(range(2)))),
        list(I.IterableWrapper(range(3)).zip(I.IterableWrapper("ab"))),
        list(I.IterableWrapper([0, 1, 2]).mux(I.IterableWrapper([10, 11]))),
        len(I.IterableWrapper([0, 1, 2]).mux(I.IterableWrapper([10, 11]))),
        list(I.Sampler(I.IterableWrapper(range(3)))),
        list(I.IterableWrapper(range(6)).groupby(parity, group_size=3)),
        list(I.IterableWrapper(range(5)).groupby(parity, keep_key=True)),
        lib.utils.data.DataChunk([1, 2]).as_str(" "),
        list(lib.utils.data.DataChunk([1, 2]).raw_iterator()),
    ]


def _columns(lib):
    I = lib.utils.data.datapipes.iter
    rows = I.IterableWrapper([(1, 2, 3), (4, 5, 6)])
    dicts = I.IterableWrapper([{"a": 1, "b": 2}])
    return [
        list(rows.map(add_one, input_col=1)),
        list(I.IterableWrapper([(1, 2, 3)]).map(lambda a, b: a * b, input_col=[0, 2])),
        list(I.IterableWrapper([[1, 2]]).map(add_one, input_col=0, output_col=-1)),
        list(dicts.map(add_one, input_col="a", output_col="c")),
        list(I.IterableWrapper([(1, 2), (3, 3)]).filter(lambda a, b: a < b, input_col=[0, 1])),
    ]


def _errors(lib):
    I = lib.utils.data.datapipes.iter
    M = lib.utils.data.datapipes.map
    source = I.IterableWrapper(range(3))
    calls = [
        lambda: source.map(add_one, output_col=1),
        lambda: source.map(add_one, input_col=[0, 1]),
        lambda: source.map(lambda a, *, b: a, input_col=0),
        lambda: list(source.filter(add_one)),
        lambda: source.batch(0),
        lambda: source.shuffle(buffer_size=0),
        lambda: I.Concater(),
        lambda: I.Concater(source, [1]),
        lambda: I.Zipper(source, [1]),
        lambda: len(I.IterableWrapper(iter([1]))),
        lambda: source.fork(0),
        lambda: source.fork(2, copy="odd"),
        lambda: list(I.IterableWrapper([[1], 2]).unbatch(2)),
        lambda: list(source.demux(2, lambda x: 5)[0]),
        lambda: list(list(source.fork(2, buffer_size=1))[1]),
        lambda: source.sharding_filter().apply_sharding(2, 2),
        lambda: source.nope,
        lambda: M.SequenceWrapper([1]).batch(1)[3],
        lambda: M.Concater(),
        lambda: M.Zipper(M.SequenceWrapper([1]), [1]),
        lambda: M.Concater(M.SequenceWrapper([1]))[4],
        lambda: I.IterableWrapper(range(4)).groupby(parity, group_size=3, buffer_size=2),
        lambda: list(
            I.IterableWrapper(range(4)).groupby(
                parity, buffer_size=2, group_size=2, guaranteed_group_size=2
            )
        ),
    ]
    return [outcome(lambda _, call=call: call(), lib) for call in calls]


def _single_iterator(lib):
    I = lib.utils.data.datapipes.iter
    dp = I.IterableWrapper(range(3)).map(add_one)
    first = iter(dp)
    second = iter(dp)
    results = [next(second), outcome(lambda _: next(first), lib)]
    a, b = I.IterableWrapper(range(3)).fork(2)
    results.append([next(iter(a)), outcome(lambda _: list(b), lib)])
    even, odd = I.IterableWrapper(range(7)).demux(2, parity)
    results.append([list(even), list(odd)])
    left, right = I.IterableWrapper(range(3)).fork(2, copy="deep")
    results.append(list(zip(left, right)))
    return results


def _names(lib):
    I = lib.utils.data.datapipes.iter
    dp = I.IterableWrapper(range(3)).map(add_one)
    return [
        repr(dp),
        str(dp),
        "batch" in dir(dp),
        type(dp.batch(2)).__name__,
        isinstance(dp, lib.utils.data.IterableDataset),
        isinstance(lib.utils.data.datapipes.map.SequenceWrapper([1]), lib.utils.data.Dataset),
        # (hookgrad has no DataFrame pipes: torch's need pandas and TorchArrow)
        sorted(
            n
            for n in lib.utils.data.IterDataPipe.functions
            if not n.startswith("_") and n != "trace_as_dataframe"
        ),
        sorted(lib.utils.data.MapDataPipe.functions),
        I.IterableWrapper(range(3)).fork(1).__class__.__name__,
    ]


def _shuffles(lib):
    I = lib.utils.data.datapipes.iter
    M = lib.utils.data.datapipes.map
    lib.manual_seed(3)
    shuffled = I.IterableWrapper(range(12)).shuffle(buffer_size=5)
    first, second = list(shuffled), list(shuffled)
    off = list(I.IterableWrapper(range(5)).shuffle().set_shuffle(False))
    seeded = list(I.IterableWrapper(range(8)).shuffle().set_seed(7))
    lib.manual_seed(4)
    mapped = list(M.SequenceWrapper(range(6)).shuffle())
    rng = lib.Generator()
    rng.manual_seed(11)
    dp = I.IterableWrapper(range(10)).shuffle().batch(2).shuffle()
    lib.utils.data.graph_settings.apply_random_seed(dp, rng)
    return [first, second, off, seeded, mapped, list(dp)]


def _maps(lib):
    M = lib.utils.data.datapipes.map
    seq = M.SequenceWrapper(range(5))
    batches = seq.batch(2)
    return [
        seq.map(add_one)[2],
        [batches[i] for i in range(3)],
        len(batches),
        len(seq.batch(2, drop_last=True)),
        seq.concat(M.SequenceWrapper("ab"))[6],
        len(seq.concat(M.SequenceWrapper("ab"))),
        seq.zip(M.SequenceWrapper("abc"))[1],
        len(seq.zip(M.SequenceWrapper("abc"))),
        list(seq.shuffle().set_shuffle(False)),
        list(M.SequenceWrapper({"x": 1}, deepcopy=False).map(add_one).shuffle(indices=["x"])),
    ]


def _graphs(lib):
    D = lib.utils.data
    I = D.datapipes.iter
    source = I.IterableWrapper(range(8))
    a, b = source.sharding_filter().fork(2)
    dp = a.zip(b.map(add_one)).shuffle()

    def shape(graph):
        return [(type(p).__name__, shape(sub)) for p, sub in graph.values()]

    pipes = D.graph_settings.get_all_graph_pipes(D.graph.traverse_dps(dp))
    D.graph_settings.apply_sharding(dp, 2, 1)
    results = [
        shape(D.graph.traverse_dps(dp)),
        [type(p).__name__ for p in pipes],
        list(dp.set_shuffle(False)),
        outcome(lambda _: D.graph.traverse_dps([1]), lib),
        outcome(
            lambda _: D.graph_settings.apply_sharding(
                source.sharding_filter().sharding_filter(), 2, 0
            ),
            lib,
        ),
    ]
    plain = I.IterableWrapper(range(4))
    added = D.graph_settings.apply_shuffle_settings(plain, shuffle=True)
    results.append([type(added).__name__, added is plain])
    results.append(D.graph_settings.apply_shuffle_settings(plain, shuffle=None) is plain)
    sharded = I.IterableWrapper(range(10)).sharding_filter()
    priorities = lib.utils.data.datapipes.iter.sharding.SHARDING_PRIORITIES
    sharded.apply_sharding(2, 1, priorities.DISTRIBUTED)
    sharded.apply_sharding(3, 2, priorities.MULTIPROCESSING)
    results.append([list(sharded), len(sharded)])
    return results


def _decorators(lib):
    D = lib.utils.data
    results = []

    @D.functional_datapipe("hookgrad_test_twice")
    class Twice(D.IterDataPipe):
        def __init__(self, source):
            self.source = source

        def __iter__(self):
            for x in self.source:
                yield 2 * x

    results.append(list(D.datapipes.iter.IterableWrapper([1, 2]).hookgrad_test_twice()))
    results.append(outcome(lambda _: D.functional_datapipe("hookgrad_test_twice")(Twice), lib))

    @D.non_deterministic
    class Clock(D.IterDataPipe):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            yield from range(self.n)

    results.append(list(Clock(2)))
    with D.guaranteed_datapipes_determinism():
        results.append(outcome(lambda _: Clock(2), lib))
    results.append(list(Clock(1)))
    results.append(outcome(lambda _: D.non_deterministic(int), lib))

    def build(dp, k):
        return k

    # (annotations given as objects: this module's are strings, which would not resolve)
    build.__annotations__ = {"dp": D.IterDataPipe, "k": int}
    build = D.argument_validation(build)

    results.append(outcome(lambda _: build([1], 2), lib))
    results.append(outcome(lambda _: build(D.datapipes.iter.IterableWrapper([1]), 2), lib))

    class Checked(D.IterDataPipe):
        @D.runtime_validation
        def __iter__(self):
            yield from range(2)

    results.append(outcome(lambda _: list(Checked()), lib))
    with D.runtime_validation_disabled():
        results.append(list(Checked()))
    results.append(outcome(lambda _: D.runtime_validation(add_one), lib))
    return results


def _loaders(lib):
    D = lib.utils.data
    I = D.datapipes.iter
    lib.manual_seed(0)
    pipe = I.IterableWrapper(range(10)).shuffle().sharding_filter()
    loader = D.DataLoader(pipe, batch_size=4, shuffle=True)
    first, second = list(loader), list(loader)
    unshuffled = list(
        D.DataLoader(I.IterableWrapper(range(6)).shuffle(), batch_size=3, shuffle=False)
    )
    mapped = list(D.DataLoader(D.datapipes.map.SequenceWrapper(range(5)), batch_size=2))
    generator = lib.Generator()
    generator.manual_seed(5)
    seeded = list(
        D.DataLoader(I.IterableWrapper(range(6)).shuffle(), batch_size=6, generator=generator)
    )
    return [first, second, len(loader), unshuffled, mapped, seeded, type(loader.dataset).__name__]


def _loader_workers(lib):
    D = lib.utils.data
    pipe = D.datapipes.iter.IterableWrapper(range(8)).sharding_filter()
    return list(D.DataLoader(pipe, batch_size=2, num_workers=2))


def _files(lib, directory):
    I = lib.utils.data.datapipes.iter
    names = list(I.FileLister(str(directory), "*.txt"))
    opened = I.FileLister(str(directory), ["*.txt"]).open_files(mode="b").read_from_stream(chunk=4)
    decoded = I.FileLister(str(directory), ["*.json", "*.txt"]).open_files(mode="b").routed_decode()
    return [
        [name.rsplit("/", 1)[1] for name in names],
        [(path.rsplit("/", 1)[1], data) for path, data in opened],
        [(path.rsplit("/", 1)[1], value) for path, value in decoded],
        outcome(lambda _: I.FileOpener([], mode="w"), lib),
        outcome(lambda _: I.FileOpener([], mode="b", encoding="utf8"), lib),
        outcome(lambda _: len(I.FileLister(str(directory))), lib),
    ]


@pytest.mark.parametrize(
    "scenario",
    [_chains, _columns, _errors, _single_iterator, _names, _shuffles, _maps, _graphs],
)
def test_datapipes_as_torch(torch, scenario):
    _same(scenario, torch)


def test_decorators_as_torch(torch):
    _same(_decorators, torch)


def test_dataloader_over_datapipes_as_torch(torch):
    _same(_loaders, torch)


def test_dataloader_workers_shard_datapipes_as_torch(torch):
    _same(_loader_workers, torch)


def test_file_datapipes_as_torch(torch, tmp_path):
    (tmp_path / "b.txt").write_text("hello world")
    (tmp_path / "a.txt").write_text("abc")
    (tmp_path / "c.bin").write_text("skip")
    (tmp_path / "d.json").write_text('{"k": [1, 2]}')
    _same(lambda lib: _files(lib, tmp_path), torch)
