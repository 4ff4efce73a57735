"""Plotly figures as plain dicts ({"data": [...], "layout": {...}}).

Built from what the pipeline stored, robust to missing keys (an engine version
that reports less must leave a figure out, not break the page). The browser
draws them with the plotly.js bundled with the pinned plotly package.
"""
from __future__ import annotations

import math

COLORS = {"pass": "#17723b", "fail": "#b42318", "propagated": "#d99a00", "missing": "#6b7280",
          "skipped": "#9aa3b2", "torch": "#ee4c2c", "mindspore": "#2457c5", "error": "#b42318",
          "warning": "#d99a00", "info": "#5b9bd5", "converted": "#17723b"}
BASE_LAYOUT = {"margin": {"l": 60, "r": 20, "t": 40, "b": 60}, "height": 360, "hovermode": "closest",
               "legend": {"orientation": "h", "y": -0.25}, "paper_bgcolor": "#fff", "plot_bgcolor": "#fff"}


def _num(value) -> float | None:
    """A finite float, or None (JSON stores inf/nan as strings or not at all)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _positive(value, floor: float = 1e-12) -> float | None:
    """For log axes: an exact zero is drawn at the floor rather than dropped."""
    value = _num(value)
    if value is None:
        return None
    return max(value, floor)


def _layout(title: str, **extra) -> dict:
    layout = dict(BASE_LAYOUT, title={"text": title, "font": {"size": 14}, "x": 0.01, "xanchor": "left"})
    layout.update(extra)
    return layout


def trend(points: list[dict]) -> dict | None:
    """Migration progress over runs: found, done, each status, marks, left by severity, parity passing.

    The left-by-severity lines start hidden (a click on the legend shows them):
    the status lines already account for every use.
    """
    if not points:
        return None
    x = [f"#{p['number']}" for p in points]
    series = [
        ("PyTorch uses found", "found", "#1d2330", "dot", True),
        ("done", "done", "#0b5d2a", "solid", True),
        ("status: converted", "converted", COLORS["converted"], "dash", True),
        ("status: review", "review", COLORS["warning"], "solid", True),
        ("status: manual", "manual", COLORS["error"], "solid", True),
        ("status: unresolved", "unresolved", "#6b7280", "solid", True),
        ("marked by a person", "marked", "#1a4fa0", "dashdot", True),
        ("left: error", "left_error", COLORS["error"], "dot", "legendonly"),
        ("left: warning", "left_warning", COLORS["warning"], "dot", "legendonly"),
        ("left: info", "left_info", COLORS["info"], "dot", "legendonly"),
    ]
    data = [
        {"type": "scatter", "mode": "lines+markers", "name": name, "x": x, "y": [p.get(key, 0) for p in points],
         "line": {"color": color, "dash": dash, "width": 3 if key == "done" else 2}, "visible": visible}
        for name, key, color, dash, visible in series
    ]
    data.append({"type": "scatter", "mode": "lines+markers", "name": "parity checks passing", "x": x,
                 "y": [p.get("parity_pass", 0) for p in points], "yaxis": "y2",
                 "line": {"color": "#7b3fb5", "dash": "dash"}})
    layout = _layout("Migration progress by run", xaxis={"title": {"text": "run"}, "type": "category"},
                     yaxis={"title": {"text": "PyTorch uses"}, "rangemode": "tozero"},
                     yaxis2={"title": {"text": "parity passing"}, "overlaying": "y", "side": "right",
                             "rangemode": "tozero", "dtick": 1})
    return {"data": data, "layout": layout}


def layer_errors(layers: list[dict], first: str = "", source_urls: dict[str, str] | None = None,
                 mode: str = "eval") -> dict | None:
    """Per-layer max abs error (log scale) against its tolerance; the first failing layer stands out."""
    rows = [l for l in layers if isinstance(l, dict) and l.get("path")]
    if not rows:
        return None
    source_urls = source_urls or {}
    # Highlight the culprit only in the mode where it fails (a momentum error passes eval).
    if first and not any(l["path"] == first and l.get("status") == "fail" for l in rows):
        first = ""
    labels, errors, tolerances, colors, widths, urls, hover = [], [], [], [], [], [], []
    for index, layer in enumerate(rows):
        label = layer["path"] + (f" ({layer['call']})" if layer.get("call") else "")
        labels.append(label)
        errors.append(_positive(layer.get("max_abs")))
        tolerances.append(_positive(_allowed(layer)))
        status = layer.get("status", "")
        is_first = bool(first) and layer["path"] == first
        colors.append("#7a0d05" if is_first else COLORS.get(status, "#9aa3b2"))
        widths.append(3 if is_first else 0)
        urls.append(source_urls.get(layer["path"], ""))
        hover.append(f"{layer.get('torch_type', '')} → {layer.get('mindspore_type', '')}<br>"
                     f"status {status} {layer.get('label', '')}{_tolerance_note(layer)}")
    data = [
        {"type": "bar", "name": "max abs error", "x": labels, "y": errors,
         "marker": {"color": colors, "line": {"color": "#000", "width": widths}},
         "customdata": urls, "hovertext": hover, "textposition": "none",
         "hovertemplate": "%{x}<br>max abs %{y:.3g}<br>%{hovertext}<extra></extra>"},
        {"type": "scatter", "mode": "lines+markers", "name": "tolerance", "x": labels, "y": tolerances,
         "line": {"color": "#1d2330", "dash": "dash", "shape": "hvh"}, "marker": {"size": 4},
         "hovertemplate": "tolerance %{y:.3g}<extra></extra>"},
    ]
    noise = [_positive(l.get("noise_max_abs")) for l in rows]
    if any(n is not None for n in noise):
        data.append({"type": "scatter", "mode": "lines", "name": "PyTorch float32 noise (vs float64)", "x": labels,
                     "y": noise, "fill": "tozeroy", "fillcolor": "rgba(154,163,178,0.25)",
                     "line": {"color": "#9aa3b2", "shape": "hvh", "width": 1},
                     "hovertemplate": "float32 noise %{y:.3g}<extra></extra>"})
    annotations = []
    if first and first in [l["path"] for l in rows]:
        index = [l["path"] for l in rows].index(first)
        if errors[index] is not None:
            annotations.append({"x": labels[index], "y": math.log10(errors[index]), "text": "first diverging",
                                "showarrow": True, "arrowhead": 2, "ax": 0, "ay": -35,
                                "font": {"color": "#7a0d05"}})
    layout = _layout(f"Per-layer error ({mode} forward)", yaxis={"type": "log", "title": {"text": "max abs error"},
                                                              "exponentformat": "e"},
                     xaxis={"tickangle": -35, "automargin": True}, annotations=annotations, bargap=0.25)
    return {"data": data, "layout": layout}


def _tolerance_note(row: dict) -> str:
    """Where a layer's tolerance came from (older reports do not say)."""
    used = row.get("tolerance")
    if not isinstance(used, dict) or not used.get("source"):
        return ""
    pattern = f" {used['pattern']}" if used.get("pattern") else ""
    atol, rtol = _num(used.get("atol")) or 0.0, _num(used.get("rtol")) or 0.0
    return f"<br>tolerance atol {atol:.3g}, rtol {rtol:.3g} ({used['source']}{pattern})"


