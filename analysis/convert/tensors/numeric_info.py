"""torch.finfo / torch.iinfo -> numpy.finfo / numpy.iinfo: MindSpore has no type-info objects, and
numpy's carry the same constants (eps, max, min, tiny, smallest_normal, resolution, bits) for every
dtype both frameworks share; a helper (TypeInfo) gives them as Python numbers, as PyTorch does. A dtype written out becomes numpy's
own (torch.float16 -> numpy.float16); any other expression is a MindSpore dtype at run time, turned
into numpy's by mindspore.dtype_to_nptype. bfloat16 has no numpy counterpart: marked."""
from __future__ import annotations

import libcst as cst

from ..core import rules
from ..core.names import resolve
from ..apis.stated_dtypes import TORCH_DTYPES
from ..support import helpers

# torch dtype -> numpy type name, for the literal spellings (numpy has finfo/iinfo for these; not bool, complex)
NUMPY_TYPES = {k: v for k, v in TORCH_DTYPES.items() if v != "bool" and not v.startswith("complex")}
DEFAULT = {"finfo": "float32"}  # torch.finfo() is the default float dtype's (float32 unless the file changes it)


def info(ctx, original: cst.Call, updated: cst.Call, qualified: str, entry):
    kind = qualified.rsplit(".", 1)[1]
    args = [a for a in updated.args if a.keyword is None or a.keyword.value == "type"]
    if len(updated.args) > 1 or len(args) != len(updated.args):
        ctx.mark(original, rules.API_UNMAPPED, qualified, f"write numpy.{kind}(<numpy dtype>)")
        return updated
    if not args:
        if kind not in DEFAULT or ctx.default_dtype_set:
            ctx.mark(original, rules.API_UNMAPPED, qualified, f"write numpy.{kind}(<numpy dtype>)")
            return updated
        dtype_text = f"{ctx.ms('numpy.' + DEFAULT[kind])}"
    else:
        literal = resolve(original.args[0].value, ctx.aliases) or ""
        name = literal[len("torch."):] if literal.startswith("torch.") else None
        if name == "bfloat16" or (name is not None and name not in NUMPY_TYPES):
            ctx.mark(original, rules.API_UNMAPPED, qualified,
                     f"{literal} has no numpy {kind}: write its constants (bfloat16: eps 2**-7, max 3.3895e38)")
            return updated.with_changes(args=original.args)  # the torch dtype stays with the torch call
        dtype_text = ctx.ms("numpy." + NUMPY_TYPES[name]) if name else \
            f"{ctx.ms('mindspore.dtype_to_nptype')}({cst.Module([]).code_for_node(args[0].value)})"
    ctx.change(original, rules.API_RENAME, qualified, f"numpy.{kind}",
               f"{qualified} -> numpy.{kind} through TypeInfo (the same constants, as Python numbers)")
    return cst.parse_expression(f"{helpers.use(ctx, 'TypeInfo')}({ctx.ms('numpy.' + kind)}({dtype_text}))")


HANDLERS = {"torch.finfo": info, "torch.iinfo": info}
