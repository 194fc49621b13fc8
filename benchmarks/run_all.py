"""Run every benchmark: ``python -m benchmarks.run_all`` (needs torch installed)."""

from benchmarks import checkpoint_memory, mlp_step, op_overhead

if __name__ == "__main__":
    op_overhead.main()
    mlp_step.main()
    checkpoint_memory.main()
