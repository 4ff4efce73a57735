"""Source text prepared for the file page: highlighted lines with their findings,
and the side-by-side diff of original and converted text.

Rendered to HTML here rather than in a template loop: a file of thousands of
lines with thousands of findings must render in well under 300 ms.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections import defaultdict
from functools import lru_cache
from html import escape
from pathlib import Path

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from .catalogue import rule_info

MARKER = "MIGRATE"  # the comment the converter leaves on what it could not convert


def read_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def notebook_code(text: str) -> tuple[str, dict[int, int]]:
    """A notebook's code cells as one text, each headed by a marker line naming its index.

    Also returns, per code cell's index among all the notebook's cells (the
    index findings carry), the line offset of its first line in that text, so
    (cell, line) positions from the analyzer can be placed.
    """
    from analysis.scan.notebook import code_cells

    try:
        cells = code_cells(json.loads(text))
    except (ValueError, RecursionError):  # not a notebook: shown as the text it is
        return text, {}
    parts, offsets, line = [], {}, 0
    for index, source in cells:
        body = source if source is not None else "# (this cell's source is not text)\n"
        offsets[index] = line + 1  # the marker line comes first
        parts.append(f"# ---- cell {index} ----\n" + body)
        line += 1 + body.count("\n") + 1
    return "\n".join(parts), offsets


# Pygments needs about a second per few thousand lines: big files are highlighted
# once and kept on disk by content hash, so later views (and re-uploads of the
# same file) cost a file read.
CACHE_MIN_CHARS = 20_000


def _cache_path(text: str) -> Path:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return Path(settings.PORTING_RUNS_DIR) / "_highlight" / digest[:2] / f"{digest}.json"


def highlighted_lines(text: str) -> list[str]:
    """One HTML fragment per source line; big files go through the disk cache."""
    if len(text) < CACHE_MIN_CHARS:
        return _highlight(text)
    path = _cache_path(text)
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        pass
    lines = _highlight(text)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(lines))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only or full disk only costs speed
    return lines


def _highlight(text: str) -> list[str]:
    """One HTML fragment per source line (Pygments output split on newlines)."""
    formatter = HtmlFormatter(nowrap=True)
    html = highlight(text, PythonLexer(stripnl=False, ensurenl=False), formatter)
    lines = html.split("\n")
    expected = text.count("\n") + 1
    return (lines + [""] * expected)[:expected]


def place_findings(findings, cell_offsets: dict[int, int] | None = None) -> dict[int, list]:
    by_line = defaultdict(list)
    for finding in findings:
        line = finding.line
        if cell_offsets and finding.cell in cell_offsets:
            line += cell_offsets[finding.cell]
        by_line[line].append(finding)
    return by_line


def _suggestion(finding) -> str:
    extra = finding.extra if isinstance(finding.extra, dict) else {}
    return str(extra.get("suggestion") or extra.get("suggested_code") or extra.get("mindspore_code") or "")


def _triage_html(finding, finding_url: str) -> str:
    """The finding's mark (if any) and the link that opens the triage form."""
    triage = getattr(finding, "triage", "")
    out = ""
    if triage:
        label = escape(getattr(finding, "triage_label", triage))
        out += f' <span class="badge tr-{escape(triage)}" data-mark="{escape(triage)}">{label}</span>'
    assignee = getattr(finding, "assignee_name", "")
    if assignee:
        out += f' <span class="muted small">→ {escape(assignee)}</span>'
    if finding_url:
        url = finding_url.rsplit("/0/", 1)[0] + f"/{finding.pk}/"
        out += f' <a class="triage-open small" href="{url}" data-mark-url="{url}mark/" data-finding="{finding.pk}">mark…</a>'
    return out


def _finding_html(finding, number: int, rules_url: str, first_of_rule: bool = True, finding_url: str = "") -> str:
    """One finding in two lines: what (severity, rule, status, API, mark), then the message.

    Kept compact on purpose: a file with a hundred findings must stay readable as code."""
    sev, rule_id, status = escape(finding.severity), escape(finding.rule_id), escape(finding.status)
    title, details = _rule_fragments(finding.rule_id)
    api = ""
    if finding.torch_api or finding.mindspore_api:
        target = (f'<code class="ms">{escape(finding.mindspore_api)}</code>' if finding.mindspore_api
                  else '<span class="muted">no MindSpore counterpart</span>')
        api = f' <span class="api"><code>{escape(finding.torch_api)}</code> → {target}</span>'
    # The explanation opens under this rule's first finding in the file; later ones link to it
    # rather than repeating it on each of possibly thousands of findings.
    why = f' <a class="why" href="#why-{rule_id}">Why</a>' if details and not first_of_rule else ""
    parts = [
        f'<div class="finding {sev}" data-rule="{rule_id}" data-line="{number}" id="F{finding.pk}">'
        f'<div class="head"><span class="badge sev-{sev}">{sev}</span> <a class="rule" href="{rules_url}#{rule_id}">'
        f"<code>{rule_id}</code></a>{title} <span class=\"badge st-{status}\">{status}</span>{api}"
        f"{_triage_html(finding, finding_url)}</div>"
        f'<div class="msg">{escape(finding.message)}{why}</div>'
    ]
    suggestion = _suggestion(finding)
    if suggestion:
        parts.append(f'<pre class="suggest">{escape(suggestion)}</pre>')
    if details and first_of_rule:
        parts.append(details.replace("<details>", f'<details id="why-{rule_id}">', 1))
    parts.append("</div>")
    return "".join(parts)


