"""``hookgrad.testing``: torch's test helpers: ``assert_close`` (tensors, arrays, numbers
and nested containers of them, with torch's default tolerances per dtype and its messages),
``make_tensor`` (random test tensors drawn from hookgrad's generator, as torch draws them)
and the deprecated ``assert_allclose``. Example::

    from hookgrad.testing import assert_close, make_tensor

    x = make_tensor(2, 3, dtype=hookgrad.float32, device="cpu")
    assert_close(x * 1.0, x)
"""

from hookgrad.testing.comparison import assert_allclose, assert_close
from hookgrad.testing.creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
