"""``hookgrad.backends``: the flags of torch's compute backends as a CPU-only torch has
them: ``cudnn`` (unavailable; flags kept), ``cuda`` (not built; ``matmul`` flags kept)
and ``mps`` (unavailable). Example::

    hookgrad.backends.mps.is_available()        # False
    hookgrad.backends.cudnn.benchmark = True    # accepted, changes nothing
"""

from hookgrad.backends import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
