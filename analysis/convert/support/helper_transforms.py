"""torch.func's function transforms written over MindSpore's, copied into a converted file like the
definitions of helper_source.py (same rules: read as text by helpers.py, never imported by the
converter; tests import it to check each one against PyTorch). They are named func_<transform>: a
file that keeps `from torch.func import grad` for a call left marked must not rebind the others.

mindspore.grad / mindspore.vjp / ops.jacrev / ops.jacfwd compute the same derivatives as torch.func,
but package them differently where these helpers step in:
- a tuple of one position (argnums=(1,)) gives a bare tensor in MindSpore, a tuple of one in PyTorch;
- with has_aux, mindspore.grad returns the auxiliary output wrapped in a tuple;
- a tuple or dict argument (PyTorch differentiates the tensors inside) gets an empty tuple from
  mindspore.grad and mindspore.vjp: refused here with an error instead of a silent ();
- in PyNative mode mindspore.grad also differentiates a tensor the function reads from outside
  when that very object is the argument (grad(lambda y: (y * x).sum())(x) gives 2x, PyTorch x):
  grad and vjp pass copies;
- mindspore.jvp fails on tuple outputs and 0-d inputs, and compiles the function: jvp is built
  on grad.
The definitions also compile inside mindspore.vmap (graph mode): vmap(grad(f)) works.
"""
import mindspore
from mindspore import ops


def check_tensor_arguments(args, positions):
    """Raise where an argument to differentiate is not a tensor (see the module's docstring)."""
    for position in positions:
        if not isinstance(args[position], mindspore.Tensor):
            raise TypeError("the arguments to differentiate must be tensors: MindSpore returns no gradient "
                            "for a tuple, list or dict; pass the tensors it holds as arguments of their own")


def func_positions(argnums):
    """torch.func's argnums as (the positions, MindSpore's grad_position for them)."""
    positions = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    return positions, positions[0] if len(positions) == 1 else positions


def func_grad(func, argnums=0, has_aux=False):
    """torch.func.grad over mindspore.grad: the gradient of func's scalar output with respect to the
    arguments at argnums (an int: one gradient; a tuple: a tuple of them); with has_aux, func returns
    (output, aux) and the result is (gradients, aux)."""
    positions, grad_position = func_positions(argnums)
    gradient = mindspore.grad(func, grad_position=grad_position, has_aux=has_aux)

    def grad_func(*args):
        check_tensor_arguments(args, positions)
        out = gradient(*[arg + 0 if index in positions else arg for index, arg in enumerate(args)])
        grads = out[0] if has_aux else out
        if not isinstance(argnums, int) and len(positions) == 1:
            grads = (grads,)
        if has_aux:
            return grads, out[1][0]
        return grads

    return grad_func


def func_vjp(func, *primals, has_aux=False):
    """torch.func.vjp over mindspore.vjp: (func(*primals), vjp_fn) or, with has_aux, (output, vjp_fn,
    aux); vjp_fn(cotangents) returns a tuple with one gradient per primal. An output dict (which
    mindspore.vjp cannot take cotangents for) goes through as the tuple of its values."""
    check_tensor_arguments(primals, range(len(primals)))
    keys = []

    def flat_func(*args):
        out = func(*args)
        value = out[0] if has_aux else out
        if isinstance(value, dict):
            keys[:] = list(value)
            value = tuple(value[key] for key in keys)
        return (value, out[1]) if has_aux else value

    result = mindspore.vjp(flat_func, *[primal + 0 for primal in primals], has_aux=has_aux)
    if not keys:
        return result
    vjp_fn = result[1]
    return (dict(zip(keys, result[0])), lambda cotangents: vjp_fn(tuple(cotangents[key] for key in keys)),
            *result[2:])


def func_jacobian(transform, func, argnums, has_aux):
    """ops.jacrev or ops.jacfwd packaged as torch.func's: the Jacobian of func with respect to the
    arguments at argnums (output shape + input shape), a tuple of one for a tuple of one position;
    with has_aux, (jacobian, aux)."""
    positions, grad_position = func_positions(argnums)
    jacobian = transform(func, grad_position=grad_position, has_aux=has_aux)

    def jacobian_func(*args):
        check_tensor_arguments(args, positions)
        out = jacobian(*args)
        if isinstance(argnums, int) or len(positions) > 1:
            return out
        return ((out[0],), out[1]) if has_aux else (out,)

    return jacobian_func


def func_jacrev(func, argnums=0, has_aux=False):
    """torch.func.jacrev over ops.jacrev (func_jacobian)."""
    return func_jacobian(ops.jacrev, func, argnums, has_aux)


def func_jacfwd(func, argnums=0, has_aux=False):
    """torch.func.jacfwd over ops.jacfwd (forward mode; same results as jacrev)."""
    return func_jacobian(ops.jacfwd, func, argnums, has_aux)


def func_hessian(func, argnums=0):
    """torch.func.hessian: jacfwd(jacrev(func, argnums), argnums), as PyTorch defines it (for a
    tuple of one position, the nested tuple PyTorch returns is built around the int case)."""
    if isinstance(argnums, int) or len(argnums) > 1:
        return func_jacfwd(func_jacrev(func, argnums), argnums)
    single = func_jacfwd(func_jacrev(func, argnums[0]), argnums[0])
    return lambda *args: ((single(*args),),)


def func_jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """torch.func.jvp: (func(*primals), J @ tangents), or with has_aux (output, J @ tangents, aux).
    Each element of J @ tangents is the gradient of one output element dotted with the tangents: one
    reverse pass of mindspore.grad per output element, exact but slow for large outputs (mindspore.jvp
    fails on tuple outputs and 0-d inputs; `strict` only makes PyTorch raise earlier)."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ValueError("jvp: primals and tangents must have the same length")
    check_tensor_arguments(primals, range(len(primals)))
    check_tensor_arguments(tangents, range(len(tangents)))
    out = func(*primals)
    value = out[0] if has_aux else out
    several = isinstance(value, (tuple, list))
    positions = tuple(range(1, len(primals) + 1))
    products = []
    for which, output in enumerate(value if several else (value,)):
        def element(index, *args, which=which):
            result = func(*args)
            result = result[0] if has_aux else result
            return (result[which] if several else result).reshape(-1)[index]

        entries = []
        for index in range(output.size):
            rows = func_grad(element, positions)(index, *primals)
            entries.append(sum((row * tangent).sum() for row, tangent in zip(rows, tangents)))
        products.append(ops.stack(entries).reshape(output.shape) if entries else ops.zeros_like(output))
    products = type(value)(products) if several else products[0]
    return (value, products, out[1]) if has_aux else (value, products)
