"""What Zomaya & Morris measured on their T800 network: the total processing time
per torque vector for 1, 3, 6, 7 and 8 slaves (Table 5) and each slave's utilization, its busy
time over the total (Table 6). Speed-up (Table 7) and efficiency (Table 8) follow from Table 5;
the paper's printed values are kept to check that they do."""

__all__ = ["TIME_MS", "UTILIZATION", "SPEEDUP", "EFFICIENCY", "busy_ms"]

# Table 5 (Z:L314-322): T_p in ms, by the number of slaves m.
TIME_MS = {1: 25.6, 3: 8.96, 6: 4.46, 7: 3.82, 8: 3.34}

# Table 6 (Z:L330-338): utilization in %, P1 first.
UTILIZATION = {
    1: (100,),
    3: (100, 100, 96.8),
    6: (100, 98.7, 98.7, 96.2, 97.5, 95),
    7: (100, 94.1, 98.5, 100, 97, 98.5, 97),
    8: (100, 96.6, 96.6, 95, 96.6, 100, 100, 100),
}

# Tables 7 and 8 (Z:L346-369), as printed.
SPEEDUP = {1: 1.0, 3: 2.86, 6: 5.74, 7: 6.7, 8: 7.67}
EFFICIENCY = {3: 0.952, 6: 0.957, 7: 0.957, 8: 0.96}


def busy_ms(processors):
    """Each slave's busy time in ms, utilization times the total: ``U_p T_p``."""
    return tuple(u / 100 * TIME_MS[processors] for u in UTILIZATION[processors])
