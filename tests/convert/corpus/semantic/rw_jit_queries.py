# api: torch.jit.is_scripting, torch.jit.is_tracing, torch.get_default_dtype
# compare: out, scripting, default_is_float32
# outside TorchScript both queries answer False, so the converted code takes the same branch
import numpy as np
import torch


def double_unless_scripted(x):
    if torch.jit.is_scripting() or torch.jit.is_tracing():
        return x * 0
    return x * 2


x = torch.tensor(np.linspace(-1, 1, 6, dtype=np.float32))
out = double_unless_scripted(x)
scripting = torch.jit.is_scripting()
default_is_float32 = torch.tensor(1.5).dtype == torch.get_default_dtype()
