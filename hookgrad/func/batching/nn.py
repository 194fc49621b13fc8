"""Batching rules of the neural-network ops: random ops and dropout (for now)."""

from __future__ import annotations

from hookgrad.func.batching.core import register
from hookgrad.func.batching.pointwise import through_numpy
from hookgrad.ops import dropout, random

# The random fills draw through the samplers, which ``hookgrad.func.random`` makes draw
# per ``randomness``: they get the batched arrays themselves.
register(
    random.Uniform,
    random.BernoulliTensor,
    random.Bernoulli,
    dropout.NativeDropout,
)(through_numpy)
