"""Fixtures of the optimizer tests."""

import numpy as np
import pytest

from hookgrad.optim import kernels


@pytest.fixture
def torch_rounding(torch, monkeypatch):
    """``hookgrad.optim.kernels.sqrt`` and ``dot`` replaced by torch's (MKL's), the two
    kernels whose rounding hookgrad does not reproduce: with them, an optimizer's update
    can be compared with torch's bit for bit."""

    def sqrt(a):
        a = np.asarray(a)
        return torch.from_numpy(np.ascontiguousarray(a)).sqrt().numpy().reshape(a.shape)

    def dot(a, b):
        product = torch.dot(torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
        return a.dtype.type(product.item())

    monkeypatch.setattr(kernels, "sqrt", sqrt)
    monkeypatch.setattr(kernels, "dot", dot)
