"""Tensor, Size and container method calls that used to convert silently wrong (seen in torch's own
docstring examples): each case is converted, then run in PyTorch and, converted, in MindSpore
(two worker processes for all cases), and either gives PyTorch's values or carries a marker."""
from __future__ import annotations

import textwrap

import pytest

from analysis.convert import convert_source
from analysis.verify.blocks import prepare
from analysis.verify.compare import difference

# (name, PyTorch block, variables that must hold PyTorch's values after conversion)
SAME = [
    ("size_numel", """
        x = torch.ones(10, 10)
        s = x.size()
        n = s.numel()
        same = x.numel() == s.numel()
        k = x.size().numel()
        d = torch.ones(3, 4, 5).size(dim=1)
        equal = x.size() == torch.Size([10, 10])
        made = torch.Size([2, 3]).numel()
        """, ["s", "n", "same", "k", "d", "equal", "made"]),
    ("round_decimals", "r = torch.tensor([1.2345, 2.5678]).round(decimals=2)\n", ["r"]),  # round_decimals()
    ("fill_diagonal_int", """
        a = torch.zeros(3, 3)
        b = a.fill_diagonal_(5)
        c = torch.zeros(7, 3)
        c.fill_diagonal_(5, wrap=True)
        d = torch.zeros(3, 3, dtype=torch.long)
        d.fill_diagonal_(fill_value=7)
        a2, c2, d2 = a + 0, c + 0, d + 0
        """, ["b", "a2", "c2", "d2"]),
    ("sequential_append_statement", """
        seq = nn.Sequential(nn.Linear(1, 2), nn.Linear(2, 3))
        if True:  # a statement of its own (the harness records top-level expressions' values)
            seq.append(nn.Linear(3, 4))
        n = len(seq)
        """, ["n"]),
    ("embedding_weight_by_name", """
        emb = nn.Embedding(3, 3, padding_idx=0)
        shape = emb.weight.shape
        row = emb.weight[0]
        """, ["shape", "row"]),
    ("init_on_a_plain_tensor", """
        t = torch.empty(3, 5)
        out = nn.init.constant_(t, 0.3)
        after = t + 0
        """, ["out", "after"]),
    ("forward_on_an_instance", """
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = 3.0
            def forward(self, x):
                return x * self.scale
        m = M()
        y = m.forward(torch.ones(1, 2))
        """, ["y"]),
    ("module_walks", """
        net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1)))
        kids = len(list(net.children()))
        mods = len(list(net.modules()))
        names = [n for n, _ in net.named_children()]
        nested = [n for n, _ in net.named_modules()]
        """, ["kids", "mods", "names", "nested"]),
    ("in_place_methods", """
        x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
        o = torch.tensor([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
        a = x.clone()
        a.add_(1)
        a.mul_(o)
        a.clamp_(0, 4)
        b = x.clone()
        same = b.masked_fill_(b < 0, 0.0)
        c = x.clone()
        c.zero_()
        d = x.clone()
        d.fill_(3)
        e = x.clone()
        e.sub_(o, alpha=2)
        e.exp_()
        f = torch.zeros(2, 3).fill_(7)
        snapshot = [a + 0, b + 0, c + 0, d + 0, e + 0]
        """, ["same", "f", "snapshot"]),
    ("std_and_var", """
        x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
        spreads = [x.std(), x.std(dim=0), x.std(0, True), x.std(1, False, True), x.var(unbiased=False),
                   x.var(0, correction=0), x.var(dim=1, keepdim=True), x.std(False), x.var((0, 1))]
        """, ["spreads"]),
    ("named_results", """
        x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
        picked = [x.max(dim=1).values, x.max(dim=1).indices, x.min(0).values, x.sort(dim=1).indices,
                  x.topk(2).values, x.sort(descending=True).values]
        """, ["picked"]),
    ("equal_and_new_tensor", """
        x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
        y = x.clone()
        z = torch.zeros(3, 2)
        verdicts = [x.equal(y), x.equal(z), x.equal(x + 1), torch.ones(2).equal(torch.ones(2)), x.equal(x.clone())]
        made = x.new_tensor([1, 2])
        longs = x.new_tensor([1, 2], dtype=torch.long)
        """, ["verdicts", "made", "longs"]),
    ("module_dtype_casts", """
        net = nn.Linear(2, 2)
        net.float()
        other = nn.Linear(2, 2).to(torch.float32)
        wide = nn.Linear(2, 2)
        wide.double()
        kinds = [str(m.weight.dtype).split(".")[-1].lower() for m in (net, other, wide)]
        """, ["kinds"]),
    ("softmax_methods", """
        x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
        probabilities = [x.softmax(dim=1), x.softmax(0), x.log_softmax(1), x.log_softmax(dim=0)]
        """, ["probabilities"]),
    ("cross_entropy_labels", """
        loss = nn.CrossEntropyLoss()
        logits = torch.tensor([[0.1, 2.0, -1.0], [1.5, 0.2, 0.3]])
        probabilities = torch.tensor([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]])
        classes = torch.tensor([1, 0])
        soft = loss(logits, probabilities).item()
        hard = loss(logits, classes).item()
        """, ["soft", "hard"]),
    ("in-place shape changes of a name rebind it; sliding windows", """
        x = torch.arange(6.).reshape(2, 1, 3)
        x.squeeze_(1)
        x.transpose_(0, 1)
        y = x.unsqueeze_(0)
        z = torch.zeros(2, 1).t_()
        v = torch.arange(10.)
        w = v.unfold(0, 3, 2)
        c = torch.arange(24).reshape(2, 3, 4).unfold(dimension=1, size=2, step=1)
        shapes = [list(x.shape), list(y.shape), list(z.shape)]
        """, ["x", "y", "z", "w", "c", "shapes"]),
]

