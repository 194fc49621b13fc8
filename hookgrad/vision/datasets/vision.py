"""The base of the image datasets: ``VisionDataset`` (root, transforms, repr) and
``StandardTransform`` (one transform for the image, one for the target)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from hookgrad.utils.data import Dataset

__all__ = ["StandardTransform", "VisionDataset"]


class StandardTransform:
    """Applies ``transform`` to a sample's input and ``target_transform`` to its target
    (either may be None).

    Example::

        both = StandardTransform(lambda x: x * 2, str)
        both(3, 1)   # (6, '1')
    """

    def __init__(
        self, transform: Callable | None = None, target_transform: Callable | None = None
    ) -> None:
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input: Any, target: Any) -> tuple[Any, Any]:
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def __repr__(self) -> str:
        body = [self.__class__.__name__]
        if self.transform is not None:
            body += _indented(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += _indented(self.target_transform, "Target transform: ")
        return "\n".join(body)


class VisionDataset(Dataset):
    """A map-style dataset of images under ``root``, as torchvision's base class.

    ``transforms`` maps ``(image, target)`` to a new pair; ``transform`` and
    ``target_transform`` map each one alone (give either ``transforms`` or the other
    two). Subclasses define ``__getitem__`` and ``__len__``, and may add lines to the
    repr with ``extra_repr``.

    Example::

        class Pairs(VisionDataset):
            def __len__(self):
                return 2

            def __getitem__(self, index):
                return self.transforms(index, index % 2)

        Pairs("data", transform=lambda x: x + 10)[1]   # (11, 1)
    """

    _repr_indent = 4

    def __init__(
        self,
        root: str | os.PathLike | None = None,
        transforms: Callable | None = None,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
    ) -> None:
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        has_transforms = transforms is not None
        has_separate_transform = transform is not None or target_transform is not None
        if has_transforms and has_separate_transform:
            raise ValueError(
                "Only transforms or transform/target_transform can be passed as argument"
            )
        self.transform = transform
        self.target_transform = target_transform
        if has_separate_transform:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def extra_repr(self) -> str:
        """Lines the repr shows after the root (``Split: Train`` ...)."""
        return ""

    def __repr__(self) -> str:
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if self.transforms is not None:
            body += repr(self.transforms).splitlines()
        lines = [f"Dataset {self.__class__.__name__}"]
        lines += [" " * self._repr_indent + line for line in body]
        return "\n".join(lines)


def _indented(transform: Any, head: str) -> list[str]:
    lines = repr(transform).splitlines()
    return [f"{head}{lines[0]}"] + ["{}{}".format(" " * len(head), line) for line in lines[1:]]
