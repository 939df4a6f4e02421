"""The verdict: one row per decision a user faces, each option's cost as a ratio to the best
option and to the ceiling measured in the same run. The decisions are data (decisions.py: which
benchmark rows each option uses, the texts); this file holds the ways of reading them, the
policies and the notes, and no benchmark name.

    decide(run)                  every decision of decisions.DECISIONS, in order
    decide_one(run, "graph")     one of them, by key
"""
import fnmatch
import math
import re
import statistics
from dataclasses import dataclass, field

import decisions as decision_table
from runs import and_join, cv_of, fmt, fmt_ratio, human_size, noise, size_key, usable


@dataclass
class Option:
    label: str
    value: float
    unit: str
    cv: float = None
    ceiling: float = None  # cost / the ceiling's cost, same run
    instance: str = ""
    ratio: float = 1.0  # cost / the best option's cost


@dataclass
class Decision:
    key: str
    title: str
    timed: str = ""
    ceiling_label: str = ""
    options: list = field(default_factory=list)
    missing: list = field(default_factory=list)  # "label: why" of options not in the run
    verdict: str = ""
    families: tuple = ()
    quick_label: str = ""  # the title in the figure
    ceiling_short: str = "ceiling"  # the ceiling's name in the figure

    @property
    def measured(self):
        return bool(self.options)


# ---- Expressions: counters of a row, numbers, run:FAMILY:COUNTER, joined by + - * / ----------


def term(token, row, run):
    try:
        return float(token)
    except ValueError:
        pass
    if token.startswith("run:"):
        _, family, counter = token.split(":", 2)
        value = run.first_value(family, counter) if run is not None else None
    else:
        value = row.get(token)
    return value if usable(value) else None


def evaluate(expression, row, run=None):
    """The value of `expression` on `row` (decisions.py says the syntax); None when a counter it
    names is missing or not positive."""
    tokens = expression.split()
    if len(tokens) == 1:
        return term(tokens[0], row, run)
    if not tokens or len(tokens) % 2 == 0:
        raise ValueError(f"verdict: malformed expression {expression!r}")
    total, product, sign = 0.0, term(tokens[0], row, run), 1.0
    if product is None:
        return None
    for op, token in zip(tokens[1::2], tokens[2::2]):
        value = term(token, row, run)
        if value is None:
            return None
        if op == "*":
            product *= value
        elif op == "/":
            product /= value
        elif op in ("+", "-"):
            total += sign * product
            sign, product = (1.0 if op == "+" else -1.0), value
        else:
            raise ValueError(f"verdict: unknown operator {op!r} in {expression!r}")
    return total + sign * product


def at_size(text, size):
    return text.replace("{size}", str(size))


def rank(decision, extra=""):
    """Orders the options by cost, sets each one's ratio to the best, and writes the verdict line:
    the cheapest option, those within the rows' spread of it, and what the others cost."""
    if not decision.options:
        return decision
    decision.options.sort(key=lambda o: o.value)
    best = decision.options[0]
    for option in decision.options:
        option.ratio = option.value / best.value
    same = [o for o in decision.options[1:] if o.ratio - 1 <= noise(best.cv, o.cv)]
    worse = [o for o in decision.options[1:] if o.ratio - 1 > noise(best.cv, o.cv)]
    costs = "; " + ", ".join(f"{o.label} costs {fmt_ratio(o.ratio)}" for o in worse) + "." if worse else "."
    if len(decision.options) == 1:
        text = f"Only {best.label} was measured: nothing to compare it with."
    elif not worse:
        text = f"{and_join([o.label for o in decision.options])} cost the same within the run's spread: choose on " \
               "other grounds."
    elif same:
        text = f"{and_join([o.label for o in [best] + same])} cost the same within the run's spread: use any of " \
               "them" + costs
    else:
        text = f"Use {best.label}" + costs
    decision.verdict = text[0].upper() + text[1:] + (" " + extra if extra else "")
    return decision


# ---- Policies: how a decision's options are found ---------------------------------------------


