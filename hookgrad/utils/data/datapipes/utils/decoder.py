"""``Decoder``: bytes of files decoded by their extension, by a list of handlers (text,
JSON, pickle, ``.pt`` tensors; images with Pillow; audio, video and ``.mat`` need
torchaudio, torchvision and SciPy, as in torch). Used by ``routed_decode``."""

from __future__ import annotations

import io
import json
import os.path
import pickle
from collections.abc import Callable
from typing import Any

from hookgrad.utils.data.datapipes.utils.common import StreamWrapper

__all__ = [
    "Decoder",
    "ImageHandler",
    "MatHandler",
    "audiohandler",
    "basichandlers",
    "extension_extract_fn",
    "handle_extension",
    "imagehandler",
    "mathandler",
    "videohandler",
]


def basichandlers(extension: str, data: bytes) -> Any:
    """Text (``txt``), ints (``cls``, ``id`` ...), JSON, pickle and ``.pt`` (``hookgrad.load``);
    None for other extensions."""
    if extension in "txt text transcript":
        return data.decode("utf-8")
    if extension in ["cls", "cls2", "class", "count", "index", "inx", "id"]:
        try:
            return int(data)
        except ValueError:
            return None
    if extension in "json jsn":
        return json.loads(data)
    if extension in ["pyd", "pickle"]:
        return pickle.loads(data)  # noqa: S301 (the file's owner chose pickle)
    if extension == "pt":
        import hookgrad

        return hookgrad.load(io.BytesIO(data))
    return None


# name -> (array type, element type, mode), as torch's.
imagespecs = {
    "l8": ("numpy", "uint8", "l"),
    "rgb8": ("numpy", "uint8", "rgb"),
    "rgba8": ("numpy", "uint8", "rgba"),
    "l": ("numpy", "float", "l"),
    "rgb": ("numpy", "float", "rgb"),
    "rgba": ("numpy", "float", "rgba"),
    "torchl8": ("torch", "uint8", "l"),
    "torchrgb8": ("torch", "uint8", "rgb"),
    "torchrgba8": ("torch", "uint8", "rgba"),
    "torchl": ("torch", "float", "l"),
    "torchrgb": ("torch", "float", "rgb"),
    "torch": ("torch", "float", "rgb"),
    "torchrgba": ("torch", "float", "rgba"),
    "pill": ("pil", None, "l"),
    "pil": ("pil", None, "rgb"),
    "pilrgb": ("pil", None, "rgb"),
    "pilrgba": ("pil", None, "rgba"),
}


def handle_extension(extensions: str, f: Callable[[bytes], Any]) -> Callable[[str, bytes], Any]:
    """A handler applying ``f`` to data whose key ends with the first of ``extensions``."""
    targets = extensions.lower().split()

    def g(key: str, data: bytes) -> Any:
        extension = key.lower().split(".")
        for target in targets:
            parts = target.split(".")
            if len(parts) > len(extension):
                continue
            if extension[-len(parts) :] == parts:
                return f(data)
            return None
        return None

    return g


class ImageHandler:
    """Decode images (``jpg``, ``png`` ...) with Pillow into ``imagespec``'s form (a NumPy
    array, a tensor (channels first), or a Pillow image)."""

    def __init__(self, imagespec: str) -> None:
        if imagespec not in imagespecs:
            raise AssertionError(f"unknown image specification: {imagespec}")
        self.imagespec = imagespec.lower()

    def __call__(self, extension: str, data: bytes) -> Any:
        if extension.lower() not in ["jpg", "jpeg", "png", "ppm", "pgm", "pbm", "pnm"]:
            return None
        import numpy as np

        try:
            import PIL.Image
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(
                "Package `PIL` is required to be installed for default image decoder.Please use "
                "`pip install Pillow` to install the package"
            ) from error
        atype, etype, mode = imagespecs[self.imagespec]
        with io.BytesIO(data) as stream:
            image = PIL.Image.open(stream)
            image.load()
            image = image.convert(mode.upper())
        if atype == "pil":
            return image
        result = np.asarray(image)
        if result.dtype != np.uint8:
            raise AssertionError(f"numpy image array should be type uint8, but got {result.dtype}")
        if atype == "numpy":
            return result if etype == "uint8" else result.astype("f") / 255.0
        import hookgrad

        tensor = hookgrad.tensor(np.array(result.transpose(2, 0, 1)))
        return tensor if etype == "uint8" else tensor / 255.0


