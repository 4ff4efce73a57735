import torch
import torch.nn as nn

a = torch.ones(2, 3)
z = torch.cat([a, a], dim=0)  # 1 expect: MS-API-MAPPED@converted | has ops.cat
p = torch.log(torch.softmax(a, dim=-1))  # 2 expect: MS-API-MAPPED=torch.log@converted, MS-API-MAPPED=torch.softmax@converted | has ops.log
drop = nn.Dropout(p=0.2)  # 3 expect: MS-API-MAPPED=torch.nn.Dropout@converted | has nn.Dropout(p=0.2)
conv = nn.Conv2d(3, 8, 3, padding=1)  # 4 expect: MS-API-MAPPED=torch.nn.Conv2d@converted, MS-CONV-BIAS@converted, MS-CONV-PADMODE@converted | has pad_mode="pad"
torch.manual_seed(0)  # 5 expect: MS-API-MAPPED=torch.manual_seed@converted, MS-SEED@review | has set_seed(0)
