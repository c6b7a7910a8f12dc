"""The fully pipelined Newton-Euler datapath: the traced graph against the references, the
bit-exact model against float within the proven formats, the RTL against the model bit for bit
(Amaranth and Verilator), latency and throughput against an independent count, states out of
bounds flagged."""

import collections
import dataclasses

import numpy as np
import pytest
from netlist import register_depths
from schedules import critical_path

from robohw.commands import main
from robohw.dataflow.folding import product_pools
from robohw.dataflow.pipeline import delay_taps, ring_parts
from robohw.dataflow.plan import traced_float_values
from robohw.dynamics import NewtonEulerPipeline, NewtonEulerPlan
from robohw.dynamics.inverse.codec import decode_torques, encode_states, torque_codes
from robohw.dynamics.inverse.model import model_outputs, model_torques
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.robots import Robot, load_robot
from robohw.robots.sampling import joint_limits, random_robot, sample_joints
from robohw.sim.compiled import run_stream_compiled
from robohw.sim.harness import run_stream

# The goal at 24 bits: max |tau_fixed - tau_float| <= 1e-4 max |tau|.
ACCURACY_GOAL = 1e-4


def limits(robot):
    return (np.array([j.velocity_limit for j in robot.joints]),
            np.array([j.acceleration_limit for j in robot.joints]))


