"""The one place the converter consults verification by execution (analysis/verify/verdicts.py):
a call whose stored verdict says the converted form is broken (no CPU kernel, or it raises) is
left as it was, marked with what the verification saw, rather than reported converted."""
from __future__ import annotations

import libcst as cst


def spelled(call: cst.Call, passed: dict) -> list[str]:
    """The PyTorch parameters a call uses, as the verdicts name them: 'dim=' by keyword, 'dim' by position."""
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    return [f"{name}=" if name in keywords else name for name in passed]


def known_broken(api: str, params: list[str]) -> str | None:
    """Why the converted call is known not to work, or None (untested and verified calls go ahead).
    params (see spelled) is accepted for when argument verdicts cover enough values to decide alone."""
    try:
        from analysis.verify.verdicts import verdict
    except ImportError:  # verification data not installed: conversion goes on from the tables alone
        return None
    # the API's own verdict: an argument's verdict comes from a few generated values (p=1 fails where
    # MindSpore's Dropout rejects it), too narrow to refuse every call that passes that argument
    found = verdict(api)
    if not found.broken:
        return None
    return f"verification by execution found the converted call broken ({found.status.replace('_', ' ')}" \
           + (f": {found.note}" if found.note else "") + "): convert it by hand"
