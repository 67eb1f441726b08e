"""The tables of a report, in Markdown and HTML: Table 1, the spread of its means, model use per role, the Vision
audit, and report.html around them."""

from __future__ import annotations

import base64
import html
import math
from typing import TYPE_CHECKING

from doomagent.eval.metrics import Spread

if TYPE_CHECKING:
    from doomagent.eval.report import Row


def markdown_table(rows: list[Row], labels: list[str]) -> str:
    """Return the rows as a Markdown table laid out like the paper's Table 1."""
    head = [
        "Prompt",
        *[f"PMAT_{r} / D-PMAT_{r}" for r in labels],
        "Deaths",
        "Timeouts",
        "Frame cap",
        "Finish",
        "Progress",
        "SPL",
        "DTS",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        s = row.summary
        tail = (
            ["0%", "0%", "", "Yes", "100%", "", ""]
            if s is None
            else [
                f"{s.deaths:.0%}",
                f"{s.timeouts:.0%}",
                f"{s.frame_cap}/{s.trials}",
                f"{s.finishes}/{s.trials}",
                "" if s.progress is None else f"{s.progress:.0%}",
                f"{s.spl:.2f}",
                "" if s.dts is None else f"{s.dts:.0f}",
            ]
        )
        lines.append("| " + " | ".join([row.label, *[row.cells[r].text() for r in labels], *tail]) + " |")
    return "\n".join(lines)


def spread_markdown(rows: list[Row], labels: list[str]) -> str:
    """Return how every mean of the table varies over its trials: sd and a bootstrap 95% interval."""
    lines = ["| Row | Measure | Mean | SD | 95% CI of the mean | Trials |", "|---|---|---|---|---|---|"]
    for row in rows:
        s = row.summary
        if s is None:
            continue
        measures: list[tuple[str, Spread | None]] = []
        for room in labels:
            cell = row.cells[room]
            measures += [(f"PMAT_{room}", cell.pmat_spread), (f"D-PMAT_{room}", cell.dpmat_spread)]
        measures += [
            ("frames per trial", s.frames_spread),
            ("progress", s.progress_spread),
            ("SPL", s.spl_spread),
            ("DTS", s.dts_spread),
        ]
        for name, sp in measures:
            if sp is None:
                lines.append(f"| {row.label} | {name} | ∞ (never entered) | | | 0 |")
                continue
            sd = "" if sp.sd is None else _num(sp.sd)
            ci = f"{_num(sp.low)}-{_num(sp.high)}"
            lines.append(f"| {row.label} | {name} | {_num(sp.mean)} | {sd} | {ci} | {sp.n} |")
    return "\n".join(lines)


def _num(value: float) -> str:
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.0f}"


def audit_markdown(rows: list[Row]) -> str:
    """Return the Vision audit per row (hallucination rate against engine truth), or '' if none."""
    scored = [r for r in rows if r.audit.get("calls")]
    if not scored:
        return ""
    lines = ["| Row | Vision calls audited | Hallucinated | Rate |", "|---|---|---|---|"]
    for r in scored:
        calls, bad = r.audit["calls"], r.audit.get("hallucinated", 0)
        lines.append(f"| {r.label} | {calls} | {bad} | {bad / calls:.1%} |")
    return "\n".join(lines)


def usage_markdown(rows: list[Row]) -> str:
    """Return model use per role as a Markdown table."""
    lines = [
        "| Row | Role | Calls | Errors | Tokens in | Tokens out | Cost $ | Mean latency s | Rate-limit waits "
        "| WAIT rate |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if row.summary is None:
            continue
        for role, u in row.usage.items():
            latency = "" if math.isnan(u.mean_latency_s) else f"{u.mean_latency_s:.3f}"
            lines.append(
                f"| {row.label} | {role} | {u.calls} | {u.errors} | {u.input_tokens} | {u.output_tokens} | "
                f"{u.cost:.4f} | {latency} | {u.rate_waits} ({u.rate_wait_s:.1f} s) | {row.summary.wait_rate:.1%} |"
            )
    return "\n".join(lines)


def suite_markdown(suite: dict[str, list[Row]]) -> str:
    """Return maps x rows: each cell `progress · finishes · deaths`, and each row's mean progress over the maps."""
    labels = list(dict.fromkeys(r.label for rows in suite.values() for r in rows if r.summary is not None))
    lines = ["| Row | " + " | ".join(suite) + " | Mean progress |", "|" + "---|" * (len(suite) + 2)]
    for label in labels:
        cells, progress = [], []
        for rows in suite.values():
            s = next((r.summary for r in rows if r.label == label and r.summary is not None), None)
            if s is None:
                cells.append("")
                continue
            if s.progress is not None:
                progress.append(s.progress)
            shown = "-" if s.progress is None else f"{s.progress:.0%}"
            deaths = round(s.deaths * s.trials)
            cells.append(f"{shown} · {s.finishes}/{s.trials} finished · {deaths} died")
        mean = f"{sum(progress) / len(progress):.0%}" if progress else "-"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {mean} |")
    return "\n".join(lines)


STYLE = """<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,th:first-child{text-align:left}
img{max-width:100%}</style>"""


def html_table(md: str) -> str:
    """Return a Markdown table as an HTML table."""
    out = ["<table>"]
    for i, line in enumerate(row for row in md.splitlines() if not row.startswith("|--")):
        cells = [c.strip() for c in line.strip("|").split("|")]
        tag = "th" if i == 0 else "td"
        out.append("<tr>" + "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in cells) + "</tr>")
    return "\n".join([*out, "</table>"])


def report_html(title: str, notes: str, rows: list[Row], labels: list[str], traj: bytes, bars: bytes) -> str:
    """Return report.html: the notes, the tables and the two figures inline."""
    table = html_table

    def img(raw: bytes, alt: str) -> str:
        return f'<img alt="{alt}" src="data:image/png;base64,{base64.b64encode(raw).decode()}">'

    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>doomagent report: {html.escape(title)}</title>
{STYLE}</head><body>
<h1>{html.escape(title)}</h1><p>{html.escape(notes)}</p>
<h2>PMAT / D-PMAT per room</h2>{table(markdown_table(rows, labels))}
<h2>Spread over trials</h2>{table(spread_markdown(rows, labels))}
<h2>Trajectories</h2>{img(traj, "trajectories")}
<h2>Per room</h2>{img(bars, "per-room bars")}
<h2>Model use per role</h2>{table(usage_markdown(rows))}
{"<h2>Vision audit against the engine</h2>" + table(audit_markdown(rows)) if audit_markdown(rows) else ""}
</body></html>
"""
