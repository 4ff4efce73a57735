"""Statement fingerprints (engine, no Django): stable under moved lines and
reformatting, different for different code."""
from __future__ import annotations

import json

from analysis.fingerprint import fingerprint_base, fingerprint_findings
from analysis.scan import analyze_source

BASE = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        return self.drop(x).cuda()


def helper(x):
    return x.cuda()
'''

# Lines inserted above, black-style reformatting, comments, a docstring.
EDITED = '''"""A module docstring."""
import os
import torch
import torch.nn as nn

SEED = 3


class Net(nn.Module):
    """The net."""

    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(
            0.3,   # keep
        )

    def forward(self, x):
        y = x + 1  # a new statement in the body
        return self.drop(x).cuda()


def helper(x):
    return (
        x.cuda()
    )
'''


def _prints(text: str, path: str = "m.py") -> dict[tuple[str, str], list[str]]:
    report = analyze_source(text, path)
    fps = fingerprint_findings(text, path, report.findings)
    out: dict[tuple[str, str], list[str]] = {}
    for finding, fp in zip(report.findings, fps):
        out.setdefault((finding.rule_id, finding.torch_api), []).append(fp)
    return out


def test_moved_and_reformatted_code_keeps_its_fingerprints():
    before, after = _prints(BASE), _prints(EDITED)
    assert before and before == after


def test_same_statement_in_another_definition_differs_and_order_is_irrelevant():
    report = analyze_source(BASE, "m.py")
    cuda = [f for f in report.findings if f.torch_api.endswith(".cuda")]
    assert len(cuda) == 2  # Net.forward and helper: same rule and API, different definitions
    fps = fingerprint_findings(BASE, "m.py", cuda)
    assert fingerprint_base(fps[0]) != fingerprint_base(fps[1])
    assert fingerprint_findings(BASE, "m.py", list(reversed(cuda))) == list(reversed(fps))


def test_a_changed_statement_gets_a_new_fingerprint():
    changed = BASE.replace("nn.Dropout(0.3)", "nn.Dropout(0.5)")
    before, after = _prints(BASE), _prints(changed)
    dropout = [k for k in before if "Dropout" in k[1]]
    assert dropout and all(before[k] != after[k] for k in dropout)
    others = [k for k in before if "Dropout" not in k[1]]
    assert all(before[k] == after[k] for k in others)


def test_identical_statements_get_ordinals():
    text = "import torch\n\n\ndef f(x):\n    x = x.cuda()\n    x = x.cuda()\n    return x\n"
    report = analyze_source(text, "m.py")
    fps = fingerprint_findings(text, "m.py", report.findings)
    assert len(set(fps)) == len(fps) and {fp.rsplit("-", 1)[1] for fp in fps} >= {"0", "1"}


def test_unparseable_files_and_notebooks_still_get_fingerprints():
    broken = "import torch\nprint 'x'\nx = torch.zeros(3)\n"
    report = analyze_source(broken, "b.py")
    assert all(fingerprint_findings(broken, "b.py", report.findings))
    cells = [{"cell_type": "markdown", "source": "# notes"},
             {"cell_type": "code", "source": "import torch\n"},
             {"cell_type": "code", "source": "x = torch.zeros(3).cuda()\n"}]
    nb = json.dumps({"cells": cells, "nbformat": 4})
    moved = json.dumps({"cells": [cells[1], {"cell_type": "code", "source": "y = 1\n"}, cells[2]], "nbformat": 4})
    a = sorted(fingerprint_findings(nb, "n.ipynb", analyze_source(nb, "n.ipynb").findings))
    b = sorted(fingerprint_findings(moved, "n.ipynb", analyze_source(moved, "n.ipynb").findings))
    assert a and a == b