def _allowed(row: dict) -> float | None:
    """The tolerance a layer's error is held to: atol + rtol * max |reference|."""
    atol, rtol = _num(row.get("atol")), _num(row.get("rtol"))
    if atol is None and rtol is None:
        return _num(row.get("tolerance"))
    stats = row.get("stats_torch") or {}
    scale = max(abs(_num(stats.get("min")) or 0.0), abs(_num(stats.get("max")) or 0.0))
    # The noise band (PyTorch's own float32-vs-float64 error, times a factor) widens the floor.
    return max((atol or 0.0) + (rtol or 0.0) * scale, _num(row.get("noise_band")) or 0.0)


def gradient_errors(gradients: list[dict]) -> dict | None:
    rows = [g for g in gradients or [] if isinstance(g, dict) and g.get("name")]
    if not rows:
        return None
    names = [g["name"] for g in rows]
    data = [
        {"type": "bar", "name": "gradient max abs error", "x": names, "y": [_positive(g.get("max_abs")) for g in rows],
         "marker": {"color": [COLORS.get(g.get("status", ""), "#9aa3b2") for g in rows]},
         "hovertemplate": "%{x}<br>max abs %{y:.3g}<extra></extra>"},
        {"type": "scatter", "mode": "markers", "name": "tolerance", "x": names,
         "y": [_positive(_allowed(g)) for g in rows], "marker": {"symbol": "line-ew-open", "size": 18,
                                                                   "color": "#1d2330"}},
    ]
    layout = _layout("Gradient error per parameter", yaxis={"type": "log", "title": {"text": "max abs error"},
                                                             "exponentformat": "e"},
                     xaxis={"tickangle": -35, "automargin": True})
    return {"data": data, "layout": layout}


def output_scatter(sample: dict | None) -> dict | None:
    """PyTorch output values against MindSpore's (a sample), on the diagonal when equal."""
    if not isinstance(sample, dict):
        return None
    xs, ys = sample.get("torch") or [], sample.get("mindspore") or []
    pairs = [(a, b) for a, b in zip(map(_num, xs), map(_num, ys)) if a is not None and b is not None]
    if not pairs:
        return None
    low = min(min(p) for p in pairs)
    high = max(max(p) for p in pairs)
    data = [
        {"type": "scattergl" if len(pairs) > 2000 else "scatter", "mode": "markers", "name": "output values",
         "x": [p[0] for p in pairs], "y": [p[1] for p in pairs], "marker": {"size": 4, "color": COLORS["mindspore"],
                                                                          "opacity": 0.6}},
        {"type": "scatter", "mode": "lines", "name": "equal", "x": [low, high], "y": [low, high],
         "line": {"color": "#9aa3b2", "dash": "dot"}},
    ]
    layout = _layout("Outputs: PyTorch vs MindSpore (sampled)", xaxis={"title": {"text": "PyTorch"}},
                     yaxis={"title": {"text": "MindSpore"}})
    return {"data": data, "layout": layout}


