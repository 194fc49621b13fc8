"""Run by ``tests/distributed/test_collectives.py`` under ``mpiexec -n N``: every collective
of ``hookgrad.distributed`` on every dtype, on contiguous and non-contiguous tensors,
blocking and ``async_op=True``, against a NumPy reference computed from what every rank
holds. Each rank prints ``collectives ok <checks>`` at the end; any failure raises (and
so aborts the whole job)."""

from __future__ import annotations

import warnings

import numpy as np

import hookgrad as torch
import hookgrad.distributed as dist

dist.init_process_group("mpi")
RANK, WORLD = dist.get_rank(), dist.get_world_size()
OTHER = (RANK + 1) % WORLD
checks = 0

DTYPES = (
    "float16",
    "float32",
    "float64",
    "int8",
    "uint8",
    "int32",
    "int64",
    "bool",
    "complex64",
    "complex128",
)
SHAPE = (3, 4)


def data(rank: int, dtype: str, shape: tuple[int, ...] = SHAPE, salt: int = 0) -> np.ndarray:
    """What rank ``rank`` holds: small integers (sums and products stay exact)."""
    base = (np.arange(int(np.prod(shape))).reshape(shape) * (rank + 2) + salt) % 5 + 1
    if dtype == "bool":
        return (base + rank) % 2 == 0
    if dtype.startswith("complex"):
        return (base + 1j * (base - rank)).astype(dtype)
    return base.astype(dtype)


def tensor(a: np.ndarray, contiguous: bool) -> torch.Tensor:
    """``a`` as a tensor, contiguous or as the transpose of a contiguous one."""
    if contiguous or a.ndim != 2:
        return torch.from_numpy(a.copy())
    t = torch.from_numpy(np.ascontiguousarray(a.T)).t()
    assert not t.is_contiguous()
    return t


def check(name: str, got: torch.Tensor, expected: np.ndarray) -> None:
    global checks
    got_array = got.numpy()
    if expected.dtype.kind == "f" and expected.dtype.itemsize == 2:
        ok = np.allclose(got_array.astype(np.float64), expected.astype(np.float64), rtol=1e-3)
    else:
        ok = got_array.dtype == expected.dtype and np.array_equal(got_array, expected)
    assert ok, f"rank {RANK}: {name}: got {got_array!r}, expected {expected!r}"
    checks += 1


def everyone(dtype: str, shape: tuple[int, ...] = SHAPE, salt: int = 0) -> list[np.ndarray]:
    return [data(r, dtype, shape, salt) for r in range(WORLD)]


def reference(op: object, arrays: list[np.ndarray]) -> np.ndarray:
    stacked = np.stack(arrays)
    dtype = arrays[0].dtype
    if op is dist.ReduceOp.SUM:
        out = stacked.any(0) if dtype.kind == "b" else stacked.sum(0)
    elif op is dist.ReduceOp.AVG:
        out = stacked.sum(0) / WORLD
    elif op is dist.ReduceOp.PRODUCT:
        out = stacked.all(0) if dtype.kind == "b" else stacked.prod(0)
    elif op is dist.ReduceOp.MIN:
        out = stacked.min(0)
    elif op is dist.ReduceOp.MAX:
        out = stacked.max(0)
    elif op is dist.ReduceOp.BAND:
        out = np.bitwise_and.reduce(stacked, 0)
    elif op is dist.ReduceOp.BOR:
        out = np.bitwise_or.reduce(stacked, 0)
    else:
        out = np.bitwise_xor.reduce(stacked, 0)
    return out.astype(dtype)


def ops_for(dtype: str) -> list[object]:
    ops = [dist.ReduceOp.SUM]
    if not dtype.startswith("complex"):
        ops += [dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX]
    if dtype.startswith(("float", "complex")):
        ops.append(dist.ReduceOp.AVG)
    else:
        ops += [dist.ReduceOp.BAND, dist.ReduceOp.BOR, dist.ReduceOp.BXOR]
    return ops


