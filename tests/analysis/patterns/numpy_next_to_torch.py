import numpy as np
import torch

a = np.zeros((3, 4))
b = a.ravel()  # 1 expect: none | same
c = a.reshape(4, 3)  # 2 expect: none | same
d = a.dot(c)  # 3 expect: none | same
t = torch.ones(3, 4)
u = t.reshape(4, 3)  # 4 expect: MS-API-MAPPED | same
e = np.random.rand(3).reshape(3, 1)  # 5 expect: none | same
