"""The rule catalogue, as data: one dict per migration difference the guides describe.

Fields: id (stable), title, severity (error: will not run or silently computes
something else; warning: a difference to review; info: consistent mapping),
status (what the converter is expected to reach: converted / review / manual),
autofix (the converter rewrites it), versions (first MindSpore release it
applies to, first release it no longer applies to; None = open), guide (docs
URL), mindspore (suggested counterpart), message, explanation, example
(PyTorch, MindSpore), trigger (what the scanner must see: apis, prefixes,
methods on receivers of given kinds, events), check (name of a function in
checks.py that must return a dict for the rule to fire) and scope ("both" by
default; "converter" for rules only the converter reports, which the scanner
never fires).
Messages are this project's own wording; facts come from the guides.
"""
from __future__ import annotations

# Guide pages (official MindSpore documentation).
TYPICAL_EN = "https://www.mindspore.cn/docs/en/master/migration_guide/typical_api_comparision.html"
TYPICAL_R16 = "https://www.mindspore.cn/docs/migration_guide/zh-CN/r1.6/typical_api_comparision.html"
MODEL_CELL = "https://www.mindspore.cn/docs/zh-CN/r2.4.10/migration_guide/model_development/model_and_cell.html"
PT_COMPARE = "https://www.mindspore.cn/docs/zh-CN/r2.3.1/migration_guide/typical_api_comparision.html"
TRAIN_FLOW = "https://www.mindspore.cn/docs/zh-CN/r1.7/migration_guide/training_process_comparision.html"
API_MAP = "https://www.mindspore.cn/docs/en/r2.4.10/note/api_mapping/pytorch_api_mapping.html"

CONV = ["torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d",
        "torch.nn.ConvTranspose1d", "torch.nn.ConvTranspose2d", "torch.nn.ConvTranspose3d"]
POOL = ["torch.nn.MaxPool1d", "torch.nn.MaxPool2d", "torch.nn.MaxPool3d",
        "torch.nn.AvgPool1d", "torch.nn.AvgPool2d", "torch.nn.AvgPool3d"]
BATCHNORM = ["torch.nn.BatchNorm1d", "torch.nn.BatchNorm2d", "torch.nn.BatchNorm3d", "torch.nn.SyncBatchNorm"]
OPTIMIZERS = ["torch.optim.SGD", "torch.optim.Adam", "torch.optim.AdamW", "torch.optim.Adagrad", "torch.optim.Adadelta",
              "torch.optim.Adamax", "torch.optim.RMSprop", "torch.optim.Rprop", "torch.optim.ASGD",
              "torch.optim.SparseAdam", "torch.optim.LBFGS", "torch.optim.NAdam", "torch.optim.RAdam"]
TENSORISH = ["tensor", "unknown"]
MODULEISH = ["module"]

