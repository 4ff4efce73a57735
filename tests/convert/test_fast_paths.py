"""The speed paths give what the plain ones give: lines equal to libcst's PositionProvider,
and skipping statements / statement-local line search change nothing in the result."""
from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

import analysis.convert.engine as engine
from analysis.convert import convert_source
from analysis.convert.core.codegen import module_code, start_lines
from tests.conftest import SAMPLE_REPO

TRICKY = '''\
# header comment
"""Docstring."""
import torch
import torch.nn as nn; import torch.nn.functional as F
from torch.utils.data import DataLoader


# comment above a decorated class
@some.decorator(
    arg=1,
)

@other
class Net(nn.Module):  # trailing
    """Doc."""

    def __init__(self, n=(
            3)):
        super().__init__()
        self.fc = nn.Linear(
            4,
            2,
            bias=False)  # keep
        self.seq = nn.Sequential(nn.ReLU(), \\
            nn.Dropout(0.1))

    @torch.no_grad()
    def forward(self, x):
        if x.dim() > 2: x = x.view(x.size(0), -1)
        elif x.dim() == 1:
            x = x.unsqueeze(0)
        else:
            pass
        try:
            y = F.relu(self.fc(x))
        except ValueError:
            y = torch.zeros(2)
        finally:
            z = 1
        match z:
            case 1:
                y = y.transpose(0, 1).transpose(0, 1)
            case _:
                pass
        return (self.seq)(y)


device = (torch
          .device)("cpu")
plain = [i for i in range(3)]
loss_fn = nn.CrossEntropyLoss()
loader = DataLoader(list(range(4)), batch_size=2)
for x in loader:
    with torch.no_grad():
        out = loss_fn(torch.ones(2, 3), torch.tensor([0, 1]))
        torch.ones(2, 3, out=out)  # out= has no counterpart: stays, marked
        total = 0  # unchanged, but one level up once the with goes
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
while True:
    for x in loader:
        opt.zero_grad()
        scaled = x * 2  # unchanged, but moved into forward_fn
        loss = loss_fn(net(scaled), x)
        loss.backward()
        nn.utils.clip_grad_value_(net.parameters(), 0.5)
        opt.step()
out.backward(retain_graph=True)
'''


def _every_node(module: cst.Module) -> list[cst.CSTNode]:
    nodes: list[cst.CSTNode] = []

    class _All(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    module.visit(_All())
    return nodes


def test_start_lines_match_position_provider_for_every_node():
    for source in (TRICKY, (SAMPLE_REPO / "train.py").read_text(encoding="utf-8")):
        module = cst.parse_module(source)
        nodes = _every_node(module)
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        lines = start_lines(module, nodes)
        assert {id(n): expected[n].start.line for n in nodes} == lines
        assert module_code(module) == source


def _records(result):
    return ([(c.line, c.rule_id, c.torch_api, c.description) for c in result.changes],
            [(u.line, u.rule_id, u.action) for u in result.unconverted],
            [(r.line, r.class_name, r.attribute) for r in result.layer_map])


def test_outline_paths_change_nothing(monkeypatch):
    # TRICKY.rstrip(): a file without a final line break (libcst drops the last token it generates)
    sources = [TRICKY, TRICKY.rstrip("\n"), *(p.read_text(encoding="utf-8") for p in sorted(SAMPLE_REPO.rglob("*.py")))]
    fast = [convert_source(s, target=t) for s in sources for t in ("classic", "mint")]
    assert any(r.changes for r in fast) and any(r.unconverted for r in fast)
    # unchanged lines copied from the source, also where a rewrite moved them to another depth
    assert "\n    total = 0  # unchanged, but one level up once the with goes\n" in fast[0].text
    # (the training step is hoisted before the outermost loop: forward_fn sits at module level)
    assert "\n    scaled = x * 2  # unchanged, but moved into forward_fn\n" in fast[0].text
    assert fast[2].text.endswith("out.backward(retain_graph=True)") and fast[0].text.endswith("\n")
    monkeypatch.setattr(engine, "outline", lambda *args: None)  # no statement skipping, whole-module lines
    plain = [convert_source(s, target=t) for s in sources for t in ("classic", "mint")]
    for a, b in zip(fast, plain):
        assert a.text == b.text
        assert _records(a) == _records(b)


def test_files_without_torch_are_not_parsed_by_libcst_but_errors_still_reported():
    assert convert_source("x = 1\n").diff == ""
    broken = convert_source("def f(:\n")
    assert broken.parse_error and broken.unconverted[0].rule_id == "MS-PARSE-ERROR"


def test_both_parsers_cut_elif_chains_into_the_same_statements():
    # an elif is a statement of its own for ast and for the transformer's count; were the kinds
    # to differ, the engine would silently fall back to the slow paths for the file
    from analysis.convert.core.imports import gather_aliases
    from analysis.convert.outline import cst_kinds, outline

    source = TRICKY + "if a:\n    b = 1\nelif c:\n    b = 2\nelif d: b = 3\nelse:\n    if e:\n        b = 4\n"
    module = cst.parse_module(source)
    found = outline(source, gather_aliases(module), frozenset(), ())
    assert found is not None and found.kinds == cst_kinds(module)
    assert found.kinds[-8:] == ["If", "Simple"] * 4  # if, elif, elif, and the if inside else
