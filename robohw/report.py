"""``robohw report``: every design simulated cycle by cycle on a seeded workload, checked
against its bit-exact model and its float reference, in one table; then the detailed sections
of each family and the error histograms, as each family declares them
(:data:`robohw.registry.FAMILIES`: no design is named here). The simulated rows are kept in the
user's cache folder, keyed by the source of the code (:func:`robohw.sim.measure.measured_design`): a
second report of the same code reads them instead of simulating again.

Writes into the output folder: ``summary.md`` and ``summary.json`` (the one table),
``cordic.md``, ``ik.md``, ``inertia.md``, ``dynamics.md``, ``platform.md``, ``transputer.md``,
``distributed.md``, ``robots.md`` (the designs for every shipped robot: defaults and accuracy by
width, :mod:`robohw.flows.robot_designs`), ``commands.md`` (the command paths against Pinocchio
on a shipped and a user's arm, :mod:`robohw.flows.command_speed`) and their ``.json`` twins,
``errors.png`` (error histograms), ``ik_schedule.png`` (the IK pipelines' schedules),
``inertia_tradeoff.png`` (latency and processing elements against N), ``dynamics_tp.png``
(PFP's steps against p),
``transputer_speedup.png`` and ``transputer_gantt.png`` (the transputer network's speed-ups
and one sample), ``distributed_torques.png`` and ``distributed_timing.png`` (the thesis's
link computers: torques over a trajectory, space-time graphs).
When the folder holds ``synth.json`` (written by ``make synth``), ``summary.md`` shows those
synthesis results beside the simulated cycles, with the commit and tools they came from; when
it holds ``sweep.md`` (written by ``make sweep``), it names it and its plots. Every JSON file
carries ``format_version`` (:mod:`robohw.support.formats`); ``summary.json`` holds its rows
under ``rows``, each stamped with the commit it was measured at and, but with ``--quick``,
the digest of the design's Verilog (:mod:`robohw.sim.provenance`).

``results.md`` and ``results.json`` (:mod:`robohw.results`) set the table and the last
synthesis results side by side, each row marked current or stale against the code.
"""

import io
import json
import pathlib

from robohw.flows.command_speed import bench_commands, commands_section, report_robots
from robohw.flows.robot_designs import robot_accuracy, robot_section
from robohw.flows.synth_rows import tool_table
from robohw.hw.checks import check_integer
from robohw.registry import DESIGNS, FAMILIES
from robohw.results import results_document, results_page, row_status
from robohw.sim.measure import measured_design, stated_design
from robohw.sim.provenance import checkout_commit, verilog_digest
from robohw.support.atomic import write_text
from robohw.support.formats import SYNTH_FILE, read_rows, versioned
from robohw.support.plots import plot_error_histograms
from robohw.support.progress import Progress
from robohw.support.tasks import Task, run_tasks

__all__ = ["summary_table", "synth_rows", "write_results", "write_report"]

# Results per simulation, (pipelined, word-serial): enough to see a pipeline full or several
# word-serial results (the word-serial IK sends them in pairs, so three at least show its
# interval); the long sweeps run in the bit-exact models.
_RESULTS = {"quick": (16, 3), "full": (32, 4)}
# Results of a design that takes a state at a time over thousands of cycles (Gosselin's
# machine): two show its interval. With --quick, designs whose interval exceeds
# QUICK_MAX_INTERVAL are not simulated (the machine: 12,000 cycles a state, a minute and more
# in Amaranth); their rows give what they state.
_ONE_AT_A_TIME = 2
QUICK_MAX_INTERVAL = 4096
# States per point of robots.md's accuracy by width (the defaults were chosen over 100,000:
# docs/robots.md): about 4 minutes for the shipped robots' designs at nine widths; --quick
# measures the defaults alone, on fewer states (seconds).
_ROBOT_STATES = {"quick": 1_000, "full": 20_000}
# States a command solves in commands.md (robohw bench commands: 100,000).
_COMMAND_STATES = {"quick": 2_000, "full": 100_000}


