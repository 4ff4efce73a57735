"""Every rule id the converter can emit is one the analyzer's catalogue knows."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from analysis.convert import convert_source
from analysis.convert.core import rules
from analysis.rules import all_rules, get_rule

CONVERT_DIR = Path(rules.__file__).parent
CATALOGUE = {r.id for r in all_rules()}


def test_every_declared_rule_id_is_in_the_catalogue():
    declared = rules.emitted()
    assert len(declared) >= 25
    assert declared - CATALOGUE == set()
    assert get_rule(rules.IMPORTS).scope == "converter"


def test_converter_code_names_rule_ids_only_through_the_rules_module():
    """No module spells an id itself, and every rules.X it uses exists."""
    for path in sorted(CONVERT_DIR.glob("*.py")):
        if path.name == "rules.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not re.search(r"\bMS-[A-Z]", node.value), (path.name, node.value)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "rules":
                assert hasattr(rules, node.attr), (path.name, node.attr)


SOURCE = '''\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Data(Dataset):
    def __getitem__(self, i):
        return torch.ones(2), torch.tensor(1)

    def __len__(self):
        return 4


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding_mode="reflect")
        self.bn = nn.BatchNorm1d(2, momentum=None)
        self.bn2 = nn.BatchNorm1d(2, track_running_stats=flag)
        self.pool = nn.MaxPool2d(kernel_size=k)
        self.seq = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.1))

    def forward(self, x):
        return F.relu(self.seq(x.view(x.size(0), -1))).transpose(0, 1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = Net().to(device)
model.eval()
nn.init.xavier_uniform_(model.seq[0].weight)
nn.init.calculate_gain("relu")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
opt2 = torch.optim.LBFGS(model.parameters())
opt3 = torch.optim.Adam(model.parameters(), betas=betas)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.9)
loader = DataLoader(Data(), batch_size=2, collate_fn=merge)
loader2 = DataLoader(Data(), batch_size=2)
loss_fn = nn.CrossEntropyLoss()
for x, y in loader2:
    opt.zero_grad()
    loss = loss_fn(model(x.cuda()), y)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
with torch.no_grad():
    a = model(x).detach().cpu().numpy()
    b = x.std()
torch.save(model.state_dict(), "m.pt")
model.load_state_dict(torch.load("m.pt"))
torch.frobnicate(x)
y.backward()
'''


def test_emitted_ids_on_a_varied_source_are_catalogued():
    for target in ("classic", "mint"):
        result = convert_source(SOURCE, target=target)
        ids = {c.rule_id for c in result.changes} | {u.rule_id for u in result.unconverted}
        ids |= set(re.findall(r"# MIGRATE\(([A-Z0-9-]+)\)", result.text))
        assert len(ids) >= 15, ids
        assert ids - CATALOGUE == set()
    broken = convert_source("def f(:\n    pass\n")
    assert [u.rule_id for u in broken.unconverted] == ["MS-PARSE-ERROR"] and "MS-PARSE-ERROR" in CATALOGUE
