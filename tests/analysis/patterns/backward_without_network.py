import torch

w = torch.ones(3, requires_grad=True)
loss = (w * 2).sum()
loss.backward()  # 1 expect: MS-TRAIN-LOOP | marked