# -- reductions ---------------------------------------------------------------------------
for dtype_name in DTYPES:
    for contiguous in (True, False):
        where = f"{dtype_name} contiguous={contiguous}"
        for op in ops_for(dtype_name):
            t = tensor(data(RANK, dtype_name), contiguous)
            assert dist.all_reduce(t, op=op) is None
            check(f"all_reduce {op} {where}", t, reference(op, everyone(dtype_name)))
        t = tensor(data(RANK, dtype_name), contiguous)
        work = dist.all_reduce(t, async_op=True)
        assert work.wait() is True and work.is_completed()
        check(f"all_reduce async {where}", t, reference(dist.ReduceOp.SUM, everyone(dtype_name)))

        t = tensor(data(RANK, dtype_name), contiguous)
        op = dist.ReduceOp.SUM if dtype_name.startswith("complex") else dist.ReduceOp.MAX
        dist.reduce(t, dst=WORLD - 1, op=op)
        expected = (
            reference(op, everyone(dtype_name)) if RANK == WORLD - 1 else data(RANK, dtype_name)
        )
        check(f"reduce {where}", t, expected)

        t = tensor(data(RANK, dtype_name), contiguous)
        dist.broadcast(t, src=WORLD - 1)
        check(f"broadcast {where}", t, data(WORLD - 1, dtype_name))

        # -- gathering and scattering
        parts = [tensor(np.zeros(SHAPE, dtype_name), contiguous) for _ in range(WORLD)]
        dist.all_gather(parts, tensor(data(RANK, dtype_name), contiguous))
        for r, part in enumerate(parts):
            check(f"all_gather[{r}] {where}", part, data(r, dtype_name))

        out = tensor(np.zeros((WORLD * SHAPE[0], SHAPE[1]), dtype_name), contiguous)
        dist.all_gather_into_tensor(out, tensor(data(RANK, dtype_name), contiguous))
        check(f"all_gather_into_tensor {where}", out, np.concatenate(everyone(dtype_name)))

        gathered = [tensor(np.zeros(SHAPE, dtype_name), contiguous) for _ in range(WORLD)]
        dist.gather(
            tensor(data(RANK, dtype_name), contiguous), gathered if RANK == 0 else None, dst=0
        )
        if RANK == 0:
            for r, part in enumerate(gathered):
                check(f"gather[{r}] {where}", part, data(r, dtype_name))

        mine = tensor(np.zeros(SHAPE, dtype_name), contiguous)
        sources = [tensor(data(r, dtype_name, salt=7), contiguous) for r in range(WORLD)]
        dist.scatter(mine, sources if RANK == WORLD - 1 else None, src=WORLD - 1)
        check(f"scatter {where}", mine, data(RANK, dtype_name, salt=7))

        if dtype_name != "bool":
            out = tensor(np.zeros(SHAPE, dtype_name), contiguous)
            inputs = [tensor(data(RANK, dtype_name, salt=r), contiguous) for r in range(WORLD)]
            dist.reduce_scatter(out, inputs)
            expected = reference(
                dist.ReduceOp.SUM, [data(r, dtype_name, salt=RANK) for r in range(WORLD)]
            )
            check(f"reduce_scatter {where}", out, expected)

            out = tensor(np.zeros(SHAPE, dtype_name), contiguous)
            full = [data(r, dtype_name, (WORLD * SHAPE[0], SHAPE[1])) for r in range(WORLD)]
            dist.reduce_scatter_tensor(out, tensor(full[RANK], contiguous))
            summed = reference(dist.ReduceOp.SUM, full)
            check(
                f"reduce_scatter_tensor {where}",
                out,
                summed[RANK * SHAPE[0] : (RANK + 1) * SHAPE[0]],
            )

        outs = [tensor(np.zeros(SHAPE, dtype_name), contiguous) for _ in range(WORLD)]
        dist.all_to_all(
            outs, [tensor(data(RANK, dtype_name, salt=r), contiguous) for r in range(WORLD)]
        )
        for r, part in enumerate(outs):
            check(f"all_to_all[{r}] {where}", part, data(r, dtype_name, salt=RANK))

# all_to_all_single with uneven splits: rank r sends (s + 1) rows to rank s.
rows_out = [s + 1 for s in range(WORLD)]
rows_in = [RANK + 1] * WORLD
sent = data(RANK, "float64", (sum(rows_out), 2))
received = torch.zeros(sum(rows_in), 2, dtype=torch.float64)
dist.all_to_all_single(received, torch.from_numpy(sent), rows_in, rows_out)
pieces = []
for r in range(WORLD):
    theirs = data(r, "float64", (sum(rows_out), 2))
    start = sum(rows_out[:RANK])
    pieces.append(theirs[start : start + RANK + 1])
