"""``robohw synth``'s rows (:func:`robohw.flows.synth.synthesize`'s) as the command, the
results page and the report read them: one row of a configuration's seeds, the worst
(:func:`worst_of_seeds`), rows merged into a file's (:func:`combine_seeds`, :func:`merge_rows`)
and as tables (:func:`format_synth`, :func:`tool_table`)."""

__all__ = ["worst_of_seeds", "combine_seeds", "merge_rows", "tool_table", "format_synth"]


def worst_of_seeds(rows):
    """One row from :func:`synthesize`'s ``rows`` of one configuration at several placement
    seeds: the worst seed's (the lowest Fmax; a seed that did not place is the worst), with
    ``seeds``, ``fmax_by_seed`` (``{seed: MHz or None}``), ``fmax_spread_mhz`` (best less
    worst; ``None`` unless every seed placed) and ``cached`` (every seed's was)."""
    if not rows:
        raise ValueError("no rows to take the worst of")
    worst = dict(min(rows, key=lambda r: r["fmax_mhz"] or 0.0))
    placed = [r["fmax_mhz"] for r in rows if r["fmax_mhz"]]
    worst.update(seeds=[r["seed"] for r in rows],
                 fmax_by_seed={str(r["seed"]): r["fmax_mhz"] for r in rows},
                 fmax_spread_mhz=round(max(placed) - min(placed), 1)
                 if len(placed) == len(rows) else None,
                 cached=all(r["cached"] for r in rows))
    return worst


def _configuration(row):
    return (row["design"], row.get("robot"), row["width"], row.get("fold", 1), row["device"],
            row.get("speed_grade"))


def _netlist(row):
    """What a seed's Fmax is a sample of: the Verilog, the tools and the place-and-route
    options (the seed aside)."""
    return (row.get("verilog_sha256"), row.get("tools"), row.get("placer"), row.get("router"),
            row.get("target_mhz"))


def combine_seeds(old, new):
    """One :func:`worst_of_seeds` row from two of the same netlist (:func:`_netlist`: the
    same Verilog, tools and options) at other seeds: ``new``'s seeds with ``old``'s that
    ``new`` did not run, the worst seed's row with every seed's Fmax. Seeds run in
    different sessions gather into one row this way; :exc:`ValueError` when the two are not
    of one netlist (a seed of another netlist says nothing about this one)."""
    if _configuration(old) != _configuration(new) or _netlist(old) != _netlist(new):
        raise ValueError(f"{new['design']}: seeds of different netlists do not combine")
    by_seed = {seed: mhz for seed, mhz in old["fmax_by_seed"].items()
               if seed not in new["fmax_by_seed"]}
    by_seed.update(new["fmax_by_seed"])
    by_seed = dict(sorted(by_seed.items(), key=lambda item: int(item[0])))
    # A seed that did not place (None) is the worst; old's row is its worst seed's.
    worst_seed = min(by_seed, key=lambda seed: by_seed[seed] or 0.0)
    worst = dict(new if worst_seed in new["fmax_by_seed"] else old)
    placed = [mhz for mhz in by_seed.values() if mhz]
    worst.update(seeds=[int(seed) for seed in by_seed], fmax_by_seed=by_seed,
                 fmax_spread_mhz=round(max(placed) - min(placed), 1)
                 if len(placed) == len(by_seed) else None,
                 cached=bool(new.get("cached")) and (bool(old.get("cached"))
                                                     or set(by_seed) == set(new["fmax_by_seed"])))
    return worst


