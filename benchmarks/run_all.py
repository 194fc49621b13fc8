"""Run every benchmark: ``python -m benchmarks.run_all`` (needs torch installed)."""

from benchmarks import (
    attention,
    checkpoint_memory,
    cnn_step,
    dataloader,
    ddp,
    distributions,
    func_vmap,
    hook_overhead,
    long_chain,
    lstm,
    mlp_step,
    op_overhead,
    per_sample,
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
    per_sample.main()
    func_vmap.main()
    checkpoint_memory.main()
    dataloader.main()
    ddp.main([])
