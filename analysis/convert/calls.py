"""Call dispatch: each call to a torch API goes to the handler that owns it (layers, state, training,
data), else to the mapping tables; tensor methods, loss labels, add_module; torch names used as values."""
from __future__ import annotations

import libcst as cst

from analysis.scan.receivers import is_foreign
from analysis.scan.scanner import DATASET_ATTRS

from .apis import argfixes, composed, compositions, exact_forms, functional, legacy, partials
from .apis import thirdparty  # einops, and other packages built on torch
from .apis import transforms  # torch.func's vmap, grad, vjp, jvp, jacrev, jacfwd, hessian, linearize
from .apis import dtype_forms, sample_checks, size_forms  # float functions of ints; PyTorch's samples (issue 29)
from .apis import kernel_dtypes  # dtypes a MindSpore CPU kernel refuses, bridged at run time (issue 29)
from .apis import factory_spread  # {'device': d, 'dtype': t} spread into layers
from .apis import edge_forms  # 0-d inputs, broadcast operands, argument forms MindSpore lacks (issue 29)
from .apis import loop_draws  # torch.randn/rand in module-level loops reuse one random operator per shape
from .apis import host_draws  # a torch.randint only iterated for indices is drawn with numpy
from .apis import target_args  # arguments the MindSpore call would refuse: dropped when harmless, else marked
from .apis import cpu_convolutions  # convolutions on CPU: oneDNN's GEMM kernel rather than its reference code
from .apis import keyword_aliases  # keywords PyTorch takes under their ATen name (linalg input=)
from .apis import weighted_losses  # weight= of the losses whose MindSpore namesake has none
from .apis.mapped import SUPPLEMENT, SUPPLEMENT_KEYWORDS, convert_call, dtype_name, tensor_constructor
from .core import rules
from .core.layout import relayout
from .core.names import dotted, resolve
from .core.walk import GRAD_CONTEXTS, WalkState
from .data import loaders, model_zoo, samplers, vision
from .modules import containers, layercalls, layers, pretrained, receivers, state
from .modules import transposed  # transposed convs (issue 15)
from .modules import weight_norms  # weight normalisation, which MindSpore lacks
from .modules import unbatched  # layers given an unbatched input (issue 29)
from .modules import nn_forms  # layer call forms: implicit softmax dims, run-time SmoothL1Loss betas
from .modules.layermap import NOT_LAYERS, self_path
from .tensors import absent_methods, methods, numeric_info, outargs, scatter
from .tensors import tensor_forms  # call forms of Tensor methods (and their torch functions) MindSpore lacks
from .tensors import inplace_functions  # in-place functions (torch.relu_, F.elu_) and inplace=True (issue 29)
from .training import idioms, optimizers
from .training import modern  # AMP, checkpointing and distributed set-up (issue 16's modern scripts)

HANDLERS = {**legacy.HANDLERS, **layers.HANDLERS, **state.HANDLERS, **optimizers.HANDLERS, **loaders.HANDLERS, **vision.HANDLERS,
            **functional.HANDLERS, **containers.HANDLERS, **receivers.HANDLERS, **weight_norms.HANDLERS}
DEVICE_CALLS = ("torch.device", "torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.current_device",
                "torch.backends.mps.is_available")


# Namespaces of PyTorch's own operator and dispatch machinery: a reference to them (not only a call) is marked
TORCH_ONLY = ("torch.ops.", "torch.library.", "torch._library.", "torch._custom_ops.", "torch.func.",
              "torch._functorch.", "torch.overrides.", "torch.utils._python_dispatch.", "functorch.")


# Calls whose MindSpore counterpart returns something else: converted only as a statement of their own
RESULT_DIFFERS = {
    "torch.manual_seed": "torch.manual_seed returns a Generator, mindspore.set_seed returns None: call it on a "
                         "line of its own and create the generator you need separately",
    "torch.random.manual_seed": "torch.random.manual_seed returns a Generator, mindspore.set_seed returns None: "
                                "call it on a line of its own",
}