def merge_rows(old, rows, order):
    """``rows`` with the ``old`` rows they do not replace (the same design, width, fold,
    device and grade), sorted by ``order`` (design names), then width, fold and device: one
    results file gathers runs made at different times. A row of the same netlist as the
    one it replaces (:func:`combine_seeds`) keeps the old row's other seeds."""
    previous = {_configuration(r): r for r in old}
    rows = [combine_seeds(previous[_configuration(r)], r)
            if _configuration(r) in previous and "fmax_by_seed" in r
            and "fmax_by_seed" in previous[_configuration(r)]
            and _netlist(previous[_configuration(r)]) == _netlist(r) else r for r in rows]
    new = {_configuration(r) for r in rows}
    kept = [r for r in old if _configuration(r) not in new]
    rank = {name: k for k, name in enumerate(order)}
    return sorted(kept + rows, key=lambda r: (rank.get(r["design"], len(rank)), r["design"],
                                             r.get("robot") or "", r["width"],
                                             r.get("fold", 1), r["device"],
                                             r.get("speed_grade") or 0))


def tool_table(rows):
    """Markdown lines: each (commit, Yosys, nextpnr) that synthesized ``rows`` once, with the
    designs it synthesized."""
    origins = {}
    for r in rows:
        key = (r.get("commit") or "unknown", r.get("tools", {}).get("yosys", "?"),
               r.get("tools", {}).get("nextpnr", "?"))
        origins.setdefault(key, []).append(r["design"])
    lines = ["| commit | Yosys | nextpnr | designs |", "|---|---|---|---|"]
    for (commit, yosys, nextpnr), designs in sorted(origins.items()):
        lines.append(f"| {commit} | {yosys} | {nextpnr} | "
                     f"{', '.join(dict.fromkeys(designs))} |")
    return lines


def format_synth(rows):
    """A Markdown table of :func:`synthesize` rows (or :func:`worst_of_seeds`'s: the worst
    seed's Fmax, each seed's beside it), and under it the limiting path of each placed
    design."""
    head = ["design", "width", "fold", "device", "speed", "LUT4", "carry cells",
            "LUT RAM (16x4)", "flip-flops", "DSP", "BRAM", "Fmax (MHz)", "latency (cycles)",
            "latency (µs)", "results/µs"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        fmax = f"{r['fmax_mhz']}" if r["fmax_mhz"] else r.get("note", "—")
        if len(r.get("seeds", ())) > 1:
            fmax += " (seeds " + ", ".join(f"{s}: {m or '—'}" for s, m in
                                           r["fmax_by_seed"].items()) + ")"
        lines.append(
            f"| {r['design']} | {r['width']} | {r.get('fold', 1)} | {r['device']} | "
            f"{r.get('speed_grade') or '—'} | "
            f"{r['luts']:,} | {r['carry']:,} | {r.get('lut_ram', '—')} | {r['flip_flops']:,} | "
            f"{r['dsp']} | {r['bram']} | "
            f"{fmax} | {r['latency_cycles']} | {r.get('latency_us', '—')} | "
            f"{r.get('results_per_us', '—')} |")
    paths = [(r["design"], f"{r['width']} bits" + (f", fold {r['fold']}" if r.get("fold", 1) > 1
                                                    else ""), r["critical_path"])
             for r in rows if r.get("critical_path")]
    if paths:
        lines.append("")
        lines.append("Limiting paths (nextpnr's critical path: first and last cell, logic and "
                     "routing delay):")
        lines.append("")
        for design, label, path in paths:
            lines.append(f"- {design} ({label}): {path['ns']} ns = {path['logic_ns']} "
                         f"logic + {path['routing_ns']} routing, `{path['from']}` to "
                         f"`{path['to']}`")
    if any(r.get("tools") for r in rows):
        lines += ["", *tool_table([r for r in rows if r.get("tools")])]
    # Rows cached before the placer was an option were placed by HeAP.
    runs = {(",".join(map(str, r.get("seeds") or [r.get("seed")])), r.get("placer", "heap"),
             r.get("router"), r.get("target_mhz")) for r in rows if r.get("placed")}
    for seeds, placer, router, target in sorted(runs, key=str):
        lines.append("")
        lines.append(f"nextpnr: seeds {seeds}, {placer} placer, {router}, " + (
            f"routed for {target:g} MHz (--freq, --tmg-ripup)." if target else
            "no target clock (nextpnr's 12 MHz: no timing-driven rip-up)."))
    return "\n".join(lines)