# (name, PyTorch block, text of the line that must stay as it was under a MIGRATE marker)
MARKED = [
    ("sequential_insert", "seq = nn.Sequential(nn.Linear(1, 2))\nseq.insert(0, nn.Linear(3, 1))\n", "seq.insert(0,"),
    ("sequential_append_value", "seq = nn.Sequential(nn.Linear(1, 2))\ny = seq.append(nn.Linear(2, 3))\n",
     "y = seq.append("),
    ("module_requires_grad", "net = nn.Linear(2, 2)\nnet.requires_grad_(False)\n", "net.requires_grad_(False)"),
    ("in_place_view_change_of_an_attribute", "class A:\n    def f(self):\n        self.x.unsqueeze_(0)\n",
     "self.x.unsqueeze_(0)"),
    ("in_place_view_change_inside_an_expression", "x = torch.ones(2, 3)\nprint(x.unsqueeze_(0))\n",
     "print(x.unsqueeze_(0))"),
    ("in_place_resize", "x = torch.ones(2, 3)\nx.resize_(6)\n", "x.resize_(6)"),
    ("in_place_random_part", "x = torch.ones(2, 3)\nx[0].uniform_(0, 1)\n", "x[0].uniform_(0, 1)"),
    ("dataloader_placeholder", "loader = torch.utils.data.DataLoader(...)\n", "DataLoader(...)"),
    ("dataloader_iterable_dataset", """
        class Stream(torch.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3, 7))
        ds = Stream()
        items = list(torch.utils.data.DataLoader(ds, num_workers=0))
        """, "DataLoader(ds, num_workers=0)"),
]

HEADER = "import torch\nfrom torch import nn\n"


def _source(block: str) -> str:
    return HEADER + textwrap.dedent(block).lstrip("\n")


def _converted(block: str) -> str:
    return convert_source(_source(block), path="example.py").text


@pytest.mark.parametrize("name,block,needle", MARKED, ids=[c[0] for c in MARKED])
def test_left_as_it_was_with_a_marker(name, block, needle):
    lines = _converted(block).splitlines()
    hits = [i for i, line in enumerate(lines) if needle in line]
    assert hits, "\n".join(lines)
    assert lines[hits[0] - 1].lstrip().startswith("# MIGRATE("), "\n".join(lines)


def test_converted_lines_carry_no_marker():
    for name, block, _ in SAME:
        assert "MIGRATE(MS-" not in _converted(block).replace("MIGRATE(MS-TORCH-IMPORT)", ""), name


@pytest.mark.slow
def test_converted_cases_give_pytorchs_values():
    from analysis.verify.workers import run_all

    prepared = [prepare(_source(block)) for _, block, _ in SAME]
    converted = [convert_source(p, path="example.py").text for p in prepared]
    torch_runs = run_all("torch", "chunks", prepared, workers=1, timeout=120)
    ms_runs = run_all("mindspore", "chunks", converted, workers=1, timeout=120)
    problems = []
    for (name, _, names), (tok, tres), (mok, mres) in zip(SAME, torch_runs, ms_runs):
        assert tok, (name, tres)
        expected = {k: v for ok, values in tres.values() if ok == "ok" for k, v in values.items()}
        actual = {k: v for ok, values in (mres.values() if mok else []) if ok == "ok" for k, v in values.items()}
        errors = [v for ok, v in (mres.values() if mok else []) if ok != "ok"]
        for var in names:
            if var not in actual:
                problems.append(f"{name}: {var} not computed ({errors[:1]})")
            elif difference(expected[var], actual[var]):
                problems.append(f"{name}: {var}: {difference(expected[var], actual[var])}")
    assert not problems, "\n".join(problems)


def test_lines_found_through_the_variables_they_name_are_walked_on_the_fast_path(monkeypatch):
    # `seq.insert(...)` names no torch API: the outline must keep its line hot through `seq`
    from analysis.convert import engine

    sources = [_source(block) for _, block, _ in SAME + MARKED]
    fast = [convert_source(s, path="example.py").text for s in sources]
    monkeypatch.setattr(engine, "outline", lambda *args: None)  # every statement walked
    assert fast == [convert_source(s, path="example.py").text for s in sources]


def test_requires_grad_used_as_a_value_is_marked():
    # neural style transfer's `target = content.clone().requires_grad_(True)`: MindSpore's method
    # returns None, so the converted line bound None without a word (torch's own docstring too).
    source = ("import torch\ncontent = torch.zeros(1, 3, 4, 4)\n"
              "target = content.clone().requires_grad_(True)\nw = torch.ones(2)\nw.requires_grad_()\n")
    result = convert_source(source)
    assert [(u.line, u.torch_api) for u in result.unconverted] == [(3, "torch.Tensor.requires_grad_")]