check("all_to_all_single uneven", received, np.concatenate(pieces))
received = torch.zeros(WORLD, 3, dtype=torch.int64)
dist.all_to_all_single(received, torch.from_numpy(data(RANK, "int64", (WORLD, 3))))
check(
    "all_to_all_single even",
    received,
    np.stack([data(r, "int64", (WORLD, 3))[RANK] for r in range(WORLD)]),
)

# all_gather with different sizes per rank.
parts = [torch.zeros(r + 1, dtype=torch.float32) for r in range(WORLD)]
dist.all_gather(parts, torch.full((RANK + 1,), float(RANK)))
for r, part in enumerate(parts):
    check(f"all_gather uneven[{r}]", part, np.full(r + 1, float(r), np.float32))

# coalesced forms and subgroups by enumeration
first, second = torch.ones(2) * (RANK + 1), torch.full((3,), 2.0, dtype=torch.float32)
dist.all_reduce_coalesced([first, second])
check("all_reduce_coalesced[0]", first, np.full(2, WORLD * (WORLD + 1) / 2, np.float32))
check("all_reduce_coalesced[1]", second, np.full(3, 2.0 * WORLD, np.float32))
outs = [[torch.zeros(2), torch.zeros(1)] for _ in range(WORLD)]
dist.all_gather_coalesced(outs, [torch.full((2,), float(RANK)), torch.full((1,), -1.0 * RANK)])
for r in range(WORLD):
    check(f"all_gather_coalesced[{r}]", outs[r][1], np.full(1, -1.0 * r, np.float32))
mine_group, groups = dist.new_subgroups_by_enumeration([[r] for r in range(WORLD)])
assert len(groups) == WORLD and dist.get_world_size(mine_group) == 1

# -- point to point: a ring ---------------------------------------------------------------
PREVIOUS = (RANK - 1) % WORLD
for dtype_name in ("float32", "int64", "complex128", "bool"):
    incoming = tensor(np.zeros(SHAPE, dtype_name), contiguous=False)
    if RANK % 2 == 0:
        dist.send(tensor(data(RANK, dtype_name), contiguous=False), dst=OTHER)
        source = dist.recv(incoming, src=PREVIOUS)
    else:
        source = dist.recv(incoming)
        dist.send(tensor(data(RANK, dtype_name), contiguous=False), dst=OTHER)
    assert source == PREVIOUS, (source, PREVIOUS)
    check(f"send/recv {dtype_name}", incoming, data(PREVIOUS, dtype_name))

incoming = torch.zeros(5, dtype=torch.float64)
receiving = dist.irecv(incoming)
sending = dist.isend(torch.from_numpy(data(RANK, "float64", (5,))), dst=OTHER)
sending.wait()
receiving.wait()
assert receiving.source_rank() == PREVIOUS
check("isend/irecv", incoming, data(PREVIOUS, "float64", (5,)))

incoming = torch.zeros(4, dtype=torch.int32)
works = dist.batch_isend_irecv(
    [
        dist.P2POp(dist.isend, torch.from_numpy(data(RANK, "int32", (4,))), OTHER),
        dist.P2POp(dist.irecv, incoming, PREVIOUS),
    ]
)
for work in works:
    work.wait()
check("batch_isend_irecv", incoming, data(PREVIOUS, "int32", (4,)))

# -- async handles and futures --------------------------------------------------------------
t = torch.from_numpy(data(RANK, "float32"))
future = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True).get_future()
doubled = future.then(lambda fut: fut.value()[0] * 2)
check("future then", doubled.wait(), reference(dist.ReduceOp.AVG, everyone("float32")) * 2)
assert future.wait()[0] is t
parts = [torch.zeros(SHAPE) for _ in range(WORLD)]
work = dist.all_gather(parts, torch.from_numpy(data(RANK, "float32")), async_op=True)
assert work.result() == parts
for r, part in enumerate(parts):
    check(f"async all_gather[{r}]", part, data(r, "float32"))
for work in [dist.broadcast(t, src=0, async_op=True), dist.barrier(async_op=True)]:
    work.wait()
dist.barrier()

# -- groups ---------------------------------------------------------------------------------
pair = dist.new_group([0, WORLD - 1])
t = torch.ones(2) * (RANK + 1)
if RANK in (0, WORLD - 1):
    assert dist.get_rank(pair) == (0 if RANK == 0 else 1) and dist.get_world_size(pair) == 2
    dist.all_reduce(t, group=pair)
    check("all_reduce on a group", t, np.full(2, 1.0 + WORLD, np.float32))
    assert dist.get_process_group_ranks(pair) == [0, WORLD - 1]
