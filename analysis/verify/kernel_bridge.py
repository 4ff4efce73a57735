"""python -m analysis.verify.kernel_bridge [--workers 2]: write knowledge/data/kernel_dtypes.json, the kernel
dtype bridge of the converter (analysis/convert/apis/kernel_dtypes.py): for each candidate API, the dtypes
PyTorch takes that MindSpore's CPU kernel refuses, and the dtype each goes through instead.

How: PyTorch's OpInfo samples of the candidates (every form, every CPU dtype; analysis/verify/samples.py) run
in PyTorch and, converted with no bridge, in MindSpore: a dtype whose converted calls raise where PyTorch's
ran is refused. Each refused dtype then tries the dtypes of WIDER in turn, converted through the bridge: the
first with which every sample of that API and dtype gives PyTorch's values, shapes and dtype (the exact dtype,
not only its class) is kept. A refused dtype no candidate bridges stays as it is ("left" in the file): the
bench goes on counting those calls. Only the samples whose conversion the bridge reaches are judged (x.round()
on a name not known to be a tensor keeps its plain form, so it says nothing about a cast).

The candidates are APIs whose result through a wider dtype is exact by their nature: selections, orderings
and comparisons (a sorted or selected element is one of the inputs, in any dtype that holds them all),
integer arithmetic widened and truncated back (two's complement wraps the same), booleans as 0/1, and float16
functions PyTorch's CPU kernels compute in float32 themselves. The samples verify each kept cast.

Complex64 and complex128, which no wider dtype holds, try the ways of COMPLEX instead (real and imaginary
parts apart, a product written out, PyTorch's complex formula: support/helper_complex.py). A complex call
counts as refused when the plain conversion gets it wrong in any way (MindSpore's abs gives a complex
result); a way is kept when it gets every complex sample right but those whose float twin (the same source in
the parts' dtype) the plain conversion gets wrong too, which fail for another reason."""
from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "knowledge" / "data" / "kernel_dtypes.json"

# why each candidate is exact through a wider dtype (torch names; Tensor methods of the same name share them)
CANDIDATES = {
    "selection": ("sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "max", "min", "amax", "amin",
                  "aminmax", "maximum", "minimum", "fmax", "fmin", "cummax", "cummin", "mode", "unique",
                  "searchsorted", "bucketize", "count_nonzero", "any", "all"),
    "rearrangement": ("diag", "diag_embed", "diagflat", "diagonal", "repeat_interleave", "tril", "triu", "flip",
                      "fliplr", "flipud", "roll", "rot90", "conj", "heaviside", "real", "diagonal_scatter"),
    "integer arithmetic": ("lcm", "gcd", "round", "addmv", "addr", "addcmul", "square", "prod", "cumprod", "trace"),
    "float32 inside PyTorch's float16 kernel": ("hypot", "igamma", "igammac"),
    "integer averages (PyTorch's integer kernels divide the window's sum and truncate, as a float64 mean cast "
    "back does for sums below 2**53)": ("nn.functional.avg_pool1d", "nn.functional.avg_pool2d",
                                       "nn.functional.avg_pool3d"),
}
# dtype PyTorch takes -> dtypes to try, in order (each holds every value of the first)
WIDER = {"bool": ("uint8", "int32", "float32", "int64"), "int8": ("int16", "int32", "int64"),
         "uint8": ("int16", "int32", "int64"), "int16": ("int32", "int64"), "int32": ("int64",),
         "float16": ("float32",)}
# int64 holds no value a wider integer would not: the averages alone go through float64 (exact for their sums)
WIDER_INT64 = {name: ("float64",) for name in CANDIDATES[next(k for k in CANDIDATES if k.startswith("integer averages"))]}


def wider(api: str, dtype: str) -> tuple[str, ...]:
    """The dtypes a refused `dtype` of `api` may go through, in order (none: it stays as it is)."""
    return WIDER_INT64.get(api, ()) if dtype == "int64" else WIDER.get(dtype, ())
