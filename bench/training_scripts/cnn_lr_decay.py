"""The CNN of cnn.py with the residual-network tutorial's learning-rate decay: a function setting each
parameter group's lr, called after every epoch (bench: a step whose lr a loop changes)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
images = torch.randn(320, 1, 28, 28)
labels = torch.randint(0, 10, (320,))
loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.layer1 = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=5, stride=1, padding=2),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.layer2 = nn.Sequential(
            nn.Conv2d(16, 32, kernel_size=5, stride=1, padding=2),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.fc = nn.Linear(7 * 7 * 32, num_classes)

    def forward(self, x):
        out = self.layer1(x)
        out = self.layer2(out)
        out = out.reshape(out.size(0), -1)
        return self.fc(out)


model = ConvNet()
criterion = nn.CrossEntropyLoss()
curr_lr = 0.001
optimizer = torch.optim.Adam(model.parameters(), lr=curr_lr)


def update_lr(optimizer, lr):
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


for epoch in range(5):
    correct = 0
    for i, (x, y) in enumerate(loader):
        outputs = model(x)
        loss = criterion(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += (outputs.argmax(1) == y).sum().item()
        if (i + 1) % 10 == 0:
            print(f"epoch {epoch} step {i + 1} loss {loss.item():.4f}")
    print("accuracy", correct / len(images))
    curr_lr /= 3
    update_lr(optimizer, curr_lr)
