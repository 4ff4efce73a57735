import math
import re

import torch

s = re.sub("a", "b", "abc")  # 1 expect: none | same
r = math.sqrt(4.0) + math.ceil(2.5)  # 2 expect: none | same
pattern = re.compile("x")
m = pattern.sub("y", "xx")  # 3 expect: none | same
t = torch.ones(2).sub(1)  # 4 expect: MS-API-MAPPED=torch.ones, MS-API-MAPPED=torch.Tensor.sub | has subtract
