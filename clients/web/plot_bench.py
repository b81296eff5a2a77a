#!/usr/bin/python3
"""Plots ligature-bench results: one bar per benchmark line with a peer, its ratio
ours / peer (median step; below 1 is faster than the peer), and, when a line carries
latency samples ("samples": [...] or "histogram": {"edges": [...], "counts": [...]}), their
histogram; without samples the latency lines (metrics ending in _us) are drawn as median and
p99 bars instead.

    build/tests/bench/ligature-bench --quick > bench.jsonl
    /usr/bin/python3 clients/web/plot_bench.py bench.jsonl -o bench.png

Reads standard input when no file is given. Needs Debian's python3-matplotlib; without it,
writes an SVG of the ratio chart by hand (give -o with .svg)."""

import argparse
import json
import re
import sys


def read_lines(stream):
    """The JSON objects of a stream of lines; other lines (logs, blanks) are skipped."""
    rows = []
    for number, line in enumerate(stream, 1):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            print(f"line {number}: not JSON ({e}); skipped", file=sys.stderr)
    return rows


def ratio_rows(rows):
    """(label, ratio) for every line with a peer and a ratio, in input order."""
    out = []
    for r in rows:
        if r.get("peer") and isinstance(r.get("ratio"), (int, float)):
            # The solver variant, when the notes name it (rigid benchmarks run both).
            solver = re.search(r"solver=([^,\s]+)", str(r.get("notes") or ""))
            variant = f" [{solver.group(1)}]" if solver else ""
            out.append((f"{r.get('bench', '?')}{variant} vs {r['peer']}", float(r["ratio"])))
    return out


def latency_rows(rows):
    """Lines with latency samples or a histogram, else lines whose metric ends in _us."""
    with_samples = [r for r in rows if r.get("samples") or r.get("histogram")]
    if with_samples:
        return with_samples, True
    return [r for r in rows if str(r.get("metric", "")).endswith("_us")
            and isinstance(r.get("median"), (int, float))], False


def plot_matplotlib(rows, output):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    ratios = ratio_rows(rows)
    latency, has_samples = latency_rows(rows)
    panels = (1 if ratios else 0) + (1 if latency else 0)
    if panels == 0:
        raise SystemExit("no line with a peer ratio or a latency figure")
    fig, axes = plt.subplots(panels, 1, figsize=(10, 0.32 * max(len(ratios), 8) + 3 * panels),
                             squeeze=False)
    axes = list(axes[:, 0])
    if ratios:
        ax = axes.pop(0)
        labels = [label for label, _ in ratios]
        values = [value for _, value in ratios]
        colours = ["#3f9f5f" if v <= 1 else "#d9485f" for v in values]
        # Bars start at 1 (as fast as the peer) and reach the ratio, on a log axis.
        ax.barh(range(len(values)), [v - 1.0 for v in values], left=1.0, color=colours)
        for y, v in enumerate(values):
            ax.text(v, y, f" {v:.2f}", va="center", fontsize=8)
        ax.set_yticks(range(len(values)), labels, fontsize=8)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=1)
        ax.set_xscale("log")
        lo, hi = min(min(values), 0.5) / 1.2, max(max(values), 2.0) * 1.3
        ax.set_xlim(lo, hi)
        ax.set_xticks([t for t in (0.1, 0.25, 0.5, 1, 2, 4, 8, 16) if lo <= t <= hi])
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("ours / peer, median step (log; < 1: faster than the peer)")
        ax.set_title("ligature-bench: ratio to peers")
    if latency:
        ax = axes.pop(0)
        if has_samples:
            for r in latency:
                name = r.get("bench", "?")
                if r.get("samples"):
                    ax.hist(r["samples"], bins=60, alpha=0.6, label=name)
                else:
                    h = r["histogram"]
                    ax.stairs(h["counts"], h["edges"], label=name)
            ax.set_xlabel(latency[0].get("metric", "latency"))
            ax.set_ylabel("count")
            ax.legend(fontsize=8)
            ax.set_title("latency histogram")
        else:
            # Ours once per benchmark, then each peer's figures from the same lines.
            names, medians, p99, seen = [], [], [], set()
            for r in latency:
                bench = r.get("bench", "?")
                if bench not in seen:
                    seen.add(bench)
                    names.append(f"{bench} (ours)")
                    medians.append(r["median"])
                    p99.append(r.get("p99") or 0)
                if r.get("peer") and isinstance(r.get("peer_median"), (int, float)):
                    names.append(f"{bench} ({r['peer']})")
                    medians.append(r["peer_median"])
                    p99.append(r.get("peer_p99") or 0)
            ys = range(len(names))
            ax.barh([y - 0.2 for y in ys], medians, height=0.4, label="median", color="#4f8fdc")
            ax.barh([y + 0.2 for y in ys], p99, height=0.4, label="p99", color="#e39b2f")
            ax.set_yticks(list(ys), names, fontsize=8)
            ax.invert_yaxis()
            ax.set_xlabel("us")
            ax.legend(fontsize=8)
            ax.set_title("latency (median and p99; the lines carry no samples for a histogram)")
    fig.tight_layout()
    fig.savefig(output, dpi=110)


def plot_svg(rows, output):
    """The ratio chart as a hand-written SVG (log scale, a line at 1)."""
    import math
    ratios = ratio_rows(rows)
    if not ratios:
        raise SystemExit("no line with a peer ratio")
    left, width, bar, gap = 330, 420, 14, 6
    lo = min(min(v for _, v in ratios), 0.5)
    hi = max(max(v for _, v in ratios), 2.0)
    x_of = lambda v: left + width * (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))
    height = 40 + len(ratios) * (bar + gap) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 30}" '
             f'height="{height}" font-family="sans-serif" font-size="11">',
             '<text x="10" y="20" font-size="14">ligature-bench: ours / peer (median step, log)</text>']
    for i, (label, value) in enumerate(ratios):
        y = 40 + i * (bar + gap)
        x0, x1 = sorted((x_of(1.0), x_of(value)))
        colour = "#3f9f5f" if value <= 1 else "#d9485f"
        parts.append(f'<text x="{left - 6}" y="{y + bar - 3}" text-anchor="end">{escape(label)}</text>')
        parts.append(f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1):.1f}" height="{bar}" fill="{colour}"/>')
        parts.append(f'<text x="{x1 + 4:.1f}" y="{y + bar - 3}">{value:.2f}</text>')
    x1 = x_of(1.0)
    parts.append(f'<line x1="{x1:.1f}" y1="32" x2="{x1:.1f}" y2="{height - 20}" stroke="black"/>')
    parts.append(f'<text x="{x1:.1f}" y="{height - 6}" text-anchor="middle">1</text></svg>')
    with open(output, "w") as f:
        f.write("\n".join(parts) + "\n")


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", nargs="?", help="ligature-bench output (default: stdin)")
    parser.add_argument("-o", "--output", default="bench.png", help="image to write (.png or .svg)")
    args = parser.parse_args()
    if args.input:
        with open(args.input) as f:
            rows = read_lines(f)
    else:
        rows = read_lines(sys.stdin)
    try:
        import matplotlib  # noqa: F401
        plot_matplotlib(rows, args.output)
    except ImportError:
        if not args.output.endswith(".svg"):
            raise SystemExit("python3-matplotlib is not installed: give -o FILE.svg")
        plot_svg(rows, args.output)
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
