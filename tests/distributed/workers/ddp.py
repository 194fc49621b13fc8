"""Run by ``tests/distributed/test_ddp.py`` under ``mpiexec -n N``: DistributedDataParallel
against one process training on the whole batch, and its controls (``no_sync``, unused
parameters, communication hooks, buffers, user hooks, the overlap of reduction and
backward). ``python ddp.py training`` runs only the training comparisons. Each rank prints
``ddp ok <checks>`` at the end; any failure raises (and so aborts the whole job)."""

from __future__ import annotations

import sys

import numpy as np

import hookgrad as torch
import hookgrad.distributed as dist
from hookgrad import nn
from hookgrad.demo.model import DigitsCNN
from hookgrad.distributed.algorithms.ddp_comm_hooks import default_hooks
from hookgrad.nn.parallel import DistributedDataParallel as DDP
from hookgrad.utils.data.distributed import DistributedSampler

dist.init_process_group("mpi")
RANK, WORLD = dist.get_rank(), dist.get_world_size()
SHARD = 4  # samples per rank
checks = 0


def close(name: str, got: torch.Tensor, expected: torch.Tensor, rtol: float) -> None:
    """``got`` equals ``expected`` within ``rtol`` relative to ``expected``'s largest
    magnitude."""
    global checks
    a, b = got.detach().numpy().astype(np.float64), expected.detach().numpy().astype(np.float64)
    scale = max(np.abs(b).max(), 1e-30)
    error = np.abs(a - b).max() / scale
    assert error <= rtol, f"rank {RANK}: {name}: relative error {error:.3g} > {rtol:.1g}"
    checks += 1


def mlp() -> nn.Module:
    return nn.Sequential(
        nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3)
    )


def cnn() -> nn.Module:
    return DigitsCNN((8, 8), classes=3)