TWIN = {"complex64": "float32", "complex128": "float64"}  # the dtype of a complex dtype's parts
# complex64/complex128, which no wider dtype holds: API -> the ways support/helper_complex.py computes it from
# real kernels, tried in order (complex_kernel's docstring says what each word means). A complex call the
# plain conversion gets wrong in any way (a refusal, a complex dtype where PyTorch's result is real) tries them.
COMPLEX = {
    **dict.fromkeys(("diag", "diag_embed", "diagonal_scatter", "tril", "triu", "trace", "scatter", "scatter_add",
                     "masked_scatter", "block_diag"), ("parts",)),
    **dict.fromkeys(("abs", "nn.functional.l1_loss"), ("magnitude",)),
    **dict.fromkeys(("var", "var_mean"), ("variance",)), **dict.fromkeys(("std", "std_mean"), ("deviation",)),
    **dict.fromkeys(("isinf", "isnan"), ("either",)), "isfinite": ("both",),
    **dict.fromkeys(("addcmul", "addmv", "addr", "addmm", "addbmm", "baddbmm"), ("product 1 2",)),
    **dict.fromkeys(("nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d", "trapz"),
                    ("product 0 1",)),
    **dict.fromkeys(("nn.functional.normalize", "nn.functional.softsign"), ("phase",)),
    "rand_like": ("draws",), "randn_like": ("normal draws",),
    **{name: (name,) for name in ("isclose", "lerp", "logsumexp", "logaddexp", "logcumsumexp")},
}


def _options(api: str, dtype: str) -> tuple[str, ...]:
    """What a refused dtype of `api` tries, in order."""
    if dtype.startswith("complex"):
        return COMPLEX.get(api, ())
    return wider(api, dtype) if any(api in group for group in CANDIDATES.values()) else ()


ABOUT = ("API -> {dtype PyTorch takes and MindSpore's CPU kernel refuses: dtype the converted call goes through (a "
         "complex dtype: the way support/helper_complex.py computes it from real kernels)}, kept where the results "
         "equal PyTorch's on its OpInfo samples; left: refused dtypes with no exact bridge (the call is left as it "
         "is). Written by `python -m analysis.verify.kernel_bridge`.")
# how MindSpore says its kernel refuses a dtype (CPU kernel selection, a primitive's dtype check, a functional
# check); other errors (a missing kernel for every dtype, shapes) are no dtype refusal
REFUSAL = re.compile(r"Unsupported data type|must be a type of|type of the input tensor must be|should be one of|"
                     r"doesn't support|supports types|"
                     r"dtype of '\w+' must be|KernelMod Init Failed|not supported", re.I)


def _name(api: str) -> str:
    return api.removeprefix("torch.Tensor.") if api.startswith("torch.Tensor.") else api.removeprefix("torch.")


def _same(expected, actual, dtype: str, random: bool = False) -> bool:
    """PyTorch's result: values (a random API's: how they are distributed, as the bench compares them), shapes,
    dtype class (compare.difference), and each output PyTorch gives in the input's dtype in exactly that dtype."""
    from analysis.verify.compare import difference

    if difference(expected, actual, values=not random, distribution=random):
        return False
    if isinstance(expected, list):
        return all(_same(e, a, dtype, random) for e, a in zip(expected, actual))
    if isinstance(expected, np.ndarray) and expected.dtype.name == dtype:
        return isinstance(actual, np.ndarray) and actual.dtype == expected.dtype
    return True


def _random(api: str) -> bool:
    from analysis.verify.generate import RANDOM_WORDS

    return any(word in api for word in RANDOM_WORDS)


def _mapped() -> set[str]:
    """The APIs the converter converts (as bench/opinfo_samples.py counts them)."""
    from analysis.knowledge.mapping import load_mapping
    from analysis.verify.run import converted_apis

    return {e.torch for e in load_mapping("classic") if e.primary or e.template or e.constant or e.helper} \
        | set(converted_apis())


def _texts(kept: list, table: dict) -> list[str]:
    """The kept samples converted with `table` as the bridge."""
    from analysis.convert import convert_source
    from analysis.convert.apis import kernel_dtypes

    kernel_dtypes.use_table(table)
    try:
        return [convert_source(s.source, path="sample.py").text for s, _ in kept]
    finally:
        kernel_dtypes.use_table(None)


def _run(kept: list, table: dict, workers: int) -> list:
    """MindSpore's results of the kept samples converted with `table` as the bridge."""
    from analysis.verify.workers import run_all

    jobs = [(t, s.arrays) for (s, _), t in zip(kept, _texts(kept, table))]
    return run_all("mindspore", "sample", jobs, workers=workers, timeout=60)


