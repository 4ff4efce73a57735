"""torch.nn.init functions used as values: a dict of initialisers picked by name, one passed as an
argument, called later on a weight (`init = kernel_init_fn[name]; init(conv.weight, gain=g)`). A call
written out (`nn.init.xavier_uniform_(w, gain=g)`) the converter rewrites in place (modules/state.py:
w.set_data(initializer(XavierUniform(gain=g), w.shape, w.dtype).init_data())); a reference becomes the
function below of the same name, which takes PyTorch's parameters (names, order, defaults; not
`generator`, so passing one raises TypeError rather than drawing differently) and makes that same fill:
the same MindSpore initializer with the same parameters (state.INITIALIZERS, a test holds both to it),
written into the tensor in place and returned, as PyTorch's are. The same rules as helper_source.py:
copied as text, never imported by the converter.
"""
import mindspore


def initializer_fill(tensor, init):
    """Writes init's values (a mindspore.common.initializer object), drawn now, into tensor."""
    return tensor_write(tensor, mindspore.common.initializer.initializer(init, tensor.shape, tensor.dtype).init_data())


def tensor_write(tensor, values):
    """values written into tensor in place, tensor returned: a Parameter through set_data, a plain
    tensor through assign_value (set_data is a Parameter's only)."""
    if isinstance(tensor, mindspore.Parameter):
        tensor.set_data(values)
    else:
        tensor.assign_value(values)
    return tensor


def normal_(tensor, mean=0.0, std=1.0):
    return initializer_fill(tensor, mindspore.common.initializer.Normal(mean=mean, sigma=std))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    return initializer_fill(tensor, mindspore.common.initializer.TruncatedNormal(mean=mean, sigma=std, a=a, b=b))


def constant_(tensor, val):
    return initializer_fill(tensor, mindspore.common.initializer.Constant(value=val))


def zeros_(tensor):
    return initializer_fill(tensor, mindspore.common.initializer.Zero())


def ones_(tensor):
    return initializer_fill(tensor, mindspore.common.initializer.One())


def eye_(tensor):
    return initializer_fill(tensor, mindspore.common.initializer.Identity())


def xavier_uniform_(tensor, gain=1.0):
    return initializer_fill(tensor, mindspore.common.initializer.XavierUniform(gain=gain))


def xavier_normal_(tensor, gain=1.0):
    return initializer_fill(tensor, mindspore.common.initializer.XavierNormal(gain=gain))


def kaiming_uniform_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    return initializer_fill(tensor, mindspore.common.initializer.HeUniform(negative_slope=a, mode=mode,
                                                                           nonlinearity=nonlinearity))


def kaiming_normal_(tensor, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    return initializer_fill(tensor, mindspore.common.initializer.HeNormal(negative_slope=a, mode=mode,
                                                                          nonlinearity=nonlinearity))


def orthogonal_(tensor, gain=1):
    return initializer_fill(tensor, mindspore.common.initializer.Orthogonal(gain=gain))


def uniform_(tensor, a=0.0, b=1.0):
    """MindSpore's Uniform is symmetric: U[-b, b] as it is, any other [a, b] a draw of U[-1, 1]
    shifted and scaled (the rewrite of a call does the same)."""
    uniform = mindspore.common.initializer.Uniform
    if a == -b:
        return initializer_fill(tensor, uniform(scale=b))
    draw = mindspore.common.initializer.initializer(uniform(scale=1.0), tensor.shape, tensor.dtype).init_data()
    return tensor_write(tensor, ((draw + 1) / 2 * (b - a) + a).astype(tensor.dtype))


def calculate_gain(nonlinearity, param=None):
    """torch.nn.init.calculate_gain: the gain PyTorch recommends for a nonlinearity (plain arithmetic;
    MindSpore keeps its own private)."""
    import math

    linear = ['linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d']
    if nonlinearity in linear or nonlinearity == 'sigmoid':
        return 1
    if nonlinearity == 'tanh':
        return 5.0 / 3
    if nonlinearity == 'relu':
        return math.sqrt(2.0)
    if nonlinearity == 'leaky_relu':
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == 'selu':
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")
