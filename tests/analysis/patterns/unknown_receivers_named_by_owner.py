import torch


def checkpoint(model, optimizer):
    state = model.state_dict()  # 1 expect: MS-CHECKPOINT=torch.nn.Module.state_dict@review | has state_dict_of(model)
    opt_state = optimizer.state_dict()  # 2 expect: MS-CHECKPOINT=torch.optim.Optimizer.state_dict@review | has state_dict_of(optimizer)
    torch.save({"model": state, "optimizer": opt_state}, "ckpt.pt")
