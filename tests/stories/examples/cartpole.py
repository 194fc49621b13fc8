"""A stand-in for gymnasium's ``CartPole-v1`` (the reinforcement-learning stories' only
environment, so they need no gymnasium): a pole hinged on a cart that a force of 10 N
pushes left or right, integrated with Euler steps of 0.02 s (the classic equations of
Barto, Sutton and Anderson, 1983). An episode ends when the pole leans past 12 degrees,
the cart leaves [-2.4, 2.4], or after 500 steps; every step is worth 1."""

import math
from types import SimpleNamespace

import numpy as np

GRAVITY, CART_MASS, POLE_MASS, HALF_LENGTH, FORCE, TAU = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
MAX_ANGLE, MAX_POSITION, MAX_STEPS = 12 * 2 * math.pi / 360, 2.4, 500


class CartPole:
    """``reset(seed=None) -> (state, info)``, ``step(action) -> (state, reward,
    terminated, truncated, info)``, states as float32 arrays ``[x, x', angle, angle']``."""

    spec = SimpleNamespace(reward_threshold=475.0)

    def __init__(self):
        self.rng = np.random.default_rng()
        self.state = np.zeros(4)
        self.steps = 0

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        self.steps = 0
        return self.state.astype(np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = FORCE if action == 1 else -FORCE
        cos, sin = math.cos(theta), math.sin(theta)
        total_mass = CART_MASS + POLE_MASS
        temp = (force + POLE_MASS * HALF_LENGTH * theta_dot**2 * sin) / total_mass
        theta_acc = (GRAVITY * sin - cos * temp) / (
            HALF_LENGTH * (4.0 / 3.0 - POLE_MASS * cos**2 / total_mass)
        )
        x_acc = temp - POLE_MASS * HALF_LENGTH * theta_acc * cos / total_mass
        x, x_dot = x + TAU * x_dot, x_dot + TAU * x_acc
        theta, theta_dot = theta + TAU * theta_dot, theta_dot + TAU * theta_acc
        self.state = np.array([x, x_dot, theta, theta_dot])
        self.steps += 1
        terminated = abs(x) > MAX_POSITION or abs(theta) > MAX_ANGLE
        truncated = self.steps >= MAX_STEPS
        return self.state.astype(np.float32), 1.0, terminated, truncated, {}
