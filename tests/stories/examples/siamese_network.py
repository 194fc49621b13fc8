"""pytorch/examples ``siamese_network/main.py`` in small: the same network (a ResNet-18
whose first convolution reads one channel and whose classifier is removed, the two
images' features concatenated into linear layers and a sigmoid; Xavier-initialised
linear layers), its pair dataset (same-class pairs at even indices, different-class
pairs at odd ones, drawn with ``random``), ``BCELoss``, Adadelta with StepLR, and its
train and test loops, on random images. The ResNet-18 is written here as torchvision
builds it (module order, initialisation), since torch's run has no torchvision."""

import importlib
import os
import random

import numpy as np

torch = importlib.import_module(os.environ.get("TORCHLIKE", "torch"))
nn = torch.nn
data = importlib.import_module(torch.__name__ + ".utils.data")
TRAIN_STEPS = 1


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        out = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))
        out += x if self.downsample is None else self.downsample(x)
        return self.relu(out)


class ResNet18(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(64, 1)
        self.layer2 = self._make_layer(128, 2)
        self.layer3 = self._make_layer(256, 2)
        self.layer4 = self._make_layer(512, 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, planes, stride):
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes)
            )
        first = BasicBlock(self.inplanes, planes, stride, downsample)
        self.inplanes = planes
        return nn.Sequential(first, BasicBlock(planes, planes))


class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.resnet = ResNet18()
        self.resnet.conv1 = nn.Conv2d(
            1, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False
        )
        self.fc_in_features = self.resnet.fc.in_features
        self.resnet = nn.Sequential(*(list(self.resnet.children())[:-1]))
        self.fc = nn.Sequential(
            nn.Linear(self.fc_in_features * 2, 256),
            nn.ReLU(inplace=True),
            nn.Linear(256, 1),
        )
        self.sigmoid = nn.Sigmoid()
        self.resnet.apply(self.init_weights)
        self.fc.apply(self.init_weights)

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            m.bias.data.fill_(0.01)

    def forward_once(self, x):
        output = self.resnet(x)
        return output.view(output.size()[0], -1)

    def forward(self, input1, input2):
        output = torch.cat((self.forward_once(input1), self.forward_once(input2)), 1)
        return self.sigmoid(self.fc(output))


class Pairs(data.Dataset):
    """Pairs of images, of one class at even indices and of two classes at odd ones."""

    def __init__(self, images, targets):
        self.data = images.unsqueeze(1).clone()
        labels = np.array(targets.clone())
        self.grouped_examples = {i: np.where(labels == i)[0] for i in range(10)}

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        selected_class = random.randint(0, 9)
        group = self.grouped_examples[selected_class]
        random_index_1 = random.randint(0, group.shape[0] - 1)
        image_1 = self.data[group[random_index_1]].clone().float()
        if index % 2 == 0:
            random_index_2 = random.randint(0, group.shape[0] - 1)
            while random_index_2 == random_index_1:
                random_index_2 = random.randint(0, group.shape[0] - 1)
            image_2 = self.data[group[random_index_2]].clone().float()
            target = torch.tensor(1, dtype=torch.float)
        else:
            other_class = random.randint(0, 9)
            while other_class == selected_class:
                other_class = random.randint(0, 9)
            other = self.grouped_examples[other_class]
            image_2 = self.data[other[random.randint(0, other.shape[0] - 1)]].clone().float()
            target = torch.tensor(0, dtype=torch.float)
        return image_1, image_2, target


def train(model, loader, optimizer, epoch):
    model.train()
    criterion = nn.BCELoss()
    for batch_idx, (images_1, images_2, targets) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(images_1, images_2).squeeze(), targets)
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} batch {batch_idx} loss {loss.item():.6g}")
        if batch_idx + 1 == TRAIN_STEPS:
            break  # as the example's --dry-run stops after its first log line


def test(model, loader):
    model.eval()
    test_loss = 0
    correct = 0
    criterion = nn.BCELoss()
    with torch.no_grad():
        for images_1, images_2, targets in loader:
            outputs = model(images_1, images_2).squeeze()
            test_loss += criterion(outputs, targets).sum().item()
            pred = torch.where(outputs > 0.5, 1, 0)
            correct += pred.eq(targets.view_as(pred)).sum().item()
    print(f"test loss {test_loss / len(loader.dataset):.6g} correct {correct}")


random.seed(0)
torch.manual_seed(1)
images = torch.randint(0, 256, (40, 28, 28), dtype=torch.uint8)
targets = torch.arange(40) % 10
train_loader = data.DataLoader(Pairs(images[:20], targets[:20]), batch_size=4)
test_loader = data.DataLoader(Pairs(images[20:], targets[20:]), batch_size=20)
model = SiameseNetwork()
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
train(model, train_loader, optimizer, 1)
test(model, test_loader)
scheduler.step()
