"""Run every benchmark: ``python -m benchmarks.run_all`` (needs torch installed)."""

from benchmarks import (
    checkpoint_memory,
    cnn_step,
    dataloader,
    hook_overhead,
    long_chain,
    mlp_step,
    op_overhead,
)

if __name__ == "__main__":
    op_overhead.main()
    long_chain.main()
    mlp_step.main()
    cnn_step.main()
    hook_overhead.main()
    checkpoint_memory.main()
    dataloader.main()
