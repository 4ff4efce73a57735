"""MindSpore definitions for torch calls in argument forms their MindSpore namesake lacks (keyword and
edge forms seen in real code: torch.vander's increasing=). Same rules as helper_source.py: copied as
it stands, MindSpore reached only through `mindspore.` and `ops.`."""
import mindspore
from mindspore import ops


def vander(x, N=None, increasing=False):
    """torch.vander: the powers of x, highest first (increasing: lowest first), N columns (x's length by
    default). MindSpore's vander has no increasing= and refuses N=0 or an empty x; PyTorch returns an
    empty matrix there. Integer and boolean x give int64, as in PyTorch."""
    columns = x.shape[0] if N is None else int(N)
    dtype = x.dtype if ops.is_floating_point(x) or ops.is_complex(x) else mindspore.int64
    if columns == 0 or x.shape[0] == 0:
        return ops.zeros((x.shape[0], columns), dtype)
    powers = ops.vander(x, columns)
    return ops.flip(powers, (-1,)) if increasing else powers
