"""pytorch/examples ``reinforcement_learning/actor_critic.py`` in small: the same
actor-critic network (a shared linear layer, an action head with softmax and a value
head), ``Categorical`` sampling, advantage-weighted policy loss plus ``smooth_l1_loss`` on
the values, Adam, on a stand-in cart-pole (``cartpole.py``); prints each episode's length
and loss."""

import importlib
import os
import sys
from collections import namedtuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cartpole import CartPole  # noqa: E402

torch = importlib.import_module(os.environ.get("TORCHLIKE", "torch"))
nn = torch.nn
F = torch.nn.functional
Categorical = importlib.import_module(torch.__name__ + ".distributions").Categorical

GAMMA, SEED = 0.99, 543
env = CartPole()
env.reset(seed=SEED)
torch.manual_seed(SEED)
SavedAction = namedtuple("SavedAction", ["log_prob", "value"])


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.action_head = nn.Linear(128, 2)
        self.value_head = nn.Linear(128, 1)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        return F.softmax(self.action_head(x), dim=-1), self.value_head(x)


model = Policy()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
eps = np.finfo(np.float32).eps.item()


def select_action(state):
    probs, state_value = model(torch.from_numpy(state).float())
    m = Categorical(probs)
    action = m.sample()
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    return action.item()


def finish_episode():
    R = 0
    policy_losses = []
    value_losses = []
    returns = []
    for r in model.rewards[::-1]:
        R = r + GAMMA * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(model.saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del model.rewards[:]
    del model.saved_actions[:]
    return loss.item()


running_reward = 10
for i_episode in range(1, 7):
    state, _ = env.reset()
    ep_reward = 0
    for _ in range(10000):
        state, reward, terminated, truncated, _ = env.step(select_action(state))
        model.rewards.append(reward)
        ep_reward += reward
        if terminated or truncated:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    print(
        f"episode {i_episode} reward {ep_reward:.0f} running {running_reward:.6g} loss {loss:.6g}"
    )
