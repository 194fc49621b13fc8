"""A plain PyTorch training script: a small MLP fits a noisy sine from a shuffling
DataLoader with Adam. Nothing in it knows about hookgrad.

Run it with PyTorch, or with hookgrad standing in for torch and the gradient inspector
watching the model:

    python examples/train_mlp.py --epochs 5
    hookgrad-inspect --out mlp-report examples/train_mlp.py --epochs 5
"""

import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    x = torch.linspace(-3, 3, 512).unsqueeze(1)
    y = torch.sin(x) + 0.1 * torch.randn(x.shape)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = nn.Sequential(
        nn.Linear(1, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.MSELoss()
    for epoch in range(args.epochs):
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        print(f"epoch {epoch + 1}: loss {total / len(x):.4f}")


if __name__ == "__main__":
    main()