def sized(run, entry, d):
    """Each option one row's value, compared at one size: the size most options measured (the
    largest of those). Returns the size."""
    unit = entry.get("size_unit", "")
    by_option = []
    for option in entry["options"]:
        rx = re.compile(re.escape(option["instance"]).replace(re.escape("{size}"), r"(\d+)"))
        sizes = {}
        for instance, row, cvs in run.rows(option["family"]):
            match = rx.fullmatch(instance)
            if not match:
                continue
            size = int(match.group(1)) if match.groups() else None
            if usable(evaluate(option["counter"], row, run)):
                sizes[size] = (instance, row, cv_of(cvs, option["counter"]))
        by_option.append(sizes)
    counts = {}
    for sizes in by_option:
        for size in sizes:
            counts[size] = counts.get(size, 0) + 1
    if not counts:
        d.missing = [f"{option['label']}: no {option['family']} row" for option in entry["options"]]
    else:
        chosen = max(counts, key=lambda size: (counts[size], size if size is not None else 0))
        for option, sizes in zip(entry["options"], by_option):
            if chosen not in sizes:
                why = f"no {option['family']} row" if not sizes else f"not measured at {human_size(chosen, unit)}"
                d.missing.append(f"{option['label']}: {why}")
                continue
            instance, row, cv = sizes[chosen]
            value = evaluate(option["counter"], row, run)
            ceiling = None
            if option.get("ceiling"):
                ceiling_cost = evaluate(option["ceiling"], row, run)
                ceiling = value / ceiling_cost if usable(ceiling_cost) else None
            d.options.append(Option(option["label"], value, option["unit"], cv, ceiling,
                                    f"{option['family']}/{instance}: {option['counter']}"))
    d.missing += list(entry.get("missing", []))
    size = chosen if counts else None
    d.timed = entry.get("timed", "").replace("{size}", human_size(size, unit))
    return size


def paired(run, entry, d):
    """Rows that pair umsync with raw CUDA in the same iterations (a 'ratio' counter next to a
    'raw_*' one), of the families starting with one of entry's prefixes (all families when it has
    none): raw CUDA, the median pair and the slowest pair, as ratios to raw. Writes the verdict."""
    prefixes = tuple(entry["prefixes"]) if entry.get("prefixes") else None
    raw_label = entry.get("raw_label", "raw CUDA")
    pairs = []
    for family in sorted(run.families):
        if prefixes is not None and not family.startswith(prefixes):
            continue
        for instance, row, cvs in run.rows(family):
            if usable(row.get("ratio")) and any(k.startswith("raw_") for k in row):
                pairs.append((row["ratio"], f"{family}/{instance}", cv_of(cvs, "ratio")))
    if not pairs:
        d.missing.append("no row pairs umsync with raw CUDA" if prefixes is None else
                         "no " + " or ".join(f"{p}*" for p in prefixes) + " row in this run")
        return None
    d.families = tuple(sorted({family for family in run.families for _, name, _ in pairs
                               if name.startswith(family + "/")}))
    ratios = [r for r, _, _ in pairs]
    median = statistics.median(ratios)
    slowest = max(pairs)
    d.options = [Option(raw_label, 1.0, "x raw", instance="1 by definition"),
                 Option("umsync, the median pair", median, "x raw", instance=f"the median of {len(pairs)} rows' ratio"),
                 Option(f"umsync, the slowest pair (`{slowest[1]}`)", slowest[0], "x raw", slowest[2],
                        instance=f"{slowest[1]}: ratio")]
    d.timed = (f"{len(pairs)} {entry.get('timed_what', 'rows')} that run {raw_label} and umsync side by side in the "
               "same iterations; cost = umsync / raw")
    beyond = [(r, name) for r, name, cv in pairs if abs(r - 1) > noise(cv)]
    d.options.sort(key=lambda o: o.value)
    best = d.options[0]
    for option in d.options:
        option.ratio = option.value / best.value
    text = f"umsync / raw spans {min(ratios):.3f}-{max(ratios):.3f} over {len(pairs)} pairs, median {median:.3f}. "
    if not beyond:
        text += "Every pair is within its spread of 1: no measurable overhead."
    else:
        text += (f"{len(pairs) - len(beyond)} within their spread; beyond it: " +
                 ", ".join(f"`{name}` {r:.3f}" for r, name in sorted(beyond)) + ".")
    d.verdict = text
    return None


