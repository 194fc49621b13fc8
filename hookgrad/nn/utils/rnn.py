"""``hookgrad.nn.utils.rnn``: batches of sequences of different lengths for the recurrent
layers, as torch's.

A ``PackedSequence`` holds the time steps of several sequences packed together, longest
first: ``data`` has the first step of every sequence, then the second step of those that
have one, and so on; ``batch_sizes[t]`` is how many sequences have a step ``t``. The
recurrent layers run on it without computing the padding. ``pad_sequence`` and
``pad_packed_sequence`` go back to one padded tensor.

Example::

    seqs = [hookgrad.randn(5, 8), hookgrad.randn(3, 8)]
    packed = pack_sequence(seqs)                    # batch_sizes tensor([2, 2, 2, 1, 1])
    out, (h, c) = nn.LSTM(8, 16)(packed)
    padded, lengths = pad_packed_sequence(out)      # (5, 2, 16), tensor([5, 3])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

import hookgrad
from hookgrad.ops.rnn import PackPaddedSequence
from hookgrad.tensor import Tensor
from hookgrad.tensor.dispatch import apply

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """Sequences of different lengths packed for the recurrent layers: ``data`` (the steps,
    step after step), ``batch_sizes`` (int64: the number of sequences at each step), and,
    when the batch was sorted by length, ``sorted_indices`` and their inverse
    ``unsorted_indices`` (the layers return states in the caller's order).

    Make them with ``pack_padded_sequence`` or ``pack_sequence``, not by hand.

    Example::

        packed = pack_sequence([hookgrad.ones(3, 2), hookgrad.ones(1, 2)])
        packed.batch_sizes    # tensor([2, 1, 1])
    """

    def __new__(
        cls,
        data: Any,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """``data.to(...)``: ``self`` if that changes nothing, else a new PackedSequence
        with the converted data (the indices stay, as everything is on the CPU)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """Move to CUDA: fails as in a CPU-only torch."""
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """``self``: everything lives on the CPU."""
        return self.to(*args, **kwargs)

    def pin_memory(self) -> PackedSequence:
        """``self`` with pinned data (on the CPU, the same tensors)."""
        return type(self)(
            self.data.pin_memory(), self.batch_sizes, self.sorted_indices, self.unsorted_indices
        )

    def double(self) -> PackedSequence:
        return self.to(dtype=hookgrad.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=hookgrad.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=hookgrad.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=hookgrad.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=hookgrad.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=hookgrad.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=hookgrad.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=hookgrad.uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether ``data`` is on a GPU: never."""
        return False

    def is_pinned(self) -> bool:
        """Whether ``data`` is in pinned memory."""
        return bool(self.data.is_pinned())


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation (int64 indices), or None for None.

    Example: ``invert_permutation(hookgrad.tensor([2, 0, 1]))`` is ``tensor([1, 2, 0])``.
    """
    if permutation is None:
        return None
    indices = permutation.numpy()
    inverse = np.empty_like(indices)
    inverse[indices] = np.arange(indices.size, dtype=indices.dtype)
    return hookgrad.from_numpy(inverse)


def _lengths_array(lengths: Any) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return lengths.numpy().astype(np.int64)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | Sequence[int],
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded batch ``input`` (``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``)
    whose sequence ``b`` has ``lengths[b]`` steps.

    With ``enforce_sorted`` the lengths must decrease; otherwise the batch is sorted here
    (stably, longest first) and the permutation kept in the result.

    Example::

        x = hookgrad.randn(4, 2, 3)                  # 2 sequences, at most 4 steps
        packed = pack_padded_sequence(x, [4, 2])     # data (6, 3), batch_sizes [2, 2, 1, 1]
    """
    values = _lengths_array(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-values, kind="stable")
        values = values[order]
        sorted_indices = hookgrad.from_numpy(order.astype(np.int64))
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    _check_packable(input, values, batch_first)
    data, batch_sizes = apply(PackPaddedSequence(batch_first), input, hookgrad.from_numpy(values))
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _check_packable(input: Tensor, lengths: np.ndarray, batch_first: bool) -> None:
    """torch's errors of ``_pack_padded_sequence``."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input.shape[0 if batch_first else 1]
    if lengths.shape[0] != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} "
            f"(batch_size={batch})"
        )
    if lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability."
        )


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo ``pack_padded_sequence``: the padded batch ``(T, B, *)`` (``(B, T, *)`` with
    ``batch_first``; ``T`` is ``total_length`` if given) and the lengths (int64), in the
    order the sequences were packed from.

    Example::

        padded, lengths = pad_packed_sequence(pack_sequence([a, b]), batch_first=True)
    """
    batch_sizes = [int(size) for size in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence "
                f"in input, but got total_length={total_length} and max sequence length "
                f"being {steps}"
            )
        steps = total_length
    data = sequence.data
    batch = batch_sizes[0]
    output = hookgrad.full((steps, batch, *data.shape[1:]), padding_value, dtype=data.dtype)
    lengths = np.empty(batch, np.int64)
    # One copy per run of steps with the same batch size, as torch's.
    offset = start = 0
    previous = batch
    for step in range(len(batch_sizes) + 1):
        size = batch_sizes[step] if step < len(batch_sizes) else 0
        if size != previous:
            count = previous * (step - start)
            block = data.narrow(0, offset, count).view(step - start, previous, *data.shape[1:])
            output.narrow(0, start, step - start).narrow(1, 0, previous).copy_(block)
            offset += count
            start = step
        lengths[size:previous] = step
        previous = size
    if batch_first:
        output = output.transpose(0, 1)
    length_tensor = hookgrad.from_numpy(lengths)
    if sequence.unsorted_indices is not None:
        unsorted = sequence.unsorted_indices
        return output.index_select(0 if batch_first else 1, unsorted), length_tensor[unsorted]
    return output, length_tensor


def pad_sequence(
    sequences: Tensor | Iterable[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of different lengths (each ``(L_i, *)``) into one tensor
    ``(max L, B, *)`` (``(B, max L, *)`` with ``batch_first``), filling with
    ``padding_value`` on the right (or the left, ``padding_side="left"``).

    Example::

        pad_sequence([hookgrad.ones(2), hookgrad.ones(1)], batch_first=True)
        # tensor([[1., 1.], [1., 0.]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    first = sequences[0]
    longest = max(seq.shape[0] for seq in sequences)
    count = len(sequences)
    shape = (count, longest) if batch_first else (longest, count)
    out = hookgrad.full((*shape, *first.shape[1:]), padding_value, dtype=first.dtype)
    for index, seq in enumerate(sequences):
        length = seq.shape[0]
        start = longest - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, index).narrow(0, start, length).copy_(seq)
        else:
            out.narrow(0, start, length).select(1, index).copy_(seq)
    return out


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
) -> list[Tensor]:
    """Split a padded batch back into its sequences (``lengths[b]`` steps each).

    NOTE: torch transposes a batch that is not ``batch_first`` in place (the caller's
    tensor changes shape); hookgrad, without ``Tensor.transpose_``, leaves it unchanged.

    Example::

        unpad_sequence(pad_sequence([a, b]), hookgrad.tensor([len(a), len(b)]))  # [a, b]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    steps = hookgrad.arange(padded_sequences.shape[1])
    return [seq[steps < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (each ``(L_i, *)``, longest first unless
    ``enforce_sorted=False``): ``pack_padded_sequence(pad_sequence(sequences), lengths)``.

    Example::

        pack_sequence([hookgrad.tensor([1, 2, 3]), hookgrad.tensor([4, 5])]).data
        # tensor([1, 4, 2, 5, 3])
    """
    lengths = hookgrad.tensor([seq.shape[0] for seq in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Undo ``pack_sequence``: the list of sequences, in their original order.

    Example::

        unpack_sequence(pack_sequence([a, b], enforce_sorted=False))   # [a, b]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
