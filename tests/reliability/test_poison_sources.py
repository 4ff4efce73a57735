"""Sources built to crash or stall a parser become a finding for their file; nothing parses them.

Each poison below segfaults libcst's native parser (the whole process, uncatchable) or takes it
minutes; every test runs the engine in a child process, so a regression shows as a crash of that
child rather than of the test run."""
from __future__ import annotations

import multiprocessing

import pytest

from analysis.scan.guard import MAX_DEPTH, source_problem

N = 10_000
POISONS = {
    "parentheses": "x = " + "(" * N + "1" + ")" * N,
    "brackets": "x = " + "[" * N + "1" + "]" * N,
    "braces": "x = " + "{" * N + "1" + "}" * N,
    "unary minus": "x = " + "-" * N + "1",
    "not": "x = " + "not " * N + "1",
    "lambda": "x = " + "lambda: " * N + "1",
    "and chain": "x = " + " and ".join(["a"] * N),
    "plus chain": "x = " + " + ".join(["a"] * N),
    "attribute chain": "x = a" + ".b" * N,
    "call chain": "x = f" + "()" * N,
    "conditional chain": "x = " + "a if b else " * N + "c",
    "adjacent strings": "x = (" + " ".join(['"a"'] * N) + ")",
    "elif chain": "if a:\n    pass\n" + "elif a:\n    pass\n" * N,
    "unclosed": "x = " + "(" * N,
}


def _in_child(target, *args):
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        return pool.apply_async(target, args).get(timeout=120)


def _analyse(text: str) -> dict:
    from analysis.scan import analyze_source

    return analyze_source(("import torch\n" + text + "\n").encode(), "poison.py").to_dict()


def _convert(text: str) -> tuple[str, list]:
    from analysis.convert import convert_source

    result = convert_source("import torch\n" + text + "\n", path="poison.py")
    return result.parse_error, [u.action for u in result.unconverted]


def _discover(root: str) -> list:
    from pathlib import Path

    from analysis.parity.discover import candidates

    return candidates(Path(root))


@pytest.mark.parametrize("name", POISONS)
def test_the_guard_refuses_each_poison(name):
    problem = source_problem(POISONS[name])
    assert problem is not None and ("nested" in problem[0])


@pytest.mark.parametrize("name", ["parentheses", "unary minus", "lambda", "and chain", "call chain"])
def test_analysis_and_conversion_turn_a_poison_into_a_finding(name):
    report = _in_child(_analyse, POISONS[name])
    assert [f["rule_id"] for f in report["findings"]] == ["MS-PARSE-ERROR"]
    assert "nested more than" in report["findings"][0]["message"] and report["parse_error"]
    parse_error, actions = _in_child(_convert, POISONS[name])
    assert "nested more than" in parse_error and "convert it by hand" in actions[0]


def test_parity_discovery_skips_a_poison_and_finds_the_rest(tmp_path):
    (tmp_path / "poison.py").write_text("import torch\n" + POISONS["unary minus"] + "\n")
    (tmp_path / "net.py").write_text("import torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n")
    found = _in_child(_discover, str(tmp_path))
    assert [c["class"] for c in found] == ["Net"]


def test_real_code_passes_the_guard():
    """Deep but real: a 200-link builder chain (MindSpore's own op registrations look like this)."""
    chain = "info = Reg('Cast') \\\n" + "".join("    .dtype_format(D.U8, D.I32) \\\n" for _ in range(200)) + "    .get()\n"
    assert source_problem(chain) is None
    nested = "x = " + "(" * 150 + "1" + ")" * 150 + "\n"  # CPython's own limit is 200
    assert source_problem(nested) is None and MAX_DEPTH >= 300


def test_nul_bytes_anywhere_are_refused_with_their_line():
    text = "import torch\n" + "x = 1\n" * 5000 + "y = '\x00'\n"
    assert source_problem(text) == ("the file contains NUL bytes, so it is binary data, not Python source", 5002)
