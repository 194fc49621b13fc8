"""Data-parallel training on MPI: the numbers behind ``docs/scaling.md``.

``python -m benchmarks.ddp`` starts MPI jobs of itself (``mpiexec -n P python -m
benchmarks.ddp --worker ...``), one BLAS thread per process, and prints:

1. all-reduce time against message size (float32, 4 B to 64 MiB, 2 processes), with the
   latency and bandwidth of a least-squares fit ``t = alpha + n / bandwidth``;
2. the DDP step time of the demo's CNN (``hookgrad/demo/model.py``, 8x8 digits, batch 64
   per process) against ``bucket_cap_mb``, with when the first bucket's all-reduce starts
   within backward (the overlap);
3. throughput: samples per second of 2 processes training with DDP against 1 process
   training alone, each with one BLAS thread (target: >= 1.6x on a 2-core machine).
   The two alternate, round by round, so that a change of load affects both alike.

Options: ``--quick`` (fewer repetitions), ``--processes P`` for parts 1 and 2. The load
average is printed with the results: on a shared machine, measure when it is low.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BATCH = 64
SIZES = [4 * 4**k for k in range(13)]  # 4 B .. 64 MiB
BUCKET_CAPS = [0.002, 0.005, 0.01, 0.025, None]  # MiB; None: torch's default (25, first 1)


# -- workers (run by mpiexec) -----------------------------------------------------------------


def _emit(record: dict) -> None:
    import hookgrad.distributed as dist

    if dist.get_rank() == 0:
        print("RESULT " + json.dumps(record), flush=True)


def worker_allreduce(quick: bool) -> None:
    """The time of one blocking all-reduce (SUM, float32) per message size."""
    import hookgrad.distributed as dist
    from hookgrad.distributed import transport
    from hookgrad.distributed.collectives import allreduce_array

    group = dist.group.WORLD
    mpi_sum = transport.load().SUM
    times = {}
    warm = np.ones(1, dtype=np.float32)
    for _ in range(500):
        allreduce_array(warm, mpi_sum, group, async_op=False)
    for size in SIZES:
        array = np.ones(size // 4, dtype=np.float32)
        repeat = int(max(3, min(2000, 2e8 / size / (20 if quick else 1))))
        allreduce_array(array, mpi_sum, group, async_op=False)
        best = float("inf")
        for _ in range(3):
            dist.barrier()
            start = time.perf_counter()
            for _ in range(repeat):
                allreduce_array(array, mpi_sum, group, async_op=False)
            best = min(best, (time.perf_counter() - start) / repeat)
        times[size] = best
    _emit({"part": "allreduce", "processes": dist.get_world_size(), "times": times})


def _cnn_data(seed: int):
    import hookgrad as torch

    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(BATCH, 1, 8, 8, generator=generator)
    y = torch.randint(0, 10, (BATCH,), generator=generator)
    return x, y


def _model(ddp: bool, bucket_cap_mb: float | None = None):
    import hookgrad as torch
    from hookgrad.demo.model import DigitsCNN
    from hookgrad.nn.parallel import DistributedDataParallel

    torch.manual_seed(0)
    model = DigitsCNN((8, 8), classes=10)
    if ddp:
        model = DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb)
    return model, torch.optim.SGD(model.parameters(), lr=0.01)


def _step_time(model, optimizer, steps: int) -> float:
    """The median time of one training step (forward, backward, SGD step)."""
    import hookgrad as torch
    import hookgrad.distributed as dist

    x, y = _cnn_data(dist.get_rank())
    loss_fn = torch.nn.CrossEntropyLoss()
    times = []
    for _ in range(steps + 3):
        start = time.perf_counter()
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
        times.append(time.perf_counter() - start)
    return float(np.median(times[3:]))


def worker_buckets(quick: bool) -> None:
    """DDP step time per bucket size, and where in backward the first bucket starts."""
    import hookgrad as torch
    import hookgrad.distributed as dist

    steps = 20 if quick else 100
    results = []
    for cap in BUCKET_CAPS:
        model, optimizer = _model(True, cap)
        step = _step_time(model, optimizer, steps)
        starts: list[float] = []
        model.reducer.launch_listeners.append(
            lambda _, starts=starts: starts.append(time.perf_counter())
        )
        x, y = _cnn_data(dist.get_rank())
        fractions = []
        for _ in range(7):
            starts.clear()
            loss = torch.nn.CrossEntropyLoss()(model(x), y)
            begin = time.perf_counter()
            loss.backward()
            fractions.append((starts[0] - begin) / (time.perf_counter() - begin))
        results.append(
            {
                "bucket_cap_mb": cap,
                "buckets": len(model.reducer._buckets),
                "step": step,
                "first_start": float(np.median(fractions)),
            }
        )
    local, optimizer = _model(False)
    results.append(
        {"bucket_cap_mb": "no DDP", "buckets": 0, "step": _step_time(local, optimizer, steps)}
    )
    grads = sum(p.numel() for p in local.parameters()) * 4
    _emit(
        {
            "part": "buckets",
            "processes": dist.get_world_size(),
            "results": results,
            "gradient_bytes": grads,
        }
    )


def worker_throughput(quick: bool) -> None:
    """Samples per second over ``seconds``: with DDP on more than one process, else the
    model alone."""
    import hookgrad.distributed as dist

    ddp = dist.get_world_size() > 1
    model, optimizer = _model(ddp)
    seconds = 1.0 if quick else 3.0
    _step_time(model, optimizer, 5)
    dist.barrier()
    step = _step_time(model, optimizer, max(10, int(seconds / 0.01)))
    samples = BATCH * dist.get_world_size() / step
    _emit(
        {
            "part": "throughput",
            "processes": dist.get_world_size(),
            "samples_per_s": samples,
            "step": step,
        }
    )


# -- the driver -------------------------------------------------------------------------------


def _job(processes: int, worker: str, quick: bool) -> dict:
    from hookgrad.distributed.run import find_mpiexec

    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    command = [
        find_mpiexec(),
        "-n",
        str(processes),
        sys.executable,
        "-m",
        "benchmarks.ddp",
        "--worker",
        worker,
    ] + (["--quick"] if quick else [])
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"benchmark job failed:\n{done.stdout}\n{done.stderr}")


def _fit(times: dict[str, float]) -> tuple[float, float]:
    """Least-squares ``t = alpha + n / bandwidth`` over the sizes (weights 1/t, so that
    small and large messages both count)."""
    sizes = np.array([float(n) for n in times])
    t = np.array(list(times.values()))
    design = np.stack([np.ones_like(sizes), sizes], axis=1) / t[:, None]
    alpha, per_byte = np.linalg.lstsq(design, np.ones_like(t), rcond=None)[0]
    return float(alpha), float(1.0 / per_byte)


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}"
        n /= 1024
    return f"{n:.0f} GiB"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=["allreduce", "buckets", "throughput"])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.worker is not None:
        import hookgrad.distributed as dist

        dist.init_process_group("mpi")
        globals()[f"worker_{args.worker}"](args.quick)
        dist.destroy_process_group()
        return

    print(f"load average before: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    record = _job(args.processes, "allreduce", args.quick)
    alpha, bandwidth = _fit(record["times"])
    print(f"\nall-reduce, float32 SUM, {record['processes']} processes (blocking MPI_Allreduce)")
    for size, seconds in record["times"].items():
        print(
            f"  {_size(int(size)):>10}  {seconds * 1e6:12.1f} us  "
            f"{int(size) / seconds / 1e9:8.3f} GB/s"
        )
    print(f"  fit: latency {alpha * 1e6:.1f} us, bandwidth {bandwidth / 1e9:.2f} GB/s")

    record = buckets = _job(args.processes, "buckets", args.quick)
    print(
        f"\nDDP step of the demo CNN, batch {BATCH} per process, {record['processes']} "
        f"processes, {record['gradient_bytes']} bytes of gradients"
    )
    for row in record["results"]:
        cap = row["bucket_cap_mb"]
        label = "default" if cap is None else (cap if isinstance(cap, str) else f"{cap} MiB")
        start = row.get("first_start")
        where = "" if start is None else f"   first bucket starts at {start:.0%} of backward"
        print(
            f"  bucket_cap_mb {label!s:>10}: {row['buckets']:2d} buckets, step "
            f"{row['step'] * 1e3:7.2f} ms{where}"
        )

    best = {1: 0.0, 2: 0.0}
    for _ in range(args.rounds):
        for processes in (1, 2):
            result = _job(processes, "throughput", args.quick)
            best[processes] = max(best[processes], result["samples_per_s"])
    ratio = best[2] / best[1]
    verdict = "meets" if ratio >= 1.6 else "misses"
    print(
        f"\nthroughput, demo CNN, batch {BATCH} per process, one BLAS thread per process "
        f"(best of {args.rounds} alternating rounds)"
    )
    print(f"  1 process : {best[1]:8.0f} samples/s")
    print(f"  2 processes: {best[2]:8.0f} samples/s   ratio {ratio:.2f}x ({verdict} target 1.6x)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    plain = next(r["step"] for r in buckets["results"] if r["bucket_cap_mb"] == "no DDP")
    ddp = next(r["step"] for r in buckets["results"] if r["bucket_cap_mb"] is None)
    local = allreduce_time(buckets["gradient_bytes"], 2, alpha, bandwidth)
    overhead = max(0.0, ddp - plain - local)
    estimate(BATCH / best[1], buckets["gradient_bytes"], overhead)


# -- the scaling model ------------------------------------------------------------------------

# Typical cluster interconnects: (name, latency alpha in seconds, bandwidth beta in bytes/s
# available to one process).
INTERCONNECTS = [
    ("InfiniBand HDR100 (alpha 2 us, beta 12 GB/s)", 2e-6, 12e9),
    ("25 Gb/s Ethernet, TCP (alpha 25 us, beta 2.5 GB/s)", 25e-6, 2.5e9),
]
PROCESSES = [8, 16, 32, 64, 128, 256]


def allreduce_time(n: float, p: int, alpha: float, beta: float, ring_only: bool = False) -> float:
    """The all-reduce of ``n`` bytes on ``p`` processes: the ring,
    ``2(p-1)/p * n/beta + 2(p-1) * alpha``, or (what MPICH picks when faster) recursive
    doubling, ``ceil(log2 p) * (alpha + n/beta)``, or Rabenseifner's reduce-scatter plus
    all-gather, ``2(p-1)/p * n/beta + 2 ceil(log2 p) * alpha``."""
    if p == 1:
        return 0.0
    ring = 2 * (p - 1) / p * n / beta + 2 * (p - 1) * alpha
    if ring_only:
        return ring
    steps = int(np.ceil(np.log2(p)))
    doubling = steps * (alpha + n / beta)
    rabenseifner = 2 * (p - 1) / p * n / beta + 2 * steps * alpha
    return min(ring, doubling, rabenseifner)


def estimate(step: float, gradient_bytes: float, overhead: float) -> None:
    """Step time and efficiency (one process's samples per second at p processes over
    alone) for 8-256 processes: ``T(p) = step + overhead + allreduce(n, p)``. The CNN's
    gradients fill one bucket, reduced after the last gradient: nothing to overlap."""
    print(
        f"\nestimate, demo CNN (step {step * 1e3:.2f} ms alone, {gradient_bytes} bytes of "
        f"gradients in one bucket, DDP overhead {overhead * 1e3:.2f} ms):"
    )
    for name, alpha, beta in INTERCONNECTS:
        print(f"  {name}")
        for ring_only in (True, False):
            label = "ring          " if ring_only else "MPICH's choice"
            cells = []
            for p in PROCESSES:
                total = step + overhead + allreduce_time(gradient_bytes, p, alpha, beta, ring_only)
                cells.append(f"{p}: {total * 1e3:5.2f} ms {step / total:4.0%}")
            print(f"    {label}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
