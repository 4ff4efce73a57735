import torch

x = torch.randn(2, 3, 4)
y = torch.ones(2, 3, 4, dtype=torch.float64)
b = x.byte()  # 1 expect: none | same
c = x.type_as(y)  # 2 expect: none | same
f = x.flatten(-2)  # 3 expect: none | same
g = torch.linspace(0, 1, 5)  # 4 expect: MS-API-MAPPED=torch.linspace@converted | has ops.linspace(0, 1, 5)
