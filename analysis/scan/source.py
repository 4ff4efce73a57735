"""analyze_source: one file (or notebook) in, one FileReport out; never raises on bad input."""
from __future__ import annotations

import hashlib
import json
import sys

import libcst as cst

from typing import TYPE_CHECKING

from analysis.findings import FileReport, Finding, Severity, UseStatus
from analysis.knowledge.mapping import load_mapping
from analysis.rules import get_rule
from analysis.scan.classify import Hit, classify
from analysis.scan.agree import agree, statement_starts
from analysis.scan.guard import source_problem
from analysis.scan.index import ProjectIndex, module_name_for
from analysis.scan.notebook import _python_lines, code_cells
from analysis.scan.positions import ast_spans, cst_spans
from analysis.scan.scanner import Scanner

if TYPE_CHECKING:
    from analysis.convert.core.result import ConversionResult, KeptConversion

_TENSOR_METHODS: dict[str, frozenset] = {}


def _tensor_methods(target: str) -> frozenset:
    methods = _TENSOR_METHODS.get(target)
    if methods is None:
        prefix = "torch.Tensor."
        methods = frozenset(e.torch[len(prefix):] for e in load_mapping(target) if e.torch.startswith(prefix))
        _TENSOR_METHODS[target] = methods
    return methods


def parse_error_report(path: str, data: bytes, reason: str, lines: int = 0, cell: int | None = None,
                       line: int = 1, column: int = 0) -> FileReport:
    report = FileReport(path=path, sha256=hashlib.sha256(data).hexdigest(), lines=lines, parse_error=reason)
    report.findings.append(parse_error_finding(path, reason, cell=cell, line=line, column=column))
    return report


def parse_error_finding(path: str, reason: str, *, cell: int | None = None, line: int = 1, column: int = 0) -> Finding:
    rule = get_rule("MS-PARSE-ERROR")
    return Finding(path=path, line=max(line, 1), column=max(column, 0), rule_id=rule.id, severity=rule.severity,
                   message=rule.message.format(reason=reason), end_line=max(line, 1), end_column=max(column, 0),
                   status=UseStatus.MANUAL, cell=cell)


def _decode(data: bytes) -> tuple[str | None, str]:
    """Source text, or None and the reason it is not Python text."""
    if b"\x00" in data[:8192]:
        return None, "binary data (NUL bytes), not Python source"
    try:
        return _text(data), ""
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 and no encoding declared ({exc.reason} at byte {exc.start})"
    except SyntaxError as exc:  # tokenize: bytes that are not UTF-8 and no coding cookie
        return None, f"not valid UTF-8 and no encoding declared ({exc.msg if hasattr(exc, 'msg') else exc})"
    except LookupError as exc:
        return None, f"unknown source encoding: {exc}"


def _text(data: bytes) -> str:
    import io
    import tokenize

    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


def _syntax_reason(exc: Exception, text: str) -> tuple[str, int, int]:
    if isinstance(exc, SyntaxError):
        line, col, first = exc.lineno or 1, max((exc.offset or 1) - 1, 0), exc.msg
    else:
        line = getattr(exc, "raw_line", None) or 1
        col = getattr(exc, "raw_column", None) or 0
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    hint = ""
    src_line = text.splitlines()[line - 1] if 0 < line <= len(text.splitlines()) else ""
    if src_line.lstrip().startswith(("print ", "exec ")) or "except " in src_line and ", " in src_line and " as " not in src_line \
            or "Missing parentheses" in first:
        hint = " (Python 2 syntax?)"
    return f"syntax error at line {line}: {first}{hint}", int(line), int(col)


def analyze_text(text: str, path: str, *, target: str, ms_version: str, index: ProjectIndex | None,
                 agree_with_converter: bool = True, support: str | None = None,
                 ) -> tuple[list[Finding], str, tuple[int, int], ConversionResult | None]:
    """Findings for Python source text; (findings, parse error, error position, the conversion the
    findings agree with). Each finding is made to agree with what the converter does to the same use
    (agree.py), from one libcst parse shared with the converter; `support` is the helper import the
    conversion writes (convert_source's). A notebook's cells, converted as one program, pass
    agree_with_converter=False (and get no conversion back)."""
    problem = source_problem(text)  # before any parser: deep nesting crashes libcst's native parser
    if problem is not None:
        return [], problem[0], (problem[1], 0), None
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        # CPython's own message is more precise ("Missing parentheses in call to 'print'"...).
        import ast

        try:
            ast.parse(text)
        except SyntaxError as precise:
            exc = precise
        except (ValueError, RecursionError, MemoryError):
            pass
        reason, line, col = _syntax_reason(exc, text)
        return [], reason, (line, col), None
    rel = path.replace("\\", "/")
    scanner = Scanner(module_name=module_name_for(rel) if rel.endswith(".py") else "",
                      is_package=rel.endswith("__init__.py"), index=index, tensor_methods=_tensor_methods(target))
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 20000))
        scanner.run(module)
    except RecursionError:
        return [], "expression nested too deeply to analyse", (1, 0), None
    finally:
        sys.setrecursionlimit(limit)
    if not scanner.uses and not (agree_with_converter and scanner.imports_torch):
        return [], "", (0, 0), None  # (a torch file with no use found may still have rewrites to report: agree.py)
    for word in ("lr_scheduler", "param_groups"):  # the converter's file-wide switches (convert/engine.py)
        if word in text:
            scanner.facts.add(f"names:{word}")
    hits = classify(scanner.uses, scanner.facts, target=target, ms_version=ms_version)
    spans = _locate(text, module, scanner, hits)
    findings = []
    for hit, span in zip(hits, spans):
        use = hit.use
        findings.append(Finding(
            path=path, line=span[0], column=span[1], end_line=span[2], end_column=span[3], rule_id=hit.rule.id,
            severity=hit.rule.severity, message=hit.message, torch_api=hit.torch_api,
            mindspore_api=hit.mindspore_api, category=hit.category, confidence=use.confidence, status=hit.status,
            extra=hit.extra or {},
        ))
    conversion = None
    if agree_with_converter:
        from analysis.convert import convert_source

        conversion = convert_source(text, path=path, target=target, ms_version=ms_version, support=support,
                                    module=module)
        findings = agree(findings, conversion, statement_starts(text))
    findings.sort(key=lambda f: (f.line, f.column, f.rule_id))
    return findings, "", (0, 0), conversion


