"""core/variables.VariableNames: the names code reads as variables (not an attribute's name, not a keyword's),
which the training-step split (steps.read_counts) and the host-draw check (host_draws) both build on, and
target_names, the names a store target binds."""
from __future__ import annotations

from collections import Counter

import libcst as cst

from analysis.convert.apis.host_draws import iterated_for_indices
from analysis.convert.core.variables import VariableNames, target_names
from analysis.convert.training.steps import read_counts


def _names(expression: str) -> list[str]:
    seen = []

    class Names(VariableNames):
        def visit_Name(self, node: cst.Name) -> None:
            seen.append(node.value)

    cst.parse_expression(expression).visit(Names())
    return seen


def test_attribute_and_keyword_names_are_not_variables():
    assert _names("f(x.shape, dim=y, out=z.t)[k].mean") == ["f", "x", "y", "z", "k"]


def test_a_training_step_reads_receivers_and_keyword_values_not_their_names():
    stmt = cst.parse_statement("loss = crit(model(x).logits, target=y, weight=x)\n")
    assert read_counts([stmt]) == Counter({"crit": 1, "model": 1, "x": 2, "y": 1})


def _draw_scope(body: str) -> tuple[cst.FunctionDef, cst.Call]:
    function = cst.parse_module(f"def get(data):\n    ix = torch.randint(9, (4,))\n{body}").body[0]
    return function, function.body.body[0].body[0].value


def test_a_draw_read_only_inside_subscripts_is_iterated_for_indices():
    scope, call = _draw_scope("    return [data[i:i + 2] for i in ix]\n")
    assert iterated_for_indices(scope, call) == "ix"


def test_a_draw_whose_elements_are_method_receivers_or_keyword_values_is_not():
    for body in ("    return [data[i.item()] for i in ix]\n", "    return [data.take(index=i) for i in ix]\n"):
        scope, call = _draw_scope(body)
        assert iterated_for_indices(scope, call) is None, body


def test_a_store_target_binds_its_plain_names_only():
    target = cst.parse_statement("a, (b, *c), d[i], e.f = g\n").body[0].targets[0].target
    assert target_names(target) == ["a", "b", "c"]
