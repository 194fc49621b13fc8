"""pytorch/examples ``reinforcement_learning/reinforce.py`` in small: the same policy
(linear, dropout, ReLU, linear, softmax), REINFORCE with normalised discounted returns
(a ``deque`` made a tensor), ``Categorical`` sampling, Adam, on a stand-in cart-pole
(``cartpole.py``); prints each episode's length and loss."""

import importlib
import os
import sys
from collections import deque

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


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.dropout(self.affine1(x)))
        return F.softmax(self.affine2(x), dim=1)


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    m = Categorical(policy(state))
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    returns = deque()
    for r in policy.rewards[::-1]:
        R = r + GAMMA * R
        returns.appendleft(R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = [-log_prob * R for log_prob, R in zip(policy.saved_log_probs, returns)]
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


running_reward = 10
for i_episode in range(1, 7):
    state, _ = env.reset()
    ep_reward = 0
    for _ in range(10000):
        state, reward, terminated, truncated, _ = env.step(select_action(state))
        policy.rewards.append(reward)
        ep_reward += reward
        if terminated or truncated:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    print(
        f"episode {i_episode} reward {ep_reward:.0f} running {running_reward:.6g} loss {loss:.6g}"
    )
