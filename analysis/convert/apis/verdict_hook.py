"""The one place the converter consults verification by execution (analysis/verify/verdicts.py):
a call whose API has no CPU kernel for any input the verification tried is left as it was, marked
with what the verification saw, rather than reported converted.

Only `no_cpu_kernel` with no passing call counts: a `fails` verdict can come from one generated value
(Dropout(p=1)) or from the harness itself, and argument verdicts from a few values, too narrow to
refuse every call. The verification's own generator converts with the hook off (disabled()), else its
verdicts would feed on the markers this hook writes."""
from __future__ import annotations

import os
from contextlib import contextmanager

import libcst as cst

_OFF = {"value": os.environ.get("PORTING_NO_VERDICT_HOOK") == "1"}


@contextmanager
def disabled():
    """Convert without consulting the verdicts (for the verification that produces them)."""
    before = _OFF["value"]
    _OFF["value"] = True
    try:
        yield
    finally:
        _OFF["value"] = before


def spelled(call: cst.Call, passed: dict) -> list[str]:
    """The PyTorch parameters a call uses, as the verdicts name them: 'dim=' by keyword, 'dim' by position."""
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    return [f"{name}=" if name in keywords else name for name in passed]


def known_broken(api: str, params: list[str]) -> str | None:
    """Why the converted call is known not to work, or None (untested and verified calls go ahead).
    params (see spelled) is accepted for when argument verdicts cover enough values to decide alone."""
    if _OFF["value"]:
        return None
    try:
        from analysis.verify.verdicts import NO_CPU_KERNEL, load_verdicts
    except ImportError:  # verification data not installed: conversion goes on from the tables alone
        return None
    from analysis.verify.sample_verdicts import never_passed

    failed = never_passed(api)
    if failed:
        return f"no converted call of it gave PyTorch's values on PyTorch's own test inputs ({failed}): convert it by hand"
    entry = load_verdicts()["apis"].get(api)
    if not entry or entry.get("status") != NO_CPU_KERNEL or entry.get("passed", 0) or not entry.get("calls"):
        return None
    note = entry.get("note", "")
    return "verification by execution found no MindSpore CPU kernel for it" + (f" ({note})" if note else "") \
        + ": convert it by hand"


def verified(api: str) -> bool:
    """Every converted call of `api` the verification ran gave PyTorch's values (or, where none of its
    generated calls ran, every one of PyTorch's samples did). Read even while the hook is off: it vouches
    for another API's conversion (x.triu_() written as x.triu()), never the one verified."""
    try:
        from analysis.verify.sample_verdicts import all_passed
        from analysis.verify.verdicts import UNTESTED, VERIFIED, api_status
    except ImportError:
        return False
    status = api_status(api)
    # no generated call ran (their inputs did not fit), but PyTorch's own samples all passed
    return status == VERIFIED or (status == UNTESTED and all_passed(api))


def measured_problem(api: str, call: cst.Call, signature: str = "") -> str | None:
    """What running calls like this one showed to go wrong (fails, no CPU kernel, other values), in the
    words of the verdict the analyzer's finding for the same call reads (verdicts.call_verdict), or None.
    The call is kept as converted and this goes into its marker: the report and the text say one thing."""
    if _OFF["value"]:
        return None
    try:
        from analysis.verify.verdicts import BROKEN, DIFFERS, call_verdict
    except ImportError:
        return None
    positional = sum(1 for a in call.args if a.keyword is None)  # a method's receiver is not counted
    checked = call_verdict(api, positional, [a.keyword.value for a in call.args if a.keyword is not None],
                           signature)
    if checked is None or checked.status not in BROKEN | {DIFFERS}:
        return None
    said = "gave other values than PyTorch's" if checked.status == DIFFERS else "failed in MindSpore"
    return f"running calls like this one in both frameworks {said}" + (f" ({checked.note})" if checked.note else "") \
        + ": check this call or convert it by hand"
