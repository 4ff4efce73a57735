"""Training steps in a block: each `loss.backward() ... opt.step()` becomes a forward function,
mindspore.value_and_grad over the optimizer's parameters, and opt(grads).

The forward function holds exactly the statements the loss depends on (its backward slice inside the
block, wherever zero_grad() stood): the computation from the inputs to the loss. The block's other
statements stay outside: those that read nothing the forward computes stay before it, those that read
its results (`total += loss.item()`, a score taken from the outputs) go after the gradient call and read
the values the forward returns. A statement that cannot move without changing what it sees (it reads a
name the forward assigns again later) goes into the forward, in order. Names the forward reads before
it assigns them (`x = x.reshape(...)`, `total += ...`) become its parameters, so Python never sees them
as unbound locals. Several backward()/step() pairs in one block (a GAN's two networks) are rewritten one
after the other, each with its own forward function; zero_grad() is dropped (no gradients are stored).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from ..core.names import code
from ..core.variables import VariableNames, target_names

STEP_METHODS = frozenset({"backward", "step", "zero_grad"})


@dataclass(frozen=True)
class StepPlan:
    """Indices, in one block's statements, of one backward()/step() pair and the region before it."""
    loss: str
    opt: str
    lo: int  # first statement of the region the forward is taken from
    back: int
    step: int
    # optimizers whose step() directly follows this one after the same backward() (an encoder's and a
    # decoder's): the gradient is taken over all their parameters and each applies its share
    others: tuple[str, ...] = ()

    @property
    def last(self) -> int:
        """Index of the plan's last step() statement."""
        return self.step + len(self.others)


@dataclass
class Segment:
    """How one plan's region is split: statements before the forward, in it, after the gradient call."""
    before: list[int]
    forward: list[int]
    after: list[int]
    params: list[str]
    returned: list[str]  # the loss first, then the names read outside the forward


def method_receiver(stmt: cst.BaseStatement, method: str, any_args: bool = False) -> str | None:
    """Receiver code when stmt is exactly `<expr>.<method>()` (with any arguments when any_args)."""
    call = expr_call(stmt)
    if call is None or (call.args and not any_args) or not isinstance(call.func, cst.Attribute) \
            or call.func.attr.value != method:
        return None
    return code(call.func.value)


