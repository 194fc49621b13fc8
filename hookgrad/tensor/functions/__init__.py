"""Public tensor functions, one module per op family; each module ends with a namespace
class of the ``Tensor`` methods it provides, which ``hookgrad.tensor.methods`` attaches."""
