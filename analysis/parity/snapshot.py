"""The weights the loss curve starts from, kept once.

The float64 reference is never stepped in place before the loss curve (the
train step makes its after-step tensors one at a time), so it still holds
the initial parameters exactly (float32 -> float64 is exact): PyTorch's
parameters are reset from it and MindSpore's from PyTorch's through the
alignment's links, as the transfer filled them. Only the buffers (a train
forward moves running statistics) and MindSpore parameters no link fills
are copied aside. Without a reference, PyTorch's whole state is copied.
"""
from __future__ import annotations

import copy

import torch

import mindspore as ms

from .align import _np_dtype


class InitialState:
    def __init__(self, torch_model, ms_model, alignment, ref=None) -> None:
        self.ref = ref
        if ref is None:
            self.torch_state = copy.deepcopy(torch_model.state_dict())
        else:
            params = {name for name, _ in torch_model.named_parameters(remove_duplicate=False)}
            self.torch_state = {k: v.detach().clone() for k, v in torch_model.state_dict().items() if k not in params}
        self.links = {id(link.ms_param): link for link in alignment.links}  # the last transfer into a cell wins
        self.ms_state = {name: p.asnumpy().copy() for name, p in ms_model.parameters_and_names()
                         if id(p) not in self.links}

    def drop_reference(self, torch_model) -> None:
        """The reference is going away: keep its parameters (in PyTorch's dtypes) first."""
        if self.ref is None:
            return
        ref_params = dict(self.ref.named_parameters(remove_duplicate=False))
        for name, param in torch_model.named_parameters(remove_duplicate=False):
            self.torch_state[name] = ref_params[name].detach().to(param.dtype, copy=True)
        self.ref = None

    def restore(self, torch_model, ms_model) -> None:
        """Both frameworks (and the reference's buffers) back to the initial weights."""
        if self.ref is None:
            torch_model.load_state_dict(self.torch_state)
        else:
            ref_params = dict(self.ref.named_parameters())
            with torch.no_grad():
                for name, param in torch_model.named_parameters():
                    param.copy_(ref_params[name])
            torch_model.load_state_dict(self.torch_state, strict=False)
            self.ref.load_state_dict(self.torch_state, strict=False)  # copied into its float64 buffers
        for name, param in ms_model.parameters_and_names():
            link = self.links.get(id(param))
            if link is not None:
                value = link.tensor.detach().cpu().numpy()
                param.set_data(ms.Tensor(value.reshape(param.shape).astype(_np_dtype(param.dtype))))
            elif name in self.ms_state:
                param.set_data(ms.Tensor(self.ms_state[name]))