def expr_call(stmt: cst.BaseStatement) -> cst.Call | None:
    """The call when stmt is one call statement."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if type(small) is not cst.Expr or type(small.value) is not cst.Call:
        return None
    return small.value


def is_zero_grad(stmt: cst.BaseStatement) -> bool:
    return method_receiver(stmt, "zero_grad", True) is not None


def plan_steps(body: list[cst.BaseStatement], optimizers: frozenset[str] | set[str] = frozenset()) -> list[StepPlan]:
    """Every backward()/step() pair in body, in order. optimizers: names bound to torch.optim optimizers.
    A backward() whose loss is no plain name, or that no step() follows before the next backward(),
    gets no plan (it stays and is marked)."""
    backs = [i for i, s in enumerate(body) if method_receiver(s, "backward")]
    cleared = {method_receiver(s, "zero_grad", True) for s in body} - {None}
    plans: list[StepPlan] = []
    lo = 0
    for n, back in enumerate(backs):
        end = backs[n + 1] if n + 1 < len(backs) else len(body)
        loss = method_receiver(body[back], "backward") or ""
        steps = {i: method_receiver(body[i], "step") for i in range(back + 1, end)}
        steps = {i: r for i, r in steps.items() if r}
        if not steps or not loss.isidentifier() \
                or not any(loss in assigned_names(body[i]) for i in range(lo, back)) \
                or any(_leaves_block(body[i]) for i in range(lo, back)):
            continue
        # scheduler.step() may come first: the optimizer is a name built from torch.optim, else the
        # receiver of zero_grad(), else the first step() after backward()
        step = next((i for i, r in steps.items() if r in optimizers), None)
        if step is None:
            step = next((i for i, r in steps.items() if r in cleared), min(steps))
        others: list[str] = []
        while steps.get(step + len(others) + 1) in optimizers - {steps[step], *others} and optimizers:
            others.append(steps[step + len(others) + 1])
        plans.append(StepPlan(loss, steps[step], lo, back, step, tuple(others)))
        lo = step + len(others) + 1
    return plans


def _leaves_block(stmt: cst.CSTNode) -> bool:
    """Whether stmt holds a continue/break/return/yield of the code around it (it cannot move into a
    forward function): the step stays as it is, marked."""
    found = False

    class _Flow(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal found
            if isinstance(node, (cst.Continue, cst.Break, cst.Return, cst.Yield, cst.Await)):
                found = True
            # a nested loop owns its continue/break; a nested function its return
            if node is not stmt and isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            if isinstance(node, (cst.For, cst.While)):  # its continue/break are its own
                found = found or any(isinstance(n, (cst.Return, cst.Yield, cst.Await)) for n in _all(node))
                return False
            return not found

    stmt.visit(_Flow())
    return found


def _all(node: cst.CSTNode) -> list[cst.CSTNode]:
    nodes: list[cst.CSTNode] = []

    class _Collect(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            nodes.append(n)
            return not isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    node.visit(_Collect())
    return nodes


def split_region(body: list[cst.BaseStatement], plan: StepPlan, outside_reads: set[str],
                 loop: bool = False, fetches_data: Callable[[cst.BaseStatement], bool] | None = None) -> Segment:
    """Split body[plan.lo:plan.back] (zero_grad() statements left out) around the forward function.
    outside_reads: names read in the enclosing scope outside this region; loop: body is a loop's body
    (a name the forward reads before assigning it is carried to the next iteration); fetches_data:
    whether a statement only fetches data (holders.fetches_data), so that it may stay out of the forward
    even though the loss depends on it."""
    region = [i for i in range(plan.lo, plan.back) if not is_zero_grad(body[i])]
    reads = {i: read_names([body[i]]) for i in region}
    writes = {i: assigned_names(body[i]) for i in region}
    # backward slice of the loss
    needed, in_slice = {plan.loss}, set()
    for i in reversed(region):
        if writes[i] & needed:
            in_slice.add(i)
            needed = (needed - (writes[i] - _aug_targets(body[i]))) | reads[i]
    # data fetching the loss depends on (`x, y = next(it)`) and building a network or a loss stay before
    # the forward, provided something that stays in it reaches the parameters: it starts at the inputs
    if fetches_data is not None:
        fetched, computed = set(), set()
        for i in region:
            if i in in_slice:
                if not reads[i] & computed and fetches_data(body[i]):
                    fetched.add(i)
                else:
                    computed |= writes[i]
        if in_slice - fetched:
            in_slice -= fetched

    def conflict(i: int, j: int) -> bool:  # whether i and j must keep their order
        return bool(writes[i] & (reads[j] | writes[j]) or reads[i] & writes[j])

    # Every other statement runs before the forward if it can move above the earlier statements that
    # run later than it (forward or after), else after the gradient call if the later forward
    # statements do not touch what it touches, else in the forward, in order. Placing one in the
    # forward can forbid an earlier placement: repeat until nothing changes.
    inside = set(in_slice)
    while True:
        before, after = [], []
        for i in region:
            if i in inside:
                continue
            if not any(conflict(i, j) for j in region if j < i and (j in inside or j in after)):
                before.append(i)
            elif not any(conflict(i, j) for j in inside if j > i):
                after.append(i)
            else:
                inside.add(i)
                break
        else:
            break
    forward = sorted(inside)
    forward_writes: set[str] = set().union(*(writes[i] for i in forward)) if forward else set()
    params: list[str] = []
    bound: set[str] = set()
    for i in forward:
        for name in sorted(_free_reads(body[i]) & forward_writes - bound):
            if name not in params:
                params.append(name)
        bound |= definite_writes(body[i])
    after_reads = set().union(*(reads[i] for i in after)) if after else set()
    # in a loop, a name the forward reads before it assigns it (`h = model(x, h)`) is carried from one
    # iteration to the next: its new value must come back
    carried = set(params) if loop else set()
    aux = sorted(n for n in forward_writes if n != plan.loss and n in (outside_reads | after_reads | carried))
    return Segment(before, forward, after, params, [plan.loss, *aux])


def _free_reads(stmt: cst.CSTNode, bound: frozenset[str] = frozenset()) -> set[str]:
    """Names stmt reads before it assigns them itself (`with c: a = f(); b = a` reads c and f, not a)."""
    if isinstance(stmt, cst.With) and isinstance(stmt.body, cst.IndentedBlock):
        names = read_names([i.item for i in stmt.items]) - bound
        inner = bound | {n for i in stmt.items if i.asname is not None for n in assigned_names(i.asname)}
        return names | _free_sequence(stmt.body.body, inner)
    if isinstance(stmt, cst.If) and isinstance(stmt.body, cst.IndentedBlock):
        names = read_names([stmt.test]) - bound
        names |= _free_sequence(stmt.body.body, bound)
        if stmt.orelse is not None:
            branch = stmt.orelse
            names |= _free_reads(branch, bound) if isinstance(branch, cst.If) else \
                _free_sequence(branch.body.body, bound) if isinstance(branch.body, cst.IndentedBlock) \
                else read_names([branch]) - bound
        return names
    if isinstance(stmt, (cst.For, cst.While)) and isinstance(stmt.body, cst.IndentedBlock):
        # a loop's own variable is bound inside its body (`for f1, f2 in zip(a, b): total += f1`)
        head = read_names([stmt.iter if isinstance(stmt, cst.For) else stmt.test]) - bound
        targets: set[str] = set()
        if isinstance(stmt, cst.For):
            _collect(stmt.target, targets)
        inner = bound | targets
        names = head | _free_sequence(stmt.body.body, inner)
        if stmt.orelse is not None and isinstance(stmt.orelse.body, cst.IndentedBlock):
            names |= _free_sequence(stmt.orelse.body.body, bound)
        return names
    return read_names([stmt]) - bound


def _free_sequence(statements, bound: frozenset[str] | set[str]) -> set[str]:
    names: set[str] = set()
    bound = set(bound)
    for stmt in statements:
        names |= _free_reads(stmt, frozenset(bound))
        bound |= assigned_names(stmt)
    return names


def definite_writes(stmt: cst.CSTNode) -> set[str]:
    """Names stmt binds on every path through it: a name bound only in an if's branch, a loop's body or
    a try is not (read later in the forward, it must come in as a parameter, or Python sees an unbound
    local whenever the branch is not taken)."""
    if isinstance(stmt, cst.If):
        if stmt.orelse is None:
            return set()
        other = definite_writes(stmt.orelse) if isinstance(stmt.orelse, cst.If) else _definite_block(stmt.orelse.body)
        return _definite_block(stmt.body) & other
    if isinstance(stmt, cst.With):
        names: set[str] = set()
        for item in stmt.items:
            if item.asname is not None:
                _collect(item.asname.name, names)
        return names | _definite_block(stmt.body)
    if isinstance(stmt, (cst.For, cst.While, cst.Try, cst.TryStar)):
        return set()
    return assigned_names(stmt)


def _definite_block(block: cst.BaseSuite) -> set[str]:
    if not isinstance(block, cst.IndentedBlock):
        return assigned_names(block)
    names: set[str] = set()
    for stmt in block.body:
        names |= definite_writes(stmt)
    return names


def _aug_targets(stmt: cst.BaseStatement) -> set[str]:
    names: set[str] = set()

    class _Aug(cst.CSTVisitor):
        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name):
                names.add(node.target.value)

    stmt.visit(_Aug())
    return names


def assigned_names(stmt: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    class _Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            _collect(node.target, names)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            _collect(node.target, names)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            _collect(node.target, names)

        def visit_For(self, node: cst.For) -> None:
            _collect(node.target, names)

        def visit_WithItem(self, node: cst.WithItem) -> None:
            if node.asname is not None:
                _collect(node.asname.name, names)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            _collect(node.target, names)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            names.add(node.name.value)
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            names.add(node.name.value)
            return False

    stmt.visit(_Targets())
    return names


def _collect(target: cst.BaseExpression, names: set[str]) -> None:
    names.update(target_names(target))


def read_names(nodes: list[cst.CSTNode]) -> set[str]:
    """Plain names the nodes read (attribute names, keywords and store targets excluded)."""
    return set(read_counts(nodes))


def read_counts(nodes: list[cst.CSTNode]) -> Counter[str]:
    """How often the nodes read each plain name."""
    names: Counter[str] = Counter()

    class _Reads(VariableNames):
        def visit_Name(self, node: cst.Name) -> None:
            names[node.value] += 1

        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            self._store(node.target)
            return False

        def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
            self._store(node.target)
            node.annotation.visit(self)
            if node.value is not None:
                node.value.visit(self)
            return False

        def visit_For(self, node: cst.For) -> bool:
            self._store(node.target)
            for part in (node.iter, node.body, *([node.orelse] if node.orelse else [])):
                part.visit(self)
            return False

        def visit_AsName(self, node: cst.AsName) -> bool:
            self._store(node.name)
            return False

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            node.body.visit(self)
            return False

        def _store(self, target: cst.CSTNode) -> None:
            """A store target: its plain names are written, not read; a subscript or attribute reads."""
            if isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    self._store(element.value)
            elif isinstance(target, cst.StarredElement):
                self._store(target.value)
            elif not isinstance(target, cst.Name):
                target.visit(self)

    for node in nodes:
        node.visit(_Reads())
    return names
