import numpy as np  # 1 expect: none | same
import torch
from einops.layers.torch import Rearrange  # converted to a MindSpore cell: no finding
from accelerate import Accelerator  # 2 expect: MS-TORCH-BOUND-IMPORT=accelerate@manual | marked
from linformer import Linformer  # 3 expect: MS-TORCH-BOUND-IMPORT=linformer@manual | marked
import vit_pytorch  # 4 expect: MS-TORCH-BOUND-IMPORT=vit_pytorch@manual | marked
from mylib.layers.torch import Block  # 5 expect: MS-TORCH-BOUND-IMPORT=mylib.layers.torch@manual | marked

x = torch.ones(2, 3)
