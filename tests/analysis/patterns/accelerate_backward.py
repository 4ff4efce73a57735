import torch
import torch.nn as nn
from accelerate import Accelerator

accelerator = Accelerator()
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = accelerator.prepare(model, optimizer)
loss = model(torch.ones(2, 3)).sum()
accelerator.backward(loss)  # 1 expect: none | same