def overlap(run, entry, d):
    """Work overlapped with communication against the same work serial, per bucket size: each
    bucket's overlapped loop and the best serial one, scaled to ms per GiB when the rows say how
    many buckets they ran; the ceiling is perfect overlap (the longer of the two alone)."""
    family, over, serial, count = entry["family"], entry["overlapped"], entry["serial"], entry["buckets"]
    alone = entry["alone"]
    rows = [(size_key(i), r, cvs) for i, r, cvs in run.rows(family)
            if all(usable(r.get(k)) for k in [over, serial] + alone)]
    if not rows:
        d.missing.append(entry["missing"])
        return None

    def per_gib(bucket, row):
        """ms per GiB of gradients (buckets x bucket MiB)."""
        return 1024.0 / (bucket * row[count]) if usable(row.get(count)) else None

    scaled = all(per_gib(b, r) for b, r, _ in rows)
    unit = "ms per GiB" if scaled else "ms"
    how = f" x 1024 / ({count} x bucket MiB)" if scaled else ""
    for bucket, row, cvs in sorted(rows, key=lambda r: r[0]):
        k = per_gib(bucket, row) if scaled else 1.0
        bound = max(row[k_] for k_ in alone)
        d.options.append(Option(entry["overlapped_label"].format(bucket=bucket), row[over] * k, unit,
                                cv_of(cvs, over), row[over] / bound, f"{family}/{bucket}: {over}{how}"))
    bucket, row, cvs = min(rows, key=lambda r: r[1][serial] * (per_gib(r[0], r[1]) if scaled else 1.0))
    d.options.append(Option(entry["serial_label"].format(bucket=bucket),
                            row[serial] * (per_gib(bucket, row) if scaled else 1.0), unit, cv_of(cvs, serial),
                            row[serial] / max(row[k_] for k_ in alone), f"{family}/{bucket}: {serial}{how}"))
    totals = sorted({round(b * r[count]) for b, r, _ in rows if usable(r.get(count))})
    gradients = ", ".join(human_size(t, "MiB") for t in totals) or "the gradients"
    d.timed = entry["timed"].format(gradients=gradients, scaling="scaled to ms per GiB of gradients" if scaled
                                    else "ms per step")
    losing = [b for b, r, _ in sorted(rows, key=lambda r: r[0]) if r[over] > r[serial]]
    return [entry["losing"].format(buckets=", ".join(f"{b}" for b in losing))] if losing else []


POLICIES = {"sized": sized, "paired": paired, "overlap": overlap}


# ---- Notes: sentences after the verdict, read from the run --------------------------------------


def note_row(run, note, d, size):
    """One row's value: {value}."""
    row = run.row(note["family"], at_size(note["instance"], size))
    value = evaluate(note["value"], row, run) if row else None
    return note["text"].format(value=fmt(value)) if usable(value) else None


def note_ends(run, note, d, size):
    """The value at the smallest and the largest size of a family: {first} at {first_size}, {last}
    at {last_size}."""
    points = sorted((size_key(i), v) for i, r, _ in run.rows(note["family"])
                    if usable(v := evaluate(note["value"], r, run)))
    if len(points) < 2:
        return None
    unit = note.get("size_unit", "")
    return note["text"].format(first=fmt(points[0][1]), first_size=human_size(points[0][0], unit),
                               last=fmt(points[-1][1]), last_size=human_size(points[-1][0], unit))


