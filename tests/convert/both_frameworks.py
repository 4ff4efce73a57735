"""Running a PyTorch script and its conversion, each in a folder of its own, and comparing what they
report: the script prints one line `RESULT <json>` of named records (dtype, shape, values)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from analysis.convert import convert_source


# the end of a script whose results are in a dict `out`: each as (dtype, shape, values), complex values as
# (real, imaginary) pairs, NaN as 12345.0, rounded to 4 places (it needs `json` and `numpy as np` imported)
RECORD = '''

def record(v):
    a = v.detach().numpy() if hasattr(v, "detach") else v.asnumpy()
    if a.dtype.kind == "c":
        a = np.stack([a.real, a.imag], -1)
    return [str(a.dtype), list(a.shape), np.nan_to_num(a.astype(np.float64), nan=12345.0).round(4).tolist()]


print("RESULT " + json.dumps({k: record(v) for k, v in out.items()}))
'''


def run_script(folder, text):
    """`text` run as script.py in a new `folder` (MindSpore writes rank_0/ there); its RESULT, parsed."""
    folder.mkdir()
    (folder / "script.py").write_text(text)
    proc = subprocess.run([sys.executable, "script.py"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(l for l in proc.stdout.splitlines() if l.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def run_both(tmp_path, source):
    """(PyTorch's records, the converted script's records), with the same names on both sides."""
    torch_out = run_script(tmp_path / "torch", source)
    ms_out = run_script(tmp_path / "ms", convert_source(source).text)
    assert set(ms_out) == set(torch_out)
    return torch_out, ms_out


def assert_records_match(torch_out, ms_out, tolerance=lambda key, dtype: (1e-4, 1e-5)):
    """Each record: the same dtype and shape, and values within tolerance(key, dtype) = (rtol, atol), or
    equal where it says None (bit patterns, strings)."""
    for key, (dtype, shape, values) in torch_out.items():
        got_dtype, got_shape, got = ms_out[key]
        assert (got_dtype, got_shape) == (dtype, shape), key
        if tolerance(key, dtype) is None:
            assert got == values, key
            continue
        rtol, atol = tolerance(key, dtype)
        np.testing.assert_allclose(np.array(got, dtype=np.float64), np.array(values, dtype=np.float64),
                                   rtol=rtol, atol=atol, err_msg=key)
