# api: torch.nn.Embedding, torch.softmax, torch.log_softmax, torch.norm
# compare: looked_up, padded, probs, logp, norms
# an embedding with equal tables looks up the same rows; softmax/log_softmax over a named dim
import numpy as np
import torch
import torch.nn as nn

table = fill(nn.Embedding(6, 4, padding_idx=0))
tokens = torch.tensor(np.array([[1, 5, 2], [0, 3, 3]]))
looked_up = table(tokens)
padded = nn.Embedding(num_embeddings=5, embedding_dim=3, padding_idx=2)(torch.tensor(np.array([2, 2])))
probs = torch.softmax(looked_up, dim=-1)
logp = torch.log_softmax(looked_up, -1)
norms = torch.norm(looked_up, dim=2, keepdim=True)
