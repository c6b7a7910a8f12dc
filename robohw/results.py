"""The results page: every design's figures from the report's table (``summary.json``) and
the last synthesis table (``synth.json``), each row stamped with the commit and the digest of
the Verilog it was measured on, and marked stale where the current code builds that design
into other Verilog. ``robohw report --results docs/results.md`` writes it (``make
results``), so no figure in the docs is silently out of date."""

import datetime

from robohw.registry import DESIGNS
from robohw.registry import design as registry_design
from robohw.sim.provenance import checkout_commit, verilog_digest
from robohw.support.formats import versioned

__all__ = ["CURRENT", "STALE", "UNSTAMPED", "UNCHECKED", "row_status", "results_document",
           "results_page"]

CURRENT = "current"
STALE = "stale"
UNSTAMPED = "not stamped"       # measured without a digest (`--quick`, or an older file)
UNCHECKED = "not checked (its robot file is not here)"


def row_status(row, device=None):
    """``(status, digest now)`` of one measured ``row``: :data:`CURRENT` when the design's
    Verilog at the row's width and fold (elaborated for ``device``) has the digest the row
    was measured on, :data:`STALE` when it has another or the design is gone,
    :data:`UNSTAMPED` (and no digest now: none is computed) when the row carries none. A row
    of ``robohw synth --robot`` is the design generated for its robot (a shipped name, or a
    file found by its label), :data:`UNCHECKED` where that robot is not found."""
    if not row.get("verilog_sha256"):
        return UNSTAMPED, None
    design = DESIGNS.get(row.get("design"))
    if design is None:
        return STALE, None
    if row.get("robot") is not None:
        try:
            design = registry_design(design.name, row["robot"])
        except (OSError, ValueError):
            return UNCHECKED, None
    fold = row.get("fold") if design.default_fold is not None else None
    now = verilog_digest(design, row.get("width"), fold, device)
    return (CURRENT if row["verilog_sha256"] == now else STALE), now


def results_document(summary_rows, synth_rows, *, progress=None):
    """The page's data: ``format_version``, the commit it was generated at, and the simulated
    and synthesized rows, each with its ``status`` and the current ``verilog_sha256_now``."""
    simulated, synthesized = [], []
    for kind, rows, out in (("simulated", summary_rows, simulated),
                            ("synthesized", synth_rows, synthesized)):
        for row in rows:
            status, now = row_status(row, row.get("device") if kind == "synthesized" else None)
            out.append({**row, "status": status, "verilog_sha256_now": now})
            if progress:
                progress.step(f"{row.get('design')}: {status}")
    return versioned({"generated_at_commit": checkout_commit(),
                      "generated_on": datetime.date.today().isoformat(),
                      "simulated": simulated, "synthesized": synthesized})


def _short(digest):
    return f"`{digest[:12]}`" if digest else "—"


def _status(row):
    if row["status"] == STALE:
        return f"**stale** (now {_short(row['verilog_sha256_now'])})"
    return row["status"]


