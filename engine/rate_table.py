"""A placed engine beside its peer's calls: the ``robohw synth`` row that placed an engine, and
the report's table of engines' rates against a peer timed in the same run (Pinocchio's calls
from C++), for every family whose designs run on the engine."""

__all__ = ["placed_row", "engine_rate_table"]


def placed_row(synth_rows, design, label, width, fold):
    """The ``robohw synth`` row (of ``synth_rows``) that placed and routed ``design`` for the
    robot ``label`` (``None``: the design's own) at ``width`` and ``fold``, or ``None``."""
    for row in synth_rows:
        if row.get("design") == design and row.get("robot") == label and \
                row.get("width") == width and row.get("fold", 1) == fold and \
                row.get("fmax_mhz"):
            return row
    return None


def engine_rate_table(rows, peer_key, results, peer):
    """Markdown: per row of ``rows`` (each with ``robot``, ``engine`` ``{"width", "interval",
    "latency", "fmax_mhz"}`` or ``None`` where the arm has no model, and the peer's
    microseconds a call under ``peer_key``, ``None`` if not measured), the engine's cycles
    and, where placed, its rate (``results`` a second) and latency beside the ``peer``'s
    calls. An engine not placed says so: its rate is never estimated."""
    table = [f"| arm | engine: width, II | latency (cycles) | Fmax, worst seed (MHz) | "
             f"{results} a second | latency (us) | {peer}: a second | engine over {peer} |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        engine, us = row.get("engine"), row[peer_key]
        calls = "—" if us is None else f"{1 / us:.2f} M"
        if engine is None:
            table.append(f"| {row['robot']} | no model | — | — | — | — | {calls} | — |")
            continue
        fmax = engine["fmax_mhz"]
        rate = None if fmax is None else fmax / engine["interval"]     # millions a second
        latency = "—" if fmax is None else f"{engine['latency'] / fmax:.2f}"
        table.append(
            f"| {row['robot']} | {engine['width']}, {engine['interval']} | "
            f"{engine['latency']:,} | {'not placed' if fmax is None else f'{fmax:.1f}'} | "
            f"{'—' if rate is None else f'{rate:.2f} M'} | {latency} | {calls} | "
            f"{'—' if rate is None or us is None else f'{rate * us:.1f}x'} |")
    return "\n".join(table)