def note_payback(run, note, d, size):
    """A one-off cost against a saving per step: after how many steps it is paid back."""
    row = run.row(note["family"], at_size(note["instance"], size)) if size is not None else None
    if not row:
        return None
    cold, saved = evaluate(note["cold"], row, run), evaluate(note["saved"], row, run)
    if cold is None or saved is None:
        return None
    text = note["text"].format(cold=fmt(cold))
    return text + (note["paid_back"].format(steps=math.ceil(cold / saved)) if saved > 0 else note["never"])


def note_range(run, note, d, size):
    """The smallest and largest value over the rows of some families (the decision's by default):
    {min}-{max} over {count} rows."""
    values = [v for family in note.get("families") or d.families for _, r, _ in run.rows(family)
              if (v := evaluate(note["value"], r, run)) is not None]
    if len(values) < note.get("at_least", 1):
        return None
    shown = fmt_ratio if note.get("format") == "ratio" else (lambda v: format(v, note.get("format", "")))
    return note["text"].format(count=len(values), min=shown(min(values)), max=shown(max(values)))


def selected(instance, note):
    return fnmatch.fnmatchcase(instance, note.get("instance", "*")) and not (
        note.get("exclude") and fnmatch.fnmatchcase(instance, note["exclude"]))


def note_quotient(run, note, d, size):
    """The value of family a's row over family b's (rows chosen by instance/exclude): {ratio}."""
    found = {}
    for family in (note["a"], note["b"]):
        for instance, row, _ in run.rows(family):
            if selected(instance, note):
                found[family] = row
    values = [evaluate(note["value"], found[f], run) if f in found else None for f in (note["a"], note["b"])]
    if not all(usable(v) for v in values):
        return None
    return note["text"].format(ratio=fmt_ratio(values[0] / values[1]))


def note_list(run, note, d, size):
    """Each row of a family (by instance) as an item keyed by a number of its instance, and the key
    of the cheapest: {items}, {best}."""
    points = sorted((int(i.split("/")[note["key"]]), v) for i, r, _ in run.rows(note["family"], note["instance"])
                    if usable(v := evaluate(note["value"], r, run)))
    if len(points) < note.get("at_least", 1):
        return None
    best = min(points, key=lambda p: p[1])
    items = ", ".join(note["item"].format(key=key, value=fmt(value)) for key, value in points)
    return note["text"].format(items=items, best=best[0])


def note_errors(run, note, d, size):
    """The rows of a family that did not run (an error row): {items}."""
    skipped = sorted(i for i, (row, _) in run.families.get(note["family"], {}).items() if row.get("error_occurred"))
    if not skipped:
        return None
    return note["text"].format(items=", ".join(f"`{note['family']}/{i}`" for i in skipped))


def note_rows(run, note, d, size):
    """Some rows (each family's, by instance/exclude) as items, each against its ceiling where it
    has one: {items}; {size}: the first row's size (its first number x size_scale)."""
    found = []
    for item in note["rows"]:
        for instance, row, _ in run.rows(item["family"]):
            if selected(instance, note) and usable(value := evaluate(note["value"], row, run)):
                found.append((item["label"], instance, row, value))
    if not found:
        return None
    parts = []
    for label, _, row, value in found:
        ceiling = evaluate(note["ceiling"], row, run) if note.get("ceiling") else None
        parts.append(note["item"].format(label=label, value=fmt(value)) +
                     (note["item_ceiling"].format(ratio=fmt_ratio(value / ceiling)) if usable(ceiling) else ""))
    shown = human_size(size_key(found[0][1]) * note.get("size_scale", 1), note.get("size_unit", ""))
    return note["text"].format(size=shown, items=", ".join(parts))


NOTES = {"row": note_row, "ends": note_ends, "payback": note_payback, "range": note_range,
         "quotient": note_quotient, "list": note_list, "errors": note_errors, "rows": note_rows}


# ---- The decisions ------------------------------------------------------------------------------


