"""The autograd graph: nodes, leaf accumulators and saved tensors."""

from hookgrad.graph.accumulate import AccumulateGrad
from hookgrad.graph.node import Node
from hookgrad.graph.saved import SavedTensor

__all__ = ["AccumulateGrad", "Node", "SavedTensor"]