def _simulated_table(rows):
    head = ["design", "width", "fold", "latency (cycles)", "interval (cycles)", "equals model",
            "max error vs float64 (bound)", "register bits", "commit", "Verilog", "status"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if not r.get("simulated", True):
            timing = f"{r['stated_latency']} (stated) | {r['stated_interval']} (stated)"
            check = "— | —"
        else:
            timing = f"{r['latency']} | {r['interval']}"
            bound = f" ({r['error_bound']:.2g})" if r.get("error_bound") is not None else ""
            check = (f"{'yes' if r['equals_model'] else 'NO'} | "
                     f"{r['max_error']:.2g}{bound} {r['error_unit']}")
        lines.append(f"| {r['design']} | {r['width']} | {r.get('fold', 1)} | {timing} | "
                     f"{check} | {r['register_bits']:,} | {_commit(r)} | "
                     f"{_short(r.get('verilog_sha256'))} | {_status(r)} |")
    return "\n".join(lines)


def _synthesized_table(rows):
    head = ["design", "width", "fold", "device", "seeds", "placer, router, target", "LUT4",
            "flip-flops", "DSP", "BRAM", "Fmax (MHz): the worst seed's (each seed's)",
            "latency (µs)", "results/µs", "commit", "Verilog", "status"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        target = f"{r['target_mhz']:g} MHz" if r.get("target_mhz") else "no target"
        options = f"{r.get('placer', 'heap')}, {r.get('router', 'router1')}, {target}"
        fmax = r["fmax_mhz"] if r.get("fmax_mhz") else r.get("note", "not placed")
        seeds = _seeds_of(r)
        if len(seeds) > 1:
            fmax = f"{fmax} ({', '.join(str(m or '—') for m in r['fmax_by_seed'].values())})"
        # A netlist beyond the device is refused before placement: no seed enters it.
        seeds = "any" if _beyond_the_device(r) else ",".join(map(str, seeds))
        lines.append(
            f"| {_name_of(r)} | {r['width']} | {r.get('fold', 1)} | "
            f"{r['device']}-{r.get('speed_grade')} | {seeds} | {options} | "
            f"{r['luts']:,} | {r['flip_flops']:,} | {r['dsp']} | {r['bram']} | {fmax} | "
            f"{r.get('latency_us', '—')} | {r.get('results_per_us', '—')} | {_commit(r)} | "
            f"{_short(r.get('verilog_sha256'))} | {_status(r)} |")
    return "\n".join(lines)


def _seeds_of(row):
    return row.get("seeds") or [row.get("seed")]


def _name_of(row):
    return row["design"] + (f" ({row['robot']})" if row.get("robot") else "")


def _beyond_the_device(row):
    return (row.get("note") or "").startswith("does not fit")


def _missing_seeds(rows):
    """Lines naming the registry designs without a row of all their seeds (each design's
    :attr:`place_and_route` seeds; any seed where the netlist is beyond the device)."""
    seeds = {}
    for r in rows:
        seeds.setdefault(r["design"], set()).update(_seeds_of(r))
    covered = {r["design"] for r in rows if r["design"] in DESIGNS and (
        _beyond_the_device(r)
        or set(DESIGNS[r["design"]].place_and_route.seeds) <= set(_seeds_of(r)))}
    missing = [name for name in DESIGNS if name not in covered]
    if not missing:
        return ["Every design has a row of all its seeds."]
    ran = {name: "seeds " + ",".join(map(str, sorted(done))) for name, done in seeds.items()}
    return ["Without a row of all their seeds: " + ", ".join(
        f"{name} ({ran.get(name, 'no row')})" for name in missing) + "."]


def _limiting_paths(rows):
    """A line per placed row: where its worst seed's clock is lost, from register to
    register, with the routing's share."""
    lines = []
    for r in rows:
        path = r.get("critical_path")
        if r.get("fmax_mhz") and path:
            lines.append(f"- {_name_of(r)}, {r['width']} bits: `{path['from']}` to `{path['to']}`, "
                         f"{path['ns']} ns ({path['routing_ns']} of it routing)")
    return lines or ["- none recorded"]


def _commit(row):
    commit = row.get("commit")
    if not commit:
        return "—"
    base = commit.removesuffix("+changes")
    return f"`{base[:10]}`" + (" + changes" if base != commit else "")


def results_page(document):
    """The page of :func:`results_document`, in Markdown."""
    stale = [r for r in document["simulated"] + document["synthesized"]
             if r["status"] != CURRENT]
    generated = _commit({"commit": document["generated_at_commit"]})
    lines = [
        "# Results",
        "",
        f"Generated by `robohw report --results` (`make results`) on "
        f"{document['generated_on']} at commit {generated}"
        f"; do not edit. Each row names the commit it was measured at and the digest of the "
        f"design's Verilog it was measured on (`verilog_sha256`: the exported Verilog without "
        f"its source locations). A row is **stale** when the code of that commit builds the "
        f"design into other Verilog, and *not stamped* when it was measured without a digest "
        f"(`--quick`, or a file older than the digests).",
        "",
        f"{len(stale)} of {len(document['simulated']) + len(document['synthesized'])} rows are "
        f"not current." if stale else "Every row is current.",
        "",
        "## Every design, simulated cycle by cycle",
        "",
        "Default widths, a seeded workload per design, simulated in Amaranth; outputs compared "
        "with the bit-exact model and with float64 (`docs/accuracy.md` states the bounds).",
        "",
        _simulated_table(document["simulated"]),
        "",
        "## On an FPGA",
        "",
    ]
    if document["synthesized"]:
        lines += ["From the last `make synth` (`synth.json`).", "",
                  _synthesized_table(document["synthesized"]), "",
                  *_missing_seeds(document["synthesized"]), "",
                  "Each placed row's limiting path (its worst seed's, nextpnr's names):", "",
                  *_limiting_paths(document["synthesized"])]
    else:
        lines += ["No synthesis results beside the report (`synth.json`): `make synth` writes "
                  "them. `docs/synthesis.md` has the figures measured so far."]
    return "\n".join(lines) + "\n"