def imagehandler(imagespec: str) -> ImageHandler:
    return ImageHandler(imagespec)


def videohandler(extension: str, data: bytes) -> Any:
    """Videos need torchvision (which hookgrad does not replace): an error for them."""
    if extension not in ["mp4", "ogv", "mjpeg", "avi", "mov", "h264", "mpg", "webm", "wmv"]:
        return None
    raise ModuleNotFoundError(
        "Package `torchvision` is required to be installed for default video file loader."
        "Please use `pip install torchvision`to install the package"
    )


def audiohandler(extension: str, data: bytes) -> Any:
    """Audio needs torchaudio (which hookgrad does not replace): an error for it."""
    if extension not in ["flac", "mp3", "sox", "wav", "m4a", "ogg", "wma"]:
        return None
    raise ModuleNotFoundError(
        "Package `torchaudio` is required to be installed for default audio file loader."
        "Please use `pip install torchaudio`to install the package"
    )


class MatHandler:
    """Decode MATLAB ``.mat`` files with SciPy's ``loadmat``."""

    def __init__(self, **loadmat_kwargs: Any) -> None:
        try:
            import scipy.io as sio
        except ImportError as error:
            raise ModuleNotFoundError(
                "Package `scipy` is required to be installed for mat file.Please use `pip install "
                "scipy`to install the package"
            ) from error
        self.sio = sio
        self.loadmat_kwargs = loadmat_kwargs

    def __call__(self, extension: str, data: bytes) -> Any:
        if extension != "mat":
            return None
        with io.BytesIO(data) as stream:
            return self.sio.loadmat(stream, **self.loadmat_kwargs)


def mathandler(**loadmat_kwargs: Any) -> MatHandler:
    return MatHandler(**loadmat_kwargs)


def extension_extract_fn(pathname: str) -> str:
    """The extension of ``pathname``, without its dot."""
    extension = os.path.splitext(pathname)[1]
    return extension[1:] if extension else extension


class Decoder:
    """Decode ``(key, data)`` pairs: the first handler (of ``key_fn(key)`` and the bytes)
    not returning None gives the value; keys starting with ``_`` are kept as text."""

    def __init__(
        self, *handler: Callable[..., Any], key_fn: Callable[[str], str] = extension_extract_fn
    ) -> None:
        self.handlers = list(handler)
        self.key_fn = key_fn

    def add_handler(self, *handler: Callable[..., Any]) -> None:
        """Put ``handler`` (one or more) before the others."""
        if handler:
            self.handlers = list(handler) + self.handlers

    @staticmethod
    def _is_stream_handle(data: Any) -> bool:
        target = data.file_obj if isinstance(data, StreamWrapper) else data
        return isinstance(target, (io.BufferedIOBase, io.RawIOBase))

    def decode1(self, key: str, data: Any) -> Any:
        if not data:
            return data
        if Decoder._is_stream_handle(data):
            stream = data
            data = b"".join(data)
            stream.close()
        for handler in self.handlers:
            result = handler(key, data)
            if result is not None:
                return result
        return data

    def decode(self, data: Any) -> dict[str, Any]:
        result = {}
        if isinstance(data, tuple):
            data = [data]
        if data is not None:
            for key, value in data:
                if key[0] == "_" and isinstance(value, bytes):
                    result[key] = value.decode("utf-8")
                    continue
                result[key] = self.decode1(self.key_fn(key), value)
        return result

    def __call__(self, data: Any) -> dict[str, Any]:
        return self.decode(data)
