"""Whether an in-place call's receiver is a tensor just made by a call (torch.ones(n, n).triu_(1),
x.clone().clamp_(0, 1), (a @ b).softmax(-1).mul_(2)): nothing else holds it, so the out-of-place form's
value is the whole effect and the call can simply become it. The rule is general: a torch function or
tensor method the mapping tables know, unless it can hand back its input or a view of it (PyTorch's view
operations, conversions that return self when nothing changes) or writes into an out= tensor.
Anything else (a user's function, self.mask_for(x)) may return a tensor someone keeps: marked."""
from __future__ import annotations

import libcst as cst

from .context import ConversionContext
from .names import resolve

# PyTorch's view operations (docs: "Tensor Views") and calls that return their input itself when there is
# nothing to do (x.float() on a float tensor, x.contiguous(), x.to(same)...), by method or function name
ALIASING = frozenset({
    "view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "squeeze", "unsqueeze", "expand",
    "expand_as", "permute", "transpose", "t", "adjoint", "narrow", "select", "diagonal", "as_strided", "detach",
    "unfold", "movedim", "moveaxis", "swapaxes", "swapdims", "split", "split_with_sizes", "tensor_split",
    "chunk", "unbind", "hsplit", "vsplit", "dsplit", "real", "imag", "view_as_real", "view_as_complex", "conj",
    "resolve_conj", "resolve_neg", "contiguous", "to", "type", "type_as", "cpu", "cuda", "float", "double",
    "half", "bfloat16", "int", "long", "short", "char", "byte", "bool", "cfloat", "cdouble", "requires_grad_",
    "as_tensor", "asarray", "from_numpy", "frombuffer", "atleast_1d", "atleast_2d", "atleast_3d",
    "broadcast_to", "broadcast_tensors", "align_as", "align_to", "refine_names", "rename", "coalesce",
    "pin_memory", "share_memory_", "numpy", "set_", "dropout", "dropout1d", "dropout2d", "dropout3d",
    "alpha_dropout", "feature_alpha_dropout",  # the input itself when not training
})

# of those, the ones that return the tensor itself or a view of it, never another tensor it holds
TENSOR_ALIASING = ALIASING - {"numpy", "set_", "share_memory_", "requires_grad_"}


def is_fresh(ctx: ConversionContext, source: cst.BaseExpression) -> bool:
    """source (the PyTorch receiver, before conversion) is a call that returns a new tensor of its own."""
    if not isinstance(source, cst.Call) or any(a.keyword is not None and a.keyword.value in ("out", "inplace")
                                               for a in source.args):
        return False  # writes into a tensor given, or F.relu(x, inplace=True): x itself
    qualified = resolve(source.func, ctx.aliases)
    if qualified is not None and qualified.startswith("torch."):
        name = qualified.rsplit(".", 1)[1]
        known = ctx.classic.get(qualified) is not None or ctx.classic.get(f"torch.Tensor.{name}") is not None
        return known and name not in ALIASING and not name.endswith("_")
    if qualified is None and isinstance(source.func, cst.Attribute):  # a method: x.clone(), (a + b).exp()
        name = source.func.attr.value
        if name in ALIASING:  # x.clone().detach(): a view of a tensor nothing else holds
            return name in TENSOR_ALIASING and is_fresh(ctx, source.func.value)
        return ctx.classic.get(f"torch.Tensor.{name}") is not None and not name.endswith("_")
    return False
