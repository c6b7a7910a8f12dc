"""The thesis's link computers planned for hardware: what each link's processor computes, in
which number format, in which cycle of the sample, and what its neighbours send it.

- **The trace.** For each link ``i``, its eight terms (:mod:`robohw.distributed.link_terms`)
  traced in the cells ``("link", i, term)`` over the link's *local values* (the rotations
  ``R_i`` and ``R_{i+1}``, ``AS``, ``Z0 qd``, ``Z0 qdd``, ``Z0``, the prismatic axis terms,
  the mass, centre of mass and inertia) and the *channel inputs* (``AW``, ``AWd``, ``Aa`` of
  link ``i - 1``, ``Af``, ``An`` of link ``i + 1``, each an input node of its own with the
  producer's range and format). Every local value is a value (a register), zeros and
  constants too, so each term costs the thesis's operations (Table 2.1: 257 a revolute link,
  :data:`~robohw.distributed.link_terms.TERM_OPERATIONS`), not fewer. The local values come
  from the joint's cos and sin (a pipelined CORDIC), rate, acceleration and (prismatic) length
  by wiring and constant factors (cells ``("local", i)``), outside the thesis's counts.
- **Formats.** Each value ``signed(width)`` with fraction bits from its proven range
  (:func:`robohw.dataflow.graph.assign_formats`): the term outputs bounded by
  :class:`robohw.dynamics.inverse.bounds.DynamicsBounds` (norms, the same in every frame)
  for the robot's joints moving within the velocities and accelerations of the thesis's
  trajectories at ``fastest`` seconds (:func:`trajectory_robot`). A channel input has its
  producer's format (so a value sent is a register copied, whatever the scheme).
- **The program.** Each link's operations placed in the eight term *slots* of a sample, in
  the thesis's order: single issue (one operation a cycle; ``"dual"``: a multiplication and an
  addition), results readable ``multiplier_latency`` or ``adder_latency`` cycles after issue.
  Slot ``k`` is as long as the longest link's term ``k`` (:attr:`LinkComputersPlan.term_cycles`:
  the thesis's 18, 30, 48, 36, 42, 18, 45, 20 with one operation a cycle and unit latency); an
  operation may run in an earlier slot's idle cycles once its operands exist (a prismatic
  link's terms of ``AW`` alone run in ``AWd``'s slot). The slots of each link start when the
  scheme lets them (:func:`robohw.distributed.timing.schedule`); a channel input waited for is
  readable from its slot's start, a predicted one from the sample's start.
- **First-order prediction** adds each link's corrections for its successor (the change of
  its ``AW`` and ``AWd`` over a sample from its predecessor's and its joint's, and of ``Aa``
  from them: :mod:`robohw.distributed.prediction`) to the cells of ``AW``, ``AWd`` and ``Aa``:
  22, 22 and 33 operations, the thesis's 77, so slots of 40, 52 and 81 cycles and 334 a
  sample. The joint's previous rate and acceleration are registers of its processor.
"""

import dataclasses
import functools
import math
from dataclasses import dataclass

from robohw.dataflow.graph import Node, assign_formats, frac_bits_for
from robohw.dataflow.operations import Op, Unit, kinds_on
from robohw.dataflow.plan import TracedPlan
from robohw.distributed.link_terms import (
    BACKWARD,
    FORWARD,
    TERMS,
    LinkState,
    angular_acceleration,
    angular_velocity,
    centre_force,
    centre_moment,
    joint_torque,
    linear_acceleration,
    link_force,
    link_moment,
)
from robohw.distributed.prediction import PREDICTED, SCHEMES
from robohw.distributed.thesis import sample_trajectory
from robohw.distributed.timing import WAITS
from robohw.dynamics.inverse.bounds import DynamicsBounds
from robohw.dynamics.inverse.codec import state_field
from robohw.hw.checks import check_choice, check_integer, check_number, check_positive_integer
from robohw.robots import hardware_robot
from robohw.robots.algebra import cross, matTvec, negate, product, snap, vadd
from robohw.robots.joint_type import JointType

