"""The stub of ``Tensor``'s attached methods (``hookgrad/tensor/attached.pyi``) is up to date."""

import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "tensor_stub.py"


def test_stub_matches_the_attached_methods():
    spec = importlib.util.spec_from_file_location("tensor_stub", TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.STUB.read_text() == tool.render(), "run python tools/tensor_stub.py"
