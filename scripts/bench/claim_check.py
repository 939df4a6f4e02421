"""The seeds' claims checked against a run: each claim of the table (claims.py, data) is held, did
not hold, partly held (at some sizes) or not measured, as the run's rows say."""
import importlib.util

from runs import cv_of, fmt, human_size, noise, size_key, usable


def load_claims(path):
    spec = importlib.util.spec_from_file_location("bench_claims", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CLAIMS


def pick_rows(rows, how):
    rows = [r for r in rows if size_key(r[0]) is not None] or rows
    if how == "all" or len(rows) <= 1:
        return rows
    ordered = sorted(rows, key=lambda r: size_key(r[0]) or 0)
    return [ordered[-1]] if how == "largest" else [ordered[0]]


def claim_pairs(claim, run):
    """[(a instance, a value, b instance, b value, cv a, cv b)] the claim's test compares; None when
    the rows are there but not at the sizes the claim needs."""
    family, pattern, counter = claim["a"]
    rows_a = [r for r in run.rows(family, pattern) if usable(r[1].get(counter))]
    b = claim["b"]
    if isinstance(b, str):
        return [(i, row[counter], i, row[b], cv_of(cvs, counter), cv_of(cvs, b)) for i, row, cvs in pick_rows(
            [r for r in rows_a if usable(r[1].get(b))], claim.get("pick", "all"))]
    family_b, pattern_b, counter_b = b
    rows_b = [r for r in run.rows(family_b, pattern_b) if usable(r[1].get(counter_b))]
    if claim.get("pair") == "each":
        pick_a, pick_b = claim.get("pick", ("largest", "largest"))
        chosen_a, chosen_b = pick_rows(rows_a, pick_a), pick_rows(rows_b, pick_b)
        if not chosen_a or not chosen_b:
            return []
        (ia, ra, ca), (ib, rb, cb) = chosen_a[0], chosen_b[0]
        if claim.get("sizes") == "a_smaller" and not (size_key(ia) or 0) < (size_key(ib) or 0):
            return None  # e.g. a quick run that measured barriers at one warp count only
        return [(ia, ra[counter], ib, rb[counter_b], cv_of(ca, counter), cv_of(cb, counter_b))]
    by_size = {size_key(i): (i, r, cv) for i, r, cv in rows_b}
    paired = [(ia, ra, ca) for ia, ra, ca in rows_a if size_key(ia) in by_size]
    found = []
    for ia, ra, ca in pick_rows(paired, claim.get("pick", "all")):
        ib, rb, cb = by_size[size_key(ia)]
        found.append((ia, ra[counter], ib, rb[counter_b], cv_of(ca, counter), cv_of(cb, counter_b)))
    return found


def check_claim(claim, run):
    """{'verdict', 'measured'}: the claim's test on this run's rows."""
    if not claim.get("a"):
        return {"verdict": "not measured", "measured": f"not measured: {claim.get('why', 'no benchmark row')}"}
    pairs = claim_pairs(claim, run)
    if pairs is None:
        return {"verdict": "not measured", "measured": "not measured in this run (it needs a smaller size for a "
                                                       "than for b; the run measured one)"}
    if not pairs:
        return {"verdict": "not measured", "measured": "not measured in this run (its rows are missing)"}
    unit = claim.get("size_unit", "")
    held, parts = 0, []
    for ia, va, ib, vb, ca, cb in pairs:
        ratio = va / vb
        tolerance = noise(ca, cb)
        if claim["expect"] == "at_least":
            ok = ratio >= claim["figure"] * (1 - tolerance)
        else:
            ok = ratio <= claim["figure"] * (1 + tolerance)
        held += ok
        where = human_size(size_key(ia), unit) if ia == ib or size_key(ia) == size_key(ib) else (
            f"{human_size(size_key(ia), unit)} vs {human_size(size_key(ib), unit)}")
        parts.append(f"{fmt(ratio)}x{' at ' + where if where else ''} ({fmt(va)} / {fmt(vb)})")
    if held == len(pairs):
        verdict = "held"
    elif held == 0:
        verdict = "did not hold"
    else:
        verdict = f"partly held ({held} of {len(pairs)})"
    return {"verdict": verdict, "measured": "; ".join(parts)}


def claims_lines(claims, run, source):
    lines = ["## Claims checked", ""]
    lines.append(f"The seeds' claims that a benchmark measures (paraphrased; the table and how each is tested: "
                 f"`{source}`), next to what this run measured. A claim holds when the measured ratio reaches the "
                 "seed's figure within the spread of the two values (their cvs over the repetitions combined, at "
                 "least 2%); over several sizes it holds "
                 "when it holds at each. The seeds' API names and figures were unverified: only this column is "
                 "measured.")
    lines.append("")
    lines.append("| # | Seed | Claim | Seed's figure | Test (ratio a / b) | Measured in this run | Verdict |")
    lines.append("|---|---|---|---|---|---|---|")
    for claim in claims:
        result = check_claim(claim, run)
        test = claim.get("note", "")
        if claim.get("a"):
            sign = ">=" if claim["expect"] == "at_least" else "<="
            test += f"; holds if {sign} {claim['figure']:.3g}"
        verdict = result["verdict"]
        shown = f"**{verdict}**" if verdict in ("held", "did not hold") or verdict.startswith("partly") else verdict
        lines.append(f"| {claim['id']} | {claim['seed']} | {claim['claim']} | {claim.get('claimed', '')} | {test} | "
                     f"{result['measured']} | {shown} |")
    lines.append("")
    return lines
