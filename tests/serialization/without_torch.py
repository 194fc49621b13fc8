"""Load a checkpoint with hookgrad in a process where torch cannot be imported, and print
a JSON description of what loaded (``describe``), for tests to compare with torch's.

usage: python without_torch.py CHECKPOINT [LOAD_KWARGS_JSON]

``describe`` is also imported by the tests and applied to torch's objects: it reads only
what both libraries have (``dtype``, ``shape``, ``stride()``, ``tolist()`` ...).
"""

import json
import sys
from typing import Any


def describe(value: Any) -> Any:
    """A JSON-able description of a loaded object: tensors by type, dtype, layout, values
    and storage address; containers item by item; anything else by type and repr."""
    if hasattr(value, "untyped_storage") and hasattr(value, "stride"):
        return {
            "class": type(value).__name__,
            "dtype": str(value.dtype),
            "shape": list(value.shape),
            "stride": list(value.stride()),
            "offset": value.storage_offset(),
            "requires_grad": value.requires_grad,
            "values": repr(value.detach().tolist()),
            "storage": value.untyped_storage().data_ptr(),
        }
    if isinstance(value, dict):
        items = [[repr(key), describe(item)] for key, item in value.items()]
        return {"class": type(value).__name__, "items": items}
    if isinstance(value, (list, tuple)) and type(value).__name__ in ("list", "tuple"):
        return {"class": type(value).__name__, "items": [describe(item) for item in value]}
    return {"class": type(value).__name__, "repr": repr(value)}


def main() -> None:
    sys.modules["torch"] = None  # type: ignore[assignment]  (import torch now fails)
    import hookgrad

    kwargs = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    loaded = hookgrad.load(sys.argv[1], **kwargs)
    assert sys.modules["torch"] is None
    print(json.dumps(describe(loaded)))


if __name__ == "__main__":
    main()
