# api: torch.empty, torch.empty_like, torch.randint, torch.randperm
# compare: e, f, f_is_int64, like_shape, like_f64, r_shape, r_in_range, r_int64, r2_in_range, r3_int32, fresh, perm_ok, perm_int64, perm_fresh
# empty's values are unspecified: they are compared after being written; random draws by shape, dtype and range
import numpy as np
import torch

e = torch.empty(2, 3)
e[:] = 1.5
f = torch.empty((4,), dtype=torch.int64)
f[:] = 3
f_is_int64 = f.dtype == torch.int64
x = torch.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
like_shape = list(torch.empty_like(x).shape)
like_f64 = torch.empty_like(x, dtype=torch.float64).dtype == torch.float64
r = torch.randint(10, (200,))
r_shape = list(r.shape)
r_in_range = bool(((r >= 0) & (r < 10)).all())
r_int64 = r.dtype == torch.int64
r2 = torch.randint(3, 7, (4, 5))
r2_in_range = bool(((r2 >= 3) & (r2 < 7)).all()) and list(r2.shape) == [4, 5]
r3_int32 = torch.randint(high=5, size=(50,), dtype=torch.int32).dtype == torch.int32
fresh = bool((torch.randint(0, 1000, (50,)) != torch.randint(0, 1000, (50,))).any())
perm = torch.randperm(10)
perm_ok = sorted(perm.tolist()) == list(range(10))
perm_int64 = perm.dtype == torch.int64
perm_fresh = bool((torch.randperm(50) != torch.randperm(50)).any())
