"""Inverse dynamics in float64: three independent formulations agree, every scan evaluation
(serial, recursive doubling, PFP on any p) gives the same torques, signs are physical, and
`robohw dynamics` reads and writes the conventions' files."""

import math

import numpy as np
import pytest

from robohw.commands import main
from robohw.dynamics.inverse.reference import (
    inverse_dynamics,
    lagrange_torques,
    link_frame_torques,
    scan_torques,
)
from robohw.dynamics.inverse.scans import doubling_scan, pfp_scan, serial_scan
from robohw.robots import Joint, Robot, load_robot
from robohw.robots.sampling import random_robot, sample_joints
from robohw.systolic.reference import jacobian_inertia


def states(robot, rng, count=40):
    q = sample_joints(robot, count, rng)
    return q, rng.normal(size=q.shape), rng.normal(size=q.shape), rng.normal(size=(count, 6))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_three_formulations_agree_on_random_robots(n):
    rng = np.random.default_rng(n)
    for _ in range(3):
        robot = random_robot(rng, n, prismatic=0.4)    # prismatic joints with a fixed theta
        q, qd, qdd, wrench = states(robot, rng)
        link = link_frame_torques(robot, q, qd, qdd, wrench)
        scale = np.abs(link).max()
        assert np.abs(lagrange_torques(robot, q, qd, qdd, wrench) - link).max() <= 1e-12 * scale
        for scan, processors in [("serial", None), ("doubling", None)] + \
                [("pfp", p) for p in range(1, n + 2)]:
            got = scan_torques(robot, q, qd, qdd, wrench, scan=scan, processors=processors)
            assert np.abs(got - link).max() <= 1e-12 * scale, (scan, processors)


@pytest.mark.parametrize("name", ["puma560", "stanford"])
def test_shipped_robots_agree(name):
    robot = load_robot(name)
    q, qd, qdd, wrench = states(robot, np.random.default_rng(7), 200)
    link = inverse_dynamics(robot, q, qd, qdd, "link", wrench)
    for formulation in ("scan", "lagrange"):
        got = inverse_dynamics(robot, q, qd, qdd, formulation, wrench)
        assert np.abs(got - link).max() <= 1e-12 * np.abs(link).max()


@pytest.mark.parametrize("count", [1, 2, 3, 7, 8, 9, 17])
def test_scans_of_a_non_commutative_operation(count):
    rng = np.random.default_rng(count)
    elements = [rng.normal(size=(3, 3)) for _ in range(count)]
    want = serial_scan(elements, np.matmul)
    for got in [doubling_scan(elements, np.matmul)] + \
            [pfp_scan(elements, np.matmul, p) for p in range(1, count + 2)] + \
            [doubling_scan(elements, np.matmul, p) for p in range(1, count + 1)]:
        assert all(np.allclose(a, b) for a, b in zip(got, want)) and len(got) == count


def pendulum(gravity=(0.0, -9.81, 0.0)):
    """One revolute link, 1 m, its 2 kg centre of mass mid-link, joint axis horizontal (z)."""
    joint = Joint("revolute", 1.0, 0.0, 0.0, 0.0, limits=(-math.pi, math.pi), mass=2.0,
                  com=(-0.5, 0.0, 0.0), inertia=(0.01, 0.01, 0.01, 0.0, 0.0, 0.0))
    return Robot("pendulum", (joint,), gravity=gravity)


def test_signs_are_physical():
    robot, zero = pendulum(), np.zeros((1, 1))
    for formulation in ("link", "scan", "lagrange"):
        # Held horizontal, the joint lifts the mass: m g l / 2 counter-clockwise.
        assert inverse_dynamics(robot, zero, zero, zero, formulation)[0, 0] == \
            pytest.approx(2.0 * 9.81 * 0.5)
        # Pushed up at the tip by 3 N (tool frame y, environment on tool): the joint resists.
        tau = inverse_dynamics(robot, zero, zero, zero, formulation, [0, 3, 0, 0, 0, 0])
        assert tau[0, 0] == pytest.approx(2.0 * 9.81 * 0.5 - 3.0)
        # Accelerated: I about the axis = 0.01 + m (l/2)^2.
        tau = inverse_dynamics(pendulum((0, 0, 0)), zero, zero, np.ones((1, 1)), formulation)
        assert tau[0, 0] == pytest.approx(0.01 + 2.0 * 0.25)


