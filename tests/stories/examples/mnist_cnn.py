"""pytorch/examples ``mnist/main.py`` in small: the same CNN (two convolutions, max
pooling, dropout, two linear layers, log-softmax), Adadelta with StepLR, ``nll_loss``, and
its train and test loops, on random 28x28 images; prints every training loss."""

import importlib
import os

torch = importlib.import_module(os.environ.get("TORCHLIKE", "torch"))
nn = torch.nn
F = torch.nn.functional
data = importlib.import_module(torch.__name__ + ".utils.data")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


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
# Pixels as transforms.ToTensor and Normalize((0.1307,), (0.3081,)) give them.
pixels = torch.randint(0, 256, (8, 1, 28, 28), dtype=torch.uint8)
images = (pixels.float().div(255) - 0.1307) / 0.3081
labels = torch.randint(0, 10, (8,))
train_loader = data.DataLoader(data.TensorDataset(images[:4], labels[:4]), batch_size=4)
test_loader = data.DataLoader(data.TensorDataset(images[4:], labels[4:]), batch_size=4)

model = Net()
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 4):
    train(model, train_loader, optimizer, epoch)
    test(model, test_loader)
    scheduler.step()