def error_histogram(hist: dict | None) -> dict | None:
    """Distribution of |PyTorch - MindSpore| over the output's elements."""
    if not isinstance(hist, dict):
        return None
    if hist.get("values"):
        values = [v for v in map(_num, hist["values"]) if v is not None]
        if not values:
            return None
        data = [{"type": "histogram", "x": values, "marker": {"color": COLORS["mindspore"]}, "name": "abs error"}]
    else:
        edges, counts = hist.get("edges") or hist.get("bins") or [], hist.get("counts") or []
        if not counts or len(edges) < len(counts):
            return None
        centers = [((_num(edges[i]) or 0) + (_num(edges[i + 1]) if i + 1 < len(edges) else _num(edges[i]) or 0)) / 2
                   for i in range(len(counts))]
        data = [{"type": "bar", "x": centers, "y": counts, "marker": {"color": COLORS["mindspore"]},
                 "name": "abs error"}]
    layout = _layout("Absolute error histogram (output)", xaxis={"title": {"text": "|PyTorch − MindSpore|"}},
                     yaxis={"title": {"text": "elements"}}, bargap=0.02)
    return {"data": data, "layout": layout}


def loss_curves(torch_losses: list, mindspore_losses: list, rtol: float | None = None,
                band: list | None = None) -> dict | None:
    """Overlay of both loss curves, with their relative difference in a panel below.
    `band` (the report's loss_curve.allowed_relative) is the noise band per step:
    the float32-vs-float64 gap of PyTorch itself, never below rtol."""
    t = [_num(v) for v in torch_losses or []]
    m = [_num(v) for v in mindspore_losses or []]
    if not t and not m:
        return None
    steps_t, steps_m = list(range(1, len(t) + 1)), list(range(1, len(m) + 1))
    rel = []
    for a, b in zip(t, m):
        rel.append(abs(a - b) / max(abs(a), 1e-12) if a is not None and b is not None else None)
    data = [
        {"type": "scatter", "mode": "lines+markers", "name": "PyTorch", "x": steps_t, "y": t,
         "line": {"color": COLORS["torch"]}},
        {"type": "scatter", "mode": "lines+markers", "name": "MindSpore", "x": steps_m, "y": m,
         "line": {"color": COLORS["mindspore"], "dash": "dash"}},
        {"type": "bar", "name": "relative difference", "x": list(range(1, len(rel) + 1)),
         "y": [_positive(r) for r in rel], "xaxis": "x2", "yaxis": "y2", "marker": {"color": "#7b3fb5"}},
    ]
    layout = _layout(
        "Loss curves", height=460,
        xaxis={"anchor": "y", "domain": [0, 1], "matches": "x2", "showticklabels": False},
        yaxis={"domain": [0.42, 1], "title": {"text": "loss"}},
        xaxis2={"anchor": "y2", "domain": [0, 1], "title": {"text": "step"}},
        yaxis2={"domain": [0, 0.3], "type": "log", "title": {"text": "rel. diff"}, "exponentformat": "e"},
    )
    allowed = [_positive(v) for v in band or []]
    if any(v is not None for v in allowed):
        data.append({"type": "scatter", "mode": "lines", "name": "allowed (noise band)", "x": list(range(1, len(allowed) + 1)),
                     "y": allowed, "xaxis": "x2", "yaxis": "y2", "fill": "tozeroy",
                     "fillcolor": "rgba(154,163,178,0.25)", "line": {"color": "#b42318", "dash": "dash", "shape": "hvh"}})
    elif rtol:
        layout["shapes"] = [{"type": "line", "xref": "x2 domain", "x0": 0, "x1": 1, "yref": "y2", "y0": rtol,
                             "y1": rtol, "line": {"color": "#b42318", "dash": "dash"}}]
    return {"data": data, "layout": layout}


def sparkline_points(values: list[int], width: int = 120, height: int = 28) -> str:
    """SVG polyline points for a tiny inline trend (no JavaScript on the projects page)."""
    if not values:
        return ""
    if len(values) == 1:
        values = values * 2
    top = max(values) or 1
    step = width / (len(values) - 1)
    return " ".join(f"{i * step:.1f},{height - 2 - (v / top) * (height - 4):.1f}" for i, v in enumerate(values))
