import torch
import torch.nn as nn

model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)  # 1 expect: MS-API-MAPPED=torch.optim.Adam@converted, MS-OPTIM-PARAMS, MS-CELL-API | has optim.Adam(model.trainable_params(), lr=0.01)


def update_lr(optimizer, lr):
    for param_group in optimizer.param_groups:  # 2 expect: none | same
        param_group["lr"] = lr  # 3 expect: none | has ops.assign(param_group["lr"], lr)


update_lr(optimizer, 0.001)
