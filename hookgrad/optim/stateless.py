"""``swap_in_optimizer_params_and_state``: run an optimizer on other parameters and state
for the duration of a ``with`` block, then restore its own."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, NamedTuple

from hookgrad.optim.optimizer import Optimizer
from hookgrad.tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


class _GroupSwapIn(NamedTuple):
    live_group: dict[str, Any]
    swapin_group: dict[str, Any]
    swapin_params: list[Tensor]


def _validate_state(state: Any) -> dict[Any, Any]:
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed "
            f"parameter ids to per-param state dicts, got {type(state).__name__}."
        )
    if any(isinstance(key, Tensor) for key in state):
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style state keyed by packed parameter ids."
        )
    if any(isinstance(key, int) and not isinstance(value, dict) for key, value in state.items()):
        raise RuntimeError(
            f"{_NAME} requires per-parameter optimizer state entries to be dictionaries."
        )
    return state


def _validate_groups(optimizer: Optimizer, param_groups: Any) -> list[dict[str, Any]]:
    if not isinstance(param_groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group "
            f"dicts, got {type(param_groups).__name__}."
        )
    if len(optimizer.param_groups) != len(param_groups):
        raise RuntimeError(
            "swapin_optim_state has a different number of parameter groups than the live optimizer."
        )
    return param_groups


def _validate_group(index: int, group: dict[str, Any], swapin_group: Any) -> list[int]:
    if not isinstance(swapin_group, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = swapin_group.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param_groups[*]['params'] entries "
            "keyed by packed parameter ids."
        )
    if len(group["params"]) != len(ids):
        raise RuntimeError(
            f"swapin_optim_state param group {index} has a different number of params than "
            "the live optimizer param group."
        )
    swapin_only = [key for key in swapin_group if key not in group]
    live_only = [key for key in group if key not in swapin_group]
    if swapin_only or live_only:
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match "
            f"the live optimizer group keys for group {index}. Keys only in swap-in: "
            f"{swapin_only}. Keys only in live: {live_only}."
        )
    return ids


def _prepare(
    optimizer: Optimizer, parameters: dict[str, Tensor], optim_state: dict[str, Any]
) -> tuple[dict[Any, Any], list[_GroupSwapIn]]:
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _validate_state(optim_state.get("state"))
    swapin_groups = _validate_groups(optimizer, optim_state.get("param_groups"))
    flat = list(parameters.values())
    offset = 0
    seen: set[int] = set()
    infos = []
    for index, (group, swapin_group) in enumerate(zip(optimizer.param_groups, swapin_groups)):
        ids = _validate_group(index, group, swapin_group)
        seen.update(ids)
        end = offset + len(ids)
        if end > len(flat):
            raise RuntimeError(
                f"{_NAME} requires the explicit parameter state to match "
                "optimizer.param_groups ordering."
            )
        infos.append(_GroupSwapIn(group, swapin_group, flat[offset:end]))
        offset = end
    extra = [key for key in state if key not in seen]
    if extra:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed "
            f"parameter ids from param_groups[*]['params']; got extra keys {extra!r}."
        )
    return state, infos


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(
    optimizer: Optimizer,
    swapin_parameters: dict[str, Tensor],
    swapin_optim_state: dict[str, Any],
) -> Iterator[None]:
    """Inside the ``with`` block, ``optimizer`` works on ``swapin_parameters`` (tensors in
    the order of its parameter groups, usually ``dict(model.named_parameters())`` of
    another model) with the state and hyperparameters of ``swapin_optim_state`` (an
    ``optimizer.state_dict()``-shaped dict); on exit its own parameters, state and groups
    are restored. The optimizer must have state already (have stepped once). In-place
    changes to the swapped-in state tensors stay in ``swapin_optim_state``.

    Example::

        with swap_in_optimizer_params_and_state(opt, dict(other.named_parameters()), sd):
            opt.step()          # updates ``other``'s parameters and ``sd``'s tensors
    """
    state, infos = _prepare(optimizer, swapin_parameters, swapin_optim_state)
    original_state = optimizer.state
    snapshots = [dict(group) for group in optimizer.param_groups]
    try:
        swapped: defaultdict[Tensor, Any] = defaultdict(dict)
        for info in infos:
            info.live_group["params"] = info.swapin_params
            for key, value in info.swapin_group.items():
                if key != "params":
                    info.live_group[key] = value
            for param, param_id in zip(info.swapin_params, info.swapin_group["params"]):
                swapped[param] = dict(state.get(param_id, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = original_state
