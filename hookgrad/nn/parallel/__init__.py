"""``hookgrad.nn.parallel``: wrappers that run a module on several devices; here
``DataParallel``, which runs it on the CPU as torch does without GPUs."""

from hookgrad.nn.parallel.data_parallel import DataParallel

__all__ = ["DataParallel"]
