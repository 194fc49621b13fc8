"""``hookgrad.storage`` (torch's ``torch.storage``): the memory tensors share.

``UntypedStorage`` is the bytes a tensor, its views and its ``detach()``-ed aliases share
(``Tensor.untyped_storage()``); ``TypedStorage`` reads them as elements of one dtype
(``Tensor.storage()``, deprecated in torch). The per-dtype legacy classes
(``FloatStorage`` ...) are what ``Tensor.storage_type()`` returns.
"""

from hookgrad.tensor.layout import (
    StorageBase,
    TypedStorage,
    UntypedStorage,
    legacy_storage_class,
)

__all__ = ["StorageBase", "TypedStorage", "UntypedStorage", "legacy_storage_class"]
