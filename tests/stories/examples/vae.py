"""pytorch/examples ``vae/main.py`` in small: the same variational autoencoder (784-400-20
encoder with mean and log-variance heads, reparameterisation with ``randn_like``,
20-400-784 decoder with a sigmoid), Adam, the summed binary cross-entropy plus KL loss,
and its train, test and sampling loops, on random images in [0, 1]; prints every
training loss per sample."""

import importlib
import os

torch = importlib.import_module(os.environ.get("TORCHLIKE", "torch"))
nn = torch.nn
F = torch.nn.functional
data = importlib.import_module(torch.__name__ + ".utils.data")


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (images,) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(images)
        loss = loss_function(recon_batch, images, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        print(f"epoch {epoch} batch {batch_idx} loss {loss.item() / len(images):.6g}")
    print(f"epoch {epoch} average loss {train_loss / len(train_loader.dataset):.6g}")


def test(epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for (images,) in test_loader:
            recon_batch, mu, logvar = model(images)
            test_loss += loss_function(recon_batch, images, mu, logvar).item()
    print(f"epoch {epoch} test loss {test_loss / len(test_loader.dataset):.6g}")


torch.manual_seed(1)
images = torch.rand(48, 1, 28, 28)
train_loader = data.DataLoader(data.TensorDataset(images[:32]), batch_size=16, shuffle=True)
test_loader = data.DataLoader(data.TensorDataset(images[32:]), batch_size=16)

model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(1, 3):
    train(epoch)
    test(epoch)
    with torch.no_grad():
        sample = model.decode(torch.randn(64, 20))
        print(f"epoch {epoch} sample mean {sample.mean().item():.6g}")