else:
    assert pair is dist.GroupMember.NON_GROUP_MEMBER
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.all_reduce(t, group=pair) is None
    assert "does not belong to the given group" in str(caught[0].message)
    check("all_reduce off the group", t, np.full(2, RANK + 1.0, np.float32))
    assert dist.get_rank(pair) == -1

# -- objects ----------------------------------------------------------------------------------
objects = [{"rank": RANK}, "x"] if RANK == 1 else [None, None]
dist.broadcast_object_list(objects, src=1)
assert objects == [{"rank": 1}, "x"], objects
gathered = [None] * WORLD
dist.all_gather_object(gathered, ("r", RANK))
assert gathered == [("r", r) for r in range(WORLD)], gathered
collected = [None] * WORLD if RANK == 0 else None
dist.gather_object(RANK * 10, collected, dst=0)
assert RANK != 0 or collected == [r * 10 for r in range(WORLD)], collected
out = [None]
dist.scatter_object_list(out, [f"to {r}" for r in range(WORLD)] if RANK == 0 else None, src=0)
assert out == [f"to {RANK}"], out
if RANK == 0:
    dist.send_object_list([1, "two"], dst=1)
elif RANK == 1:
    got = [None, None]
    assert dist.recv_object_list(got, src=0) == 0 and got == [1, "two"], got
checks += 5

# -- bad input: a clear error on every rank, and the group still works ----------------------
try:
    dist.all_reduce(torch.ones(3 + RANK))
except dist.DistBackendError as error:
    message = str(error)
    assert "all_reduce: the ranks' tensors do not match" in message, message
    assert "rank 0: torch.float32 tensor of shape [3]" in message, message
    assert "rank 1: torch.float32 tensor of shape [4]" in message, message
else:
    raise AssertionError("mismatched all_reduce did not raise")
try:
    dist.broadcast(torch.ones(2, dtype=torch.float64 if RANK else torch.float32), src=0)
except RuntimeError as error:
    assert "broadcast: the ranks' tensors do not match" in str(error), str(error)
else:
    raise AssertionError("mismatched broadcast did not raise")
try:
    # rank 0 sends all of its rows to itself; the others expect one row from it
    splits = [WORLD] + [0] * (WORLD - 1) if RANK == 0 else None
    dist.all_to_all_single(torch.zeros(WORLD), torch.zeros(WORLD), None, splits)
except RuntimeError as error:
    assert "all_to_all_single: the ranks' split sizes do not match" in str(error), str(error)
else:
    raise AssertionError("mismatched all_to_all_single did not raise")
try:
    # a wrong gather_list on the root only: every rank raises, none waits forever
    dist.gather(torch.ones(2), [torch.ones(2)] if RANK == 0 else None, dst=0)
except (RuntimeError, ValueError) as error:
    expected = "gather_list" if RANK == 0 else "another rank's arguments are wrong"
    assert expected in str(error), str(error)
else:
    raise AssertionError("a wrong gather_list did not raise")
for bad, text in [
    (
        lambda: dist.all_reduce(torch.ones(2, dtype=torch.complex64), op=dist.ReduceOp.MAX),
        "all_reduce does not support RedOpType.MAX on complex tensors",
    ),
    (
        lambda: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BAND),
        "Cannot use RedOpType.BAND with non-integral dtype",
    ),
    (lambda: dist.all_reduce([torch.ones(2)]), "Expected parameter `tensor` of type"),
    (lambda: dist.broadcast(torch.ones(2), src=WORLD), "invalid root rank"),
    (lambda: dist.send(torch.ones(2), dst=RANK), "Invalid destination rank"),
    (lambda: dist.init_process_group("mpi"), "trying to initialize the default process group"),
]:
    try:
        bad()
    except (RuntimeError, ValueError, TypeError) as error:
        assert text in str(error), (text, str(error))
    else:
        raise AssertionError(f"no error for {text}")
t = torch.ones(2)
dist.all_reduce(t)
check("all_reduce after errors", t, np.full(2, float(WORLD), np.float32))

dist.destroy_process_group()
assert not dist.is_initialized()
print(f"collectives ok {checks}", flush=True)
