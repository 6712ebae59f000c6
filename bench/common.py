"""Shared helpers of the bench scripts: the machine, medians, tables, results JSON.

Nothing here times anything by itself; every script prints its own table and writes
bench/results/<name>.json (git-ignored).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

if str(ROOT / "bench") not in sys.path:  # `python bench/run.py` imports its siblings
    sys.path.insert(0, str(ROOT / "bench"))


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, Any]:
    """What the figures were measured on, and how busy the machine was when they started."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu": cpu_model(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "loadavg": load,
    }


def machine_line(info: dict[str, Any] | None = None) -> str:
    info = info or machine()
    load = "/".join(str(x) for x in info["loadavg"]) if info["loadavg"] else "?"
    return f"{info['cores']} cores ({info['cpu']}), {info['python']}, load average {load}"


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(headers: list[str], rows: list[list[Any]], align: str | None = None) -> str:
    """A plain-text table; `align` holds one 'l' or 'r' per column (default: first left, rest right)."""
    align = align or "l" + "r" * (len(headers) - 1)
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for k, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(row, widths, align)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if value != value:
            return "-"
        return f"{value:.2f}" if abs(value) < 100 else f"{value:.0f}" if abs(value) >= 1000 else f"{value:.1f}"
    return str(value)


def write_results(name: str, data: dict[str, Any]) -> Path:
    """bench/results/<name>.json, with the machine added."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"bench": name, "machine": machine(), **data}, indent=2) + "\n")
    return path
