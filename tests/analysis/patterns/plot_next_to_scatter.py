import matplotlib.pyplot as plt
import torch

x = torch.randn(4, 3)
index = torch.zeros(4, 3, dtype=torch.long)
y = x.scatter(1, index, 2.0)  # 1 expect: MS-API-MAPPED | has scatter(x
plt.scatter([1, 2], [3, 4])  # 2 expect: none | same
fig, axes = plt.subplots(2, 2)
for ax in axes.ravel():  # 3 expect: none | same
    ax.plot([1, 2], [3, 4])
plt.gca().scatter([1], [2])  # 4 expect: none | same