@lru_cache(maxsize=1024)
def _rule_fragments(rule_id: str) -> tuple[str, str]:
    """A rule's title and its explanation/example block, built once per rule."""
    rule = rule_info(rule_id)
    title = f' <span class="muted">{escape(rule["title"])}</span>' if rule.get("title") else ""
    if not rule.get("explanation"):
        return title, ""
    parts = [f'<details><summary>Why</summary><p>{escape(rule["explanation"])}</p>']
    example = rule.get("example")
    if example and (example.get("torch") or example.get("mindspore")):
        parts.append(f'<div class="example"><pre>{escape(example.get("torch", ""))}</pre>'
                     f'<pre>{escape(example.get("mindspore", ""))}</pre></div>')
    parts.append("</details>")
    return title, "".join(parts)


def _done_html(findings, number: int, rules_url: str, finding_url: str, seen: set[str]) -> str:
    """Uses on one line that are done (converted, or marked): one closed line, opened on demand."""
    statuses = defaultdict(int)
    for f in findings:
        statuses[f.triage_label if getattr(f, "triage", "") else f.status] += 1
    told = ", ".join(f"{n} {escape(status)}" for status, n in sorted(statuses.items()))
    apis = ", ".join(sorted({escape(f.torch_api) for f in findings if f.torch_api}))
    body = "".join(_finding_html(f, number, rules_url, False, finding_url) for f in findings)
    return (f'<details class="done-uses" data-line="{number}"><summary>{len(findings)} done here ({told})'
            f'{": <code>" + apis + "</code>" if apis else ""}</summary>{body}</details>')


def render_lines(lines_html: list[str], by_line: dict[int, list], *, rules_url: str = "", finding_url: str = "",
                 collapse=None, anchor: str = "L", seen: set[str] | None = None) -> list[str]:
    """One block per source line (anchor + number as its id), its findings under it.

    collapse(finding): true for a use that is done, shown closed in one line with the others of its line.
    """
    seen = set() if seen is None else seen
    out = []
    for number, html in enumerate(lines_html, start=1):
        here = by_line.get(number, ())
        open_, done = ([f for f in here if not collapse(f)], [f for f in here if collapse(f)]) if collapse \
            else (list(here), [])
        classes = "ln" + "".join(sorted({f" has-{escape(f.severity)}" for f in open_}))
        out.append(f'<div class="{classes}" id="{anchor}{number}"><a href="#{anchor}{number}" tabindex="-1">{number}</a>'
                   f"<pre>{html}</pre>")
        for f in open_:
            out.append(_finding_html(f, number, rules_url, f.rule_id not in seen, finding_url))
            seen.add(f.rule_id)
        if done:
            out.append(_done_html(done, number, rules_url, finding_url, seen))
        out.append("</div>")
    return out


def render_source(text: str, findings, cell_offsets: dict[int, int] | None = None, *, rules_url: str = "",
                  finding_url: str = "", collapse=None) -> SafeString:
    """The whole annotated source as one HTML string (done uses closed when collapse says so)."""
    by_line = place_findings(findings, cell_offsets)
    return mark_safe("\n".join(render_lines(highlighted_lines(text), by_line, rules_url=rules_url,
                                            finding_url=finding_url, collapse=collapse)))


def side_by_side(original: str, converted: str, todo_lines=()) -> SafeString:
    """Original | converted, aligned line by line, as table rows.

    Lines the converter left for a person (its unconverted items, and lines
    carrying its MIGRATE marker) are highlighted.
    """
    left, right = original.splitlines(), converted.splitlines()
    left_html = highlighted_lines("\n".join(left)) if left else []
    right_html = highlighted_lines("\n".join(right)) if right else []
    todo = set(todo_lines)
    rows = []

    def cell(number: int | None, html: str, kind: str, side: str) -> str:
        if number is None:
            return '<td class="no"></td><td class="code empty"></td>'
        return (f'<td class="no" id="{side}{number}">{number}</td>'
                f'<td class="code {kind}"><pre>{html}</pre></td>')

    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        span = max(i2 - i1, j2 - j1)
        for k in range(span):
            i, j = i1 + k, j1 + k
            lnum = i + 1 if i < i2 else None
            rnum = j + 1 if j < j2 else None
            lkind = "same" if tag == "equal" else "del"
            rkind = "same" if tag == "equal" else "add"
            if lnum in todo:
                lkind += " todo"
            if rnum is not None and MARKER in right[j]:
                rkind += " todo"
            row_class = "eq" if tag == "equal" else "chg"
            rows.append(
                f'<tr class="{row_class}">'
                + cell(lnum, left_html[i] if lnum else "", lkind, "O")
                + cell(rnum, right_html[j] if rnum else "", rkind, "C")
                + "</tr>"
            )
    return mark_safe("\n".join(rows))


def finding_excerpt(text: str, finding, cell_offsets: dict[int, int] | None = None, context: int = 2) -> list[dict]:
    """The finding's statement with a few lines around it, highlighted: [{"number", "html", "hit"}]."""
    line = finding.line
    if cell_offsets and finding.cell in cell_offsets:
        line += cell_offsets[finding.cell]
    end = max(line, line + (finding.end_line - finding.line if finding.end_line else 0))
    lines = highlighted_lines(text)
    first, last = max(1, line - context), min(len(lines), end + context)
    return [{"number": n, "html": mark_safe(lines[n - 1]), "hit": line <= n <= end} for n in range(first, last + 1)]
