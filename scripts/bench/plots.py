"""The report's PNG plots: one per family and the verdict as one figure. matplotlib is optional:
pyplot() says why there are no plots when it is missing, and nothing is installed."""
import math
import os

from runs import fmt, fmt_ratio, noise, size_kib


def pyplot():
    """(matplotlib.pyplot, "") when matplotlib imports, else (None, why): the report is then
    written without plots. A report does not change the machine, so nothing is installed."""
    try:
        import matplotlib
    except ImportError:
        return None, ("matplotlib is not installed, so this report has no plots (install it, e.g. Debian's "
                      "python3-matplotlib or pip's matplotlib, and run the report again)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt, ""


def plot_by_size(plt, family, instances, out_dir):
    """Bandwidth against size, one line per strategy, and the pinned-copy ceiling."""
    series = {}
    ceiling = {}
    for name, row in instances:
        kib = size_kib(name)
        if kib is None or row.get("error_occurred"):
            continue
        strategy = name.rsplit("/", 1)[0].replace("_16GiB", "")
        gigabytes = kib * 1024 / 1e9
        time_ms = row.get("to_device_ms") or row.get("to_host_ms")
        ceiling_ms = row.get("ceiling_to_device_ms") or row.get("ceiling_to_host_ms")
        if time_ms:
            series.setdefault(strategy, []).append((kib, gigabytes / (time_ms * 1e-3)))
        if ceiling_ms:
            ceiling.setdefault(kib, []).append(gigabytes / (ceiling_ms * 1e-3))
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    for strategy, points in sorted(series.items()):
        points.sort()
        ax.plot([k for k, _ in points], [v for _, v in points], marker="o", label=strategy)
    if ceiling:
        ks = sorted(ceiling)
        ax.plot(ks, [sorted(ceiling[k])[len(ceiling[k]) // 2] for k in ks], "k--", label="pinned copy (ceiling)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("size (KiB)")
    direction = "host to device + kernel" if family == "family_a" else "device to host + host reads"
    ax.set_ylabel(f"effective GB/s ({direction})")
    ax.set_title(family)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{family}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return os.path.basename(path)


def plot_family(plt, family, instances, out_dir):
    metric = next((m for m in ["GB/s", "us_per_op", "umsync_us", "umsync_cycles"]
                   if any(m in row for _, row in instances)), None)
    labels = [name for name, _ in instances]
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(labels) + 3), 4))
    if metric is None:
        values = [row["real_time"] for _, row in instances]
        ax.bar(labels, values)
        ax.set_ylabel(f"time ({instances[0][1].get('time_unit', '')})")
    else:
        raw_metric = {"umsync_us": "raw_us", "umsync_cycles": "raw_cycles"}.get(metric)
        xs = range(len(labels))
        values = [row.get(metric, float("nan")) for _, row in instances]
        if raw_metric:
            raw = [row.get(raw_metric, float("nan")) for _, row in instances]
            ax.bar([x - 0.2 for x in xs], raw, width=0.4, label="raw CUDA")
            ax.bar([x + 0.2 for x in xs], values, width=0.4, label="umsync")
            ax.legend()
        else:
            ax.bar(list(xs), values)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels)
        ax.set_ylabel(metric)
        positive = [v for v in values if v and v > 0 and not math.isnan(v)]
        if positive and max(positive) / min(positive) > 100:
            ax.set_yscale("log")
    ax.set_title(family)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    path = os.path.join(out_dir, f"{family}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return os.path.basename(path)



def plot_verdict(plt, decisions, out_dir, title):
    measured = [d for d in decisions if len(d.options) >= 1]
    if not measured:
        return None
    columns = 2
    rows = math.ceil(len(measured) / columns)
    heights = [max(len(d.options) for d in measured[r * columns:(r + 1) * columns]) for r in range(rows)]
    fig, axes = plt.subplots(rows, columns, figsize=(15, 0.42 * sum(heights) + 1.1 * rows + 0.8),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, d in zip(axes.flat, measured):
        options = list(reversed(d.options))  # the best on top
        ratios = [o.ratio for o in options]
        colors = ["#2e7d32" if o is d.options[0] else ("#9e9e9e" if o.ratio - 1 <= noise(d.options[0].cv, o.cv)
                                                       else "#e65100") for o in options]
        best = d.options[0]
        ceiling = 1.0 / best.ceiling if best.ceiling else None  # the ceiling's cost / the best option's
        low = min([1.0] + ([ceiling] if ceiling else []))
        log = max(ratios) > 20
        left = 0.7 * low if log else 0.0
        ax.barh(range(len(options)), [r - left for r in ratios], left=left, color=colors)
        ax.set_yticks(range(len(options)))
        labels = [o.label.replace("`", "") for o in options]
        ax.set_yticklabels([t if len(t) <= 48 else t[:46] + "..." for t in labels], fontsize=8)
        if log:
            ax.set_xscale("log")
        ax.set_xlim(left=left, right=max(ratios) * (3.0 if log else 1.45))
        for y, o in enumerate(options):
            ax.text(o.ratio, y, f" {fmt_ratio(o.ratio)} ({fmt(o.value)} {o.unit})", va="center", fontsize=7)
        if ceiling:
            ax.axvline(ceiling, color="#1565c0", linestyle="--", linewidth=1.0)
            ax.text(ceiling, len(options) - 0.55, " " + d.ceiling_short, color="#1565c0", fontsize=7, va="bottom")
        ax.set_ylim(-0.6, len(options) - 0.1 if ceiling else len(options) - 0.4)
        ax.axvline(1.0, color="black", linewidth=0.6)
        ax.set_title(d.quick_label or d.title.replace("`", ""), fontsize=9, loc="left")
        ax.tick_params(axis="x", labelsize=7)
    for ax in list(axes.flat)[len(measured):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=11)
    fig.text(0.5, 0.005, "cost / the cheapest option (green; grey: within the run's spread of it; orange: beyond); "
             "dashed: the hardware ceiling measured in the same run, where one applies",
             ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.02, 1, 0.97))
    path = os.path.join(out_dir, "verdict.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return os.path.basename(path)