def test_stanford_arm_files():
    stanford, thesis = load_robot("stanford"), load_robot("stanford_thesis")
    q = sample_joints(stanford, 5, np.random.default_rng(1))
    # The prismatic joint carries links 3 to 6: D33 = 6.47 kg (the thesis's figure).
    assert np.allclose(jacobian_inertia(stanford, q)[:, 2, 2], 6.47)
    zero = np.zeros_like(q)
    # The thesis's gravity sign flips the gravity torques and nothing else.
    assert np.allclose(inverse_dynamics(thesis, q, zero, zero),
                       -inverse_dynamics(stanford, q, zero, zero))


def test_bad_states_are_refused():
    robot = pendulum()
    with pytest.raises(ValueError, match="qd must have 1 columns"):
        link_frame_torques(robot, np.zeros((2, 1)), np.zeros((2, 2)), np.zeros((2, 1)))
    with pytest.raises(ValueError, match="wrench must have 6 components"):
        scan_torques(robot, np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1)), [1, 2])
    with pytest.raises(ValueError, match="processors must be a positive integer"):
        scan_torques(robot, np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1)), scan="pfp",
                     processors=0)
    with pytest.raises(ValueError, match="formulation must be one of link, scan, lagrange"):
        inverse_dynamics(robot, [[0]], [[0]], [[0]], "euler")
    with pytest.raises(ValueError, match="needs mass, com and inertia"):
        link_frame_torques(load_robot("puma560_fgl"), np.zeros(6), np.zeros(6), np.zeros(6))


def write_states(path, robot, count=6, seed=0):
    rng = np.random.default_rng(seed)
    q, qd, qdd, _ = states(robot, rng, count)
    n = robot.dof
    header = [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, n + 1)]
    rows = np.concatenate([q, qd, qdd], -1)
    path.write_text(",".join(header) + "\n" + "\n".join(
        ",".join(repr(float(v)) for v in row) for row in rows) + "\n")
    return q, qd, qdd


def test_dynamics_command(tmp_path, capsys):
    robot = load_robot("stanford")
    q, qd, qdd = write_states(tmp_path / "s.csv", robot)
    results = {}
    for formulation in ("link", "scan", "lagrange"):
        out = tmp_path / f"{formulation}.csv"
        assert main(["dynamics", "--states", str(tmp_path / "s.csv"), "--out", str(out),
                     "--robot", "stanford", "--formulation", formulation,
                     "--wrench", "1,2,3,0.1,0.2,0.3"]) == 0
        lines = out.read_text().splitlines()
        assert lines[0] == "tau1,tau2,tau3,tau4,tau5,tau6,valid"
        results[formulation] = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    want = link_frame_torques(robot, q, qd, qdd, [1, 2, 3, 0.1, 0.2, 0.3])
    for got in results.values():
        assert np.allclose(got[:, :6], want, rtol=1e-12, atol=1e-12) and got[:, 6].all()
    assert main(["dynamics", "--states", str(tmp_path / "s.csv"), "--out",
                 str(tmp_path / "s.csv")]) == 2
    assert "--out and --states name one file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["dynamics", "--states", "s.csv", "--out", "o.csv", "--wrench", "1,2,3"])
    assert "--wrench must be six finite numbers" in capsys.readouterr().err


def test_pfp_schedules_reproduce_the_corrected_time_and_show_the_printed_slips():
    from robohw.dynamics.inverse.scans import (
        corrected_pfp_time,
        doubling_schedule,
        pfp_schedule,
        printed_pfp_time,
        schedule_steps,
    )
    printed_wrong = []
    for n in range(1, 33):
        for p in range(1, n + 2):
            # Every schedule is run on intervals: it computes all prefixes, one op per PE.
            measured = schedule_steps(pfp_schedule(n + 1, p), n + 1, p)
            assert measured == corrected_pfp_time(n, p), (n, p)
            assert schedule_steps(pfp_schedule(n + 1, p, skip_padding=True), n + 1, p) <= measured
            if printed_pfp_time(n, p) != measured:
                printed_wrong.append((n, p, measured - printed_pfp_time(n, p)))
    # Our reading of the paper: the printed T_p undercounts by one in 17 of 560 cases.
    assert len(printed_wrong) == 17 and {d for *_, d in printed_wrong} == {1}
    assert (12, 6, 1) in printed_wrong and (16, 8, 1) in printed_wrong
    # Their table for n = 6 and n = 12 (p = 1 .. n + 1), not monotone in p.
    assert [schedule_steps(pfp_schedule(7, p), 7, p) for p in range(1, 8)] == [6, 6, 5, 4, 5, 5, 3]
    assert [schedule_steps(pfp_schedule(13, p), 13, p) for p in range(1, 14)] == \
        [12, 10, 9, 7, 7, 7, 5, 5, 6, 6, 6, 6, 4]
    # Recursive doubling on 7 elements with 6 processors: 3 steps, as with 7.
    assert schedule_steps(doubling_schedule(7, 6), 7, 6) == 3
    # With 2: each doubling step k takes ceil((7 - 2**k) / 2) sub-steps.
    assert schedule_steps(doubling_schedule(7, 2), 7, 2) == 3 + 3 + 2