__all__ = ["LinkComputersPlan", "shared_plan", "Operation", "trajectory_robot", "ISSUES",
           "MIN_WIDTH", "MAX_WIDTH", "FASTEST"]

ISSUES = ("single", "dual")
MIN_WIDTH, MAX_WIDTH = 24, 64
# The thesis's fastest runs take 1 s (Tables 6.1-6.6).
FASTEST = 1.0
# The trajectories' largest rates and accelerations are sampled every 5 ms; the limits take
# this much more, rounded up to 0.01 (a sample lies within them, and so does a nearby path).
_LIMIT_MARGIN = 1.05
_MULTIPLIES, _ADDS = kinds_on(Unit.MUL), kinds_on(Unit.ADD)


def _source(node):
    """What a (possibly negated) operand reads: negation is wiring into its consumer."""
    return _source(node.args[0]) if node.op == Op.NEG else node


def trajectory_robot(robot, fastest=FASTEST):
    """``robot`` with each joint's ``velocity_limit`` and ``acceleration_limit`` the largest
    ``|qd|`` and ``|qdd|`` of the thesis's two trajectories at ``fastest`` seconds (its
    fastest; slower runs scale them down), with a margin: the bounds the link computers'
    number formats are proven for."""
    check_number("fastest", fastest, above=0, unit="seconds")
    velocity = acceleration = 0.0
    for number in (1, 2):
        _, _, qd, qdd = sample_trajectory(number, fastest)
        velocity = abs(qd).max(axis=0) if number == 1 else \
            [max(a, b) for a, b in zip(velocity, abs(qd).max(axis=0))]
        acceleration = abs(qdd).max(axis=0) if number == 1 else \
            [max(a, b) for a, b in zip(acceleration, abs(qdd).max(axis=0))]
    joints = tuple(dataclasses.replace(
        joint, velocity_limit=math.ceil(float(v) * _LIMIT_MARGIN * 100) / 100,
        acceleration_limit=math.ceil(float(a) * _LIMIT_MARGIN * 100) / 100)
        for joint, v, a in zip(robot.joints, velocity, acceleration))
    return dataclasses.replace(robot, joints=joints)


@dataclass(frozen=True)
class Operation:
    """One operation of a link's program: the traced ``node`` (its index), issued in cycle
    ``cycle`` of its ``slot`` (a term of :data:`~robohw.distributed.link_terms.TERMS`)."""
    link: int
    slot: str
    cycle: int
    node: int


