"""A converted file with a convolution caps oneDNN's instructions at AVX2 where it loads, on CPU
(apis/cpu_convolutions.py, support's gemm_cpu_convolutions): with AVX-512, MindSpore 2.10's oneDNN runs a
convolution on NCHW data through its reference code (`jit_uni_ncsp:conv+ref:any`), 20-60x slower than
the GEMM kernel it takes at AVX2. The converted network runs in its own process (oneDNN reads the cap
once): the same loss and gradients as PyTorch's, no reference kernel, and no slower than without it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import torch

from analysis.convert import convert_source

NET = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 32, kernel_size=5, padding=2)

    def forward(self, x):
        return F.relu(self.conv(x))
'''

# runs the converted text (its load-time call included), then the compiled loss and gradients of the
# layer with the given weights; ONEDNN_VERBOSE lists the kernels oneDNN ran
RUN = '''
import json, sys, time
import numpy as np
import mindspore
mindspore.set_context(runtime_num_threads=1)
from net import Net  # the converted text: its load-time call runs on import
data = np.load(sys.argv[2])
net = Net()
net.conv.weight.set_data(mindspore.Tensor(data["w"]))
net.conv.bias.set_data(mindspore.Tensor(data["b"]))
x = mindspore.Tensor(data["x"])
def loss_of(x):
    return (net(x) ** 2).mean()
step = mindspore.jit(mindspore.value_and_grad(loss_of, 0, net.trainable_params()))
for _ in range(2):
    loss, (dx, (dw, db)) = step(x)
started = time.process_time()
for _ in range(3):
    loss, (dx, (dw, db)) = step(x)
seconds = (time.process_time() - started) / 3
np.savez(sys.argv[3], loss=loss.asnumpy(), dx=dx.asnumpy(), dw=dw.asnumpy(), db=db.asnumpy())
print("RESULT " + json.dumps(seconds))
'''


def _run(tmp_path, text: str, data, isa: str | None) -> tuple[float, set[str], dict]:
    (tmp_path / "net.py").write_text(text)
    (tmp_path / "run.py").write_text(RUN)  # a file: MindSpore compiles only functions it can read the source of
    out = tmp_path / f"out-{isa}.npz"
    env = {k: v for k, v in os.environ.items() if k not in ("ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")}
    env.update({"GLOG_v": "3", "ONEDNN_VERBOSE": "1"})
    if isa is not None:  # a cap the user set: the helper leaves it
        env["ONEDNN_MAX_CPU_ISA"] = isa
    done = subprocess.run([sys.executable, "run.py", "net.py", str(data), str(out)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    result = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert result, done.stderr[-3000:]
    kernels = {line.split(",")[6] for line in done.stdout.splitlines()
               if line.startswith("onednn_verbose") and ",exec,cpu,convolution," in line}
    return json.loads(result[0][7:]), kernels, dict(np.load(out))


def test_a_converted_convolution_runs_onednn_gemm_kernel_with_pytorch_values(tmp_path):
    text = convert_source(NET).text
    lines = text.splitlines()
    call = lines.index("gemm_cpu_convolutions()")
    assert call < min(i for i, line in enumerate(lines) if line.startswith("class Net"))

    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 16, 14, 14)).astype(np.float32)
    w = (rng.standard_normal((32, 16, 5, 5)) * 0.05).astype(np.float32)
    b = (rng.standard_normal(32) * 0.1).astype(np.float32)
    data = tmp_path / "data.npz"
    np.savez(data, x=x, w=w, b=b)

    capped, capped_kernels, ours = _run(tmp_path, text, data, None)
    free, free_kernels, theirs_free = _run(tmp_path, text, data, "ALL")  # oneDNN at the CPU's full ISA

    layer = torch.nn.Conv2d(16, 32, 5, padding=2)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(w))
        layer.bias.copy_(torch.from_numpy(b))
    xt = torch.from_numpy(x).requires_grad_(True)
    loss = (torch.relu(layer(xt)) ** 2).mean()
    loss.backward()
    expected = {"loss": loss.detach().numpy(), "dx": xt.grad.numpy(), "dw": layer.weight.grad.numpy(),
                "db": layer.bias.grad.numpy()}
    for name, value in expected.items():
        np.testing.assert_allclose(ours[name], value, rtol=1e-4, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(theirs_free[name], value, rtol=1e-4, atol=1e-6, err_msg=name)

    assert capped_kernels and not any("ref" in k for k in capped_kernels), capped_kernels
    if any("ref" in k for k in free_kernels):  # an AVX-512 CPU: measured 274 ms against 11 ms (AMD EPYC)
        assert capped < 0.3 * free, (capped, free, free_kernels)
    else:  # no AVX-512: the cap changes nothing
        assert capped_kernels == free_kernels
