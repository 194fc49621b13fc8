"""``hookgrad.optim``: optimizers (one per file) and learning-rate schedulers."""
