"""Train the MLP on a synthetic, linearly separable problem."""
import torch
import torch.nn as nn
from torch.optim import SGD
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset

from models import MLP

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class SyntheticDataset(Dataset):
    """Points whose class is the index of their largest coordinate block."""

    def __init__(self, size=256, in_features=20, num_classes=3):
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(size, in_features, generator=generator)
        self.y = self.x[:, :num_classes].argmax(dim=1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index], self.y[index]


def main(steps=20):
    torch.manual_seed(0)
    model = MLP().to(device)
    loader = DataLoader(SyntheticDataset(), batch_size=32, shuffle=True, drop_last=True)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=10, gamma=0.5)

    model.train()
    step = 0
    while step < steps:
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            print(f"step {step} loss {loss.item():.4f}")
            step += 1
            if step >= steps:
                break

    torch.save(model.state_dict(), "mlp.pth")


if __name__ == "__main__":
    main()
