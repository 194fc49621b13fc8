"""``hookgrad.onnx``: the names of ``torch.onnx`` that scripts reach without exporting.

Exporting a model to ONNX traces it with torch's compiler machinery, which hookgrad does
not have (out of scope, as ``torch.jit`` is); a script that imports ``torch.onnx`` and
exports only on request runs, and ``export`` says why it cannot. Example::

    import hookgrad.onnx

    hookgrad.onnx.is_in_onnx_export()   # False
"""

from __future__ import annotations

from typing import Any

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is tracing the running code: never under hookgrad.

    Example::

        if not hookgrad.onnx.is_in_onnx_export():
            ...
    """
    return False


def export(model: Any, args: Any = (), f: Any = None, **kwargs: Any) -> Any:
    """torch's ONNX exporter: raises ``RuntimeError``, since exporting needs torch's
    tracer; export the model with PyTorch (a hookgrad ``state_dict`` saved with
    ``hookgrad.save`` loads there).

    Example::

        hookgrad.onnx.export(model, (x,), "model.onnx")   # RuntimeError
    """
    raise RuntimeError(
        "hookgrad cannot export ONNX models: torch.onnx.export traces the model with "
        "torch's compiler, which hookgrad does not have. Save the state_dict with "
        "hookgrad.save and export it with PyTorch."
    )
