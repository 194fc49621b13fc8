"""Attributes torch keeps on ``Tensor`` for old code: ``volatile`` (removed; always
False, with torch's warning), ``reinforce`` (removed; torch's error, which points to
``torch.distributions``) and ``name`` (None: torch names no tensor here)."""

from __future__ import annotations

import warnings
from typing import Any

_REINFORCE_REMOVED = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def _get_volatile(input: Any) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", stacklevel=2)
    return False


def _set_volatile(input: Any, value: Any) -> None:
    warnings.warn(
        "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
        stacklevel=2,
    )


def _name(input: Any) -> None:
    return None


def reinforce(input: Any, reward: Any) -> None:
    """Removed from torch (raises, as torch does): use ``hookgrad.distributions``."""
    raise RuntimeError(_REINFORCE_REMOVED)


class LegacyAttributeMethods:
    """``volatile``, ``reinforce`` and ``name`` of ``Tensor``."""

    volatile = property(
        _get_volatile,
        _set_volatile,
        doc="Removed: always False (torch warns when it is read or set).",
    )
    reinforce = reinforce
    name = property(_name, doc="None: no tensor has a name.")
