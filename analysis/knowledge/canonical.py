"""One spelling per PyTorch API: the classes torch.nn re-exports from its implementation modules
(torch.nn.modules.activation.ReLU, torch.nn.modules.ReLU) are read as the torch.nn name the tables use."""
from __future__ import annotations

_MODULES = "torch.nn.modules."


def canonical(qualified: str) -> str:
    """torch.nn.modules.conv.Conv2d -> torch.nn.Conv2d; private names (torch.nn.modules.conv._ConvNd) and
    modules themselves (torch.nn.modules.conv) stay as they are: torch.nn does not export them."""
    if not qualified.startswith(_MODULES):
        return qualified
    name = qualified.rsplit(".", 1)[1]
    if not name[:1].isupper():
        return qualified
    return f"torch.nn.{name}"
