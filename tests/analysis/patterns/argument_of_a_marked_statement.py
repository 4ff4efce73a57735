import torch

with torch.profiler.profile(  # 1 expect: MS-API-UNMAPPED=torch.profiler.profile@manual | marked
    activities=[torch.profiler.ProfilerActivity.CPU],  # 2 expect: none | same
) as prof:
    x = torch.ones(2)