def states(robot, rng, count, corners=True):
    """Uniform within the robot's position, velocity and acceleration limits; a quarter at the
    limits themselves."""
    v, a = limits(robot)
    q = sample_joints(robot, count, rng)
    qd = rng.uniform(-1, 1, (count, robot.dof)) * v
    qdd = rng.uniform(-1, 1, (count, robot.dof)) * a
    if corners:
        edge = joint_limits(robot)
        for values, low, high in ((q, edge[:, 0], edge[:, 1]), (qd, -v, v), (qdd, -a, a)):
            pick = rng.integers(0, 2, (count // 4, robot.dof))
            values[:count // 4] = np.where(pick, high, low)
    return q, qd, qdd


def payloads(dut, q, qd, qdd):
    codes = encode_states(dut.plan, q, qd, qdd)
    return codes, [{**{name: int(v[b]) for name, v in codes.items()}, "tag": b % 256}
                   for b in range(len(q))]


def check_outputs(dut, codes, inputs, outputs):
    expected, inside = model_outputs(dut.plan, codes)
    assert [o["tag"] for o in outputs] == [p["tag"] for p in inputs]
    assert [o["in_bounds"] for o in outputs] == inside.astype(int).tolist()
    got = torque_codes(dut.plan, outputs)
    for k, values in expected.items():
        assert got[k].tolist() == [int(v) for v in values], k


def check_rtl(dut, q, qd, qdd, **stalls):
    codes, inputs = payloads(dut, q, qd, qdd)
    run = run_stream(dut, inputs, **stalls)
    check_outputs(dut, codes, inputs, run.outputs)
    return run


def test_constructor_checks():
    with pytest.raises(ValueError, match=r"width must be an integer in \[16, 56\], not 12"):
        NewtonEulerPlan("puma560", width=12)
    with pytest.raises(ValueError, match=r"trig_width must be an integer in \[16, 24\]"):
        NewtonEulerPlan("puma560", width=24, trig_width=32)
    robot = load_robot()
    bare = Robot("no limits", tuple(dataclasses.replace(j, velocity_limit=None)
                                    for j in robot.joints))
    with pytest.raises(ValueError, match=r"joints \[1, 2, 3, 4, 5, 6\] have no velocity_limit"):
        NewtonEulerPlan(bare)
    with pytest.raises(ValueError, match="fold must be a positive integer"):
        NewtonEulerPlan("puma560", fold=0)


@pytest.mark.parametrize("name", ["puma560", "stanford"])
def test_traced_graph_equals_reference(name):
    robot = load_robot(name)
    plan = NewtonEulerPlan(robot)
    q, qd, qdd = states(robot, np.random.default_rng(1), 200)
    inputs = {}
    for k, joint in enumerate(robot.joints, start=1):
        value = q[:, k - 1] + joint.offset
        inputs.update({f"cos{k}": np.cos(value), f"sin{k}": np.sin(value), f"d{k}": value,
                       f"qd{k}": qd[:, k - 1], f"qdd{k}": qdd[:, k - 1]})
    traced = traced_float_values(plan, inputs)
    got = np.stack([traced[k] for k in range(1, robot.dof + 1)], -1)
    assert np.abs(got - inverse_dynamics(robot, q, qd, qdd)).max() < 1e-9


@pytest.mark.parametrize("name", ["puma560", "stanford"])
def test_accuracy_at_24_bits(name):
    robot = load_robot(name)
    q, qd, qdd = states(robot, np.random.default_rng(2), 4000)
    tau, inside = model_torques(NewtonEulerPlan(robot, width=24), q, qd, qdd)
    reference = inverse_dynamics(robot, q, qd, qdd)
    assert inside.all()
    assert np.abs(tau - reference).max() <= ACCURACY_GOAL * np.abs(reference).max()


@pytest.mark.parametrize("width", [16, 20, 31, 32, 40, 48, 56])
def test_formats_never_overflow_within_the_limits(width):
    # The model raises OverflowError naming the node if a register would leave signed(width):
    # states drawn in the limits and at them, on both arms. Wider is more accurate, up to the
    # CORDICs' 40 bits (their cos and sin then bound the error).
    errors = []
    for name in ("puma560", "stanford"):
        robot = load_robot(name)
        q, qd, qdd = states(robot, np.random.default_rng(width), 600)
        plan = NewtonEulerPlan(robot, width=width, bound_fraction=None)
        tau, inside = model_torques(plan, q, qd, qdd)
        assert inside.all()
        reference = inverse_dynamics(robot, q, qd, qdd)
        errors.append(np.abs(tau - reference).max() / np.abs(reference).max())
    assert max(errors) < 2.0 ** -(min(width, 40) - 12)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_random_robots_never_overflow(n):
    rng = np.random.default_rng(30 + n)
    robot = random_robot(rng, n, prismatic=0.3)
    q, qd, qdd = states(robot, rng, 2000)
    tau, inside = model_torques(NewtonEulerPlan(robot, width=20, bound_fraction=None), q, qd, qdd)
    reference = inverse_dynamics(robot, q, qd, qdd)
    assert inside.all()
    assert np.abs(tau - reference).max() <= 1e-2 * np.abs(reference).max()


def test_states_out_of_bounds_are_flagged():
    robot = load_robot()
    plan = NewtonEulerPlan(robot, width=16, bound_fraction=None)
    v, a = limits(robot)
    q, qd, qdd = states(robot, np.random.default_rng(3), 8, corners=False)
    qd[1, 2] = 1.01 * v[2]
    qdd[3, 0] = -1.2 * a[0]
    qd[5, 4] = 1e9            # beyond the field itself: wraps, flagged all the same
    _, inside = model_torques(plan, q, qd, qdd)
    assert inside.tolist() == [True, False, True, False, True, False, True, True]
    # A rate exactly at the limit is in bounds.
    qd[1, 2] = v[2]
    assert model_torques(plan, q[1:2], qd[1:2], qdd[1:2])[1].all()
    # A value beyond its field saturates to the field's extreme code, which is never within
    # the limits (the formats' margin keeps the limits below it), at any width.
    for width in (16, 24, 40, 56):
        wide = NewtonEulerPlan(robot, width=width, bound_fraction=None)
        for field, (low, high) in wide.field_limits.items():
            assert -(1 << (width - 1)) < low and high < (1 << (width - 1)) - 1, field
    with pytest.raises(ValueError, match="qd must be finite"):
        encode_states(plan, q, np.full_like(qd, np.nan), qdd)
    with pytest.raises(ValueError, match="qdd must have 6 columns, not 2"):
        encode_states(plan, q, qd, qdd[:, :2])


@pytest.mark.heavy
def test_rtl_equals_model_under_stalls_with_states_out_of_bounds():
    robot = load_robot()
    dut = NewtonEulerPipeline(robot, width=16, bound_fraction=None, tag_width=8)
    q, qd, qdd = states(robot, np.random.default_rng(4), 24)
    v, a = limits(robot)
    qd[3] *= 1.5          # a row out of bounds: its registers may wrap, the model's too
    qdd[7, 1] = 40 * a[1]
    source, sink = [1, 1, 0, 1, 1, 1, 0], [1, 0, 1, 1, 0]
    run = check_rtl(dut, q, qd, qdd, source_valid=lambda c: source[c % len(source)],
                    sink_ready=lambda c: sink[c % len(sink)])
    assert [o["in_bounds"] for o in run.outputs].count(0) == 2


@pytest.mark.heavy
def test_folded_rtl_equals_model_under_stalls():
    # Folded by 6 (the registry's fold): the products share multipliers, each register takes
    # its value in its phase; one state per 6 cycles, bit for bit.
    robot = load_robot()
    dut = NewtonEulerPipeline(robot, width=16, fold=6, tag_width=8, check_ranges=True,
                              bound_fraction=None)
    assert dut.plan.schedule.multipliers == 98
    q, qd, qdd = states(robot, np.random.default_rng(14), 10)
    source, sink = [1, 1, 0, 1, 1, 1, 0], [1, 0, 1, 1, 0]
    run = check_rtl(dut, q, qd, qdd, source_valid=lambda c: source[c % len(source)],
                    sink_ready=lambda c: sink[c % len(sink)])
    assert dut.interval == 6 and np.diff(run.input_cycles).min() == 6


@pytest.mark.heavy
def test_product_pools_give_each_community_multipliers_of_its_own(monkeypatch):
    # Folded with pools (Louvain communities of the graph): a pool's products only on its own
    # multipliers, ceil(products / fold) of them, one product per multiplier and phase; the
    # RTL still equals the model under stalls.
    monkeypatch.setattr(NewtonEulerPlan, "pool_resolution", 1.0)
    robot = load_robot()
    dut = NewtonEulerPipeline(robot, width=16, bound_fraction=None, fold=6, tag_width=8)
    plan, sched = dut.plan, dut.plan.schedule
    pools = product_pools(plan.tracer, plan.live, 1.0)
    owners = collections.defaultdict(set)
    for k, unit in sched.unit.items():
        owners[unit].add(pools[k])
    assert all(len(p) == 1 for p in owners.values())
    sizes = collections.Counter(pools.values())
    assert len(sizes) > 1 and sched.multipliers == sum(-(-n // 6) for n in sizes.values())
    slots = {(unit, sched.start[k] % 6) for k, unit in sched.unit.items()}
    assert len(slots) == len(sched.unit)
    q, qd, qdd = states(robot, np.random.default_rng(15), 8)
    source, sink = [1, 0, 1, 1], [1, 1, 0, 1, 0]
    check_rtl(dut, q, qd, qdd, source_valid=lambda c: source[c % len(source)],
              sink_ready=lambda c: sink[c % len(sink)])


@pytest.mark.heavy
def test_latency_and_throughput_against_independent_counts():
    robot = load_robot()
    dut = NewtonEulerPipeline(robot, width=16, bound_fraction=None, tag_width=8)
    run = check_rtl(dut, *states(robot, np.random.default_rng(5), 12))
    # The CORDIC, the longest chain of registered operations, the output queue's two.
    formula = critical_path(dut.plan) + 2
    assert run.output_cycles[0] - run.input_cycles[0] == dut.latency == formula
    # Counted in the elaborated netlist: every path crosses that many registers.
    dut = NewtonEulerPipeline(robot, width=16, tag_width=8, bound_fraction=None)
    assert register_depths(dut) == {formula}
    assert np.all(np.diff(run.input_cycles) == 1) and np.all(np.diff(run.output_cycles) == 1)
    assert dut.interval == 1


def test_the_scans_make_the_depth_logarithmic():
    # Recursive doubling: a 12-joint arm's pipeline is far less than twice a 6-joint one's.
    rng = np.random.default_rng(7)
    six, twelve = (critical_path(NewtonEulerPlan(random_robot(rng, n, prismatic=0.0),
                                                 width=20, bound_fraction=None))
                   for n in (6, 12))
    assert twelve < 1.5 * six


@pytest.mark.heavy
def test_a_48_bit_datapath_rtl_equals_model():
    # Products of 48-bit codes exceed int64: the model runs on Python integers.
    robot = load_robot("stanford")
    dut = NewtonEulerPipeline(robot, width=48, tag_width=8)
    assert dut.plan.cordic.width == 40
    check_rtl(dut, *states(robot, np.random.default_rng(8), 6))


def test_angles_wrap_at_the_cordics_width_in_rtl_and_model():
    # A datapath wider than its CORDIC: an angle plus its joint's offset wraps at the angle
    # field's width, as the hardware's field does (angles at +-pi cross it).
    robot = random_robot(np.random.default_rng(12), 2, prismatic=0)
    assert all(joint.offset for joint in robot.joints)
    dut = NewtonEulerPipeline(robot, width=20, trig_width=16, tag_width=4, bound_fraction=None)
    q, qd, qdd = states(robot, np.random.default_rng(13), 8, corners=False)
    q[:4] = [[np.pi, -np.pi], [-np.pi, np.pi * 0.9999], [np.pi * 0.9999, -np.pi * 0.9999],
             [-np.pi * 0.9999, np.pi]]
    check_rtl(dut, q, qd, qdd)
    tau, inside = model_torques(dut.plan, q, qd, qdd)
    assert inside.all()
    reference = inverse_dynamics(dut.plan.robot, q, qd, qdd)
    bounds = [dut.plan.output_bounds[k] for k in range(1, 3)]
    assert np.all(np.abs(tau - reference) <= bounds)


# Two minutes; tests/shared/test_compiled.py's dynamics file runs it compiled too.
@pytest.mark.slow
def test_compiled_backend_equals_model_on_10000_states(compiled_models):
    robot = load_robot()
    dut = NewtonEulerPipeline(robot, width=16, bound_fraction=None, tag_width=8)
    q, qd, qdd = states(robot, np.random.default_rng(9), 10_000)
    qd[::97] *= 1.3       # some rows out of bounds
    codes, inputs = payloads(dut, q, qd, qdd)
    run = run_stream_compiled(dut, inputs, directory=compiled_models,
                              source_pattern=[1, 1, 0, 1, 1], sink_pattern=[1, 0, 1, 1, 1, 1])
    check_outputs(dut, codes, inputs, run.outputs)


def test_phase_rings_enable_at_most_ring_fanout_flip_flops():
    # Folded, each register and delay line takes its value in its phase, enabled by a copy of
    # the phase ring; a copy serves at most ring_fanout flip-flops (or one node's own).
    plan = NewtonEulerPlan("puma560", width=18, fold=6)
    reads = [(node.index, plan.latency) for node in plan.outputs.values()
             if not isinstance(node, float)]
    taps = delay_taps(plan.tracer, plan.live, plan.schedule, reads)
    loads, members = {}, {}
    for grouped in (None, plan.ring_fanout):
        parts = ring_parts(plan.tracer, plan.live, taps, 18, grouped)
        load, count = collections.Counter(), collections.Counter()
        for k, part in parts.items():
            node = plan.tracer.nodes[k]
            # the node's register (an input has none: the port or the CORDIC drives its line)
            # and its line's stages, 18 bits each
            load[part] += 18 * ((node.op != "input") + max(taps[k] | {0}))
            count[part] += 1
        loads[grouped], members[grouped] = load, count
    assert max(loads[None].values()) > 1000          # a whole cell: one ring bit for all
    grouped = plan.ring_fanout
    assert all(load <= grouped or members[grouped][part] == 1
               for part, load in loads[grouped].items())
    assert sum(loads[grouped].values()) == sum(loads[None].values())


def test_decode_matches_the_output_formats():
    plan = NewtonEulerPlan("puma560", width=20, bound_fraction=None)
    out = {k: np.array([1 << plan.output_fracs[k]]) for k in range(1, 7)}
    assert decode_torques(plan, out).tolist() == [[1.0] * 6]


def write_state_file(path, q, qd, qdd):
    n = q.shape[1]
    header = [f"{kind}{k}" for kind in ("q", "qd", "qdd") for k in range(1, n + 1)]
    rows = np.concatenate([q, qd, qdd], -1)
    path.write_text(",".join(header) + "\n" + "".join(
        ",".join(repr(float(v)) for v in row) + "\n" for row in rows))


@pytest.mark.heavy
def test_dynamics_command_hardware_backends(tmp_path, capsys):
    robot = load_robot("stanford")
    q, qd, qdd = states(robot, np.random.default_rng(11), 30)
    v, _ = limits(robot)
    qd[4, 3] = 1.2 * v[3]              # outside the limits: valid 0, zeros, the rest computed
    source = tmp_path / "s.csv"
    write_state_file(source, q, qd, qdd)
    files = {}
    for backend in ("model", "rtl"):
        files[backend] = tmp_path / f"{backend}.csv"
        assert main(["dynamics", "--states", str(source), "--out", str(files[backend]),
                     "--robot", "stanford", "--backend", backend, "--width", "20",
                     "--reasons"]) == 0
    assert files["rtl"].read_bytes() == files["model"].read_bytes()
    lines = files["model"].read_text().splitlines()
    assert lines[0] == "tau1,tau2,tau3,tau4,tau5,tau6,valid,reason"
    rows = [line.split(",") for line in lines[1:]]
    assert [r[-2:] for r in rows].count(["0", "outside_limits"]) == 1
    assert rows[4][-2:] == ["0", "outside_limits"] and rows[4][:6] == ["0.0"] * 6
    got = np.array([[float(v) for v in r[:6]] for r in rows])
    reference = inverse_dynamics(robot, q, qd, qdd)
    keep = np.arange(30) != 4
    assert np.abs(got[keep] - reference[keep]).max() <= 1e-3 * np.abs(reference).max()
    assert "1 valid" not in capsys.readouterr().err
    # What the hardware cannot do is refused in one line.
    assert main(["dynamics", "--states", str(source), "--out", str(tmp_path / "w.csv"),
                 "--robot", "stanford", "--backend", "model", "--wrench",
                 "1,2,3,0,0,0"]) == 2
    assert ("--wrench applies to the float backend: the hardware takes no tool wrench"
            in capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["dynamics", "--states", str(source), "--out", str(tmp_path / "w.csv"),
              "--backend", "model", "--width", "60"])
    assert "--width must be" in capsys.readouterr().err
    bare = tmp_path / "bare.toml"
    bare.write_text('name = "bare"\n[[joint]]\ntype = "revolute"\na = 1.0\nalpha = 0.0\n'
                    'd = 0.0\noffset = 0.0\nmass = 1.0\ncom = [0.5, 0.0, 0.0]\n'
                    'inertia = [0.1, 0.1, 0.1, 0.0, 0.0, 0.0]\n')
    one = tmp_path / "one.csv"
    one.write_text("q1,qd1,qdd1\n0.1,0.2,0.3\n")
    assert main(["dynamics", "--states", str(one), "--out", str(tmp_path / "b.csv"),
                 "--robot", str(bare), "--backend", "model"]) == 2
    assert "have no velocity_limit and acceleration_limit" in capsys.readouterr().err