def batch(step: int, dtype: torch.dtype, kind: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The whole batch of step ``step`` (the same on every rank; each uses its shard)."""
    generator = torch.Generator().manual_seed(1000 + step)
    n = SHARD * WORLD
    shape = (n, 6) if kind == "mlp" else (n, 1, 8, 8)
    x = torch.randn(*shape, generator=generator).to(dtype)
    y = torch.randint(0, 3, (n,), generator=generator)
    return x, y


def shard(t: torch.Tensor) -> torch.Tensor:
    return t[RANK * SHARD : (RANK + 1) * SHARD]


def train_matches(
    kind: str,
    dtype: torch.dtype,
    rtol: float,
    steps: int = 20,
    bucket_cap_mb: float | None = None,
    hook: object = None,
) -> None:
    """20 steps of DDP (each rank on its shard) against one model on the whole batch."""
    make = mlp if kind == "mlp" else cnn
    torch.manual_seed(0)
    reference = make().to(dtype)
    torch.manual_seed(100 + RANK)  # a different start on each rank: DDP broadcasts rank 0's
    model = make().to(dtype)
    if RANK == 0:
        model.load_state_dict(reference.state_dict())
    ddp = DDP(model, bucket_cap_mb=bucket_cap_mb)
    if hook is not None:
        ddp.register_comm_hook(None, hook)
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        close(f"{kind} {name} broadcast at construction", p, q, 0.0)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        x, y = batch(step, dtype, kind)
        opt.zero_grad()
        loss_fn(ddp(shard(x)), shard(y)).backward()
        opt.step()
        ref_opt.zero_grad()
        loss_fn(reference(x), y).backward()
        ref_opt.step()
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        close(f"{kind} {dtype} {name} after {steps} steps", p, q, rtol)


def training() -> None:
    train_matches("mlp", torch.float64, 1e-10)
    train_matches("mlp", torch.float32, 1e-4, bucket_cap_mb=0.001)
    train_matches("cnn", torch.float64, 1e-10, bucket_cap_mb=0.01)
    train_matches("cnn", torch.float32, 1e-4)


def comm_hooks() -> None:
    train_matches("mlp", torch.float64, 1e-10, steps=5, hook=default_hooks.allreduce_hook)
    train_matches("mlp", torch.float32, 2e-2, steps=5, hook=default_hooks.fp16_compress_hook)
    seen = []

    def counting(state: object, bucket: dist.GradBucket) -> object:
        seen.append((bucket.index(), bucket.is_last(), len(bucket.parameters())))
        assert bucket.buffer().numel() == sum(g.numel() for g in bucket.gradients())
        return default_hooks.allreduce_hook(state, bucket)

    ddp = DDP(mlp().double(), bucket_cap_mb=0.001)
    ddp.register_comm_hook(None, counting)
    try:
        ddp.register_comm_hook(None, counting)
    except RuntimeError as error:
        assert "can only be called once" in str(error)
    else:
        raise AssertionError("a second comm hook was accepted")
    ddp(torch.randn(2, 6, dtype=torch.float64)).sum().backward()
    buckets = len(ddp.reducer._buckets)
    assert buckets > 1 and [s[0] for s in seen] == list(range(buckets)), seen
    assert [s[1] for s in seen] == [False] * (buckets - 1) + [True], seen
    global checks
    checks += 1


def accumulation() -> None:
    """``no_sync``: two micro-batches per step, the first accumulated locally."""
    torch.manual_seed(0)
    reference = mlp().double()
    model = mlp().double()
    model.load_state_dict(reference.state_dict())
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(3):
        opt.zero_grad()
        ref_opt.zero_grad()
        for micro in range(2):
            x, y = batch(10 * step + micro, torch.float64, "mlp")
            if micro == 0:
                with ddp.no_sync():
                    loss_fn(ddp(shard(x)), shard(y)).backward()
            else:
                loss_fn(ddp(shard(x)), shard(y)).backward()
            loss_fn(reference(x), y).backward()
        opt.step()
        ref_opt.step()
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        close(f"no_sync {name}", p, q, 1e-10)
    # the micro-batch under no_sync left this rank's own gradient, not an average
    x, y = batch(20, torch.float64, "mlp")
    single = mlp().double()
    single.load_state_dict(model.state_dict())
    loss_fn(single(shard(x)), shard(y)).backward()
    ddp.zero_grad()
    with ddp.no_sync():
        loss_fn(ddp(shard(x)), shard(y)).backward()
    for p, q in zip(model.parameters(), single.parameters()):
        close("no_sync leaves the local gradient", p.grad, q.grad, 0.0)


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 2)
        self.b = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor, use_b: bool) -> torch.Tensor:
        return self.a(x) + self.b(x) if use_b else self.a(x)


def unused_parameters() -> None:
    torch.manual_seed(0)
    model = TwoHeads().double()
    reference = TwoHeads().double()
    reference.load_state_dict(model.state_dict())
    ddp = DDP(model, find_unused_parameters=True)
    x = torch.randn(SHARD * WORLD, 4, dtype=torch.float64)
    # b unused everywhere: its gradient stays None, a's is the average
    ddp(shard(x), use_b=False).pow(2).mean().backward()
    assert model.b.weight.grad is None and model.b.bias.grad is None
    reference(x, use_b=False).pow(2).mean().backward()
    close("a.weight with b unused", model.a.weight.grad, reference.a.weight.grad, 1e-12)
    # b used on rank 0 only: the average counts zero for the other ranks
    ddp.zero_grad()
    reference.zero_grad()
    ddp(shard(x), use_b=RANK == 0).pow(2).mean().backward()
    total = sum(
        reference(x[r * SHARD : (r + 1) * SHARD], use_b=r == 0).pow(2).mean() for r in range(WORLD)
    )
    (total / WORLD).backward()
    for name in ("a.weight", "a.bias", "b.weight", "b.bias"):
        got = model.get_parameter(name).grad
        close(f"{name} with b used on rank 0 only", got, reference.get_parameter(name).grad, 1e-12)

    # without find_unused_parameters: torch's error at the next forward, on every rank
    plain = DDP(TwoHeads().double())
    plain(shard(x), use_b=False).sum().backward()
    try:
        plain(shard(x), use_b=False)
    except RuntimeError as error:
        message = str(error)
        assert message.startswith("Expected to have finished reduction in the prior iteration")
        assert f"Parameter indices which did not receive grad for rank {RANK}: 2 3" in message
    else:
        raise AssertionError("no error for an unused parameter")
    global checks
    checks += 1


def user_hooks_and_overlap() -> None:
    """User hooks see this rank's own gradients, as in one process; the first bucket's
    all-reduce starts before backward reaches the first layer; ``.grad`` is averaged when
    ``backward()`` returns."""
    torch.manual_seed(0)
    layers = [nn.Linear(8, 8) for _ in range(4)]
    model = nn.Sequential(*layers).double()
    single = nn.Sequential(*[nn.Linear(8, 8) for _ in range(4)]).double()
    single.load_state_dict(model.state_dict())
    events: list[object] = []
    seen: dict[str, torch.Tensor] = {}
    seen_single: dict[str, torch.Tensor] = {}
    for net, record in ((model, seen), (single, seen_single)):
        net[3].weight.register_hook(lambda g, r=record: r.__setitem__("tensor", g.clone()))
        net[3].weight.register_post_accumulate_grad_hook(
            lambda p, r=record: r.__setitem__("post-accumulate", p.grad.clone())
        )
        net[2].register_parameter_grad_hook(
            lambda m, grads, r=record: r.__setitem__("parameter-grad", grads["weight"].clone())
        )
        net[1].register_full_backward_hook(
            lambda m, gi, go, r=record: r.__setitem__("module backward", go[0].clone())
        )
    model[0].register_full_backward_pre_hook(lambda m, go: events.append("backward at layer 0"))
    ddp = DDP(model, bucket_cap_mb=0.0005)  # a bucket per layer

    def recording(state: object, bucket: dist.GradBucket) -> object:
        events.append(("bucket", bucket.index()))
        return default_hooks.allreduce_hook(state, bucket)

    ddp.register_comm_hook(None, recording)
    x = torch.randn(SHARD * WORLD, 8, dtype=torch.float64)
    ddp(shard(x)).pow(2).sum().backward()
    events.append("backward returned")
    buckets = len(ddp.reducer._buckets)
    assert buckets == 4, buckets
    assert events.index(("bucket", 0)) < events.index("backward at layer 0"), events
    assert events.index(("bucket", buckets - 1)) < events.index("backward returned"), events

    single(shard(x)).pow(2).sum().backward()
    assert sorted(seen) == sorted(seen_single) and len(seen) == 4, sorted(seen)
    for kind, value in seen.items():
        close(f"the {kind} hook sees this rank's own gradient", value, seen_single[kind], 0.0)
    for p, q in zip(model.parameters(), single.parameters()):
        average = q.grad.clone()
        dist.all_reduce(average, op=dist.ReduceOp.AVG)
        close(".grad is the average after backward", p.grad, average, 1e-12)


def buffers_and_state() -> None:
    model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).double()
    ddp = DDP(model)
    assert ddp.module is model
    assert list(ddp.state_dict()) == ["module." + k for k in model.state_dict()]
    model[1].running_mean.fill_(float(RANK))
    ddp.eval()
    with torch.no_grad():
        ddp(torch.ones(2, 3, dtype=torch.float64))
    close("buffers broadcast from rank 0", model[1].running_mean, torch.zeros(3), 0.0)
    quiet = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).double()
    ddp = DDP(quiet, broadcast_buffers=False)
    quiet[1].running_mean.fill_(float(RANK))
    ddp(torch.ones(2, 3, dtype=torch.float64))
    assert float(quiet[1].running_mean[0]) != 0.0 or RANK == 0
    sampler = DistributedSampler(range(10), shuffle=False)
    per_rank = -(-10 // WORLD)
    padded = list(range(10)) + list(range(per_rank * WORLD - 10))
    assert list(sampler) == padded[RANK::WORLD], list(sampler)
    try:
        DDP(nn.Linear(2, 2 + (RANK == 1)))
    except RuntimeError as error:
        assert "appears not to match sizes of the same param in process 0" in str(error)
    else:
        raise AssertionError("different models were accepted")
    try:
        DDP(nn.Linear(2, 2).requires_grad_(False))
    except RuntimeError as error:
        assert "doesn't have any parameter that requires a gradient" in str(error)
    else:
        raise AssertionError("a model without trainable parameters was accepted")
    global checks
    checks += 4


sections = sys.argv[1:] or [
    "training",
    "comm_hooks",
    "accumulation",
    "unused_parameters",
    "user_hooks_and_overlap",
    "buffers_and_state",
]
for section in sections:
    globals()[section]()
print(f"ddp ok {checks}", flush=True)