def _locate(text: str, module: cst.Module, scanner: Scanner, hits: list[Hit]) -> list[tuple[int, int, int, int]]:
    wanted = {h.use.anchor[0] for h in hits}
    spans = ast_spans(text, wanted)
    trusted = spans is not None and all(len(spans.get(k, ())) == scanner.counts.get(k, 0) for k in wanted)
    if trusted:
        out = [spans[h.use.anchor[0]][h.use.anchor[1]] for h in hits]
    else:
        out = cst_spans(module, [h.use.node for h in hits])
    lines = None
    for i, hit in enumerate(hits):
        if hit.use.anchor[0][0] == "D":  # a class/def: point at its header line, not the whole body
            lines = lines if lines is not None else text.splitlines()
            line, col = out[i][0], out[i][1]
            header = lines[line - 1].rstrip() if 0 < line <= len(lines) else ""
            out[i] = (line, col, line, max(len(header), col))
    return out


def analyze_notebook(data: bytes, path: str, *, target: str, ms_version: str, index: ProjectIndex | None) -> FileReport:
    try:
        cells = code_cells(json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return parse_error_report(path, data, f"not a readable notebook: {exc}")
    unreadable = [i for i, text in cells if text is None]
    code = [(i, _python_lines(text)) for i, text in cells if text is not None]
    report = FileReport(path=path, sha256=hashlib.sha256(data).hexdigest(), lines=sum(s.count("\n") + 1 for _, s in code))
    # Cells that do not parse on their own are reported and left out of the program.
    usable, errors = [], []
    for index_, text in code:
        _, error, (line, col), _ = analyze_text(text + "\n", path, target=target, ms_version=ms_version,
                                                index=None, agree_with_converter=False) \
            if text.strip() else ([], "", (0, 0), None)
        if error:
            errors.append(parse_error_finding(path, error, cell=index_, line=line, column=col))
        else:
            usable.append((index_, text))
    starts, program, offset = [], [], 0
    for index_, text in usable:
        starts.append((offset + 1, index_))
        program.append(text)
        offset += text.count("\n") + 1
    findings, error, _, _ = analyze_text("\n".join(program) + "\n", path, target=target, ms_version=ms_version,
                                         index=index)
    for finding in findings:
        for first_line, cell_index in reversed(starts):
            if finding.line >= first_line:
                finding.cell = cell_index
                finding.line -= first_line - 1
                finding.end_line -= first_line - 1
                break
    errors += [parse_error_finding(path, "the cell's source is not text (nbformat wants a string or a list of strings)",
                                   cell=i) for i in unreadable]
    report.findings = sorted(errors, key=lambda f: f.cell or 0) + findings
    if errors:
        report.parse_error = f"{len(errors)} cell(s) could not be parsed"
    return report


def analyze_source(source: str | bytes, path: str, *, target: str = "classic", ms_version: str = "2.4",
                   index: ProjectIndex | None = None) -> FileReport:
    """Analyse one file's content. Bad input yields a report with parse_error and one MS-PARSE-ERROR finding."""
    return analyze_and_convert(source, path, target=target, ms_version=ms_version, index=index)[0]


def analyze_and_convert(source: str | bytes, path: str, *, target: str = "classic", ms_version: str = "2.4",
                        index: ProjectIndex | None = None, support: str | None = None,
                        ) -> tuple[FileReport, KeptConversion | None]:
    """analyze_source, and the file's conversion its findings agree with, kept for the convert stage
    (convert_tree(kept=...)) so that a file is converted once per run. None where the analysis made no
    conversion of the file as a tree conversion would (a notebook, a file that does not parse, a file
    with no torch use): the tree converts those itself. `support`: convert_source's helper import."""
    data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else bytes(source)
    if path.endswith(".ipynb"):
        try:
            return analyze_notebook(data, path, target=target, ms_version=ms_version, index=index), None
        except Exception as exc:  # noqa: BLE001 - one odd notebook must not stop a run
            return parse_error_report(path, data, f"analyzer failure: {type(exc).__name__}: {exc}"), None
    if isinstance(source, str):
        text, reason = source, ""
    else:
        text, reason = _decode(data)
    lines = (text.count("\n") + (0 if text.endswith("\n") or not text else 1)) if text is not None else data.count(b"\n")
    if text is None:
        return parse_error_report(path, data, reason, lines=lines), None
    conversion = None
    try:
        findings, error, (line, col), conversion = analyze_text(text, path, target=target, ms_version=ms_version,
                                                                index=index, support=support)
    except Exception as exc:  # noqa: BLE001 - one odd file must not stop a run
        findings, error, (line, col) = [], f"analyzer failure: {type(exc).__name__}: {exc}", (1, 0)
    from analysis.convert.core.result import KeptConversion

    kept = None if conversion is None else KeptConversion.of(text, support=support, target=target,
                                                               ms_version=ms_version, result=conversion)
    if error:
        return parse_error_report(path, data, error, lines=lines, line=line, column=col), kept
    return FileReport(path=path, sha256=hashlib.sha256(data).hexdigest(), lines=lines, findings=findings), kept