def build(workers: int = 2, log=print) -> dict:
    import torch

    from analysis.verify.sample_verdicts import suspend
    from analysis.verify.samples import opinfo_samples
    from analysis.verify.workers import execute, _fill

    start = time.monotonic()
    torch.set_num_threads(1)
    suspend()  # the sample verdicts are built from conversions like these: not consulted here
    names = {n for group in CANDIDATES.values() for n in group} | set(COMPLEX)
    only = {f"torch.{n}" for n in names} | {f"torch.Tensor.{n}" for n in names}
    samples = list(opinfo_samples(_mapped() & only, 2, 24, only))
    fill = _fill("torch")
    kept = []
    for s in samples:  # a complex candidate's float samples run too: its complex calls' twins (below)
        if not _options(_name(s.api), s.dtype) and not (s.dtype in TWIN.values() and _name(s.api) in COMPLEX):
            continue
        ok, result = execute("torch", s.source, {}, fill, only=s.arrays)
        torch.set_default_dtype(torch.float32)
        if ok:
            kept.append((s, result))
    log(f"({time.monotonic() - start:.0f} s) {len(kept)} samples of {len({_name(s.api) for s, _ in kept})} APIs ran "
        "in PyTorch")
    plain = _run(kept, {}, workers)
    refused = defaultdict(set)  # API -> dtypes a converted call raised a refusal of
    judged = defaultdict(list)  # (API, dtype) -> the samples a bridge must get right: refused, or right already
    # a complex call whose float twin (the same source, the parts' dtype) the plain conversion gets wrong may fail
    # for a reason of its own (an empty input, an argument form, a float64 kernel missing): a complex way that
    # gets it wrong too is not blamed for it (the bench still counts it); a call right already must stay right
    twin_wrong = {(s.api, s.source, s.dtype) for (s, expected), (ok, actual) in zip(kept, plain)
                  if s.dtype in TWIN.values() and not (ok and _same(expected, actual, s.dtype, _random(s.api)))}
    excused = set()
    for i, ((s, expected), (ok, actual)) in enumerate(zip(kept, plain)):
        key = (_name(s.api), s.dtype)
        if not _options(key[0], s.dtype):
            continue
        if (not ok and REFUSAL.search(str(actual))) or \
                (s.dtype.startswith("complex") and not (ok and _same(expected, actual, s.dtype, _random(s.api)))):
            refused[key[0]].add(s.dtype)
            judged[key].append(i)
            if (s.api, s.source, TWIN.get(s.dtype)) in twin_wrong:
                excused.add(i)
        elif ok and _same(expected, actual, s.dtype, _random(s.api)):
            judged[key].append(i)
    # a sample the bridge does not reach (x.round() on a name not known to be a tensor keeps its plain form)
    # says nothing about a cast: only the samples whose conversion the bridge changes are judged
    plain_texts = _texts(kept, {})
    reached = {i for i, text in enumerate(_texts(kept, {api: dict.fromkeys(dtypes, "int64") for api, dtypes
                                                          in refused.items()})) if text != plain_texts[i]}
    judged = {key: [i for i in found if i in reached] for key, found in judged.items()}
    found_refused = refused
    refused = {api: {d for d in dtypes if judged[(api, d)]} for api, dtypes in refused.items()}
    log(f"({time.monotonic() - start:.0f} s) refused: {sum(map(len, refused.values()))} (API, dtype) pairs")
    bridged: dict[str, dict[str, str]] = defaultdict(dict)
    pending = {(api, dtype): list(_options(api, dtype)) for api, dtypes in refused.items() for dtype in dtypes}
    while pending:
        trial = {api: dict(bridged[api]) for api in refused}
        for (api, dtype), options in pending.items():
            trial[api][dtype] = options[0]
        tried = sorted({i for key in pending for i in judged[key]})  # only the samples a pending cast decides
        runs = dict(zip(tried, _run([kept[i] for i in tried], trial, workers)))
        for key, options in pending.items():
            right = {i for i in judged[key]
                     if runs[i][0] and _same(kept[i][1], runs[i][1], key[1], _random(kept[i][0].api))}
            if right and all(i in right or i in excused for i in judged[key]):
                bridged[key[0]][key[1]] = options[0]
            options.pop(0)
        pending = {key: options for key, options in pending.items() if options and key[1] not in bridged[key[0]]}
        done = sum(map(len, bridged.values()))
        log(f"({time.monotonic() - start:.0f} s) bridged {done}, still trying {len(pending)}")
    left = {api: sorted(dtypes - set(bridged.get(api, {}))) for api, dtypes in found_refused.items()}
    return {"about": ABOUT,
            "apis": {api: dict(sorted(casts.items())) for api, casts in sorted(bridged.items()) if casts},
            "left": {api: dtypes for api, dtypes in sorted(left.items()) if dtypes}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    data = build(args.workers)
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{sum(map(len, data['apis'].values()))} casts over {len(data['apis'])} APIs written to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
