import torch
import torch.nn as nn
from transformers import GPT2LMHeadModel

net = nn.Linear(4, 4)
model_hf = GPT2LMHeadModel.from_pretrained("gpt2")
sd = net.state_dict()  # 1 expect: MS-CHECKPOINT@review | has state_dict_of(net)
sd_hf = model_hf.state_dict()  # 2 expect: MS-CHECKPOINT=torch.nn.Module.state_dict@manual | marked
