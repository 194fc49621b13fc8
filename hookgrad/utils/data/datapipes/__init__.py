"""``hookgrad.utils.data.datapipes``: torch's DataPipes. ``datapipe`` (the base classes),
``iter`` and ``map`` (the built-in pipes, also reachable as methods: ``dp.map(fn)``),
``utils`` (helpers), and the decorators of ``_decorator``."""

from hookgrad.utils.data.datapipes import datapipe, iter, map, utils

__all__ = ["datapipe", "iter", "map", "utils"]
