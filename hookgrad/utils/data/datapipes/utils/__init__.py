"""Helpers of the DataPipes: argument checks, file streams (``common``), decoding files
by extension (``decoder``)."""

from hookgrad.utils.data.datapipes.utils import common, decoder

__all__ = ["common", "decoder"]
