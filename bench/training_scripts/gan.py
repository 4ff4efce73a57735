"""A GAN on synthetic 2-D points whose generated batch feeds both losses (bench script)."""
import torch
import torch.nn as nn

torch.manual_seed(0)
latent, batch = 8, 64

G = nn.Sequential(nn.Linear(latent, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
D = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1), nn.Sigmoid())
criterion = nn.BCELoss()
opt_d = torch.optim.Adam(D.parameters(), lr=0.001, betas=(0.5, 0.999))
opt_g = torch.optim.Adam(G.parameters(), lr=0.001, betas=(0.5, 0.999))
ones = torch.ones(batch, 1)
zeros = torch.zeros(batch, 1)

for step in range(400):
    real = torch.randn(batch, 2) * 0.5 + torch.tensor([2.0, -1.0])
    z = torch.randn(batch, latent)
    fake = G(z)

    d_loss = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()

    g_loss = criterion(D(fake), ones)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    if step % 100 == 0:
        print(step, d_loss.item(), g_loss.item())
