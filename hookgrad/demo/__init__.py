"""``hookgrad.demo``: ``python -m hookgrad.demo`` (console script ``hookgrad-demo``) trains a
small CNN on handwritten digits and writes an HTML report of what flowed through it, built
on hookgrad's hook API: gradient norms, activation statistics, dead ReLUs, saliency,
guided backpropagation, Grad-CAM, the autograd graph and the hook trace of one step.

One file per job: ``cli`` (arguments, errors, exit codes), ``data`` (loading, checking,
splitting), ``model`` (the CNN), ``train`` (the training loop), ``plots`` (matplotlib
figures as PNG), ``report`` (the self-contained ``index.html``).
"""

from hookgrad.demo.cli import main

__all__ = ["main"]
