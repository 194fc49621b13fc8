"""pytorch/examples ``mnist_rnn/main.py`` in small: the same network (an LSTM over the
28 rows of an image, batch norm, 2-D dropout, two linear layers, log-softmax), Adadelta
with StepLR, ``nll_loss``, a shuffling DataLoader, and its train and test loops, on random
images; prints every training loss."""

import importlib
import os
import warnings

torch = importlib.import_module(os.environ.get("TORCHLIKE", "torch"))
nn = torch.nn
F = torch.nn.functional
data = importlib.import_module(torch.__name__ + ".utils.data")

# NOTE: the example applies Dropout2d to (batch, features) inputs, which both libraries
# accept with a deprecation warning.
warnings.simplefilter("ignore", UserWarning)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(64)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        input = input.reshape(-1, 28, 28)
        output, hidden = self.rnn(input)
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = F.relu(self.fc1(output))
        output = self.dropout2(output)
        return F.log_softmax(self.fc2(output), dim=1)


def train(model, loader, optimizer, epoch):
    model.train()
    for batch_idx, (images, target) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.nll_loss(model(images), target)
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} batch {batch_idx} loss {loss.item():.6g}")


def test(model, loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for images, target in loader:
            output = model(images)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    print(f"test loss {test_loss / len(loader.dataset):.6g} correct {correct}")


torch.manual_seed(1)
pixels = torch.randint(0, 256, (24, 1, 28, 28), dtype=torch.uint8)
images = (pixels.float().div(255) - 0.1307) / 0.3081
labels = torch.randint(0, 10, (24,))
train_set = data.TensorDataset(images[:16], labels[:16])
train_loader = data.DataLoader(train_set, batch_size=8, shuffle=True)
test_set = data.TensorDataset(images[16:], labels[16:])
test_loader = data.DataLoader(test_set, batch_size=8, shuffle=True)

model = Net()
optimizer = torch.optim.Adadelta(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 3):
    train(model, train_loader, optimizer, epoch)
    test(model, test_loader)
    scheduler.step()