def summary_table(rows):
    """The one table, in Markdown."""
    head = ["design", "configuration", "latency (cycles)", "throughput (results/cycle)",
            "equals model", "max error vs float64 (proven bound)", "buffer stages / PEs",
            "register bits"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if not r["simulated"]:
            lines.append(
                f"| {r['design']} | {r['configuration']} | {r['stated_latency']} (stated; not "
                f"simulated with --quick) | 1/{r['stated_interval']} (stated) | — | — | "
                f"{r['structure_count']:,} {r['structure']} | {r['register_bits']:,} |")
            continue
        latency = str(r["latency"]) if r["latency"] == r["stated_latency"] else \
            f"{r['latency']} (stated {r['stated_latency']})"
        error = f"{r['max_error']:.2g}"
        if r.get("error_bound") is not None:
            error += f" (bound {r['error_bound']:.2g})"
        lines.append(
            f"| {r['design']} | {r['configuration']} | {latency} | {r['throughput']} | "
            f"{'yes' if r['equals_model'] else 'NO'} | {error} {r['error_unit']} | "
            f"{r['structure_count']:,} {r['structure']} | {r['register_bits']:,} |")
    return "\n".join(lines)


def synthesis_section(out_dir, rows):
    """The last ``make synth`` results (``synth.json`` in ``out_dir``), if any, beside the
    simulated cycles: LUT, flip-flops, DSP, BRAM, Fmax and the latency in microseconds, with
    the commit and tools they came from. Empty when there are none."""
    synth = read_rows(pathlib.Path(out_dir) / SYNTH_FILE)
    if not synth:
        return ""
    simulated = {r["design"]: r for r in rows}
    lines = ["", "## On an FPGA: the last `make synth`", "",
             "| design | width | fold | device | LUT4 | flip-flops | DSP | BRAM | Fmax (MHz) | "
             "latency (cycles, simulated) | latency (µs) | results/µs |",
             "|" + "---|" * 12]
    for r in synth:
        run = simulated.get(r["design"], {})
        same = (run.get("width"), run.get("fold", 1)) == (r["width"], r.get("fold", 1))
        cycles = run["latency"] if same and run.get("latency") else r["latency_cycles"]
        fmax = r["fmax_mhz"] or r.get("note", "not placed")
        micro = f"{cycles / r['fmax_mhz']:.3f}" if r["fmax_mhz"] else "—"
        lines.append(f"| {r['design']} | {r['width']} | {r.get('fold', 1)} | "
                     f"{r['device']}-{r.get('speed_grade')} "
                     f"| {r['luts']:,} | {r['flip_flops']:,} | {r['dsp']} | {r['bram']} | "
                     f"{fmax} | {cycles} | {micro} | {r.get('results_per_us', '—')} |")
    lines += ["", *tool_table(synth), "", "A later change to a design is not in these figures "
                                          "until `make synth` runs again."]
    return "\n".join(lines) + "\n"


def sweep_section(out_dir):
    """A pointer to the last ``make sweep``'s Pareto fronts (``sweep.md`` and
    ``sweep_*.png`` in ``out_dir``), if any. Empty when there are none."""
    out_dir = pathlib.Path(out_dir)
    if not (out_dir / "sweep.md").exists():
        return ""
    plots = ", ".join(f"`{p.name}`" for p in sorted(out_dir.glob("sweep_*.png")))
    return ("\n## Design-space sweep: the last `make sweep`\n\n"
            f"Pareto fronts of speed, size and error per design and device in `sweep.md`, drawn "
            f"in {plots or 'no plots'}.\n")


def synth_rows(out_dir):
    """The rows of ``synth.json`` in ``out_dir`` (the last ``make synth``), or none."""
    return read_rows(pathlib.Path(out_dir) / SYNTH_FILE)


def write_results(out_dir, rows, results=None, stream=None):
    """``results.md`` and ``results.json`` in ``out_dir`` from the table's ``rows`` and the
    folder's ``synth.json``; the page also to ``results`` (a path) if given."""
    out_dir = pathlib.Path(out_dir)
    synth = synth_rows(out_dir)
    progress = Progress(len(rows) + len(synth), stream)
    document = results_document(rows, synth, progress=progress)
    page = results_page(document)
    (out_dir / "results.json").write_text(json.dumps(document, indent=1))
    (out_dir / "results.md").write_text(page)
    if results is not None:
        write_text(results, page)
    return document


def _design_row(name, count, quick, commit):
    """One design's simulated row, stamped with ``commit`` and (but with ``quick``) its
    Verilog's digest (a :class:`~robohw.support.tasks.Task`)."""
    design = DESIGNS[name]
    row = measured_design(design, count=count)
    row["commit"] = commit
    # The Verilog's digest takes an export of the design, which --quick leaves out.
    row["verilog_sha256"] = None if quick else verilog_digest(
        design, row["width"], row["fold"] if design.default_fold is not None else None)
    return row


def _synth_digest(row):
    """The digest a synthesis row is checked against, computed into the cache for the results
    page (a :class:`~robohw.support.tasks.Task`)."""
    return row_status(row, row.get("device"))[1]


def _panel(family, quick):
    """A family's panel of ``errors.png`` (a :class:`~robohw.support.tasks.Task`)."""
    return family.load(family.error_panel)(quick)


def _section(family, out_dir, rows, quick, verilator):
    """A family's section, its own progress kept to itself (a
    :class:`~robohw.support.tasks.Task`: the report's progress counts the sections, and its
    heartbeat covers them)."""
    return family.load(family.section)(out_dir, rows, quick=quick, verilator=verilator,
                                       stream=io.StringIO())


def _robots(quick):
    """``robots.md``'s rows (a :class:`~robohw.support.tasks.Task`)."""
    return robot_accuracy(() if quick else range(16, 25), _ROBOT_STATES[_mode(quick)])


def _commands(quick):
    """``commands.md``'s rows (a :class:`~robohw.support.tasks.Task`): the command paths timed
    against Pinocchio (:func:`~robohw.flows.command_speed.bench_commands`)."""
    return bench_commands(report_robots(), states=_COMMAND_STATES[_mode(quick)],
                          repeats=1 if quick else 3)


def _mode(quick):
    return "quick" if quick else "full"


# Each family section's relative cost, measured (the longest start first); unnamed ones last.
_SECTION_ORDER = ("platform", "transputer", "dynamics", "distributed", "inertia", "ik",
                  "cordic")


def write_report(out_dir, *, quick=False, verilator=False, stream=None, results=None,
                 table_only=False, jobs=1):
    """Run everything; write the files of the module docstring (and the results page to
    ``results``, a path, if given); return the summary table. ``table_only``: the table and
    the results page alone (``summary``, ``results``), without the plots and the families'
    sections: seconds when the table's rows are cached. ``jobs``: tasks (a design's
    simulation, a family's section) at a time, each in a process of its own."""
    check_integer("jobs", jobs, minimum=1)
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    commit = checkout_commit()      # the code as the measurements begin, not as they end
    panels = [] if table_only else [f for f in FAMILIES if f.error_panel is not None]
    sections = [] if table_only else sorted(
        (f for f in FAMILIES if f.section is not None),
        key=lambda f: _SECTION_ORDER.index(f.name) if f.name in _SECTION_ORDER else
        len(_SECTION_ORDER))
    stamped = [row for row in synth_rows(out_dir) if row.get("verilog_sha256")]
    progress = Progress(len(DESIGNS) + len(stamped) + (1 if table_only else
                                                  4 + len(panels) + len(sections)), stream)
    pipelined_count, serial_count = _RESULTS[_mode(quick)]
    stated, simulated = {}, {}
    for design in DESIGNS.values():
        if design.one_at_a_time:
            row = stated_design(design)
            if quick and row["stated_interval"] > QUICK_MAX_INTERVAL:
                stated[design.name] = {**row, "commit": commit, "verilog_sha256": None}
                progress.step(f"{design.name} stated (not simulated with --quick)")
                continue
            simulated[design.name] = _ONE_AT_A_TIME
        else:
            simulated[design.name] = serial_count if design.word_serial else pipelined_count
    families = {f.name: f for f in FAMILIES}

    def rows_of(results):
        return {name: stated.get(name) or results[f"{name} simulated"] for name in DESIGNS
                if name in stated or f"{name} simulated" in results}

    def section_task(family):
        reads = (family.name,) if family.section_reads is None else family.section_reads
        needs = frozenset(f"{d.name} simulated" for name in reads
                          for d in families[name].registered_designs() if d.name in simulated)
        return Task(f"section: {family.name}", _section,
                     lambda results: (family, out_dir, rows_of(results), quick, verilator),
                     needs)

    # The order is the priority: each section after the designs it reads, in _SECTION_ORDER
    # (the longest first), robots.md after the first two; then the designs no section reads,
    # the digests the results page checks the synthesis rows against, the panels.
    designs = {f"{name} simulated": Task(
        f"{name} simulated", _design_row,
        lambda results, name=name, count=count: (name, count, quick, commit))
        for name, count in simulated.items()}
    tasks, robots_at = [], 0
    for index, family in enumerate(sections):
        section = section_task(family)
        tasks += [designs.pop(label) for label in sorted(section.needs) if label in designs]
        tasks.append(section)
        robots_at = len(tasks) if index <= 1 else robots_at
    if not table_only:
        tasks.insert(robots_at, Task("robots.md", _robots, lambda results: (quick,)))
    tasks += designs.values()
    tasks += [Task(f"digest {k}: {row.get('design')}", _synth_digest,
                    lambda results, row=row: (row,))
              for k, row in enumerate(stamped, start=1)]
    tasks += [Task(f"panel: {f.name}", _panel, lambda results, f=f: (f, quick))
              for f in panels]
    if not table_only:
        tasks.append(Task("commands.md", _commands, lambda results: (quick,)))
    measured = run_tasks(tasks, jobs, progress)
    rows = list(rows_of(measured).values())
    table = summary_table(rows)
    (out_dir / "summary.md").write_text(
        "# Every design, simulated cycle by cycle\n\n"
        "Default widths, a seeded workload per design (in-domain CORDIC vectors, "
        "well-conditioned PUMA poses, configurations in the joint limits), simulated in "
        "Amaranth; outputs compared with the bit-exact model (equal: yes) and with float64 "
        "(max error). Latency is measured from an input transfer to its result; throughput "
        "from consecutive results.\n\n" + table + "\n" + synthesis_section(out_dir, rows) +
        sweep_section(out_dir))
    (out_dir / "summary.json").write_text(json.dumps(versioned({"rows": rows}), indent=1))
    if table_only:
        write_results(out_dir, rows, results, stream)
        progress.step("results.md: every row stamped, stale ones marked")
        return table
    plot_error_histograms([measured[f"panel: {f.name}"] for f in panels],
                          out_dir / "errors.png")
    progress.step("plots: errors.png")
    count = _ROBOT_STATES[_mode(quick)]
    write_text(out_dir / "robots.md", robot_section(measured["robots.md"], count))
    (out_dir / "robots.json").write_text(json.dumps(versioned({"rows": measured["robots.md"]}),
                                                    indent=1))
    write_text(out_dir / "commands.md", commands_section(measured["commands.md"]))
    (out_dir / "commands.json").write_text(json.dumps(versioned(
        {"rows": measured["commands.md"]}), indent=1))
    names = [name for f in sections for name in measured[f"section: {f.name}"]
             if name.endswith(".md")]
    progress.step(f"detailed sections: {', '.join(names + ['robots.md', 'commands.md'])}")
    write_results(out_dir, rows, results, stream)
    progress.step("results.md: every row stamped, stale ones marked")
    return table
