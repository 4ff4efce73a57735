"""A GRU encoder-decoder learning to reverse token sequences, with teacher forcing (bench script)."""
import torch
import torch.nn as nn

torch.manual_seed(0)
vocab, hidden, length, batch = 20, 64, 8, 16
sos = 0


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, src):
        _, h = self.gru(self.embedding(src))
        return h


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, token, h):
        output, h = self.gru(self.embedding(token), h)
        return self.out(output.squeeze(1)), h


encoder, decoder = Encoder(), Decoder()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=0.005)

for step in range(300):
    src = torch.randint(1, vocab, (batch, length))
    tgt = src.flip(1)
    h = encoder(src)
    token = torch.full((batch, 1), sos, dtype=torch.long)
    loss = 0
    for t in range(length):
        logits, h = decoder(token, h)
        loss = loss + criterion(logits, tgt[:, t])
        token = tgt[:, t].unsqueeze(1)
    loss = loss / length
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(step, loss.item())