RULES: list[dict] = [
    # ---- generic mapping accounting -------------------------------------------------------------
    dict(
        id="MS-API-MAPPED", title="PyTorch API with a consistent MindSpore counterpart", severity="info",
        status="converted", autofix=True, versions=("1.6", None), guide=API_MAP, mindspore="",
        message="{api} maps to {mindspore}",
        explanation="MindSpore documents a counterpart with the same behaviour (or with arguments that only change "
                    "name). The converter rewrites the call; nothing is left to review.",
        example=("y = torch.abs(x)", "y = mindspore.ops.abs(x)"), trigger={}, check=None,
    ),
    dict(
        id="MS-API-DIFF", title="PyTorch API whose MindSpore counterpart behaves differently", severity="warning",
        status="review", autofix=True, versions=("1.6", None), guide=API_MAP, mindspore="",
        message="{api} maps to {mindspore} with documented differences{args}",
        explanation="The mapping table lists a counterpart but its parameters, defaults, inputs or outputs differ "
                    "for this call, or running both frameworks showed a difference. The finding names the "
                    "argument or default this call passes or relies on that differs, or what running it measured; "
                    "a call that uses none of the differences is reported as converted instead.",
        example=("nn.Linear(4, 2, bias=False)", "nn.Dense(4, 2, has_bias=False)"), trigger={}, check=None,
    ),
    dict(
        id="MS-API-BROKEN", title="Converted call that fails when run", severity="error",
        status="manual", autofix=False, versions=("1.6", None), guide=API_MAP, mindspore="",
        message="{api} maps to {mindspore}, but running the converted call fails{args}",
        explanation="Verification by execution ran calls like this one in PyTorch and, converted, in MindSpore on "
                    "CPU: the MindSpore side raised (often no CPU kernel for the input's dtype). Rewrite the call, "
                    "cast the input, or keep it on a device that has the kernel.",
        example=("torch.log2(torch.arange(4))", "ops.log2(ops.arange(4).astype(ms.float32))"), trigger={},
        check=None,
    ),
    dict(
        id="MS-API-UNMAPPED", title="PyTorch API without a documented MindSpore equivalent", severity="error",
        status="manual", autofix=False, versions=("1.6", None), guide=API_MAP, mindspore="",
        message="{api} has no documented MindSpore equivalent",
        explanation="MindSpore's mapping table lists no counterpart for this API and no migration rule covers it. "
                    "The code will not run as is: rewrite it with MindSpore operations or drop it.",
        example=("torch.cuda.nvtx.range_push('step')", "# no counterpart: remove or rewrite"), trigger={}, check=None,
    ),
    dict(
        id="MS-PARSE-ERROR", title="File could not be parsed", severity="error", status="manual", autofix=False,
        versions=("1.6", None), guide=API_MAP, mindspore="",
        message="could not parse this file: {reason}",
        explanation="The analyzer reads Python 3 source. Python 2 code, syntax errors, binary data or text that is "
                    "not valid UTF-8 cannot be analysed; the rest of the upload is analysed regardless.",
        example=("print 'hello'", "print('hello')"), trigger={}, check=None,
    ),
    # ---- device placement ------------------------------------------------------------------------
    dict(
        id="MS-DEVICE-TORCH-DEVICE", title="torch.device selects hardware per object", severity="warning",
        status="converted", autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#torch-device",
        mindspore="mindspore.set_context(device_target=...)",
        message="torch.device picks a device per tensor/module; MindSpore sets one device for the whole process",
        explanation="In MindSpore the target (CPU, GPU, Ascend) and device id are set once with set_context; data "
                    "and networks run there automatically and cannot be moved between devices afterwards. Device "
                    "objects and the checks around them (torch.cuda.is_available) are dropped.",
        example=('device = torch.device("cuda:0")', 'mindspore.set_context(device_target="GPU", device_id=0)'),
        trigger={"apis": ["torch.device"]}, check=None,
    ),
    dict(
        id="MS-DEVICE-TO", title=".to(device) moves data or a model", severity="warning", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#torch-device", mindspore="(removed)",
        message=".to(device) has no MindSpore counterpart: placement follows set_context",
        explanation="Moving tensors or modules between devices is not needed (nor possible) in MindSpore: "
                    "everything runs on the device chosen in set_context. The converter drops device moves; "
                    "a .to(dtype) cast is a different matter (see MS-AMP-HALF).",
        example=("x = x.to(device)", "x = x  # placement comes from set_context"),
        trigger={"methods": {"names": ["to"], "receivers": ["tensor", "module", "unknown"]}}, check="is_device_move",
    ),
    dict(
        id="MS-DEVICE-CUDA", title=".cuda()/.cpu() and torch.cuda calls", severity="warning", status="converted",
        autofix=True, versions=("1.6", None), guide=MODEL_CELL + "#设备相关", mindspore="mindspore.set_context",
        message="{api}: explicit device moves and CUDA queries have no MindSpore counterpart",
        explanation="MindSpore has no per-object device API; .cuda()/.cpu() calls are removed and CUDA queries "
                    "(is_available, device_count, set_device) become a device_target/device_id setting.",
        example=("model.cuda()", 'mindspore.set_context(device_target="GPU")'),
        trigger={"methods": {"names": ["cuda", "cpu"], "receivers": ["tensor", "module", "unknown"]},
                 "prefixes": ["torch.cuda."]},
        check="not_cpu_before_numpy",
    ),
    dict(
        id="MS-DEVICE-ENV", title="CUDA_VISIBLE_DEVICES selects GPUs", severity="warning", status="manual",
        autofix=False, versions=("1.6", None), guide=TYPICAL_EN + "#torch-device",
        mindspore="mindspore.set_context(device_id=...)",
        message="CUDA_VISIBLE_DEVICES selects GPUs for PyTorch; choose the MindSpore device with device_id",
        explanation="MindSpore takes the device number from set_context(device_id=...) (or the launcher in "
                    "distributed runs). The environment variable may still matter on GPU, but it does not select "
                    "Ascend devices; decide by hand.",
        example=("os.environ['CUDA_VISIBLE_DEVICES'] = '1'", "mindspore.set_context(device_id=1)"),
        trigger={"events": ["env:CUDA_VISIBLE_DEVICES"]}, check=None,
    ),
    dict(
        id="MS-DEVICE-DATAPARALLEL", title="nn.DataParallel", severity="error", status="manual", autofix=False,
        versions=("1.6", None), guide=TYPICAL_EN + "#torch-device",
        mindspore="mindspore.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL)",
        message="nn.DataParallel has no wrapper in MindSpore: data parallelism is a context setting",
        explanation="Multi-device data parallelism in MindSpore is configured with communication.init() and "
                    "set_auto_parallel_context(parallel_mode=DATA_PARALLEL, gradients_mean=True) and started by a "
                    "launcher; the network is not wrapped.",
        example=("model = nn.DataParallel(model, device_ids=[0, 1])",
                 "init(); mindspore.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL)"),
        trigger={"apis": ["torch.nn.DataParallel", "torch.nn.parallel.DataParallel"]}, check=None,
    ),
    dict(
        id="MS-TENSOR-NUMPY", title=".numpy() after .cpu()/.detach()", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#torch-device", mindspore="mindspore.Tensor.asnumpy",
        message="use .asnumpy(); MindSpore results are already host-readable, no .cpu()/.detach() needed",
        explanation="Tensors returned by a MindSpore network can be read directly; x.asnumpy() replaces the "
                    "x.detach().cpu().numpy() chain. In PyNative training, converting to numpy cuts the gradient "
                    "just like detach.",
        example=("y.detach().cpu().numpy()", "y.asnumpy()"),
        trigger={"methods": {"names": ["numpy"], "receivers": ["tensor", "unknown"]}}, check=None,
    ),
    # ---- nn.Module vs nn.Cell ------------------------------------------------------------------
    dict(
        id="MS-CELL-SUBCLASS", title="nn.Module subclass becomes nn.Cell", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#nn-module", mindspore="mindspore.nn.Cell",
        message="class {cls} derives from nn.Module: it becomes a mindspore.nn.Cell",
        explanation="nn.Cell plays the role of nn.Module: layers are created in __init__ and the computation is "
                    "written in construct instead of forward.",
        example=("class Net(nn.Module): ...", "class Net(nn.Cell): ..."),
        trigger={"events": ["class:module"]}, check=None,
    ),
    dict(
        id="MS-CELL-FORWARD", title="forward becomes construct", severity="info", status="converted", autofix=True,
        versions=("1.6", None), guide=TYPICAL_EN + "#nn-module", mindspore="mindspore.nn.Cell.construct",
        message="{cls}.forward must be named construct in a Cell",
        explanation="A Cell runs its construct method when called; a method named forward would never be used. "
                    "In graph mode construct is compiled, so its body must follow the static-graph syntax rules.",
        example=("def forward(self, x): ...", "def construct(self, x): ..."),
        trigger={"events": ["def:forward"]}, check=None,
    ),
    dict(
        id="MS-CELL-FORWARD-CALL", title="forward called by name", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#nn-module", mindspore="mindspore.nn.Cell.construct",
        message="{method}() called by name on a network: a Cell has no forward, the converter writes construct(...) "
                "(calling the cell itself, net(x), runs the same computation)",
        explanation="PyTorch code sometimes calls net.forward(x) directly; the converted Cell only has construct.",
        example=("y = net.forward(x)", "y = net.construct(x)"),
        trigger={"methods": {"names": ["forward"], "receivers": MODULEISH}}, check=None,
    ),
    dict(
        id="MS-CELL-API", title="nn.Module methods with other names on nn.Cell", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#nn-module", mindspore="",
        message="Module.{method}() corresponds to Cell.{counterpart}()",
        explanation="Cell offers the same services under other names: named_children/named_modules -> "
                    "cells_and_names, children/modules -> cells, add_module -> insert_child_to_cell, parameters -> "
                    "get_parameters (trainable_params for optimizers), named_parameters -> parameters_and_names.",
        example=("for name, m in net.named_modules(): ...", "for name, c in net.cells_and_names(): ..."),
        trigger={"methods": {"names": ["named_children", "named_modules", "children", "modules", "add_module",
                                       "parameters", "named_parameters", "apply", "zero_grad_"],
                             "receivers": MODULEISH + ["unknown"]}},
        check="cell_method_counterpart",
    ),
    dict(
        id="MS-CELL-TRAIN-EVAL", title="train()/eval() become set_train()", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=MODEL_CELL + "#训练评估模式切换", mindspore="mindspore.nn.Cell.set_train",
        message="{method}() becomes set_train({mode})",
        explanation="Cell switches between training and evaluation behaviour with set_train(True/False).",
        example=("model.eval()", "model.set_train(False)"),
        trigger={"methods": {"names": ["train", "eval"], "receivers": MODULEISH}}, check="train_eval_mode",
    ),
    dict(
        id="MS-CELL-TRAIN-MODE", title="Cells start in inference mode", severity="error", status="converted",
        autofix=True, versions=("1.6", None), guide=PT_COMPARE + "#nn-dropout", mindspore="mindspore.nn.Cell.set_train",
        message="this file trains a network but never switches it to training mode; a MindSpore Cell starts in "
                "inference mode, so Dropout would do nothing and BatchNorm would use its moving statistics",
        explanation="A PyTorch module is in training mode from construction; a MindSpore Cell is in inference mode "
                    "until set_train() is called. Code that trains without calling model.train() would silently "
                    "train a different network after conversion (no dropout, frozen BatchNorm statistics). The "
                    "converter adds net.set_train() before the loop.",
        example=("model = Net(); for x, y in loader: loss.backward()", "model = Net(); model.set_train()"),
        trigger={"methods": {"names": ["backward"], "receivers": TENSORISH}}, check="training_without_train_mode",
    ),
    dict(
        id="MS-CELL-BUFFER", title="register_buffer", severity="warning", status="review", autofix=True,
        versions=("1.6", "2.10"), guide=TYPICAL_EN + "#data-size", mindspore="mindspore.Parameter(requires_grad=False)",
        message="buffers do not exist in MindSpore: keep a Tensor attribute, or a Parameter with requires_grad=False "
                "if it must be saved in checkpoints",
        explanation="MindSpore keeps two data objects, Tensor and Parameter. A buffer that must appear in "
                    "checkpoints becomes a Parameter with requires_grad=False; one that need not is a plain Tensor "
                    "attribute.",
        example=('self.register_buffer("mask", torch.ones(3))',
                 'self.mask = Parameter(ops.ones(3), name="mask", requires_grad=False)'),
        trigger={"methods": {"names": ["register_buffer"], "receivers": MODULEISH + ["unknown"]}}, check=None,
    ),
    dict(
        id="MS-VARIABLE", title="torch.autograd.Variable", severity="warning", status="converted", autofix=True,
        versions=("1.6", None), guide=TYPICAL_EN + "#data-size", mindspore="mindspore.Tensor / mindspore.Parameter",
        message="Variable is gone in MindSpore: use a Tensor (or a Parameter when it is trained)",
        explanation="MindSpore has no Variable; gradients are taken with respect to function inputs or Parameters, "
                    "so Variable(x, requires_grad=True) becomes the Tensor x passed to grad.",
        example=("x = Variable(torch.ones(2, 2), requires_grad=True)", "x = mindspore.Tensor(np.ones((2, 2)))"),
        trigger={"apis": ["torch.autograd.Variable"]}, check=None,
    ),
    dict(
        id="MS-PARAMETER", title="nn.Parameter", severity="info", status="converted", autofix=True,
        versions=("1.6", None), guide=MODEL_CELL + "#parameter管理", mindspore="mindspore.Parameter",
        message="nn.Parameter becomes mindspore.Parameter (names come from the attribute path)",
        explanation="mindspore.Parameter has the same role; its name is built from the attribute names under "
                    "the Cell (auto_prefix), which is what checkpoints are keyed by.",
        example=("self.w = nn.Parameter(torch.zeros(3))", "self.w = mindspore.Parameter(ops.zeros(3))"),
        trigger={"apis": ["torch.nn.Parameter", "torch.nn.parameter.Parameter"]}, check=None,
    ),
    dict(
        id="MS-CHECKPOINT", title="state_dict / torch.save / torch.load", severity="warning", status="review",
        autofix=True, versions=("1.6", None), guide=MODEL_CELL + "#parameter保存和加载",
        mindspore="mindspore.save_checkpoint / load_checkpoint / load_param_into_net",
        message="{api}: MindSpore saves and loads parameters with save_checkpoint/load_checkpoint/load_param_into_net",
        explanation="Networks and optimizers (which are Cells) are saved with save_checkpoint(cell, path) and "
                    "restored with load_param_into_net(cell, load_checkpoint(path)). Parameter names differ from "
                    "PyTorch (e.g. BatchNorm gamma/beta/moving_mean/moving_variance), so .pth files need a name "
                    "map to be converted.",
        example=('torch.save(model.state_dict(), "m.pth")', 'mindspore.save_checkpoint(model, "m.ckpt")'),
        trigger={"apis": ["torch.save", "torch.load"],
                 "methods": {"names": ["state_dict", "load_state_dict"],
                             "receivers": ["module", "optimizer", "scheduler", "unknown"]}}, check=None,
    ),
    # ---- autograd ----------------------------------------------------------------------------------
    dict(
        id="MS-NO-GRAD", title="no_grad / enable_grad / set_grad_enabled", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#torch-no-grad", mindspore="(removed)",
        message="{api} is not needed: MindSpore records nothing during the forward pass",
        explanation="MindSpore builds the backward graph only when a gradient function is called, so a forward "
                    "pass is always in 'no_grad' mode and gradient functions always in 'enable_grad' mode. The "
                    "context managers/decorators are dropped.",
        example=("with torch.no_grad():\n    y = net(x)", "y = net(x)"),
        trigger={"apis": ["torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled", "torch.inference_mode",
                          "torch.autograd.no_grad", "torch.autograd.enable_grad"]}, check=None,
    ),
    dict(
        id="MS-RETAIN-GRAPH", title="backward(retain_graph=True)", severity="warning", status="manual",
        autofix=False, versions=("1.6", None), guide=TYPICAL_EN + "#retain-graph", mindspore="mindspore.grad",
        message="retain_graph has no meaning in MindSpore: a gradient function can simply be called again",
        explanation="The backward graph built by grad/value_and_grad stays in the compiled graph; calling the "
                    "gradient function again recomputes gradients, so there is nothing to retain.",
        example=("loss.backward(retain_graph=True)", "grads = grad_fn(x)  # call again when needed"),
        trigger={"methods": {"names": ["backward"], "receivers": TENSORISH},
                 "apis": ["torch.autograd.backward", "torch.autograd.grad"]}, check="uses_retain_graph",
    ),
    dict(
        id="MS-HIGHER-ORDER-GRAD", title="higher-order gradients (create_graph=True)", severity="warning",
        status="manual", autofix=False, versions=("1.6", None), guide=TYPICAL_EN + "#high-order-derivatives",
        mindspore="nested mindspore.grad",
        message="higher-order derivatives are taken by applying grad to a gradient function",
        explanation="With create_graph=True PyTorch records the backward pass to differentiate it again. In "
                    "MindSpore, grad(grad(f)) gives the second derivative directly.",
        example=("g = torch.autograd.grad(y, x, create_graph=True)", "g2 = mindspore.grad(mindspore.grad(f))(x)"),
        trigger={"apis": ["torch.autograd.grad", "torch.autograd.backward"],
                 "methods": {"names": ["backward"], "receivers": TENSORISH}}, check="uses_create_graph",
    ),
    dict(
        id="MS-AUTOGRAD-GRAD", title="torch.autograd.grad / torch.autograd.backward", severity="warning",
        status="manual", autofix=False, versions=("1.6", None), guide=PT_COMPARE + "#torch-autograd-grad",
        mindspore="mindspore.grad / mindspore.value_and_grad",
        message="{api} becomes a gradient function: mindspore.grad(fn, grad_position=...)(inputs)",
        explanation="MindSpore differentiates functions, not recorded tensors: wrap the computation in a function "
                    "and call grad/value_and_grad on it (GradOperation before 2.0). With several outputs, only the "
                    "first one is differentiated when has_aux=True; otherwise all outputs contribute.",
        example=("dx, = torch.autograd.grad(z, x)", "dx = mindspore.grad(f, grad_position=0)(x, y)"),
        trigger={"apis": ["torch.autograd.grad", "torch.autograd.backward"]}, check=None,
    ),
    dict(
        id="MS-BACKWARD-GRADIENT", title="backward(gradient)", severity="warning", status="manual", autofix=False,
        versions=("1.6", None), guide=TYPICAL_EN + "#pytorch-automatic-differentiation",
        mindspore="mindspore.ops.GradOperation(sens_param=True) / mindspore.vjp",
        message="backward with an explicit gradient is a vector-Jacobian product; use vjp or sens_param",
        explanation="y.backward(v) seeds the backward pass with v. MindSpore expresses this as mindspore.vjp or a "
                    "GradOperation with sens_param=True that takes the seed as an extra input.",
        example=("y.backward(v)", "_, vjp_fn = mindspore.vjp(f, x); dx = vjp_fn(v)"),
        trigger={"methods": {"names": ["backward"], "receivers": TENSORISH}}, check="backward_with_gradient",
    ),
    dict(
        id="MS-CUSTOM-AUTOGRAD", title="custom autograd.Function", severity="error", status="manual", autofix=False,
        versions=("1.6", None), guide=MODEL_CELL + "#自定义反向", mindspore="mindspore.nn.Cell.bprop",
        message="class {cls} is a custom autograd.Function: write it as a Cell with a bprop method",
        explanation="A custom backward in MindSpore is a bprop(self, *inputs, out, dout) method on a Cell, "
                    "returning one gradient per input. In PyNative mode call set_grad() on the cell so the forward "
                    "is not run twice (which would, for instance, update BatchNorm statistics twice).",
        example=("class F(torch.autograd.Function):\n    @staticmethod\n    def backward(ctx, g): ...",
                 "class F(nn.Cell):\n    def bprop(self, x, out, dout): ..."),
        trigger={"events": ["class:function"]}, check=None,
    ),
    dict(
        id="MS-TRAIN-LOOP", title="zero_grad / backward / step training loop", severity="error", status="review",
        autofix=True, versions=("1.6", None), guide=PT_COMPARE + "#优化器的执行和使用差异",
        mindspore="mindspore.value_and_grad + optimizer(grads)",
        message="loss.backward() has no MindSpore counterpart: compute gradients with value_and_grad and apply "
                "them with optimizer(grads)",
        explanation="PyTorch accumulates gradients into .grad (hence zero_grad) and step() applies them. MindSpore "
                    "computes gradients functionally: grad_fn = value_and_grad(forward_fn, None, "
                    "optimizer.parameters); loss, grads = grad_fn(x, y); optimizer(grads). Before 2.0 the same is "
                    "done with GradOperation / TrainOneStepCell.",
        example=("optimizer.zero_grad(); loss = loss_fn(net(x), y); loss.backward(); optimizer.step()",
                 "loss, grads = grad_fn(x, y); optimizer(grads)"),
        trigger={"methods": {"names": ["backward"], "receivers": TENSORISH}}, check="plain_backward",
    ),
    dict(
        id="MS-OPTIM-STEP", title="optimizer.zero_grad() / optimizer.step()", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=PT_COMPARE + "#优化器的执行和使用差异", mindspore="optimizer(grads)",
        message="optimizer.{method}() disappears: gradients are not accumulated, the optimizer is called with them",
        explanation="Gradients returned by value_and_grad are fresh on every call, so zero_grad has nothing to "
                    "clear; optimizer(grads) replaces step().",
        example=("optimizer.step()", "optimizer(grads)"),
        trigger={"methods": {"names": ["zero_grad", "step"], "receivers": ["optimizer"]}}, check=None,
    ),
    dict(
        id="MS-MULTI-OUTPUT-LOSS", title="losses with several outputs (has_aux)", severity="warning", status="converted",
        autofix=True, versions=("2.0", None), guide=MODEL_CELL + "#基础逻辑", mindspore="value_and_grad(..., has_aux=True)",
        # the converter's forward function returns the loss alone (training/steps.py), so only it is differentiated
        message="the step's forward gives several values and only the loss may be differentiated: the converted "
                "step differentiates the loss alone (value_and_grad(..., has_aux=True) when the others are used)",
        explanation="MindSpore's grad differentiates the sum of all outputs of the function unless has_aux=True, "
                    "in which case only the first output is differentiated and the rest are returned unchanged.",
        example=("loss, acc = step(x); loss.backward()", "grad_fn = value_and_grad(fn, None, params, has_aux=True)"),
        trigger={"methods": {"names": ["backward"], "receivers": TENSORISH}}, check="backward_on_tuple_member",
    ),
    dict(
        id="MS-PARAM-GRAD", title="reading .grad", severity="warning", status="manual", autofix=False,
        versions=("1.6", None), guide=TYPICAL_EN + "#pytorch-automatic-differentiation", mindspore="grads from value_and_grad",
        message=".grad is not filled in MindSpore: use the gradients returned by the gradient function",
        explanation="Parameters carry no .grad attribute; gradient clipping, logging or manual updates work on the "
                    "tuple of gradients value_and_grad returns.",
        example=("for p in net.parameters(): p.grad.clamp_(-1, 1)", "grads = ops.clip_by_global_norm(grads, 1.0)"),
        trigger={"events": ["attr:grad"]}, check=None,
    ),
    dict(
        id="MS-REQUIRES-GRAD", title="requires_grad=False vs stop_gradient", severity="warning", status="review",
        autofix=True, versions=("1.6", None), guide=MODEL_CELL + "#梯度冻结",
        mindspore="Parameter.requires_grad / mindspore.ops.stop_gradient",
        message="freezing: Parameter.requires_grad=False skips the update but still back-propagates; "
                "ops.stop_gradient cuts the graph (faster, only valid when nothing before it trains)",
        explanation="Setting requires_grad=False on MindSpore Parameters excludes them from trainable_params while "
                    "the backward pass still runs through them. ops.stop_gradient applied to a tensor in construct "
                    "stops the backward pass there, which is equivalent only when no trainable parameter comes "
                    "before that point.",
        example=("p.requires_grad = False", "p.requires_grad = False  # or x = ops.stop_gradient(x)"),
        trigger={"methods": {"names": ["requires_grad_", "detach"], "receivers": ["tensor", "module"]},
                 "events": ["assign:requires_grad"]}, check=None,
    ),
    # ---- layers -------------------------------------------------------------------------------------
    dict(
        id="MS-DROPOUT-P", title="Dropout probability: drop vs keep", severity="error", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#nn-dropout", mindspore="mindspore.nn.Dropout",
        message="Dropout's first positional parameter is keep_prob in MindSpore (the probability to KEEP); "
                "write {fix}",
        explanation="torch p is the probability of zeroing an element. MindSpore's Dropout was built around "
                    "keep_prob = 1 - p; since 2.0 it also accepts p= with PyTorch's meaning, but keep_prob is still "
                    "the first positional parameter, so Dropout(0.2) copied verbatim keeps only 20% of the units.",
        example=("nn.Dropout(0.2)", "nn.Dropout(p=0.2)  # 2.x;  nn.Dropout(keep_prob=0.8)  # 1.x"),
        trigger={"apis": ["torch.nn.Dropout", "torch.nn.Dropout1d", "torch.nn.Dropout2d", "torch.nn.Dropout3d",
                          "torch.nn.functional.dropout", "torch.nn.functional.dropout2d",
                          "torch.nn.functional.dropout3d"]}, check="dropout_fix",
    ),
    dict(
        id="MS-BN-MOMENTUM", title="BatchNorm momentum is 1 - m", severity="error", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#nn-batchnorm2d", mindspore="mindspore.nn.BatchNorm2d",
        message="BatchNorm momentum means the opposite in MindSpore: momentum={value} must become momentum={fixed}",
        explanation="MindSpore updates moving = momentum * moving + (1 - momentum) * batch, PyTorch weighs the "
                    "batch by momentum: momentum_mindspore = 1 - momentum_pytorch. The defaults (0.1 vs 0.9) "
                    "already agree; an explicit value must be converted. momentum=None (cumulative average) has "
                    "no counterpart.",
        example=("nn.BatchNorm2d(6, momentum=0.1)", "nn.BatchNorm2d(6, momentum=0.9)"),
        trigger={"apis": BATCHNORM}, check="bn_momentum",
    ),
    dict(
        id="MS-BN-TRACK-STATS", title="track_running_stats vs use_batch_statistics", severity="warning",
        status="review", autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#nn-batchnorm2d",
        mindspore="use_batch_statistics",
        message="track_running_stats=False becomes use_batch_statistics=True (batch statistics in every mode)",
        explanation="PyTorch's four training/track_running_stats combinations reduce to MindSpore's "
                    "use_batch_statistics: None follows the cell's training mode, True always normalises with the "
                    "batch statistics, False always with the moving ones.",
        example=("nn.BatchNorm2d(8, track_running_stats=False)", "nn.BatchNorm2d(8, use_batch_statistics=True)"),
        trigger={"apis": BATCHNORM}, check="bn_track_stats",
    ),
    dict(
        id="MS-BN-PARAM-NAMES", title="BatchNorm parameter names", severity="warning", status="review",
        autofix=False, versions=("1.6", None), guide=TYPICAL_EN + "#nn-batchnorm2d",
        mindspore="gamma / beta / moving_mean / moving_variance",
        message=".{attr}: MindSpore's BatchNorm calls its statistics moving_mean/moving_variance (and weight/bias "
                "gamma/beta)",
        explanation="Code that reads running_mean/running_var/num_batches_tracked, or checkpoints keyed by those "
                    "names, need renaming: running_mean -> moving_mean, running_var -> moving_variance, weight -> "
                    "gamma, bias -> beta; num_batches_tracked has no counterpart.",
        example=("bn.running_mean", "bn.moving_mean"),
        trigger={"events": ["attr:running_mean", "attr:running_var", "attr:num_batches_tracked"]}, check=None,
    ),
    dict(
        id="MS-TRANSPOSE", title="transpose swaps two axes, MindSpore transpose permutes all", severity="error",
        status="converted", autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#ops-transpose",
        mindspore="mindspore.ops.swapaxes / mindspore.ops.transpose",
        message="torch transpose(dim0, dim1) swaps two axes; MindSpore's transpose takes a full permutation: use "
                "swapaxes",
        explanation="MindSpore's transpose is PyTorch's permute (a full axis order). A two-axis swap becomes "
                    "ops.swapaxes(x, dim0, dim1) (or a permutation built for the tensor's rank).",
        example=("x.transpose(1, 2)", "ops.swapaxes(x, 1, 2)"),
        trigger={"apis": ["torch.transpose"], "methods": {"names": ["transpose"], "receivers": TENSORISH}}, check=None,
    ),
    dict(
        id="MS-PERMUTE", title="permute is MindSpore's transpose", severity="info", status="converted", autofix=True,
        versions=("1.6", None), guide=TYPICAL_EN + "#ops-transpose", mindspore="mindspore.ops.transpose",
        message="permute(...) corresponds to MindSpore's transpose with the same axis order",
        explanation="Both take the full order of axes; only the name differs (newer releases also have "
                    "Tensor.permute).",
        example=("x.permute(0, 2, 3, 1)", "ops.transpose(x, (0, 2, 3, 1))"),
        trigger={"apis": ["torch.permute"], "methods": {"names": ["permute"], "receivers": TENSORISH}}, check=None,
    ),
    dict(
        id="MS-CONV-PADMODE", title="Conv pad_mode defaults to 'same'", severity="error", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#conv-and-pooling", mindspore="pad_mode='pad'/'valid'",
        message="MindSpore's {layer} pads with pad_mode='same' by default; this call needs {fix} to match PyTorch",
        explanation="PyTorch convolutions pad explicitly (padding=0 by default). MindSpore's default pad_mode is "
                    "'same', which changes the output size; use pad_mode='valid' for no padding and "
                    "pad_mode='pad', padding=n for explicit padding. padding_mode other than 'zeros' needs an "
                    "explicit ops.pad.",
        example=("nn.Conv2d(1, 6, 5)", "nn.Conv2d(1, 6, 5, pad_mode='valid', has_bias=True)"),
        trigger={"apis": CONV}, check="conv_pad_mode",
    ),
    dict(
        id="MS-POOL-PADDING", title="pooling padding", severity="warning", status="review", autofix=True,
        versions=("1.6", None), guide=TYPICAL_EN + "#conv-and-pooling", mindspore="pad_mode='pad'",
        message="pooling with padding={value}: MindSpore needs pad_mode='pad' (or an explicit ops.pad)",
        explanation="MindSpore pooling layers default to pad_mode='valid'. Explicit padding needs pad_mode='pad' "
                    "where the release supports it, otherwise pad the input first. ceil_mode also needs checking.",
        example=("nn.MaxPool2d(3, 2, padding=1)", "nn.MaxPool2d(3, 2, pad_mode='pad', padding=1)"),
        trigger={"apis": POOL}, check="pool_padding",
    ),
    dict(
        id="MS-PAD-ODD", title="'same' padding with an odd total puts the extra row right/bottom", severity="warning",
        status="review", autofix=False, versions=("1.6", None), guide=TYPICAL_EN + "#conv-and-pooling",
        mindspore="ops.pad + pad_mode='valid'",
        message="with 'same' padding an odd amount of padding is placed right/bottom by MindSpore but left/top by "
                "PyTorch; pad explicitly to keep pretrained weights aligned",
        explanation="When the total padding is odd, MindSpore (like TensorFlow) puts the extra element at the "
                    "right/bottom, PyTorch at the left/top. Outputs differ at the borders, which matters when "
                    "loading PyTorch weights. Pad with ops.pad and use pad_mode='valid' to match exactly.",
        example=("nn.Conv2d(3, 8, 4, padding='same')", "ops.pad(x, (1, 2, 1, 2)); nn.Conv2d(3, 8, 4, pad_mode='valid')"),
        trigger={"apis": CONV + POOL}, check="same_padding_odd",
    ),
    dict(
        id="MS-CONV-BIAS", title="Conv has_bias defaults to False", severity="error", status="converted",
        autofix=True, versions=("1.6", None), guide=MODEL_CELL + "#单元测试", mindspore="has_bias=True",
        message="MindSpore's {layer} has no bias unless has_bias=True; PyTorch adds one by default",
        explanation="torch.nn.Conv* default to bias=True, MindSpore's Conv layers to has_bias=False. Without "
                    "has_bias=True the converted layer silently loses its bias.",
        example=("nn.Conv2d(3, 8, 3)", "nn.Conv2d(3, 8, 3, pad_mode='valid', has_bias=True)"),
        trigger={"apis": CONV}, check="conv_bias_default",
    ),
    dict(
        id="MS-DEFAULT-WEIGHT-INIT", title="default weight initialisation", severity="warning", status="review",
        autofix=False, versions=("1.6", "2.3"), guide=TYPICAL_EN + "#different-default-weight-initialization",
        mindspore="weight_init=HeUniform(math.sqrt(5))",
        message="{layer}: MindSpore releases before 2.3 initialise weights N(0, 1) / bias zeros, PyTorch uses "
                "Kaiming-uniform; pass weight_init/bias_init to match",
        explanation="Older MindSpore releases declared Conv and Dense weights with a normal distribution and zero "
                    "bias, while PyTorch draws both from U(-sqrt(k), sqrt(k)). Networks without normalisation may "
                    "not converge. The r2.4 guide documents the same distributions as PyTorch.",
        example=("nn.Linear(100, 10)", "nn.Dense(100, 10, weight_init=HeUniform(math.sqrt(5)))"),
        trigger={"apis": CONV + ["torch.nn.Linear", "torch.nn.Embedding", "torch.nn.LSTM", "torch.nn.GRU"]},
        check=None,
    ),
    dict(
        id="MS-INIT-API", title="nn.init.* vs mindspore.common.initializer", severity="warning", status="review",
        autofix=True, versions=("1.6", None), guide=MODEL_CELL + "#parameter初始化api对比",
        mindspore="param.set_data(initializer(...))",
        message="{api} initialises in place; MindSpore builds a lazily initialised tensor: "
                "param.set_data(initializer(Init(), param.shape, param.dtype))",
        explanation="torch.nn.init functions fill the given tensor in place. mindspore.common.initializer returns a "
                    "tensor whose data is only produced by init_data() (it counts as zeros if used before), so the "
                    "result must be assigned with set_data.",
        example=("nn.init.xavier_uniform_(m.weight)",
                 "m.weight.set_data(initializer(XavierUniform(), m.weight.shape, m.weight.dtype))"),
        trigger={"prefixes": ["torch.nn.init."]}, check="not_calculate_gain",
    ),
    dict(
        id="MS-INIT-CALCULATE-GAIN", title="nn.init.calculate_gain", severity="error", status="manual",
        autofix=False, versions=("1.6", None), guide=MODEL_CELL + "#parameter初始化api对比", mindspore="",
        message="calculate_gain has no MindSpore counterpart: compute the gain value yourself",
        explanation="Every torch.nn.init function has an initializer counterpart except calculate_gain; replace it "
                    "with the constant for the nonlinearity (e.g. sqrt(2) for relu).",
        example=("gain = nn.init.calculate_gain('relu')", "gain = math.sqrt(2.0)"),
        trigger={"apis": ["torch.nn.init.calculate_gain"]}, check=None,
    ),
    # ---- mixed precision ----------------------------------------------------------------------------
    dict(
        id="MS-AMP-HALF", title="half()/.to(dtype) on modules", severity="warning", status="review", autofix=True,
        versions=("1.6", None), guide=MODEL_CELL + "#手动混合精度", mindspore="mindspore.nn.Cell.to_float",
        message="casting a network's precision becomes cell.to_float(dtype), which casts the cell's inputs",
        explanation="to_float(mindspore.float16) makes a cell and its children compute in float16 by casting their "
                    "inputs; keep BatchNorm and the loss in float32 with to_float(mindspore.float32). It conflicts "
                    "with Model's amp_level: use one or the other.",
        example=("net.half()", "net.to_float(mindspore.float16)"),
        trigger={"methods": {"names": ["half", "to", "bfloat16"], "receivers": ["module"]}}, check="is_dtype_cast",
    ),
    dict(
        id="MS-AMP-AUTOCAST", title="autocast", severity="warning", status="manual", autofix=False,
        versions=("1.6", None), guide=MODEL_CELL + "#手动混合精度", mindspore="amp_level / mindspore.amp.auto_mixed_precision",
        message="autocast has no context-manager counterpart: choose an amp_level or to_float per cell",
        explanation="MindSpore applies mixed precision to a network as a whole (Model(amp_level='O2'), "
                    "amp.auto_mixed_precision) or per cell with to_float, not to a block of code.",
        example=("with torch.autocast('cuda'):\n    out = net(x)", "net = mindspore.amp.auto_mixed_precision(net, 'O2')"),
        trigger={"apis": ["torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast"]},
        check=None,
    ),
    dict(
        id="MS-AMP-GRADSCALER", title="GradScaler (loss scaling)", severity="warning", status="manual", autofix=False,
        versions=("1.6", None), guide=TRAIN_FLOW + "#trainonestepcell",
        mindspore="mindspore.amp.DynamicLossScaler / nn.TrainOneStepWithLossScaleCell",
        message="GradScaler becomes a loss scaler (amp.DynamicLossScaler / TrainOneStepWithLossScaleCell)",
        explanation="Loss scaling is done by a loss-scale manager passed to Model or by "
                    "TrainOneStepWithLossScaleCell; in functional training, scale the loss and unscale the "
                    "gradients with mindspore.amp.DynamicLossScaler and check overflow with all_finite.",
        example=("scaler.scale(loss).backward()", "loss = scaler.scale(loss); grads = scaler.unscale(grads)"),
        trigger={"apis": ["torch.cuda.amp.GradScaler", "torch.amp.GradScaler"]}, check=None,
    ),
    # ---- optimizers and LR ---------------------------------------------------------------------------
    dict(
        id="MS-OPTIM-LR", title="optimizer lr is learning_rate", severity="info", status="converted", autofix=True,
        versions=("1.6", None), guide=PT_COMPARE + "#超参差异", mindspore="learning_rate=",
        message="the learning rate argument is called learning_rate in MindSpore",
        explanation="Optimizer constructors take learning_rate instead of lr (params keeps its name); inside "
                    "parameter groups the key stays 'lr'.",
        example=("optim.SGD(params, lr=0.01)", "nn.SGD(params, learning_rate=0.01)"),
        trigger={"apis": OPTIMIZERS}, check="optimizer_lr",
    ),
    dict(
        id="MS-OPTIM-PARAMS", title="optimizers take a list, not an iterator", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=PT_COMPARE + "#超参配置方式", mindspore="net.trainable_params()",
        message="pass net.trainable_params() (a list); MindSpore optimizers do not accept a parameter iterator",
        explanation="PyTorch accepts any iterable of tensors or dicts; MindSpore needs list(Parameter) or "
                    "list(dict).",
        example=("optim.Adam(model.parameters())", "nn.Adam(model.trainable_params())"),
        trigger={"apis": OPTIMIZERS}, check="optimizer_params_iterator",
    ),
    dict(
        id="MS-OPTIM-GROUPS", title="parameter group keys", severity="error", status="manual", autofix=False,
        versions=("1.6", None), guide=PT_COMPARE + "#超参配置方式", mindspore="",
        message="parameter groups in MindSpore accept only params, lr, weight_decay, grad_centralization and "
                "order_params; this call also sets {keys}",
        explanation="PyTorch lets a group override any hyper-parameter; MindSpore's optimizers only honour a fixed "
                    "set of group keys. Other per-group settings need separate optimizers or a custom one.",
        example=("optim.SGD([{'params': a, 'momentum': 0.5}], lr=0.1)", "# split into two optimizers"),
        trigger={"apis": OPTIMIZERS}, check="optimizer_group_keys",
    ),
    dict(
        id="MS-OPTIM-UNSUPPORTED", title="optimizers without a MindSpore counterpart", severity="error",
        status="manual", autofix=False, versions=("1.6", None), guide=PT_COMPARE + "#优化器支持差异", mindspore="",
        message="{api} has no MindSpore optimizer (neither mindspore.nn nor mindspore.experimental.optim has LBFGS)",
        explanation="The comparison guide lists LBFGS, NAdam and RAdam as unsupported by the classic optimizers; "
                    "mindspore.experimental.optim has since added NAdam and RAdam, but not LBFGS. Pick another "
                    "optimizer or implement the update rule as a custom Optimizer.",
        example=("optim.LBFGS(params)", "nn.Adam(params)  # or a custom optimizer"),
        trigger={"apis": ["torch.optim.LBFGS"]}, check=None,
    ),
    dict(
        id="MS-OPTIM-RUNTIME-CHANGE", title="changing param_groups during training", severity="error",
        status="manual", autofix=False, versions=("1.6", None), guide=PT_COMPARE + "#运行时超参修改",
        mindspore="dynamic learning rate / weight decay Cells",
        message="optimizer.param_groups cannot be edited at run time in MindSpore; pass a schedule instead",
        explanation="MindSpore's optimizers fix their hyper-parameters at construction. Learning rate and weight "
                    "decay can vary by passing a list or a LearningRateSchedule/Cell computing them from the step.",
        example=("for g in opt.param_groups: g['lr'] *= 0.1", "nn.SGD(params, learning_rate=nn.exponential_decay_lr(...))"),
        trigger={"events": ["attr:param_groups"]}, check="classic_optimizer_groups",
    ),
    dict(
        id="MS-LR-SCHEDULER", title="LR schedulers", severity="warning", status="manual", autofix=False,
        versions=("1.6", None), guide=TYPICAL_EN + "#learning-rate-update",
        mindspore="dynamic LR list or LearningRateSchedule passed to the optimizer",
        message="{api}: the learning rate schedule is given to the MindSpore optimizer up front",
        explanation="MindSpore has no scheduler object stepping an optimizer; the optimizer takes a list of "
                    "per-step rates (nn.piecewise_constant_lr, nn.exponential_decay_lr...) or a "
                    "LearningRateSchedule Cell and advances it on every call. Epoch-based schedules must be "
                    "expanded to steps.",
        example=("StepLR(opt, step_size=10, gamma=0.5)", "nn.SGD(params, learning_rate=nn.piecewise_constant_lr(...))"),
        trigger={"prefixes": ["torch.optim.lr_scheduler."]}, check="not_lambda_lr",
    ),
    dict(
        id="MS-LR-LAMBDA", title="LambdaLR", severity="error", status="manual", autofix=False,
        versions=("1.6", None), guide=PT_COMPARE + "#自定义学习率差异", mindspore="LearningRateSchedule subclass",
        message="LambdaLR has no counterpart: precompute the per-step list or subclass LearningRateSchedule",
        explanation="Compute the learning rates with a Python function into a list, or write a "
                    "LearningRateSchedule whose construct(global_step) returns the rate.",
        example=("LambdaLR(opt, lambda e: e // 5)", "nn.SGD(params, learning_rate=[lr * (i // 50) for i in range(n)])"),
        trigger={"apis": ["torch.optim.lr_scheduler.LambdaLR", "torch.optim.lr_scheduler.MultiplicativeLR"]},
        check=None,
    ),
    dict(
        id="MS-LR-STEP", title="scheduler.step()", severity="info", status="converted", autofix=True,
        versions=("1.6", None), guide=TYPICAL_EN + "#learning-rate-update", mindspore="(removed)",
        message="scheduler.step() disappears: the optimizer advances its schedule on every call",
        explanation="The step counter lives inside the MindSpore optimizer; nothing has to be stepped by hand.",
        example=("scheduler.step()", "# nothing"),
        trigger={"methods": {"names": ["step"], "receivers": ["scheduler"]}}, check=None,
    ),
    dict(
        id="MS-LR-READ", title="reading the current learning rate", severity="warning", status="manual",
        autofix=False, versions=("1.6", None), guide=PT_COMPARE + "#学习率获取", mindspore="",
        message="{method}(): MindSpore has no direct way to read the current learning rate",
        explanation="The guide notes there is no interface to query the current rate; compute it from the "
                    "schedule and the step, or evaluate the LearningRateSchedule yourself.",
        example=("scheduler.get_last_lr()", "lr_schedule(global_step)"),
        trigger={"methods": {"names": ["get_last_lr", "get_lr", "print_lr"], "receivers": ["scheduler", "unknown"]}},
        check=None,
    ),
    # ---- randomness --------------------------------------------------------------------------------
    dict(
        id="MS-SEED", title="manual_seed vs set_seed", severity="warning", status="review", autofix=True,
        versions=("1.6", None), guide=MODEL_CELL + "#随机种子和生成器", mindspore="mindspore.set_seed",
        message="{api} becomes mindspore.set_seed; the random streams differ, so numbers will not match PyTorch's",
        explanation="MindSpore has a global (graph-level) seed and per-operator seeds. The same seed reproduces "
                    "MindSpore runs, not PyTorch's numbers; two calls of one random op in a program give "
                    "different values.",
        example=("torch.manual_seed(0)", "mindspore.set_seed(0)"),
        trigger={"apis": ["torch.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all", "torch.seed",
                          "torch.random.manual_seed"]}, check=None,
    ),
    dict(
        id="MS-GENERATOR", title="torch.Generator", severity="warning", status="manual", autofix=False,
        versions=("1.6", "2.10"), guide=MODEL_CELL + "#随机种子和生成器", mindspore="seed arguments / mindspore.Generator",
        message="torch.Generator objects have no direct counterpart in the classic API: use seeds",
        explanation="PyTorch threads Generator objects (with get_state/set_state) through random calls; MindSpore "
                    "controls randomness with the global seed and op-level seed arguments.",
        example=("g = torch.Generator().manual_seed(0)", "mindspore.set_seed(0)"),
        trigger={"apis": ["torch.Generator"]}, check=None,
    ),
    dict(
        id="MS-RANDOM-INPLACE", title="in-place random fills", severity="error", status="manual", autofix=False,
        versions=("1.6", None), guide=MODEL_CELL + "#随机数api对比", mindspore="mindspore.ops random functions",
        message=".{method}() fills a tensor in place; MindSpore has no in-place random API: create a new tensor",
        explanation="Tensor.random_ is missing in MindSpore because tensors are not modified in place; draw a new "
                    "tensor with ops.uniform/ops.standard_normal/... and assign it.",
        example=("x.random_(0, 10)", "x = ops.randint(0, 10, x.shape)"),
        trigger={"methods": {"names": ["random_", "uniform_", "normal_", "bernoulli_", "exponential_", "geometric_",
                                       "cauchy_", "log_normal_"], "receivers": TENSORISH}}, check=None,
    ),
    # ---- data ------------------------------------------------------------------------------------------
    dict(
        id="MS-DATALOADER", title="DataLoader vs GeneratorDataset + batch", severity="warning", status="review",
        autofix=True, versions=("1.6", None), guide=TRAIN_FLOW + "#构建数据集",
        mindspore="mindspore.dataset.GeneratorDataset(...).batch(...)",
        message="DataLoader becomes GeneratorDataset(source, column_names, shuffle=...).batch(batch_size, "
                "drop_remainder=...)",
        explanation="GeneratorDataset yields single samples; batching options (batch_size, drop_last, collate_fn, "
                    "batch_sampler) move to .batch(). num_workers becomes num_parallel_workers; sharding for "
                    "distributed runs is num_shards/shard_id.",
        example=("DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)",
                 "GeneratorDataset(ds, ['x', 'y'], shuffle=True).batch(32, drop_remainder=True)"),
        trigger={"apis": ["torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"]}, check=None,
    ),
    dict(
        id="MS-DATASET-CLASS", title="Dataset subclasses", severity="info", status="converted", autofix=True,
        versions=("1.6", None), guide=TRAIN_FLOW + "#构建数据集", mindspore="plain class + GeneratorDataset",
        message="class {cls} derives from torch Dataset: keep __getitem__/__len__ on a plain class and wrap it in "
                "GeneratorDataset (return numpy arrays)",
        explanation="MindSpore needs no base class for random-access sources: any object with __getitem__ and "
                    "__len__ works with GeneratorDataset.",
        example=("class DS(Dataset): ...", "class DS: ...; GeneratorDataset(DS(), ['x', 'y'])"),
        trigger={"events": ["class:dataset"]}, check=None,
    ),
    dict(
        id="MS-SAMPLER", title="samplers", severity="warning", status="manual", autofix=False,
        versions=("1.6", None), guide=TRAIN_FLOW + "#构建数据集", mindspore="num_shards/shard_id or mindspore.dataset samplers",
        message="{api}: shuffling and sharding are GeneratorDataset arguments (shuffle, num_shards, shard_id) or "
                "mindspore.dataset samplers",
        explanation="DistributedSampler becomes num_shards=group size, shard_id=rank; other samplers map to "
                    "mindspore.dataset's samplers passed as sampler=.",
        example=("DistributedSampler(ds)", "GeneratorDataset(ds, cols, num_shards=size, shard_id=rank)"),
        trigger={"prefixes": ["torch.utils.data.distributed.", "torch.utils.data.sampler."],
                 "apis": ["torch.utils.data.DistributedSampler", "torch.utils.data.RandomSampler",
                          "torch.utils.data.SequentialSampler", "torch.utils.data.WeightedRandomSampler",
                          "torch.utils.data.SubsetRandomSampler", "torch.utils.data.BatchSampler"]}, check=None,
    ),
    # ---- distributed ---------------------------------------------------------------------------------
    dict(
        id="MS-DIST-INIT", title="init_process_group and rank queries", severity="warning", status="manual",
        autofix=False, versions=("1.6", None), guide=TYPICAL_EN + "#distributed-scenarios",
        mindspore="mindspore.communication.init / get_rank / get_group_size",
        message="{api}: MindSpore initialises communication with communication.init() and reads ranks with "
                "get_rank/get_group_size",
        explanation="The backend and rendezvous come from the launcher (msrun/mpirun) and environment; "
                    "world size is get_group_size().",
        example=('dist.init_process_group("nccl")', "from mindspore.communication import init; init()"),
        trigger={"prefixes": ["torch.distributed."]}, check=None,
    ),
    dict(
        id="MS-DIST-DDP", title="DistributedDataParallel", severity="error", status="manual", autofix=False,
        versions=("1.6", None), guide=TYPICAL_EN + "#distributed-scenarios",
        mindspore="set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)",
        message="DistributedDataParallel is a context setting in MindSpore, not a wrapper",
        explanation="Set parallel_mode=DATA_PARALLEL (gradients_mean=True) in set_auto_parallel_context after "
                    "communication.init(); gradient all-reduce is inserted by the framework (or "
                    "nn.DistributedGradReducer in functional training).",
        example=("model = DDP(model, device_ids=[rank])",
                 "mindspore.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)"),
        trigger={"apis": ["torch.nn.parallel.DistributedDataParallel"]}, check=None,
    ),
    dict(
        id="MS-DIST-SPAWN", title="mp.spawn launching", severity="error", status="manual", autofix=False,
        versions=("1.6", None), guide=TYPICAL_EN + "#distributed-scenarios", mindspore="msrun / mpirun launcher",
        message="{api}: MindSpore processes are started by a launcher (msrun, mpirun), not spawned by the script",
        explanation="Each process runs the script and calls communication.init(); MASTER_ADDR/MASTER_PORT style "
                    "rendezvous is the launcher's job.",
        example=("mp.spawn(example, args=(2,), nprocs=2)", "msrun --worker_num=2 train.py"),
        trigger={"apis": ["torch.multiprocessing.spawn"], "events": ["env:MASTER_ADDR", "env:MASTER_PORT"]},
        check=None,
    ),
    dict(
        id="MS-PARTIAL-DEVICE", title="device= bound with functools.partial", severity="warning", status="converted",
        autofix=True, versions=("1.6", None), guide=TYPICAL_EN + "#data-size", mindspore="",
        message="functools.partial({api}, device=...) would pass device= to MindSpore's counterpart, which takes none: "
                "the converter drops it (placement follows set_context)",
        explanation="A keyword bound by partial reaches the converted function on every call; MindSpore places "
                    "tensors by the process's device context, not per call.",
        example=("make = partial(torch.arange, device=dev)", "make = partial(ops.arange)"),
        trigger={"events": ["partial:device"]}, check=None,
    ),
    dict(
        id="MS-DATASET-ATTR", title="attributes of a torchvision dataset object", severity="warning", status="manual",
        autofix=False, versions=("1.6", None), guide=TYPICAL_EN + "#data-size", mindspore="create_tuple_iterator",
        message=".{attr} of a torchvision dataset: MindSpore's dataset object has no such attribute; read the samples "
                "by iterating it (create_tuple_iterator / create_dict_iterator) or load the files with numpy",
        explanation="torchvision's MNIST keeps the whole tensor in .data/.targets (.train_data/.train_labels in old "
                    "releases); MindSpore's MnistDataset is a pipeline that yields rows.",
        example=("images = train_data.train_data", "images = np.stack([img for img, _ in ds.create_tuple_iterator(output_numpy=True)])"),
        trigger={"events": ["dataset:attr"]}, check=None,
    ),
    dict(
        id="MS-TRANSFORM-IN-MODEL", title="torchvision transforms used as part of a network", severity="warning",
        status="manual", autofix=False, versions=("1.6", None), guide=TYPICAL_EN + "#data-size",
        mindspore="mindspore.dataset.vision",
        message="{api} is used as part of a network: MindSpore's counterparts (mindspore.dataset.vision) run in the "
                "dataset pipeline on NumPy images, not inside a Cell, and no gradient flows through them; apply it "
                "with dataset.map, or write it with ops in the cell",
        explanation="torchvision's tensor transforms are modules PyTorch can put in nn.Sequential or call in forward. "
                    "mindspore.dataset.vision operations are dataset operations: nn.SequentialCell refuses them, "
                    "they expect HWC NumPy images, and a Cell's graph cannot contain them.",
        example=("self.pre = nn.Sequential(T.Resize(224), T.Normalize(mean, std))",
                 "dataset = dataset.map(operations=[vision.Resize(224), vision.Normalize(mean, std)], "
                 "input_columns='image')"),
        trigger={"events": ["transform:model"]}, check=None,
    ),
    dict(
        id="MS-GRAPH-NUMPY", title="numpy/scipy inside forward", severity="warning", status="manual", autofix=False,
        versions=("1.6", None), guide=MODEL_CELL + "#动态图与静态图", mindspore="mindspore.ops",
        message="{api} inside forward: graph mode cannot compile numpy/scipy calls, and in PyNative they cut the "
                "gradient",
        explanation="construct is compiled in GRAPH_MODE, which does not support third-party libraries; move "
                    "constant computations to __init__ and use mindspore.ops for the rest.",
        example=("def forward(self, x): return x * np.sqrt(2)", "self.scale = math.sqrt(2)  # in __init__"),
        trigger={"events": ["forward:numpy"]}, check=None,
    ),
    dict(
        id="MS-GRAPH-CUSTOM-CLASS", title="custom classes inside forward", severity="warning", status="manual",
        autofix=False, versions=("1.6", None), guide=MODEL_CELL + "#动态图与静态图", mindspore="",
        message="{cls}(...) inside forward: graph mode only handles MindSpore types and Python basic types",
        explanation="Build such objects in __init__ or pass their contents as tuples/lists of basic types.",
        example=("def forward(self, x): box = Box(x)", "def construct(self, x): box = (x[0], x[1])"),
        trigger={"events": ["forward:custom_class"]}, check=None,
    ),
    dict(
        id="MS-GRAPH-THREADS", title="threads/processes inside forward", severity="error", status="manual",
        autofix=False, versions=("1.6", None), guide=MODEL_CELL + "#动态图与静态图", mindspore="",
        message="{api} inside forward: graph construction cannot use threads or processes",
        explanation="Remove multi-threading/multi-processing from the network computation.",
        example=("def forward(self, x): pool.map(f, x)", "def construct(self, x): return self.f(x)"),
        trigger={"events": ["forward:thread"]}, check=None,
    ),
    dict(
        id="MS-GRAPH-TO-NUMPY", title="leaving the graph inside forward", severity="warning", status="manual",
        autofix=False, versions=("1.6", None), guide=MODEL_CELL + "#动态图与静态图", mindspore="",
        message=".{method}() inside forward leaves the graph: it breaks graph compilation and stops gradients",
        explanation="Converting a tensor to numpy or a Python number inside construct is like detach in PyNative "
                    "mode and is not compiled in graph mode.",
        example=("def forward(self, x): n = x.sum().item()", "def construct(self, x): n = x.sum()"),
        trigger={"methods": {"names": ["item", "numpy", "tolist"], "receivers": TENSORISH}}, check="in_forward",
    ),
    # ---- containers and jit --------------------------------------------------------------------------
    dict(
        id="MS-CONTAINERS", title="Sequential / ModuleList / ModuleDict", severity="info", status="converted",
        autofix=True, versions=("1.6", None), guide=MODEL_CELL + "#子模块管理",
        mindspore="nn.SequentialCell / nn.CellList / nn.CellDict",
        message="{api} becomes {counterpart}",
        explanation="SequentialCell accepts a list or an OrderedDict of cells; CellList and CellDict replace "
                    "ModuleList and ModuleDict (CellDict needs MindSpore 2.0 or later).",
        example=("nn.Sequential(nn.ReLU(), nn.Linear(2, 2))", "nn.SequentialCell([nn.ReLU(), nn.Dense(2, 2)])"),
        trigger={"apis": ["torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"]},
        check="container_counterpart",
    ),
    dict(
        id="MS-JIT", title="torch.jit", severity="warning", status="manual", autofix=False, versions=("1.6", None),
        guide=MODEL_CELL + "#动态图与静态图", mindspore="mindspore.jit / GRAPH_MODE",
        message="{api}: use mindspore.jit (or GRAPH_MODE) to compile; TorchScript files cannot be loaded",
        explanation="MindSpore compiles construct or @mindspore.jit functions to a static graph with its own "
                    "syntax restrictions; scripted/traced modules and .pt TorchScript archives have no "
                    "counterpart (export with mindspore.export instead).",
        example=("net = torch.jit.script(net)", "mindspore.set_context(mode=mindspore.GRAPH_MODE)"),
        trigger={"prefixes": ["torch.jit."]}, check=None,
    ),
    # ---- losses and gradients -----------------------------------------------------------------------
    dict(
        id="MS-LOSS-LABEL-DTYPE", title="classification losses take int32 class indices", severity="warning",
        status="converted", autofix=True, versions=("1.6", None), guide=API_MAP, mindspore="labels.astype(mindspore.int32)",
        message="{api}: MindSpore's class-index labels must be int32, while PyTorch code passes int64 (long)",
        explanation="PyTorch's CrossEntropyLoss and NLLLoss take class indices as int64 tensors. The MindSpore "
                    "kernels reject int64 indices on CPU, so the converter casts the labels argument to int32 at the "
                    "call. Targets that are class probabilities (float) must not be cast: review those calls.",
        example=("loss = loss_fn(logits, labels)", "loss = loss_fn(logits, labels.astype(mindspore.int32))"),
        trigger={"apis": ["torch.nn.CrossEntropyLoss", "torch.nn.NLLLoss", "torch.nn.functional.cross_entropy",
                          "torch.nn.functional.nll_loss"]}, check=None,
    ),
    dict(
        id="MS-GRAD-CLIP", title="gradient clipping acts on the gradients, not the parameters", severity="warning",
        status="converted", autofix=True, versions=("1.6", None), guide=API_MAP,
        mindspore="mindspore.ops.clip_by_norm / mindspore.ops.clip_by_value",
        message="{api} clips the .grad of parameters in place; MindSpore clips the gradient tuple value_and_grad returns",
        explanation="PyTorch's clip_grad_norm_ and clip_grad_value_ rescale the gradients stored on parameters "
                    "between backward() and step(). MindSpore has no stored gradients: apply ops.clip_by_norm (one "
                    "norm over all gradients, like PyTorch) or ops.clip_by_value to the grads tuple before passing "
                    "it to the optimizer.",
        example=("loss.backward()\nclip_grad_norm_(model.parameters(), 1.0)\noptimizer.step()",
                 "loss, grads = grad_fn()\ngrads = ops.clip_by_norm(grads, 1.0)\noptimizer(grads)"),
        trigger={"apis": ["torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
                          "torch.nn.utils.clip_grad_value_", "torch.nn.utils.clip_grad.clip_grad_norm_",
                          "torch.nn.utils.clip_grad.clip_grad_value_"]}, check=None,
    ),
    # ---- reported by the converter only ------------------------------------------------------------
    dict(
        id="MS-TORCH-IMPORT", title="PyTorch still imported by converted code", severity="warning",
        status="manual", autofix=False, versions=("1.6", None), guide=API_MAP, mindspore="",
        scope="converter",
        message="the converted file still imports {api}: code using it was left unconverted",
        explanation="After conversion the converter drops every torch import nothing refers to. An import that "
                    "stays is needed by code the converter could not rewrite (each such use carries its own MIGRATE "
                    "comment); once those uses are ported by hand, delete the import so the file runs without "
                    "PyTorch installed.",
        example=("import torch  # still used by torch.frobnicate(x)", "# import removed after porting the last use"),
        trigger={}, check=None,
    ),
    dict(
        id="MS-TORCH-BOUND-IMPORT", title="Third-party package built on PyTorch", severity="warning",
        status="manual", autofix=False, versions=("1.6", None), guide=API_MAP, mindspore="",
        message="{api} is {what}: MindSpore cannot run it; {todo}",
        explanation="A package whose layers, models or training loop are written in PyTorch (accelerate, timm, "
                    "Lightning, attention packages such as linformer) keeps needing PyTorch after the repository's "
                    "own code is converted, and the converter cannot see into it. "
                    "analysis/knowledge/data/torch_bound.json says for each package what to use instead; einops's "
                    "torch layers and functions are converted (a MindSpore backend for einops is written into the "
                    "file).",
        example=("from accelerate import Accelerator", "# the step written with mindspore.value_and_grad"),
        trigger={"events": ["import:torch_bound"]}, check=None,
    ),
]
