import torch
import torch.nn.functional as F

x = torch.randn(2, 3, 4)
ids = torch.LongTensor([1, 2])  # 1 expect: MS-API-MAPPED=torch.LongTensor@converted | has mindspore.Tensor
mask = x > 0
x.masked_fill_(mask, 0.0)  # 2 expect: MS-API-MAPPED=torch.Tensor.masked_fill_@converted | has assign_value
x.fill_(1.0)  # 3 expect: MS-API-MAPPED=torch.Tensor.fill_@converted | has assign_value
y = F.layer_norm(x, (4,))  # 4 expect: MS-API-MAPPED=torch.nn.functional.layer_norm@converted | has layer_norm(x
eps = torch.finfo(torch.float32).eps  # 5 expect: MS-API-MAPPED=torch.finfo@converted, MS-API-MAPPED=torch.float32@converted | has finfo
