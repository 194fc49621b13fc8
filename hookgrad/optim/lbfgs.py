"""``LBFGS``: limited-memory BFGS, with an optional strong-Wolfe line search.

The parameters are treated as one flat vector. torch's implementation keeps some scalars
as 0-d tensors (the curvature ``ys``, ``H_diag``, the directional derivatives, step
lengths found by the line search) and others as Python floats (losses, ``lr``); the two
round differently in float32, so here the first are NumPy scalars of the parameters'
dtype, which round as 0-d tensors do, and the second Python floats. The state keeps
torch's keys and types (0-d tensors as tensors), so it loads across libraries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.grad_mode import enable_grad, no_grad
from hookgrad.ops import array_api
from hookgrad.optim import kernels as K
from hookgrad.optim.optimizer import Optimizer, check_lr, scalar, write
from hookgrad.tensor import Tensor

__all__ = ["LBFGS"]

Number = Any  # a Python float or int, or a NumPy scalar standing for a 0-d tensor


def _divide(numerator: Number, denominator: Number) -> Number:
    """``numerator / denominator`` as torch computes it: a Python number divided by a 0-d
    tensor is the tensor's reciprocal times the number."""
    if isinstance(denominator, np.generic) and not isinstance(numerator, np.generic):
        return denominator.dtype.type(1) / denominator * numerator
    return numerator / denominator