def test_a_wrong_schedule_is_caught():
    from robohw.dynamics.inverse.scans import pfp_schedule, schedule_steps
    schedule = pfp_schedule(9, 3)
    schedule[-1] = schedule[-1][:-1]          # drop one fix-up
    with pytest.raises(AssertionError, match="prefix x"):
        schedule_steps(schedule, 9, 3)
    with pytest.raises(AssertionError, match="processor used twice"):
        schedule_steps([[(0, "x1", "x0", "x1"), (0, "x2", "x1", "x2")]], 3, 2)


# --- operation counts, by running the steps over counting scalars -----------------------------

def _levels(count):
    return (count - 1).bit_length()          # ceil(log2 count)


def test_local_work_per_processor_is_the_papers_135_and_98():
    from robohw.dynamics.inverse.counts import dynamics_counts, general_robot
    # Hand tally, general constants and a full inertia tensor (M, A): p* = 0R ip* 9/6,
    # s = 0R is 9/6, z qd 3/0 | z qdd 3/0 + w x (z qd) 6/3 + sum 0/3 | w' x p* 6/3,
    # w x (w x p*) 12/6, sum 0/3 | r'' = w' x s + w x (w x s) + p'' 18/15, F = m r'' 3/0,
    # N: R^T w, R^T w' 18/12, J w', J w 18/12, w x Jw 6/3, sum 0/3, R N 9/6 | b_n: p* + s 0/3,
    # two cross products 12/6, two sums 0/6 | tau = n . z 3/2.
    want = {"axes": (21, 12), "b omega-dot": (9, 6), "b p-ddot": (18, 12),
            "F, N": (18 + 3 + 51, 15 + 36), "b n": (12, 15), "tau": (3, 2)}
    for n in (3, 6, 11, 32):
        got = {c.phase: c.time for c in dynamics_counts(general_robot(n)) if c.kind == "local"}
        assert got == want, n
    assert tuple(map(sum, zip(*want.values()))) == (135, 98)


def test_scan_counts_follow_the_levels_of_recursive_doubling():
    from robohw.dynamics.inverse.counts import dynamics_counts, general_robot, summarize
    for n in range(3, 33):
        counts = {c.phase: c for c in dynamics_counts(general_robot(n))}
        # Vector scans: 3 additions per level; omega and omega-dot over n elements, p-ddot
        # (from -g), f and n (from the hand) over n + 1. When n - 1 is a power of two the last
        # level of the first two adds only omega_1 (omega-dot_1) = z0 qd_1 (z0 qdd_1), which
        # has one component: 1 addition, not 3.
        power = (n - 1) & (n - 2) == 0
        for phase, size in (("omega", n), ("omega-dot", n), ("p-ddot", n + 1), ("f", n + 1),
                            ("n", n + 1)):
            thin = 2 if power and phase in ("omega", "omega-dot") else 0
            assert counts[phase].time == (0, 3 * _levels(size) - thin), (n, phase)
        # The matrix scan: the first level multiplies two DH rotations (their third rows
        # (0, sin a, cos a) hold one structural zero and two constants): 19 M, 12 A; a later
        # level a full product, 27 M, 18 A, unless its left operand is 0R_1 itself (n - 1 a
        # power of two: the DH zero remains, 24 M, 15 A).
        levels = _levels(n)
        last = (24, 15) if power else (27, 18)
        want = [(19, 12)] + [(27, 18)] * (levels - 2) + [last]
        assert counts["R"].per_step == tuple(want), n
        total = summarize(counts.values())["total"]
        assert total == tuple(map(sum, zip(counts["R"].time, (135, 98),
                                           (0, sum(c.time[1] for c in counts.values()
                                                   if c.kind == "vector scan")))))


