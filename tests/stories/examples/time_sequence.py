"""pytorch/examples ``time_sequence_prediction/train.py`` in small: the same model (two
stacked LSTM cells and a linear layer, unrolled by hand, in float64), LBFGS with a
closure, ``MSELoss``, and its prediction of future values under ``no_grad``, on shorter
sine waves made as ``generate_sine_wave.py`` makes them; prints the loss of every
closure call."""

import importlib
import os

import numpy as np

torch = importlib.import_module(os.environ.get("TORCHLIKE", "torch"))
nn = torch.nn
HIDDEN = 51


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


def sine_waves(count=6, length=16, period=4):
    """Sine waves with random phases, as generate_sine_wave.py draws them."""
    rng = np.random.RandomState(2)
    x = np.arange(length) + rng.randint(-4 * period, 4 * period, count).reshape(count, 1)
    return np.sin(x / 1.0 / period).astype("float64")


np.random.seed(0)
torch.manual_seed(0)
waves = sine_waves()
input = torch.from_numpy(waves[3:, :-1])
target = torch.from_numpy(waves[3:, 1:])
test_input = torch.from_numpy(waves[:3, :-1])
test_target = torch.from_numpy(waves[:3, 1:])
seq = Sequence()
seq.double()
criterion = nn.MSELoss()
optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.8, max_iter=5)
for step in range(2):
    print("step", step)

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        print(f"loss {loss.item():.10g}")
        loss.backward()
        return loss

    optimizer.step(closure)
    with torch.no_grad():
        future = 8
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print(f"test loss {loss.item():.10g} last prediction {pred[0, -1].item():.10g}")