def _cubic_interpolate(
    x1: Number,
    f1: Number,
    g1: Number,
    x2: Number,
    f2: Number,
    g2: Number,
    bounds: tuple[Number, Number] | None = None,
) -> Number:
    """The minimiser of the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1``,
    ``g2``, clipped to ``bounds`` (the midpoint of the bounds if it has none)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - _divide(3 * (f1 - f2), x1 - x2)
    d2_square = d1 * d1 - g1 * g2  # torch's d1 ** 2 of a 0-d tensor: one product
    if d2_square >= 0:
        d2 = K.sqrt(np.asarray(d2_square))[()]
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(
    obj_func: Callable[[list[np.ndarray], Number, np.ndarray], tuple[float, np.ndarray]],
    x: list[np.ndarray],
    t: Number,
    d: np.ndarray,
    f: float,
    g: np.ndarray,
    gtd: Number,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple[float, np.ndarray, Number, int]:
    """torch's strong-Wolfe line search along ``d`` from step ``t``: bracket a step that
    satisfies both Wolfe conditions, then zoom into the bracket by cubic interpolation.
    Returns the loss, flat gradient and step it ends at, and the evaluations it made."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = K.dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket = [t_prev, t]
            bracket_f = [f_prev, f_new]
            bracket_g = [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket = [t_prev, t]
            bracket_f = [f_prev, f_new]
            bracket_g = [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = K.dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = K.dot(g_new, d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low_pos]:
            bracket[high_pos] = t
            bracket_f[high_pos] = f_new
            bracket_g[high_pos] = g_new.copy()
            bracket_gtd[high_pos] = gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos] = t
            bracket_f[low_pos] = f_new
            bracket_g[low_pos] = g_new.copy()
            bracket_gtd[low_pos] = gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _to_state(value: Any) -> Any:
    """A working value as torch keeps it in the state: arrays and NumPy scalars as
    tensors, lists of them as lists of tensors."""
    if isinstance(value, list):
        return [_to_state(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return Tensor._make(np.asarray(value))
    return value


def _from_state(value: Any) -> Any:
    """The inverse of ``_to_state``: tensors as arrays (0-d ones as NumPy scalars)."""
    if isinstance(value, list):
        return [_from_state(v) for v in value]
    if isinstance(value, Tensor):
        return value._data[()] if value._data.ndim == 0 else value._data
    return value


class LBFGS(Optimizer):
    """L-BFGS, step for step as torch's: each ``step(closure)`` runs up to ``max_iter``
    iterations (``max_eval`` loss evaluations), each taking the quasi-Newton direction from
    the last ``history_size`` curvature pairs and moving ``lr`` along it (the first step
    scaled by ``min(1, 1 / sum|g|)``), or as far as ``line_search_fn="strong_wolfe"``
    finds. It stops early when the largest gradient element is at most
    ``tolerance_grad``, or the step or the loss change is below ``tolerance_change``.
    ``closure`` clears the gradients, computes the loss, calls ``backward`` and returns
    the loss. All parameters form one group.

    Parameters match torch's bit for bit given torch's dot products and square roots (see
    ``hookgrad.optim.kernels``), else to within the rounding of the dot products.

    Example::

        opt = optim.LBFGS(model.parameters(), lr=1, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            return loss

        opt.step(closure)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]
        self._numel_cache: int | None = None

    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(
                2 * p.numel() if p.is_complex() else p.numel() for p in self._params
            )
        return self._numel_cache

    def _gather_flat_grad(self) -> np.ndarray:
        views = []
        for p in self._params:
            if p.grad is None:
                views.append(np.zeros(K.as_real(p._data).size, K.as_real(p._data).dtype))
            else:
                views.append(K.as_real(p.grad._data).reshape(-1))
        return np.concatenate(views)

    def _add_grad(self, step_size: Number, update: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            data = K.as_real(p._data)
            numel = data.size
            write(data, K.add(data, update[offset : offset + numel].reshape(data.shape), step_size))
            p._bump_version()
            offset += numel
        if offset != self._numel():
            raise AssertionError(f"Expected offset {offset} to equal {self._numel()}")

    def _clone_param(self) -> list[np.ndarray]:
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data: list[np.ndarray]) -> None:
        for p, data in zip(self._params, params_data, strict=True):
            write(p, data)
            p._bump_version()

    def _directional_evaluate(
        self, closure: Callable[[], Any], x: list[np.ndarray], t: Number, d: np.ndarray
    ) -> tuple[float, np.ndarray]:
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @no_grad()
    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Run one L-BFGS optimisation (up to ``max_iter`` iterations); ``closure``
        re-evaluates the model and returns the loss. Returns the first loss.

        Example::

            loss = opt.step(closure)
        """
        if len(self.param_groups) != 1:
            raise AssertionError(
                f"Expected exactly one param_group, but got {len(self.param_groups)}"
            )
        closure = enable_grad()(closure)
        group = self.param_groups[0]
        lr = scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        opt_cond = np.abs(flat_grad).max() <= tolerance_grad
        if opt_cond:
            return orig_loss
        d, t = _from_state(state.get("d")), _from_state(state.get("t"))
        old_dirs, old_stps = _from_state(state.get("old_dirs")), _from_state(state.get("old_stps"))
        ro, H_diag = _from_state(state.get("ro")), _from_state(state.get("H_diag"))
        prev_flat_grad = _from_state(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")
        al: list[Any] = _from_state(state.get("al"))
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = K.mul(d, t)
                ys = K.dot(y, s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / K.dot(y, y)
                if "al" not in state:
                    state["al"] = [None] * history_size
                    al = state["al"]
                d = self._direction(flat_grad, old_dirs, old_stps, ro, al, H_diag)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.copy()
            else:
                write(prev_flat_grad, flat_grad)
            prev_loss = loss
            if state["n_iter"] == 1:
                total = np.abs(flat_grad).dtype.type(array_api.sum(np.abs(flat_grad)))
                t = min(1.0, 1.0 / total) * lr
            else:
                t = lr
            gtd = K.dot(flat_grad, d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x: list[np.ndarray], t: Number, d: np.ndarray) -> Any:
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(K.mul(d, t)).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        if "al" in state:
            state["al"] = _to_state(al)
        state["d"] = _to_state(d)
        state["t"] = _to_state(t)
        state["old_dirs"] = _to_state(old_dirs)
        state["old_stps"] = _to_state(old_stps)
        state["ro"] = _to_state(ro)
        state["H_diag"] = _to_state(H_diag)
        state["prev_flat_grad"] = _to_state(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss

    @staticmethod
    def _direction(
        flat_grad: np.ndarray,
        old_dirs: list[np.ndarray],
        old_stps: list[np.ndarray],
        ro: list[Any],
        al: list[Any],
        H_diag: Any,
    ) -> np.ndarray:
        """The L-BFGS two-loop recursion: the inverse-Hessian estimate applied to ``-g``."""
        q = -flat_grad
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = K.dot(old_stps[i], q) * ro[i]
            q = K.add(q, old_dirs[i], -al[i])
        r = np.asarray(K.mul(q, H_diag))
        for i in range(len(old_dirs)):
            be_i = K.dot(old_dirs[i], r) * ro[i]
            write(r, K.add(r, old_stps[i], al[i] - be_i))
        return r
