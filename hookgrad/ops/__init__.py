"""Ops: one class per operation, forward (on arrays) and backward (on tensors) together.

Families live in their own files. A forward receives NumPy arrays (and Python scalars)
and returns arrays; the tensor layer wraps the result and records the node. A backward
receives gradient tensors and computes with their operators and methods, so the same
formula, run with grad mode on, records a graph of its own (higher-order gradients).
"""
