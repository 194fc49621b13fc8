"""``hookgrad.vision.transforms.functional``: the image functions the transform classes call.

An image is a tensor ``(..., C, H, W)`` or a NumPy array ``(H, W)`` / ``(H, W, C)`` (what
the datasets give where torchvision gives a PIL image; a PIL image is read as such an
array). Array images stay arrays and tensor images stay tensors, except ``to_tensor`` and
``pil_to_tensor``, which turn an array into a tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any

import numpy as np

import hookgrad
from hookgrad.nn import functional as F

__all__ = [
    "InterpolationMode",
    "center_crop",
    "crop",
    "get_dimensions",
    "hflip",
    "normalize",
    "pad",
    "pil_to_tensor",
    "resize",
    "to_tensor",
]


class InterpolationMode(Enum):
    """How ``resize`` computes a pixel between input pixels.

    Example::

        Resize(14, interpolation=InterpolationMode.NEAREST)
    """

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"


_PAD_MODES = {"constant": "constant", "edge": "replicate", "reflect": "reflect"}


def get_dimensions(img: Any) -> list[int]:
    """``[channels, height, width]`` of an image.

    Example::

        get_dimensions(np.zeros((28, 28), np.uint8))   # [1, 28, 28]
    """
    if isinstance(img, hookgrad.Tensor):
        channels = 1 if img.ndim == 2 else int(img.shape[-3])
        return [channels, int(img.shape[-2]), int(img.shape[-1])]
    array = _array(img)
    return [1 if array.ndim == 2 else int(array.shape[2]), *map(int, array.shape[:2])]


def to_tensor(pic: Any) -> hookgrad.Tensor:
    """An array image ``(H, W[, C])`` as a tensor ``(C, H, W)``: ``uint8`` pixels become
    the default float dtype divided by 255 (so in [0, 1]); other dtypes are kept.

    Example::

        to_tensor(np.full((2, 2), 255, np.uint8))   # tensor([[[1., 1.], [1., 1.]]])
    """
    if isinstance(pic, hookgrad.Tensor) or not _is_image(pic):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    array = _array(pic)
    if array.ndim not in (2, 3):
        raise ValueError(f"pic should be 2/3 dimensional. Got {array.ndim} dimensions.")
    if array.dtype == np.bool_:
        array = array.astype(np.uint8) * 255
    if array.ndim == 2:
        array = array[:, :, None]
    img = hookgrad.from_numpy(np.ascontiguousarray(array.transpose((2, 0, 1))))
    if img.dtype == hookgrad.uint8:
        return img.to(dtype=hookgrad.get_default_dtype()).div(255)
    return img


def pil_to_tensor(pic: Any) -> hookgrad.Tensor:
    """An array image ``(H, W[, C])`` as a tensor ``(C, H, W)`` of the same dtype, not
    scaled.

    Example::

        pil_to_tensor(np.zeros((28, 28), np.uint8)).shape   # (1, 28, 28)
    """
    if isinstance(pic, hookgrad.Tensor) or not _is_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    array = _array(pic)
    if array.ndim == 2:
        array = array[:, :, None]
    return hookgrad.from_numpy(np.ascontiguousarray(array.transpose((2, 0, 1))))


def normalize(
    tensor: hookgrad.Tensor, mean: Sequence[float], std: Sequence[float], inplace: bool = False
) -> hookgrad.Tensor:
    """``(tensor - mean) / std`` per channel of a float tensor image ``(..., C, H, W)``
    (``mean`` and ``std`` in the tensor's dtype; ``inplace`` writes into ``tensor``).

    Example::

        normalize(hookgrad.ones(1, 2, 2), (0.5,), (0.25,))   # all 2.0
    """
    if not isinstance(tensor, hookgrad.Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError(
            "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
            f"{tensor.size()}"
        )
    mean_t = hookgrad.as_tensor(mean, dtype=tensor.dtype)
    std_t = hookgrad.as_tensor(std, dtype=tensor.dtype)
    if bool((std_t == 0).any()):
        raise ValueError(
            f"std evaluates to zero after conversion to {tensor.dtype}, leading to division "
            "by zero."
        )
    if mean_t.ndim == 1:
        mean_t = mean_t.view(-1, 1, 1)
    if std_t.ndim == 1:
        std_t = std_t.view(-1, 1, 1)
    if not inplace:
        tensor = tensor.clone()
    return tensor.sub_(mean_t).div_(std_t)


def resize(
    img: Any,
    size: int | Sequence[int],
    interpolation: InterpolationMode = InterpolationMode.BILINEAR,
    max_size: int | None = None,
    antialias: bool | None = True,
) -> Any:
    """``img`` resized to ``size``: ``(h, w)``, or an int (or a 1-sequence) for the
    shorter side, the longer one keeping the aspect ratio (at most ``max_size``).

    Tensors are resized by ``interpolate`` (integer images in float, rounded back), with
    ``antialias`` when shrinking; array images the same way (torchvision resizes PIL
    images with PIL's filters, which can differ by a grey level).

    Example::

        resize(hookgrad.rand(3, 32, 48), 16).shape   # (3, 16, 24)
    """
    mode = InterpolationMode(interpolation)
    height, width = get_dimensions(img)[1:]
    new_height, new_width = _resized_size(height, width, size, max_size)
    if (new_height, new_width) == (height, width):
        return img
    if not isinstance(img, hookgrad.Tensor):
        array = _array(img)
        tensor = hookgrad.from_numpy(np.ascontiguousarray(np.atleast_3d(array).transpose(2, 0, 1)))
        out = resize(tensor, [new_height, new_width], mode, None, antialias).numpy()
        out = out.transpose(1, 2, 0)
        return out[:, :, 0] if array.ndim == 2 else out
    dtype = img.dtype
    shape = img.shape
    batch = img.reshape(-1, *shape[-3:]) if img.ndim >= 3 else img.reshape(1, 1, *shape)
    if not batch.is_floating_point():
        batch = batch.to(hookgrad.float32)
    interpolating = mode in (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC)
    out = F.interpolate(
        batch,
        size=[new_height, new_width],
        mode=mode.value,
        align_corners=False if interpolating else None,
        antialias=bool(antialias) and interpolating,
    )
    if not dtype.is_floating_point:
        if mode is InterpolationMode.BICUBIC and dtype == hookgrad.uint8:
            out = out.clamp(0, 255)
        out = out.round().to(dtype)
    return out.reshape(*shape[:-2], new_height, new_width)


def pad(
    img: Any,
    padding: int | Sequence[int],
    fill: float = 0,
    padding_mode: str = "constant",
) -> Any:
    """``img`` padded on its borders: ``padding`` is one int (every side), two
    (left/right, top/bottom) or four (left, top, right, bottom); ``padding_mode`` is
    ``constant`` (with ``fill``), ``edge``, ``reflect`` or ``symmetric``.

    Example::

        pad(np.zeros((28, 28), np.uint8), 2).shape   # (32, 32)
    """
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    left, top, right, bottom = _padding(padding)
    if isinstance(img, hookgrad.Tensor):
        if padding_mode == "symmetric":
            rows = _symmetric(int(img.shape[-2]), top, bottom)
            columns = _symmetric(int(img.shape[-1]), left, right)
            return img.index_select(-2, rows).index_select(-1, columns)
        batch = img if img.ndim >= 3 else img.unsqueeze(0)
        mode = _PAD_MODES[padding_mode]
        value = fill if padding_mode == "constant" else None
        out = F.pad(batch, (left, right, top, bottom), mode=mode, value=value)
        return out if img.ndim >= 3 else out.squeeze(0)
    array = _array(img)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (array.ndim - 2)
    if padding_mode == "constant":
        return np.pad(array, widths, mode="constant", constant_values=fill)
    return np.pad(array, widths, mode=padding_mode)  # type: ignore[call-overload]


def crop(img: Any, top: int, left: int, height: int, width: int) -> Any:
    """The ``height x width`` window of ``img`` whose corner is ``(top, left)``; where it
    reaches past the image, the missing pixels are 0.

    Example::

        crop(hookgrad.rand(3, 32, 32), 4, 4, 24, 24).shape   # (3, 24, 24)
    """
    image_height, image_width = get_dimensions(img)[1:]
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > image_width or bottom > image_height:
        padding = [
            max(-left, 0),
            max(-top, 0),
            max(right - image_width, 0),
            max(bottom - image_height, 0),
        ]
        img = pad(img, padding)
        top, left = max(top, 0), max(left, 0)
    if isinstance(img, hookgrad.Tensor):
        return img[..., top : top + height, left : left + width]
    return np.array(_array(img)[top : top + height, left : left + width])


def center_crop(img: Any, output_size: int | Sequence[int]) -> Any:
    """The central ``output_size`` window (an int for a square) of ``img``, padded with
    0 where the image is smaller.

    Example::

        center_crop(np.zeros((28, 28), np.uint8), 20).shape   # (20, 20)
    """
    crop_height, crop_width = _pair(output_size)
    image_height, image_width = get_dimensions(img)[1:]
    if crop_width > image_width or crop_height > image_height:
        extra_width = max(crop_width - image_width, 0)
        extra_height = max(crop_height - image_height, 0)
        padding = [
            extra_width // 2,
            extra_height // 2,
            (extra_width + 1) // 2,
            (extra_height + 1) // 2,
        ]
        img = pad(img, padding)
        image_height, image_width = get_dimensions(img)[1:]
        if (crop_height, crop_width) == (image_height, image_width):
            return img
    top = int(round((image_height - crop_height) / 2.0))
    left = int(round((image_width - crop_width) / 2.0))
    return crop(img, top, left, crop_height, crop_width)


def hflip(img: Any) -> Any:
    """``img`` mirrored left to right.

    Example::

        hflip(hookgrad.tensor([[[1, 2, 3]]]))   # tensor([[[3, 2, 1]]])
    """
    if isinstance(img, hookgrad.Tensor):
        return img.flip(-1)
    return np.array(_array(img)[:, ::-1])


def _is_image(pic: Any) -> bool:
    return isinstance(pic, np.ndarray) or hasattr(pic, "__array_interface__")


def _array(img: Any) -> np.ndarray:
    if not _is_image(img):
        raise TypeError(f"img should be a Tensor, a NumPy array or a PIL Image. Got {type(img)}")
    return np.asarray(img)


def _pair(size: int | Sequence[int]) -> tuple[int, int]:
    if isinstance(size, int):
        return size, size
    if len(size) == 1:
        return int(size[0]), int(size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return int(size[0]), int(size[1])


def _padding(padding: int | Sequence[int]) -> tuple[int, int, int, int]:
    if isinstance(padding, int):
        return padding, padding, padding, padding
    values = [int(p) for p in padding]
    if len(values) == 1:
        return values[0], values[0], values[0], values[0]
    if len(values) == 2:
        return values[0], values[1], values[0], values[1]
    if len(values) == 4:
        return values[0], values[1], values[2], values[3]
    raise ValueError(
        f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(values)} element tuple"
    )


def _symmetric(length: int, before: int, after: int) -> hookgrad.Tensor:
    """Indices that extend ``range(length)`` by mirroring, edge pixels repeated."""
    period = np.concatenate([np.arange(length), np.arange(length)[::-1]])
    positions = np.arange(-before, length + after)
    return hookgrad.from_numpy(period[positions % (2 * length)].astype(np.int64))


def _resized_size(
    height: int, width: int, size: int | Sequence[int], max_size: int | None
) -> tuple[int, int]:
    """torchvision's rule: a pair is the new size; one number is the shorter side's."""
    if isinstance(size, int) or len(size) == 1:
        requested = size if isinstance(size, int) else int(size[0])
        short, long = (width, height) if width <= height else (height, width)
        new_short, new_long = requested, int(requested * long / short)
        if max_size is not None:
            if max_size <= requested:
                raise ValueError(
                    f"max_size = {max_size} must be strictly greater than the requested size "
                    f"for the smaller edge size = {size}"
                )
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        return (new_long, new_short) if width <= height else (new_short, new_long)
    if max_size is not None:
        raise ValueError(
            "max_size should only be passed if size specifies the length of the smaller edge, "
            "i.e. size should be an int or a sequence of length 1 in torchscript mode."
        )
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return int(size[0]), int(size[1])