def test_puma_twists_give_the_papers_first_level():
    import dataclasses

    from robohw.dynamics.inverse.counts import dynamics_counts, general_robot
    from robohw.robots import Robot
    puma, general = load_robot("puma560"), general_robot(6)
    twists = Robot("PUMA twists", tuple(dataclasses.replace(j, alpha=p.alpha) for j, p in
                                        zip(general.joints, puma.joints)), gravity=(1, -2, -9))
    scan = next(c for c in dynamics_counts(twists) if c.phase == "R")
    # (i-1)R_i with alpha in {0, +-90 deg}: [[c, -s, 0], [s, c, 0], [0, 0, 1]] or
    # [[c, 0, +-s], [s, 0, -+c], [0, +-1, 0]]; R_2 R_3 (alpha 0 by alpha 90): rows 1-2 each
    # c c' - s s' and +-(c s' + s c'), row 3 wiring: 8 M, 4 A (the paper's first level).
    assert scan.per_step[0] == (8, 4)


def test_serial_counts_are_the_whole_work_and_pfp_spreads_it():
    from robohw.dynamics.inverse.counts import dynamics_counts, general_robot, summarize
    robot = general_robot(6)
    serial = dynamics_counts(robot, 1, "serial")
    assert all(c.time == c.work for c in serial)
    for p in (1, 2, 3, 6):
        pfp = dynamics_counts(robot, p, "pfp")
        # The same operations wherever they run (PFP's padding costs steps, not operations,
        # but its fix-ups P5 are extra work), and never slower than one processor.
        assert summarize(pfp)["total"][0] <= summarize(serial)["total"][0]
        if p > 1:   # ceil(n/p) links per processor; the busiest block is one without link 1
            local = {c.phase: c.time for c in pfp if c.kind == "local"}
            assert local["F, N"] == tuple(-(-6 // p) * v for v in (72, 51))
    with pytest.raises(ValueError, match="processors must be a positive integer"):
        dynamics_counts(robot, 0)
    with pytest.raises(ValueError, match="scan must be one of"):
        dynamics_counts(robot, 2, "tree")


def test_count_tables_of_the_report():
    from robohw.dynamics.inverse.report import count_rows, paper_counts, pfp_speedups
    # The paper's closed forms at its quoted points: PUMA (n = 6, printed as "n = 8")
    # 197/183 against LWP 852/738, and n = 12 only 27 M and 33 A more.
    assert paper_counts(6)["total"] == (197, 183) and paper_counts(6)["uniprocessor"] == \
        (852, 738)
    assert tuple(b - a for a, b in zip(paper_counts(6)["total"], paper_counts(12)["total"])) \
        == (27, 33)
    rows = {r["n"]: r for r in count_rows(12)}
    # One processor: per extra link the local work (135/98), one product 0R_(i-1) (i-1)R_i
    # of a full matrix by a DH rotation (24/15) and an addition in each of the five vector
    # scans (0/15).
    for n in range(3, 12):
        grow = tuple(b - a for a, b in zip(rows[n]["uniprocessor"], rows[n + 1]["uniprocessor"]))
        assert grow == (135 + 24, 98 + 15 + 15)
    assert rows[6]["uniprocessor"] == (159 * 6 - 102, 128 * 6 - 88)
    assert rows[12]["total"][0] - rows[6]["total"][0] == 27      # as the paper says
    speedups = pfp_speedups(6)
    assert speedups[0]["speedup"] == 1 and speedups[0]["time"] == rows[6]["uniprocessor"]


def test_time_per_torque_vector_from_synthesis_rows():
    from robohw.dynamics.inverse.engine import ENGINE_INTERVAL
    from robohw.dynamics.inverse.time_report import PINOCCHIO_CPP_ROW, PINOCCHIO_ROW, time_rows
    measured = {"dynamics-pipelined": {"latency": 104, "interval": 6}}
    synth = [{"design": "dynamics-array", "fmax_mhz": 125.0, "latency_cycles": 250,
              "interval_cycles": 248, "device": "ecp5-85k", "speed_grade": 6, "width": 18},
             {"design": "dynamics-pipelined", "fmax_mhz": None, "placed": False}]
    pipelined, array, engine, peer, cpp = time_rows(measured, synth, pinocchio_us=(1.25, 0.8))
    # Not placed: cycles only. Placed: cycles over MHz are microseconds (250 / 125 = 2).
    assert pipelined["fmax_mhz"] is None and "latency_us" not in pipelined
    assert (pipelined["latency"], pipelined["interval"]) == (104, 6)
    assert array["latency_us"] == 2.0 and array["interval_us"] == 248 / 125
    # Neither simulated nor placed: nothing to say.
    assert engine == {"design": "dynamics-engine", "latency": None, "interval": None,
                      "fmax_mhz": None}
    # Pinocchio's call is its latency and its interval.
    assert peer["design"] == PINOCCHIO_ROW and peer["latency_us"] == peer["interval_us"] == 1.25
    assert cpp["design"] == PINOCCHIO_CPP_ROW and cpp["latency_us"] == cpp["interval_us"] == 0.8
    # The engine placed at another II than its default, or for another robot: not its row.
    engine_at = {"design": "dynamics-engine", "fmax_mhz": 100.0, "latency_cycles": 200,
                 "device": "ecp5-85k", "speed_grade": 6, "width": 20}
    synth += [{**engine_at, "fold": ENGINE_INTERVAL + 1, "interval_cycles": ENGINE_INTERVAL + 1},
              {**engine_at, "fold": ENGINE_INTERVAL, "interval_cycles": ENGINE_INTERVAL,
               "robot": "ur5"}]
    assert time_rows(measured, synth)[2]["fmax_mhz"] is None
    synth.append({**engine_at, "fold": ENGINE_INTERVAL, "interval_cycles": ENGINE_INTERVAL})
    engine, peer, cpp = time_rows(measured, synth)[2:]
    assert engine["interval_us"] == ENGINE_INTERVAL / 100.0 and engine["latency_us"] == 2.0
    assert peer["latency_us"] is None
    # The verdict against both calls timed in the run, or none without them.
    from robohw.dynamics.inverse.time_report import time_section
    fast = ENGINE_INTERVAL / 100.0
    text = time_section(time_rows(measured, synth, pinocchio_us=(1.25, 0.8)))
    assert f"{0.8 / fast:.2f} times the rate of Pinocchio from C++, this run (0.800 µs a " \
        f"call): {'it wins on throughput' if fast < 0.8 else 'it does NOT win'}" in text
    assert "no comparison in this run" in \
        time_section(time_rows(measured, synth, pinocchio_us=(1.25, None)))


def test_the_placed_curve_and_its_pareto_front():
    from robohw.dynamics.inverse.engine_report import placed_rows, placed_section
    rows = [{"design": "dynamics-engine", "width": 20, "fold": ii, "interval_cycles": ii,
             "latency_cycles": latency, "fmax_mhz": min(seeds.values()), "fmax_by_seed": seeds,
             "luts": luts, "carry": 100, "lut_ram": 10, "flip_flops": 5, "dsp": dsp, "bram": 1}
            for ii, latency, seeds, luts, dsp in (
                (128, 266, {"1": 101.0, "2": 100.2}, 8_000, 5),
                (64, 230, {"1": 104.0, "2": 99.0}, 17_000, 9),
                # Slower and larger than II 64: dominated.
                (96, 240, {"1": 90.0}, 20_000, 9))]
    rows.append({"design": "dynamics-array", "fmax_mhz": 100.0})
    curve = placed_rows(rows)
    assert [r["interval"] for r in curve] == [64, 96, 128]
    assert [r["front"] for r in curve] == [True, False, True]
    # 8,000 LUT4 + 2 x 100 carry + 4 x 10 LUT RAM + 5 x 1,904 a DSP tile.
    assert curve[2]["lut_equivalents"] == 8_000 + 200 + 40 + 5 * 1_904
    assert curve[0]["vectors_per_s"] == 99.0e6 / 64 and curve[0]["latency_us"] == 230 / 99.0
    text = placed_section(curve, 128)
    # II 64 misses 100 MHz on a seed: II 128 is the fastest point routed at 100 MHz.
    assert "NOT met: the fastest point that routes at 100 MHz or more on every seed is II 128" \
        in text
    assert "Not placed and routed here: II 3, 5, 10" in text
    assert "the curve over II, the PUMA 560" in text and "20 million torque vectors a second " \
        "(II <= 5 at 100 MHz)" in text
    assert "No placed" in placed_section([], 128)
    # Another robot's rows are its own curve, with its own goal.
    ur5 = [{**row, "robot": "ur5"} for row in rows[:2]]
    assert placed_rows(ur5) == [] and len(placed_rows(ur5, robot="ur5")) == 2
    text = placed_section(placed_rows(ur5, robot="ur5"), 5, "ur5")
    assert "the curve over II, the UR5" in text and "--robot ur5 --ii N" in text
    assert "10 million torque vectors a second (II <= 10 at 100 MHz)" in \
        placed_section([], 10, "panda")
    # A row of one seed, without the seeds' figures: its Fmax is the worst seed's.
    alone = {**rows[0], "fmax_mhz": 95.0}
    del alone["fmax_by_seed"]
    assert "NOT met: no II routes at 100 MHz on every seed" in \
        placed_section(placed_rows([alone]), 128)
