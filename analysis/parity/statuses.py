"""What each parity status means, in the words the pages, the report and the
command line show (the stored status stays the short machine word)."""
from __future__ import annotations

# status -> (label on a badge, one sentence saying what it means for the conversion)
STATUSES: dict[str, tuple[str, str]] = {
    "pass": ("pass", "the converted code gives PyTorch's numbers"),
    "fail": ("fail", "the converted code gives other numbers than PyTorch"),
    "error": ("error", "the check could not run to the end (the converted code, the box or a limit stopped it)"),
    "skipped": ("skipped", "not checked: a person must give what is missing"),
    "torch_fail": ("original PyTorch code fails",
                   "the repository's own PyTorch code fails on these inputs before any conversion, "
                   "so nothing about the conversion is known"),
}


def status_label(status: str) -> str:
    """The badge's words for a status; an unknown one is shown as it is."""
    return STATUSES.get(status, (status, ""))[0]


def status_meaning(status: str) -> str:
    return STATUSES.get(status, ("", ""))[1]


def count_phrase(status: str, n: int) -> str:
    """'2 error', '1 whose original PyTorch code fails': a tally a sentence can hold."""
    if status == "torch_fail":
        return f"{n} whose original PyTorch code fails"
    return f"{n} {status_label(status)}"
