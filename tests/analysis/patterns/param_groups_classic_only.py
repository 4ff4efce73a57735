import torch
import torch.nn as nn

net = nn.Linear(2, 2)
sparse = torch.optim.SparseAdam(net.parameters(), lr=0.1)  # 1 expect: MS-OPTIM-RUNTIME-CHANGE=torch.optim.SparseAdam@review, MS-OPTIM-LR, MS-OPTIM-PARAMS, MS-CELL-API | marked
for group in sparse.param_groups:  # 2 expect: MS-OPTIM-RUNTIME-CHANGE | same
    group["lr"] = 0.01
