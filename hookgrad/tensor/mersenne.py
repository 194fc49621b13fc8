"""torch's CPU random engine: the 32-bit Mersenne Twister (mt19937) and its saved state.

torch seeds the twister with Matsumoto and Nishimura's ``init_genrand`` on the low 32
bits of the seed, draws 32-bit words from it, and makes a 64-bit word of two draws (the
first is the high half). NumPy's ``MT19937`` is the same twister: ``Engine`` sets its key
directly and draws words in bulk, so that a million numbers cost one NumPy call.

torch's generator also caches the second value of a Box-Muller pair (double and float),
and saves everything as a byte tensor of ``STATE_SIZE`` bytes: the C struct
``CPUGeneratorImplState``, whose layout ``STATE_LAYOUT`` spells out field by field (the
twister's words widened to 64 bits, its ``left``/``next`` counters, the cached normals).

Example::

    engine = Engine(0)
    engine.random32(2)      # array([2357136044, 2546248239], dtype=uint64), torch's first words
"""

from __future__ import annotations

import numpy as np

_WORDS = 624  # the twister's state: 624 words of 32 bits
_MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1

# CPUGeneratorImplState = {THGeneratorState legacy_pod; float next_float_normal_sample;
# bool is_next_float_normal_sample_valid}, little-endian, with C's alignment padding.
_FIELDS = {
    "the_initial_seed": ("<u8", 0),
    "left": ("<i4", 8),
    "seeded": ("<i4", 12),
    "next": ("<u8", 16),
    "state": (("<u8", (_WORDS,)), 24),
    "normal_x": ("<f8", 5016),
    "normal_y": ("<f8", 5024),
    "normal_rho": ("<f8", 5032),
    "normal_is_valid": ("<i4", 5040),
    "next_float_normal_sample": ("<f4", 5048),
    "is_next_float_normal_sample_valid": ("u1", 5052),
}
STATE_SIZE = 5056
STATE_LAYOUT = np.dtype(
    {
        "names": list(_FIELDS),
        "formats": [form for form, _ in _FIELDS.values()],
        "offsets": [offset for _, offset in _FIELDS.values()],
        "itemsize": STATE_SIZE,
    }
)


def init_genrand(seed: int) -> np.ndarray:
    """The twister's key from a 32-bit ``seed``: the reference ``init_genrand``, which is
    also how NumPy's legacy ``RandomState`` seeds its twister."""
    return np.random.RandomState(seed & _MASK32).get_state(legacy=False)["state"]["key"]


class Engine:
    """An mt19937 twister with torch's seeding, 64-bit draws, cached normals and state.

    ``next_double_normal`` / ``next_float_normal`` hold the cached second sample of a
    Box-Muller pair (None when there is none), as torch's generator does.
    """

    __slots__ = ("seed", "next_double_normal", "next_float_normal", "_bits", "_fresh")
    seed: int
    next_double_normal: float | None
    next_float_normal: float | None

    def __init__(self, seed: int) -> None:
        self._bits = np.random.MT19937(0)
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """Start over from ``seed`` (a 64-bit value; the twister sees its low 32 bits)."""
        self._load(init_genrand(seed), _WORDS, seed, True)
        self.next_double_normal = None
        self.next_float_normal = None

    def _load(self, key: np.ndarray, position: int, seed: int, fresh: bool) -> None:
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": position}}
        self.seed = seed & MASK64
        # NOTE: a freshly seeded torch engine reports next=0 (a twist is due before the
        # first draw); NumPy says position 624 for the same thing.
        self._fresh = fresh

    def random32(self, count: int) -> np.ndarray:
        """``count`` 32-bit words (as uint64), as ``count`` calls of torch's ``random()``."""
        if count:
            self._fresh = False
        return self._bits.random_raw(count)

    def random64(self, count: int) -> np.ndarray:
        """``count`` 64-bit words, as ``count`` calls of torch's ``random64()``: each is
        two 32-bit draws, the first one the high half."""
        words = self.random32(2 * count).reshape(count, 2)
        return (words[:, 0] << np.uint64(32)) | words[:, 1]

    def state_bytes(self) -> np.ndarray:
        """The state as torch saves it: ``STATE_SIZE`` bytes (uint8)."""
        twister = self._bits.state["state"]
        position = int(twister["pos"])
        record = np.zeros((), STATE_LAYOUT)
        record["the_initial_seed"] = self.seed
        record["left"] = _WORDS + 1 - position
        record["seeded"] = 1
        record["next"] = 0 if self._fresh else position
        record["state"] = twister["key"]
        if self.next_double_normal is not None:
            record["normal_is_valid"] = 1
            record["normal_y"] = self.next_double_normal
        if self.next_float_normal is not None:
            record["is_next_float_normal_sample_valid"] = 1
            record["next_float_normal_sample"] = self.next_float_normal
        return np.frombuffer(record.tobytes(), np.uint8).copy()

    def load_state_bytes(self, data: np.ndarray) -> None:
        """Restore a state saved by ``state_bytes`` (or by torch): ``STATE_SIZE`` bytes;
        torch's errors for another size or an impossible twister position."""
        if data.size != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input "
                f"RNG state size to be {data.size}"
            )
        record = np.frombuffer(np.ascontiguousarray(data, np.uint8).tobytes(), STATE_LAYOUT)[0]
        left, position = int(record["left"]), int(record["next"])
        if not (record["seeded"] and 0 < left <= _WORDS and position <= _WORDS):
            raise RuntimeError("Invalid mt19937 state")
        key = (record["state"] & np.uint64(_MASK32)).astype(np.uint32)
        # a twist is due when one word is left, whatever ``next`` says
        fresh = left == 1 and position == 0
        self._load(key, _WORDS if left == 1 else position, int(record["the_initial_seed"]), fresh)
        self.next_double_normal = None
        self.next_float_normal = None
        if record["normal_is_valid"]:
            self.next_double_normal = float(record["normal_y"])
        if record["is_next_float_normal_sample_valid"]:
            self.next_float_normal = float(record["next_float_normal_sample"])