def decide_entry(run, entry):
    d = Decision(entry["key"], entry["title"], ceiling_label=entry.get("ceiling_label", ""),
                 families=tuple(entry.get("families", ())), quick_label=entry.get("quick_label", ""),
                 ceiling_short=entry.get("ceiling_short", "ceiling"))
    policy = POLICIES[entry["policy"]]
    result = policy(run, entry, d)
    if entry["policy"] == "paired":
        return d
    if entry["policy"] == "overlap":
        if result is None:
            return d
        return rank(d, " ".join(result))
    extra = [text for note in entry.get("notes", []) if (text := NOTES[note["kind"]](run, note, d, result))]
    return rank(d, " ".join(extra))


def decide(run, table=None):
    """Every decision of `table` (default: decisions.DECISIONS), in order; one with no option
    measured says "not measured in this run"."""
    decisions = [decide_entry(run, entry) for entry in (table or decision_table.DECISIONS)]
    for d in decisions:
        if not d.measured:
            d.verdict = "not measured in this run"
    return decisions


def decide_one(run, key, table=None):
    """The decision `key` of `table` (default: decisions.DECISIONS)."""
    entry = next(e for e in (table or decision_table.DECISIONS) if e["key"] == key)
    return decide(run, [entry])[0]


def verdict_lines(decisions, run, figure):
    lines = ["## Verdict", ""]
    lines.append("Which choice costs what on this GPU, from this run's rows. Each option: its cost (median), ×best = "
                 "cost / the cheapest option's, ×ceiling = cost / the hardware ceiling measured in the same run "
                 "(where one applies). Which rows each option uses: `DECISIONS` in `scripts/bench/decisions.py`; "
                 "the rows themselves are in the family tables below.")
    lines.append("")
    if figure:
        lines.append(f"![verdict: each decision's options, cost normalised to the best]({figure})")
        lines.append("")
    lines.append("| Decision (what is timed) | Options: cost, ×best, ×ceiling | Verdict |")
    lines.append("|---|---|---|")
    for d in decisions:
        head = f"**{d.title}**"
        if d.timed and d.measured:
            head += f"<br>{d.timed}"
        if d.ceiling_label and any(o.ceiling for o in d.options):
            head += f"<br>ceiling: {d.ceiling_label}"
        cells = []
        for o in d.options:
            text = f"{o.label}: {fmt(o.value)} {o.unit}, {fmt_ratio(o.ratio)}"
            if o.ceiling is not None:
                text += f", {fmt_ratio(o.ceiling)} {d.ceiling_short}"
            cells.append(f"**{text}**" if o is d.options[0] and len(d.options) > 1 else text)
        for why in d.missing:
            cells.append(f"not measured: {why}")
        verdict = d.verdict if d.measured else "**not measured in this run**"
        lines.append(f"| {head} | {'<br>'.join(cells) or '-'} | {verdict} |")
    lines.append("")
    lines.append("<details><summary>The rows each option uses (family/instance: counter)</summary>")
    lines.append("")
    for d in decisions:
        if d.options:
            lines.append(f"- {d.title}: " + "; ".join(f"{o.label} = `{o.instance}`" for o in d.options))
    lines.append("")
    lines.append("</details>")
    lines.append("")
    ceilings = []
    for family in sorted(f for f in run.families if f.startswith("ceiling_")):
        for instance, row, _ in run.rows(family):
            if usable(row.get("GB/s")):
                ceilings.append(f"{family.replace('ceiling_', '').replace('_', ' ')} "
                                f"{fmt(row['GB/s'])} GB/s ({human_size(size_key(instance), 'MiB')})")
    if ceilings:
        lines.append("Hardware ceilings measured in this run (the ceiling family): " + "; ".join(ceilings) +
                     ". Rows with a ceiling of their own measure it in the same iteration.")
        lines.append("")
    covered = {f for d in decisions for f in d.families}
    others = sorted(f for f in run.families if f not in covered and not f.startswith("ceiling_")
                    and run.rows(f))
    if others:
        lines.append("In this run without a decision of their own (their tables are below): " +
                     ", ".join(f"`{f}`" for f in others) + ".")
        lines.append("")
    return lines