HANDLERS.update(modern.HANDLERS)  # kept apart from HANDLERS above: other concerns add to that line
HANDLERS.update(numeric_info.HANDLERS)
HANDLERS.update(model_zoo.handlers())  # torchvision.models: marked with mindcv's model of the same architecture
HANDLERS.update(transforms.HANDLERS)  # torch.func's function transforms (issue 15)
# forms with no CPU kernel or another dtype in MindSpore, written so that they compute PyTorch's values (issue 15)
HANDLERS.update({**exact_forms.HANDLERS, **scatter.HANDLERS, **argfixes.HANDLERS})
HANDLERS.update(compositions.HANDLERS)  # forms MindSpore's namesake computes differently -> local helpers
HANDLERS.update(transposed.HANDLERS)  # ConvTranspose padding tuples
HANDLERS.update(thirdparty.HANDLERS)  # einops.layers.torch's layers -> MindSpore cells
HANDLERS.update(pretrained.HANDLERS)  # nn.Embedding.from_pretrained (issue 29)
HANDLERS.update(samplers.HANDLERS)  # a sampler the file iterates (issue 29)
HANDLERS.update(edge_forms.HANDLERS)  # edge inputs and argument forms of PyTorch's samples (issue 29)
HANDLERS.update(nn_forms.HANDLERS)  # softmax family's implicit dim and 0-d inputs, SmoothL1Loss's beta
HANDLERS.update(weighted_losses.HANDLERS)  # F.l1_loss / mse_loss / huber_loss given weight=
HANDLERS.update(tensor_forms.HANDLERS)  # torch.argmax(x, keepdim=True): the whole-tensor reduction kept


