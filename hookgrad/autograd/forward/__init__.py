"""Forward-mode AD's machinery: the tangents of the current dual level (``tangents``),
the rules that compute an op's output tangents (``rules``), and the hooks a custom
``Function`` uses (``custom``). The public API is ``hookgrad.autograd.forward_ad``."""
