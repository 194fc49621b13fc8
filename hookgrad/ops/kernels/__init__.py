"""NumPy kernels that round as torch's compiled CPU kernels do.

torch computes on the CPU with vectorised C++ (ATen), Sleef's vector math and Intel MKL.
Their results differ from NumPy's in the last bit where they sum, multiply-add or take a
power in another order or with other roundings, and a training run that compares a loss
with a threshold (``if loss < 1e-3: break``) can then take another path. The modules
here reproduce those orders and roundings, so that a script prints torch's numbers:

- ``cpu``: the vector width torch's kernels use on this CPU, and the intra-op thread count;
- ``fma``: ``a * b + c`` with one rounding, as the compiled kernels fuse it;
- ``sum`` (with ``tensor_iterator``, how ``TensorIterator`` cuts a reduction into blocks
  and threads): ``sum`` and ``mean`` in torch's order;
- ``pow`` (with ``sleef``, Sleef's vector ``pow``): ``torch.pow`` of floating arrays;
- ``blas``: float32 matrix-vector products in the order of MKL's AVX-512 kernels.

Each takes NumPy arrays laid out as the tensors are (their strides decide the order) and
returns arrays; the op table calls them in place of NumPy's functions.
"""
