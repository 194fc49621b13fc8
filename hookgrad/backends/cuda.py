"""``hookgrad.backends.cuda``: CUDA's backend flags as a CPU-only torch has them: CUDA is
not built in, and ``matmul``'s flags exist (and change nothing here).

``matmul.allow_tf32`` is the float32 matmul precision seen as a switch, as in torch:
``hookgrad.set_float32_matmul_precision("high")`` turns it on. Example::

    hookgrad.backends.cuda.matmul.allow_tf32 = True
    hookgrad.get_float32_matmul_precision()     # 'high'
"""

from __future__ import annotations

from typing import Any

from hookgrad.backends import _settings


def is_built() -> bool:
    """False: hookgrad is not built with CUDA."""
    return False


class cuBLASModule:
    """cuBLAS's flags: ``allow_tf32`` and the reduced-precision reductions of float16 and
    bfloat16 products."""

    _REDUCTIONS = (
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
    )

    def __init__(self) -> None:
        object.__setattr__(self, "_reductions", dict.fromkeys(self._REDUCTIONS, True))

    def __getattr__(self, name: str) -> Any:
        if name == "allow_tf32":
            return _settings.get_float32_matmul_precision() != "highest"
        if name in self._REDUCTIONS:
            return self._reductions[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError(
                    f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}"
                )
            _settings.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._REDUCTIONS:
            if not isinstance(value, (bool, tuple, list)):
                raise TypeError(
                    f"{name} expects a bool or a tuple/list of bools, but got {type(value)}"
                )
            self._reductions[name] = value
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = cuBLASModule()