class LinkComputersPlan(TracedPlan):
    """The plan of the thesis's link computers (see the module docstring).

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` or str
        Six joints with inertial data (default ``"stanford_thesis"``).
    scheme : str
        One of :data:`~robohw.distributed.prediction.SCHEMES` (default ``"zero"``).
    width : int
        Bits of every datapath value, 24 to 64 (default 48: the thesis asks about 40
        fraction bits for link 6's torques of order 1e-3 N m).
    trig_width : int
        Bits of the CORDIC and the angle fields (default ``min(width, 40)``).
    fastest : float
        Seconds of the fastest run the formats are proven for (default 1).
    multiplier_latency, adder_latency : int
        Cycles from an operation's issue to its result being readable (default 1, the
        thesis's accounting).
    issue : str
        ``"single"`` (one operation a cycle, the thesis's accounting) or ``"dual"``.
    """

    def __init__(self, robot="stanford_thesis", *, scheme="zero", width=48, trig_width=None,
                 fastest=FASTEST, multiplier_latency=1, adder_latency=1, issue="single"):
        check_choice("scheme", scheme, SCHEMES)
        check_integer("width", width, minimum=MIN_WIDTH, maximum=MAX_WIDTH)
        check_positive_integer("multiplier_latency", multiplier_latency)
        check_positive_integer("adder_latency", adder_latency)
        check_choice("issue", issue, ISSUES)
        robot = hardware_robot(robot)
        if robot.dof != 6 or not robot.has_dynamics:
            raise ValueError(f"{robot.source or robot.name}: the link computers need six "
                             f"joints with inertial data")
        self.scheme, self.issue = scheme, issue
        self.multiplier_latency, self.adder_latency = multiplier_latency, adder_latency
        self._robot = trajectory_robot(robot, fastest)
        self.bounds = DynamicsBounds(self._robot)
        self.constants = {}           # constant input name -> its code
        self.channels = {}            # channel input name -> (producer node, its link, term)
        self.sent = {}                # (link, term) -> nodes of the term's sent vector
        self.previous = {}            # input name -> the input whose previous sample it is
        self._previous_nodes = {}
        # The channels' terms the scheme predicts (first-order prediction's corrections too).
        self.predicted = set(PREDICTED[scheme]) | ({"cW", "cWd"} if scheme == "first" else
                                                   set())
        super().__init__(width=width, fold=1,
                         trig_width=min(width, 40) if trig_width is None else trig_width)
        self._tie_channels()
        self.term_cycles, self.program = self._compile()

    @property
    def robot(self):
        return self._robot

    @property
    def dof(self):
        return self._robot.dof

    # --- the trace ---------------------------------------------------------------------------
    def _constant(self, name, value):
        """A register holding a constant: an input node with a code of its own."""
        value = float(value)
        frac = min(frac_bits_for(abs(value), self.width), 2 * self.width)
        code = round(value * 2.0 ** frac)
        node = self.tracer.input(name, value, value)
        self._input_fracs[name] = frac
        self._input_errors[name] = abs(value - code * 2.0 ** -frac)
        self._input_ready[name] = 0
        self.constants[name] = code
        return node

    def _registers(self, prefix, values):
        """``values`` (nested tuples of nodes and numbers) with every number a constant
        register named after its place."""
        if isinstance(values, tuple):
            return tuple(self._registers(f"{prefix}{k}", v) for k, v in enumerate(values))
        return values if isinstance(values, Node) else self._constant(prefix, values)

    def _local(self, link, joints):
        """The :class:`~robohw.distributed.link_terms.LinkState` of ``link`` (0-based) over
        nodes: rotations from the joints' cos and sin, the rest constants or inputs."""
        robot = self._robot
        joint = robot.joints[link]

        def rotation(k):
            j = robot.joints[k]
            ca, sa = snap(math.cos(j.alpha)), snap(math.sin(j.alpha))
            if j.type == JointType.REVOLUTE:
                ct, st = joints[k]["cos"], joints[k]["sin"]
            else:
                ct, st = snap(math.cos(j.theta)), snap(math.sin(j.theta))
            return ((ct, negate(product(st, ca)), product(st, sa)),
                    (st, product(ct, ca), negate(product(ct, sa))),
                    (0, sa, ca))

        ca, sa = snap(math.cos(joint.alpha)), snap(math.sin(joint.alpha))
        d = joint.d if joint.type == JointType.REVOLUTE else joints[link]["d"]
        qd, qdd = joints[link]["qd"], joints[link]["qdd"]
        ixx, iyy, izz, ixy, iyz, ixz = joint.inertia
        identity = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
        revolute = joint.type == JointType.REVOLUTE
        with self.tracer.cell("local", link):
            values = {
                "R": rotation(link),
                "R_next": rotation(link + 1) if link + 1 < robot.dof else identity,
                "AS": (joint.a, product(d, sa), product(d, ca)),
                "z_qd": (0, 0, qd), "z_qdd": (0, 0, qdd), "z0": (0, 0, 1),
                "mass": joint.mass, "com": tuple(joint.com),
                "inertia": ((ixx, ixy, ixz), (ixy, iyy, iyz), (ixz, iyz, izz)),
                "slide_qd": None if revolute else (0, product(qd, 2 * sa), product(qd, 2 * ca)),
                "slide_qdd": None if revolute else (0, product(qdd, sa), product(qdd, ca)),
            }
        registers = {key: None if value is None else self._registers(f"L{link}_{key}", value)
                     for key, value in values.items()}
        return LinkState(revolute=revolute, **registers)

    def _channel(self, link, term, producer):
        """The input nodes through which ``link`` receives ``producer`` (a vector of nodes,
        link ``producer_link``'s ``term``), with the producer's ranges."""
        nodes = []
        for c, node in enumerate(producer):
            name = f"in{link}_{term}{c}"
            nodes.append(self.tracer.input(name, node.low, node.high))
            # A first guess; _tie_channels gives it the producer's format.
            self._input_fracs[name] = frac_bits_for(node.magnitude, self.width)
            self._input_errors[name] = 0.0
            self._input_ready[name] = 0
            self.channels[name] = node.index
        return tuple(nodes)

    def _trace(self):
        robot, bounds, tracer = self._robot, self.bounds, self.tracer
        n = robot.dof
        joints = []
        for k, joint in enumerate(robot.joints, start=1):
            v, a = joint.velocity_limit, joint.acceleration_limit
            inputs = {"qd": self.value_input(f"qd{k}", state_field("qd", k), -v, v),
                      "qdd": self.value_input(f"qdd{k}", state_field("qdd", k), -a, a)}
            if joint.type == JointType.REVOLUTE:
                inputs["cos"], inputs["sin"] = self.angle_input(k, state_field("q", k),
                                                                joint.offset)
            else:
                low, high = (limit + joint.offset for limit in joint.limits)
                inputs["d"] = self.value_input(f"d{k}", state_field("q", k), low, high,
                                               joint.offset, error_lsb=1.0)
            joints.append(inputs)
        links = [self._local(i, joints) for i in range(n)]
        gravity = tuple(-g for g in robot.gravity)
        base = {"AW": (0, 0, 0), "AWd": (0, 0, 0), "Aa": gravity}
        terms, sending = [], []          # each link's terms, and what it sends its successor
        for i, link in enumerate(links):
            if i == 0:
                W_in, Wd_in, a_in = (self._registers(f"base_{t}", base[t]) for t in FORWARD)
            else:
                W_in, Wd_in, a_in = (self._channel(i, t, sending[i - 1][t]) for t in FORWARD)
            out = {}
            with tracer.cell("link", i, "AW"):
                out["AW"] = tracer.bound(angular_velocity(link, W_in), bounds.omega[i])
            with tracer.cell("link", i, "AWd"):
                out["AWd"] = tracer.bound(angular_acceleration(link, W_in, Wd_in),
                                          bounds.omega_dot[i])
            with tracer.cell("link", i, "Aa"):
                out["Aa"] = tracer.bound(linear_acceleration(link, out["AW"], out["AWd"], a_in),
                                         bounds.p_ddot[i])
            with tracer.cell("link", i, "AF"):
                out["AF"] = tracer.bound(centre_force(link, out["AW"], out["AWd"], out["Aa"]),
                                         bounds.force[i])
            with tracer.cell("link", i, "AN"):
                out["AN"] = tracer.bound(centre_moment(link, out["AW"], out["AWd"]),
                                         bounds.moment[i])
            terms.append(out)
            sending.append({t: out[t] for t in FORWARD})
            if self.scheme == "first":
                received = (self._registers(f"base_c{i}", ((0, 0, 0), (0, 0, 0))) if i == 0
                            else tuple(self._channel(i, t, sending[i - 1][t])
                                       for t in ("cW", "cWd")))
                sending[i].update(self._corrections(i, link, joints[i], out, received))
        outputs = {}
        for i in reversed(range(n)):
            link, out = links[i], terms[i]
            if i == n - 1:
                f_in, n_in = (self._registers(f"end_{t}", (0, 0, 0)) for t in BACKWARD)
            else:
                f_in, n_in = (self._channel(i, t, terms[i + 1][t]) for t in BACKWARD)
            with tracer.cell("link", i, "Af"):
                f, rotated = link_force(link, out["AF"], f_in)
                out["Af"] = tracer.bound(f, bounds.f[i])
            with tracer.cell("link", i, "An"):
                out["An"] = tracer.bound(link_moment(link, out["AF"], out["AN"], n_in, rotated),
                                         bounds.n[i])
            with tracer.cell("link", i, "u"):
                (tau,) = tracer.bound((joint_torque(link, out["Af"], out["An"]),),
                                      bounds.tau[i])
            outputs[i + 1] = tau
        for i, out in enumerate(terms):
            for term, vector in [*sending[i].items(), *((t, out[t]) for t in BACKWARD)]:
                self.sent[i, term] = vector
                # Values only a neighbour reads are outputs too (kept live, given formats).
                for c, node in enumerate(vector):
                    outputs[("sent", i, term, c)] = node
        return dict(sorted(outputs.items(), key=lambda kv: str(kv[0])))

    def _corrections(self, i, link, joint, out, received):
        """First-order prediction at link ``i`` (as :mod:`robohw.distributed.prediction`): its
        corrections ``cW``, ``cWd`` for its successor, from its predecessor's (``received``)
        and its joint's change of rate and acceleration over the sample (revolute joints; the
        previous sample's values are registers of the processor), and the corrected ``AW``,
        ``AWd``, ``Aa`` it sends: 22, 22 and 33 operations in those terms' cells."""
        tracer = self.tracer
        sent, corrections = {}, {}
        for term, key, rate in (("AW", "cW", "qd"), ("AWd", "cWd", "qdd")):
            with tracer.cell("link", i, term):
                incoming = received[0] if key == "cW" else received[1]
                if link.revolute:
                    change = joint[rate] - self._previous_input(joint[rate])
                    zero = self._registers(f"L{i}_{key}_zero", (0, 0))
                    incoming = vadd(incoming, (*zero, change))
                corrections[key] = matTvec(link.R, incoming)
                sent[term] = vadd(out[term], corrections[key])
        cW, cWd = corrections["cW"], corrections["cWd"]
        with tracer.cell("link", i, "Aa"):
            sent["Aa"] = vadd(vadd(out["Aa"], cross(cWd, link.AS)),
                              cross(cW, cross(cW, link.AS)))
        return {**sent, **corrections}

    def _previous_input(self, node):
        """An input node holding ``node``'s value of the previous sample (same format)."""
        name = f"{node.name}_prev"
        if name not in self.previous:
            previous = self.tracer.input(name, node.low, node.high)
            self._input_fracs[name] = self._input_fracs[node.name]
            self._input_errors[name] = self._input_errors[node.name]
            self._input_ready[name] = 0
            self.previous[name] = node.name
            self._previous_nodes[name] = previous
        return self._previous_nodes[name]

    def _tie_channels(self):
        """Give every channel input its producer's format, link by link (a producer's format
        depends on its own channel inputs': at most one pass a link each way)."""
        for _ in range(2 * self.dof + 2):
            errors = {}
            self.formats = assign_formats(self.tracer, self.live, self.width,
                                          self._input_fracs, self._input_errors, errors)
            changed = False
            for name, producer in self.channels.items():
                frac, error = self.formats[producer].frac, errors[producer]
                if (self._input_fracs[name], self._input_errors[name]) != (frac, error):
                    self._input_fracs[name], self._input_errors[name] = frac, error
                    changed = True
            if not changed:
                return
        raise AssertionError("the channel formats do not settle")

    # --- the program -------------------------------------------------------------------------
    def _latency(self, node):
        return self.multiplier_latency if node.op in _MULTIPLIES else self.adder_latency

    def available(self, name):
        """The slot from whose start a channel input is readable under the plan's scheme (a
        neighbour's term waited for), or ``None`` (predicted: readable from the sample's
        start)."""
        term = name.split("_", 1)[1][:-1]
        if term in self.predicted:
            return None
        for waiting, (_, awaited) in WAITS[self.scheme].items():
            if TERMS.index(awaited) >= TERMS.index(term) and \
                    (term in FORWARD) == (TERMS.index(waiting) < 5):
                return waiting
        return None

    def _compile(self):
        """``(term_cycles, {link: [Operation]})``: each slot as long as the longest link needs
        for its term's operations (a list schedule: the slot's own operations first, then the
        longest chain of latencies to the link's end), idle cycles filled by later slots'
        ready operations (which never delays a slot's own: they take only cycles, or units,
        none of its own could)."""
        nodes = self.tracer.nodes
        work, users = {}, {}
        for k in self.live:
            node = nodes[k]
            for arg in node.args:
                users.setdefault(_source(arg).index, []).append(k)
            if node.op not in _MULTIPLIES + _ADDS:
                continue
            if node.cell[0] == "link":
                work.setdefault(node.cell[1], []).append(node)
            elif node.op != Op.CMUL:
                raise ValueError(f"{self._robot.name}: joint {node.cell[1] + 1}'s local "
                                 f"values need arithmetic ({node.op}); the local stage has "
                                 f"wiring and constant factors only")
        urgency = {}
        for k in reversed(self.live):
            node = nodes[k]
            if node.op in _MULTIPLIES + _ADDS:
                urgency[k] = self._latency(node) + max(
                    (urgency[u] for u in users.get(k, ()) if u in urgency), default=0)
        term_cycles, program = {}, {link: [] for link in work}
        ready = {}                    # node -> (slot index, cycle readable in that slot)
        pending = {link: list(ops) for link, ops in work.items()}
        for position, slot in enumerate(TERMS):
            runs = {link: self._slot(slot, ops, ready, term_cycles, urgency)
                    for link, ops in pending.items()}
            lengths = {link: next(run) for link, run in runs.items()}
            term_cycles[slot] = max(max(lengths.values()), 1)
            for link, run in runs.items():
                issued = run.send(term_cycles[slot])
                for cycle, node in issued:
                    program[link].append(Operation(link, slot, cycle, node.index))
                    ready[node.index] = (position, cycle + self._latency(node))
                done = {node.index for _, node in issued}
                pending[link] = [op for op in pending[link] if op.index not in done]
        left = [op for ops in pending.values() for op in ops]
        if left:
            raise AssertionError(f"operations left unscheduled: {left[:3]}")
        return term_cycles, program

    def _slot(self, slot, ops, ready, term_cycles, urgency):
        """A generator: one slot of one link's program. It first yields the cycles until the
        slot's own operations (its term's, and earlier ones') are readable, is then sent the
        slot's length, and returns (as its second yield) the ``[(cycle, node)]`` issued
        before that length."""
        position = TERMS.index(slot)
        single = self.issue == "single"
        own = {op.index for op in ops if TERMS.index(op.cell[2]) <= position}
        local, issued, waiting = {}, [], list(ops)

        def readable(op):
            latest = 0
            for arg in op.args:
                arg = _source(arg)
                k = arg.index
                if k in local:
                    latest = max(latest, local[k])
                elif k in ready:
                    # Issued in an earlier slot: its result may spill into this one.
                    s, cycle = ready[k]
                    latest = max(latest, cycle - sum(term_cycles[TERMS[j]]
                                                     for j in range(s, position)))
                elif arg.op in _MULTIPLIES + _ADDS and arg.cell[0] == "link":
                    return math.inf       # not computed yet (the local stage's are given)
                elif arg.name in self.channels:
                    waited = self.available(arg.name)
                    if waited is not None and TERMS.index(waited) > position:
                        return math.inf   # the neighbour's value comes with a later slot
            return latest

        def step(cycle, mandatory_first):
            candidates = [op for op in waiting if readable(op) <= cycle]
            candidates.sort(key=lambda op: (mandatory_first and op.index not in own,
                                            -urgency[op.index], op.index))
            units = set()
            for op in candidates:
                unit = Unit.MUL if op.op in _MULTIPLIES else Unit.ADD
                if unit in units or (single and units):
                    continue
                units.add(unit)
                issued.append((cycle, op))
                local[op.index] = cycle + self._latency(op)
                waiting.remove(op)

        cycle = 0
        while own - set(local) or max((local[k] for k in own), default=0) > cycle:
            step(cycle, True)
            cycle += 1
            if cycle > 100_000:
                raise AssertionError(f"slot {slot} does not finish")
        length = yield max((local[k] for k in own), default=0)
        while cycle < length and waiting:
            step(cycle, False)
            cycle += 1
        yield [(c, op) for c, op in issued if c < length]


@functools.lru_cache(maxsize=32)
def shared_plan(robot="stanford_thesis", scheme="zero", width=48):
    """The :class:`LinkComputersPlan` of ``robot`` (a :class:`~robohw.robots.Robot` or a
    name), ``scheme`` and ``width``, the defaults otherwise, built once per arguments: a plan
    takes seconds to compile, and the study and the report read the same few many times.
    Shared: read it, never change it."""
    return LinkComputersPlan(robot, scheme=scheme, width=width)