class CallRewrites(WalkState):
    """Calls, and torch names used as values (dtypes, classes, functions passed around)."""

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):  # a call whose value nobody reads
            self.__dict__.setdefault("unused_results", set()).add(id(node.value))
            self.ctx.statement_calls.add(id(node.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and len(node.targets) == 1:
            self.ctx.statement_calls.add(id(node.value))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        ctx = self.ctx
        # an in-place function converted as its out-of-place one (inplace_functions.py) names that one here
        qualified = self.__dict__.get("qualified_as", {}).pop(id(original), None) or resolve(original.func, ctx.aliases)
        if qualified in RESULT_DIFFERS and id(original) not in self.__dict__.get("unused_results", ()):
            ctx.mark(original, rules.API_DIFF, qualified, RESULT_DIFFERS[qualified])
            return updated
        if qualified == "torch.Tensor" and not ctx.mint_entry(qualified):
            if legacy.sizes_or_either(updated):  # torch.Tensor(2, 3), torch.Tensor(n): the FloatTensor rules
                return legacy.typed_constructor(ctx, original, updated, qualified, None)
            return tensor_constructor(ctx, original, updated)
        if qualified is None:
            updated = partials.drop_device(ctx, original, updated) or updated
            new = partials.convert_bound(ctx, self.partial_heads, original, updated, convert_layer)
            if new is not None:
                return new
            if partials.is_partial(original):
                return updated
            if isinstance(original.func, cst.Attribute) and is_foreign(original.func.value, ctx.foreign):
                return updated  # plt.scatter(...), re.sub(...), an array's ravel(): not torch (scan/receivers.py)
            new = receivers.rewrite(self, original, updated)
            if new is not None:
                return new
            if isinstance(original.func, cst.Name) and original.func.value in ctx.label_losses:
                return self._int_labels(original, updated)
            if isinstance(original.func, cst.Name) and original.func.value in ("hasattr", "next"):
                new = functional.feature_check(ctx, original, updated) or \
                    containers.first_parameter(ctx, original, updated)
                if new is not None:
                    return new
            if isinstance(original.func, cst.Attribute) and original.func.attr.value in optimizers.STEP_METHODS:
                if id(original) in ctx.step_notes and id(original) not in ctx.step_calls:
                    method = original.func.attr.value
                    ctx.mark(original, rules.TRAIN_LOOP, "torch.Tensor.backward" if method == "backward"
                             else f"torch.optim.Optimizer.{method}",
                             ctx.step_notes[id(original)])
                    return updated
                optimizers.unplaced_call(ctx, original)
                return updated
            if isinstance(original.func, cst.Attribute) and original.func.attr.value == "add_module":
                return self._add_module(original, updated)
            in_cell = self.classes[-1][0] if self.classes and self.classes[-1][1] == "cell" else ""
            new = layercalls.pair_state(ctx, in_cell, original, updated) \
                or layercalls.input_keyword(ctx, in_cell, original, updated) \
                or (layercalls.base_init(ctx, in_cell, original, updated, convert_layer) if in_cell else None)
            if new is not None:
                return new
            new = layercalls.forward_call(ctx, self.cells | idioms.network_names(self), original, updated)
            if new is not None:
                return new
            if isinstance(original.func, cst.Attribute) and id(original) not in self.folded:
                new = containers.traversal(ctx, original, updated) or methods.method_call(ctx, original, updated) \
                    or absent_methods.mark(ctx, original, updated)
                if new is not None:
                    new = relayout(updated, new) if isinstance(new, cst.Call) and _same_arguments(updated, new) \
                        else new
                sample_checks.method(ctx, original)
                new = dtype_forms.method(ctx, original, new if new is not None else updated)
                new = size_forms.tuple_sizes(kernel_dtypes.method(ctx, original, new))
                new = size_forms.variable_sizes(ctx, original, new)
                return target_args.method(ctx, original, updated, new)  # no argument MindSpore refuses passes
            return updated
        if id(original) in self.grad_items and qualified in self.ctx.classic.no_op_decorators:
            return updated  # the function definition drops the decorator
        if qualified in GRAD_CONTEXTS:
            if id(original) not in self.grad_items:
                ctx.mark(original, rules.NO_GRAD, qualified,
                         "MindSpore computes gradients only inside value_and_grad: remove this switch")
            return updated  # a with-item or decorator: the statement around it goes
        if qualified in DEVICE_CALLS and qualified != "torch.device":
            ctx.mark(original, rules.DEVICE_CUDA, qualified,
                     "no CUDA query in MindSpore: choose the device once with mindspore.set_device")
            return updated
        if qualified.endswith(".__init__") and self.classes and self.classes[-1][1] == "cell":
            # nn.Linear.__init__(self, ...)
            new = layercalls.base_init(ctx, self.classes[-1][0], original, updated, convert_layer)
            if new is not None:
                return new
        if qualified in legacy.LOSSES:  # size_average=/reduce= -> reduction= before any mapping sees them
            folded = legacy.rewrite(ctx, original, updated, qualified)
            if folded is None:
                return updated  # marked
            updated = folded
        if not ctx.mint_entry(qualified):  # torch.linalg.cholesky(input=a): the documented name (A) from here on
            updated = keyword_aliases.canonical(qualified, updated)
        spread = factory_spread.split(ctx, qualified, updated)
        if spread is not None:  # **factory_kwargs: converted without it, given back through factory_options()
            marks = len(ctx.unconverted)
            new = self.leave_Call(original, spread[0])
            return factory_spread.put_back(ctx, new, spread[1], marked=len(ctx.unconverted) > marks)
        new = outargs.rewrite(self, original, updated, qualified)  # out=buf: the call without it, written into buf
        if new is None:  # torch.relu_(x), F.elu_(x): the out-of-place call, written back into x
            new = inplace_functions.rewrite(self, original, updated, qualified, HANDLERS)
        if new is not None:
            return new
        mint = ctx.mint_entry(qualified)
        handler = None if mint else HANDLERS.get(qualified)
        entry = mint or legacy.entry_for(qualified, updated, ctx.classic.get(qualified))
        if mint is not None:
            new = convert_call(ctx, original, updated, qualified, mint)  # mint keeps PyTorch's semantics
        elif handler is not None:
            new = handler(ctx, original, updated, qualified, entry)
        elif qualified == "torch.device":
            ctx.mark(original, rules.DEVICE_OBJECT, qualified,
                     "torch.device has no counterpart: set the target once with mindspore.set_device")
            return updated
        elif entry is None and qualified in SUPPLEMENT:
            new = convert_call(ctx, original, updated, qualified, _supplement(qualified))
        else:
            new = convert_call(ctx, original, updated, qualified, entry)
        if new is updated:
            self.ctx.keep(original)
        else:
            # sizes spelled as MindSpore takes them before the bridge wraps the call (it hides the API's name)
            new = size_forms.tuple_sizes(dtype_forms.function(ctx, qualified, new))
            new = size_forms.variable_sizes(ctx, original, new)
            new = target_args.function(ctx, original, new, entry)
            new = kernel_dtypes.function(ctx, original, qualified, new)
            sample_checks.check(ctx, original, qualified)
            if isinstance(new, cst.Call) and handler is not loaders.dataloader and _same_arguments(updated, new):
                new = relayout(updated, new)
            new = loop_draws.reuse_operator(self, original, qualified, new)  # a loop's draws reuse one operator
            new = host_draws.rewrite(self, original, qualified, new)  # index draws made on the host
            cpu_convolutions.note(ctx, qualified)
            if handler is loaders.dataloader:
                self.loaders.add(id(new))
                source = loaders.loader_source(updated)
                if source is not None:
                    self.loader_sources[id(new)] = source
            if qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[1][:1].isupper() and isinstance(new, cst.Call) \
                    and qualified not in NOT_LAYERS:
                self._layer(original, updated, new, qualified)
                local = unbatched.rewrite(ctx, original, qualified, new)  # after the map: it keeps MindSpore's class
                if local is not new:  # the layer's records follow the call that now builds it
                    self.layers[id(local)] = self.layers.pop(id(new))
                    new = local
                local = nn_forms.after_map(ctx, original, new)  # bias=False, LayerNorm over several axes
                if local is not new:
                    self.layers[id(local)] = self.layers.pop(id(new))
                    new = local
        return new

    def _int_labels(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        positional = [a for a in updated.args if a.keyword is None and not a.star]
        if len(positional) < 2:
            return updated
        label = positional[1]
        cast = cst.Call(func=cst.Attribute(value=label.value, attr=cst.Name("astype")),
                        args=[cst.Arg(value=self.ctx.ms_expr("mindspore.int32"))])
        note = "class-index labels cast to int32 (MindSpore's loss rejects int64; review if the targets are probabilities)"
        loss_kind = self.ctx.bound.get(original.func.value)
        if loss_kind == "torch.nn.CrossEntropyLoss" and dotted(label.value) is not None:
            # PyTorch reads float targets as class probabilities: those stay as they are
            cast = cst.IfExp(test=cst.Call(func=cst.Attribute(value=label.value, attr=cst.Name("is_floating_point"))),
                             body=label.value, orelse=cast,
                             lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            note = "class-index labels cast to int32 (MindSpore's loss rejects int64); float targets (probabilities) kept"
        self.ctx.change(original, rules.LOSS_LABELS, "torch.nn.CrossEntropyLoss", "mindspore.nn.CrossEntropyLoss", note)
        args = [a.with_changes(value=cast) if a is label else a for a in updated.args]
        return updated.with_changes(args=args)

    def _add_module(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """m.add_module(name, layer) -> setattr(m, name, layer): Cell.__setattr__ registers the cell and
        prefixes its parameter names (insert_child_to_cell does not, and checkpoints key on those names)."""
        args = {a.keyword.value if a.keyword else ("name", "module")[i] if i < 2 else "*": a
                for i, a in enumerate(updated.args)}
        if set(args) != {"name", "module"} or any(a.star for a in updated.args):
            return updated
        receiver = updated.func.value
        new = cst.Call(func=cst.Name("setattr"), args=[
            cst.Arg(value=receiver), args["name"].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT,
                                                               comma=cst.MaybeSentinel.DEFAULT),
            args["module"].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, comma=cst.MaybeSentinel.DEFAULT),
        ])
        self.ctx.change(original, rules.CELL_API, "torch.nn.Module.add_module", "mindspore.nn.Cell.__setattr__",
                        "add_module(name, cell) -> setattr(cell_owner, name, cell) (registers it and names its "
                        "parameters as PyTorch does)")
        name, owner = args["name"].value, self_path(original.func.value, allow_self=True)
        records = self.layers.pop(id(args["module"].value), None)
        if records and owner is not None and isinstance(name, cst.SimpleString):
            self._bind(f"{owner}.{name.evaluated_value}" if owner else name.evaluated_value, records)
        return new

    # -- names used as values: dtypes, classes, functions passed around -------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if id(original) not in self.attribute_stores:  # loader.dataset of a converted loader
            source = loaders.dataset_attribute(self.ctx, original)
            if source is not None:
                return source
        if id(original) in self.skip:
            return updated
        if original.attr.value in DATASET_ATTRS \
                and self.ctx.bound.get(dotted(original.value) or "", "").startswith("torchvision.datasets."):
            from analysis.rules import get_rule  # the marker says what the analyzer's finding says

            attr = original.attr.value
            self.ctx.mark(original, rules.DATASET_ATTR, f"torchvision.datasets.Dataset.{attr}",
                          get_rule(rules.DATASET_ATTR).message.format(attr=attr))
            return updated
        return self._reference(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        if id(original) in self.skip or original.value not in self.ctx.aliases:
            return updated
        return self._reference(original, updated)

    def _reference(self, original, updated):
        qualified = resolve(original, self.ctx.aliases)
        if not qualified:
            return updated
        if id(original) in self.grad_items and (qualified in GRAD_CONTEXTS or qualified in self.ctx.classic.no_op_decorators):
            return updated  # a bare decorator the function definition drops: no reason to keep torch
        if "." not in qualified:
            self.ctx.keep(original)
            return updated
        if qualified in thirdparty.HANDLERS:  # an einops layer class used as a value
            return thirdparty.einops_layer_reference(self.ctx, original, qualified)
        if id(original) in self.partial_heads:
            if partials.deferred(self.ctx, qualified, qualified in HANDLERS and qualified not in argfixes.VALUES_ONLY):
                return updated  # converted with the arguments partial() binds (leave_Call)
            self.partial_heads.discard(id(original))
        target = dtype_name(qualified)
        if target is None:
            if qualified == "torch.Tensor":
                target = "mindspore.Tensor"
            elif qualified == "torch.nn.Module":  # isinstance(m, nn.Module), an annotation: what a Module becomes
                target = "mindspore.nn.Cell"
            else:
                entry = self.ctx.mint_entry(qualified) or self.ctx.classic.get(qualified)
                if entry is not None and entry.helper:  # torch.allclose passed as a value: the local function
                    return composed.reference(self.ctx, original, qualified, entry.helper)
                form = compositions.FORMS.get(qualified) or edge_forms.FORMS.get(qualified)
                if form is not None:  # loss = F.multilabel_margin_loss: the helper its calls go to
                    return composed.reference(self.ctx, original, qualified, form.helper)
                last = qualified.rsplit(".", 1)[1]
                if entry and entry.primary and (entry.category == "consistent" or last[:1].isupper()):
                    target = entry.primary
        if target is None:
            helper = state.init_reference(self.ctx, original, qualified)
            if helper is not None:  # nn.init.xavier_uniform_ kept in a dict, called later on a weight
                return helper
            if qualified.startswith(TORCH_ONLY) and id(original) not in self.__dict__.get("torch_only_seen", ()):
                self.__dict__.setdefault("torch_only_seen", set()).add(id(original))
                self.ctx.mark(original, rules.API_UNMAPPED, qualified,
                              f"{qualified} is PyTorch's operator/dispatch machinery: MindSpore has no counterpart; "
                              f"rewrite this without it")
                return updated
            root = _root_name(original)
            if root in MINDSPORE_IMPORT_NAMES and root != qualified.split(".", 1)[0]:
                # nn.init.xavier_uniform_ kept as a value while `nn` becomes MindSpore's nn: it would
                # silently name mindspore.nn.init, so the line is marked rather than left to fail later
                self.ctx.mark(original, rules.API_UNMAPPED, qualified,
                              f"{qualified} used as a value is not converted, and `{root}` may name MindSpore's "
                              f"module in the converted file: write the MindSpore form of what it does here")
                return updated
            if entry is None and qualified not in SUPPLEMENT and id(original) not in self.placement_values \
                    and target_args.unmapped_value(self.ctx, qualified) and self.ctx.statements:
                # marked when its statement is left (transformer.on_leave) unless a marker of the statement's
                # own says more (a torch.profiler.profile(...) left as it was covers its activities=)
                self.ctx.keep(original)
                self.pending_values.setdefault(id(self.ctx.statements[-1][0]), []).append(
                    (original, rules.API_UNMAPPED, qualified,
                     f"{qualified} has no MindSpore counterpart: left as written, this line still needs PyTorch; "
                     "write what it does here in MindSpore"))
                return updated
            self.ctx.keep(original)
            return updated
        self.ctx.change(original, rules.API_RENAME, qualified, target, f"{qualified} -> {target}")
        return self.ctx.ms_expr(target)


# names the converted file's MindSpore imports bind (from mindspore import nn; ...initializer as init)
MINDSPORE_IMPORT_NAMES = frozenset({"nn", "init", "ops"})


def _root_name(node: cst.BaseExpression) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def convert_layer(ctx, original: cst.Call, updated: cst.Call, qualified: str) -> cst.BaseExpression:
    """updated converted as a call of the torch API qualified (the dispatch of CallRewrites.leave_Call
    without its bookkeeping): used for a built-in layer's arguments passed to its __init__ from a subclass."""
    mint = ctx.mint_entry(qualified)
    handler = None if mint else HANDLERS.get(qualified)
    entry = mint or ctx.classic.get(qualified)
    if mint is None and handler is not None:
        return handler(ctx, original, updated, qualified, entry)
    return convert_call(ctx, original, updated, qualified, entry)


def _same_arguments(before: cst.Call, after: cst.Call) -> bool:
    """Whether after edits before's own argument list (not a new call built around other values)."""
    if after.args is before.args:
        return False
    values = {id(a.value) for a in before.args}
    return not after.args or any(id(a.value) in values for a in after.args)


def _supplement(qualified: str):
    from analysis.knowledge.mapping import ApiEntry, ParamDiff

    renames = tuple(ParamDiff("param", torch, ms, "same") for torch, ms in SUPPLEMENT_KEYWORDS.get(qualified, {}).items())
    return ApiEntry(torch=qualified, mindspore=(SUPPLEMENT[qualified],), category="consistent", section="supplement",
                    params=renames)
