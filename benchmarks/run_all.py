"""Run every benchmark: ``python -m benchmarks.run_all`` (needs torch installed)."""

from benchmarks import (
    attention,
    checkpoint_memory,
    cnn_step,
    dataloader,
    distributions,
    hook_overhead,
    long_chain,
    lstm,
    mlp_step,
    op_overhead,
)

if __name__ == "__main__":
    op_overhead.main()
    long_chain.main()
    mlp_step.main()
    cnn_step.main()
    lstm.main()
    attention.main()
    distributions.main()
    hook_overhead.main()
    checkpoint_memory.main()
    dataloader.main()
