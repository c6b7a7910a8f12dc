"""What both inertia-matrix arrays share: the CORDIC front end, the traced algorithm, the number
formats, the stream interface and the resource count.

An array is built from its algorithm (:func:`robohw.reference.inertia.table1` or
:func:`robohw.reference.inertia.table2`) traced over the robot's constants
(:mod:`robohw.systolic.dataflow`, constants folded), and from the windows in which its processing
elements run (the plan subclass's ``_first_cycle``). :class:`InertiaPlan` holds all that;
:class:`InertiaArray` builds it; :mod:`robohw.systolic.model` evaluates it bit for bit.
"""

from collections import Counter
from fractions import Fraction

from amaranth.hdl import Const, Module, Signal, signed

from robohw.cordic.config import CordicConfig
from robohw.cordic.pipelined import (pipelined_datapath, pipelined_latency,
                                     pipelined_register_bits)
from robohw.hw.fixed import angle_to_code
from robohw.hw.stream import StreamPipeline, check_fold, check_tag_width
from robohw.reference.inertia import link_frames
from robohw.robots import Robot, load_robot
from robohw.systolic.dataflow import OPS, Tracer, assign_formats, frac_bits_for
from robohw.systolic.folding import modulo_schedule
from robohw.systolic.model import MAX_WIDTH
from robohw.systolic.pipeline import (INPUT_CELL, MULTIPLIER_OPERAND_REGISTERS,
                                      MULTIPLIER_PRODUCT_REGISTERS, build_dataflow, cell_depths,
                                      control_parts, delay_taps, schedule)

__all__ = ["InertiaPlan", "InertiaArray", "MIN_WIDTH"]

MIN_WIDTH = 12
# cos and sin leave the CORDIC within 1.25 LSB (2**-(width - 3) each; robohw.accuracy.cordic) of
# [-1, 1]; a margin of 1/64 covers that at every width from 12 up.
_TRIG_MARGIN = 1.0 / 64
# Worst-case error of the CORDIC's cos and sin, in their LSBs: the stated bound of the circular
# system (robohw.accuracy.cordic.ERROR_BOUND_LSB; tests/test_inertia_arrays.py holds them equal).
TRIG_ERROR_LSB = 1.25


class InertiaPlan:
    """What an inertia array is built from, without building it: the traced algorithm with the
    robot's constants folded, every value's format, the cell windows and the schedule (the
    bit-exact model, :mod:`robohw.systolic.model`, evaluates it). Subclasses
    (:class:`~robohw.systolic.linear.LinearPlan`, :class:`~robohw.systolic.logdepth.LogDepthPlan`)
    give the algorithm, the windows and the latency formula.

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` or str
        A robot with inertial data, or a robot file or shipped name (default ``"puma560"``).
    width : int
        Bits of every datapath value, 12 to 31 (default 24). Each value has its own fraction
        bits, as many as its proven range leaves (:attr:`output_fracs` for the outputs).
    fold : int
        Cycles per configuration, 1 or more (default 1). With 1 every operation has its own
        hardware and the processing elements run in the windows of the paper's timing; folded
        by ``k`` (:mod:`robohw.systolic.folding`), the products share ``ceil(products / k)``
        multipliers, the joints' sin and cos ``ceil(joints / k)`` CORDICs, and the latency is
        the modulo schedule's.
    """
    algorithm = None     # table1 or table2, set by the subclass
    kinds = ()           # the kinds of cell, each with its window length

    def __init__(self, robot="puma560", *, width=24, fold=1):
        if not isinstance(width, int) or not MIN_WIDTH <= width <= MAX_WIDTH:
            raise ValueError(f"width must be an integer in [{MIN_WIDTH}, {MAX_WIDTH}], "
                             f"not {width!r}")
        if not isinstance(robot, Robot):
            robot = load_robot(robot)
        self._robot, self._width, self._fold = robot, width, check_fold(fold)
        self._frames = frames = link_frames(robot)
        self._n = len(frames)
        self.cordic = CordicConfig("circular", "rotation", width=width)
        self._trace(frames)
        # The graph and its hardware plan, read by InertiaArray.elaborate:
        # tracer, live (node indices the outputs need), formats (by index), outputs ({(j, i):
        # node or constant}), schedule, cordic (the sin/cos processors' configuration),
        # cordic_slots ({joint: (CORDIC, phase)}).
        self._lengths = self._window_lengths(cell_depths(self.tracer, self.live))
        live = {self.tracer.nodes[k].name for k in self.live}
        joints = [k for k in range(2, self._n + 1) if {f"cos{k}", f"sin{k}"} & live]
        self.cordic_slots = {k: divmod(index, fold) for index, k in enumerate(joints)}
        if fold == 1:
            self.schedule = schedule(self.tracer, self.live, self._window, self._input_ready)
        else:
            # A CORDIC takes joint k's angle in its phase and gives cos and sin L_in later.
            ready = dict(self._input_ready)
            for k, (_, slot) in self.cordic_slots.items():
                ready[f"cos{k}"] = ready[f"sin{k}"] = slot + self._lengths["in"]
            self.schedule = modulo_schedule(self.tracer, self.live, fold, ready)
        depth = self.latency
        for (j, i), source in self._output_sources().items():
            late = self.schedule.ready[source.index] if fold > 1 else \
                self.schedule.windows.get(source.cell, (0, 0))[1]
            if late > depth:
                raise AssertionError(f"h{j}_{i} is late for the stated latency {depth}")

    # --- construction ------------------------------------------------------------------------
    def _trace(self, frames):
        width = self._width
        self.tracer = tracer = Tracer(fold=True)
        joints, fracs, ready, errors = [None], {}, {}, {}
        trig = 1 + _TRIG_MARGIN
        with tracer.cell(*INPUT_CELL):
            for k, frame in enumerate(frames[1:], start=2):
                if frame.revolute:
                    joints.append((tracer.input(f"cos{k}", -trig, trig),
                                   tracer.input(f"sin{k}", -trig, trig)))
                    fracs[f"cos{k}"] = fracs[f"sin{k}"] = self.cordic.frac_bits
                    errors[f"cos{k}"] = errors[f"sin{k}"] = \
                        TRIG_ERROR_LSB * 2.0 ** -self.cordic.frac_bits
                    ready[f"cos{k}"] = ready[f"sin{k}"] = pipelined_latency(self.cordic)
                else:
                    low, high = (limit + frame.offset for limit in frame.limits)
                    joints.append(tracer.input(f"d{k}", low, high))
                    fracs[f"d{k}"] = self._prismatic_frac(frame)
                    # q and the offset are each rounded to the format: half an LSB apiece.
                    errors[f"d{k}"] = 2.0 ** -fracs[f"d{k}"]
                    ready[f"d{k}"] = 0
        h = type(self).algorithm(frames, joints, tracer)
        self.outputs = {key: (value if not isinstance(value, (int, float)) else float(value))
                         for key, value in sorted(h.items())}
        self.live = tracer.live(self.outputs.values())
        self.formats = assign_formats(tracer, self.live, width, fracs, errors)
        self._input_fracs, self._input_ready = fracs, ready

    def _output_sources(self):
        """``{(j, i): node}``: the node whose register holds each computed output (a negated
        output reads its operand's line); constant outputs have none."""
        return {key: node.args[0] if node.op == "neg" else node
                for key, node in self.outputs.items() if not isinstance(node, float)}

    def _prismatic_frac(self, frame):
        magnitude = max(max(abs(v), abs(v + frame.offset)) for v in frame.limits)
        return frac_bits_for(magnitude, self._width)

    def _window_lengths(self, depths):
        """``{kind: cycles}`` of each kind of cell, from the traced depths."""
        lengths = Counter({kind: 0 for kind in self.kinds})
        for cell, depth in depths.items():
            lengths[cell[0]] = max(lengths[cell[0]], depth)
        lengths["in"] = pipelined_latency(self.cordic)
        return dict(lengths)

    def _window(self, cell):
        """``(first, end)`` cycles of a cell: the CORDICs, then the link transforms, then the
        subclass's processing elements (:meth:`_first_cycle`)."""
        lengths = self._lengths
        if cell[0] == "in":
            return 0, lengths["in"]
        head = lengths["in"] + lengths["T"]
        if cell[0] == "T":
            return lengths["in"], head
        if cell[0] not in self.kinds:
            raise ValueError(f"no window for cell {cell}")
        first = self._first_cycle(cell, head)
        return first, first + lengths[cell[0]]

    def _first_cycle(self, cell, head):
        raise NotImplementedError

    def _processor(self, cell):
        """The processing element a cell belongs to (for counting)."""
        return cell

    # --- properties --------------------------------------------------------------------------
    @property
    def robot(self):
        return self._robot

    @property
    def dof(self):
        return self._n

    @property
    def frames(self):
        """The links' constants in the paper's frames
        (:class:`robohw.reference.inertia.LinkFrame`)."""
        return list(self._frames)

    @property
    def width(self):
        return self._width

    @property
    def fold(self):
        """Cycles per configuration (1: unfolded)."""
        return self._fold

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: the subclass's formula in
        the window lengths (:attr:`window_latency`) unfolded, the modulo schedule's length (the
        last output's ready cycle) folded."""
        if self._fold == 1:
            return self.window_latency
        return max((self.schedule.ready[source.index]
                    for source in self._output_sources().values()), default=1)

    @property
    def window_latency(self):
        raise NotImplementedError

    @property
    def window_lengths(self):
        """Cycles each kind of processing element takes (``"in"``: the CORDIC front end)."""
        return dict(self._lengths)

    @property
    def interval(self):
        """Cycles between results under continuous input: the fold."""
        return self._fold

    @property
    def throughput(self):
        return Fraction(1, self._fold)

    @property
    def input_fracs(self):
        """Fraction bits of the prismatic joints' ``q`` fields (``{k: bits}``)."""
        return {int(name[1:]): bits for name, bits in self._input_fracs.items()
                if name.startswith("d")}

    @property
    def output_fracs(self):
        """Fraction bits of each output field ``h{j}_{i}`` (``{(j, i): bits}``)."""
        out = {}
        for key, node in self.outputs.items():
            if isinstance(node, float):
                out[key] = min(frac_bits_for(abs(node), self._width), self._width - 1) \
                    if node else self._width - 1
            else:
                out[key] = self.formats[node.index].frac
        return out

    def resources(self):
        """Processing elements, CORDICs, multipliers (constant and variable; folded, the shared
        ones, which take the constant products too), adders and register bits of the datapath
        (registers, delay lines, CORDIC stages, the folded array's held angles and multiplier
        registers; the stream control's are the component's)."""
        nodes = [self.tracer.nodes[k] for k in self.live]
        ops = Counter(node.op for node in nodes)
        processors = {self._processor(node.cell) for node in nodes if node.op != "input"}
        reads = [(source.index, self.latency) for source in self._output_sources().values()]
        taps = delay_taps(self.tracer, self.live, self.schedule, reads)
        w = self._width
        registered = sum(1 for node in nodes if OPS[node.op][1])
        delay_stages = sum(max(t) for t in taps.values() if t)
        slots = self.cordic_slots.values()
        cordics = len({unit for unit, _ in slots})
        held = sum(1 for _, slot in slots if slot)  # angles waiting for their phase
        cordic_bits = cordics * pipelined_register_bits(self.cordic)
        folded = self._fold > 1
        # A shared multiplier's registers: its operand pairs and double-width products.
        multiplier_bits = self.schedule.multipliers * 2 * w * (
            MULTIPLIER_OPERAND_REGISTERS + MULTIPLIER_PRODUCT_REGISTERS) if folded else 0
        return {
            "processing_elements": len(processors),
            "cordics": cordics,
            "multipliers": self.schedule.multipliers if folded else ops["mul"],
            "constant_multipliers": 0 if folded else ops["cmul"],
            "adders": ops["add"] + ops["sub"] + ops["addc"],
            "register_bits": (registered + delay_stages + held) * w + cordic_bits +
            multiplier_bits,
        }

    def offset_code(self, k):
        """Joint ``k``'s offset as a code of its ``q`` field, added to ``q`` at the input."""
        frame = self._frames[k - 1]
        if frame.revolute:
            return int(angle_to_code(frame.offset, self._width))
        return round(frame.offset * 2.0 ** self._input_fracs[f"d{k}"])

    @property
    def traced_inputs(self):
        """Fraction bits of every input of the traced graph by name: ``cos{k}`` and ``sin{k}``
        from the CORDICs of revolute joints, ``d{k}`` of prismatic joints."""
        return dict(self._input_fracs)


class InertiaArray(StreamPipeline):
    """Base of :class:`~robohw.systolic.linear.LinearInertiaArray` and
    :class:`~robohw.systolic.logdepth.LogDepthInertiaArray`; see those for the architectures.

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` or str
        A robot with inertial data, or a robot file or shipped name (default ``"puma560"``).
    width : int
        Bits of every datapath value, 12 to 31 (default 24); see :class:`InertiaPlan`.
    tag_width : int
        User tag carried from ``i`` to ``o``.
    check_ranges : bool
        Simulation aid: ``Assert`` that no register holding a real configuration overflows
        (the formats promise it).

    Members
    -------
    i : ``In(stream.Signature(...))``
        ``q1`` .. ``qN``, ``signed(width)``: binary angles for revolute joints (one turn =
        ``2**width``), fixed point with :attr:`input_fracs` fraction bits for prismatic ones
        (metres); ``tag``. ``q1`` does not enter H.
    o : ``Out(stream.Signature(...))``
        ``h{j}_{i}`` for ``j <= i`` (the upper triangle of H, row by row), ``signed(width)``
        with :attr:`output_fracs` fraction bits; ``tag``.

    Latency is :attr:`latency` cycles, a formula in N given by each array; throughput one
    configuration per clock (one every ``fold`` clocks folded). The array never stops: its
    results wait in the stream's output queue while ``o.ready`` is low, and ``i.ready`` falls
    once the queue could not take the results on their way
    (:meth:`~robohw.hw.stream.StreamPipeline.pipeline_control`): nothing is lost, duplicated
    or reordered. Only valid bits are reset.
    """
    plan_class = None    # set by the subclass

    def __init__(self, robot="puma560", *, width=24, fold=1, tag_width=0, check_ranges=False):
        check_tag_width(tag_width)
        if not isinstance(check_ranges, bool):
            raise TypeError(f"check_ranges must be a bool, not {check_ranges!r}")
        self._plan = plan = self.plan_class(robot, width=width, fold=fold)
        self._check_ranges = check_ranges
        super().__init__({f"q{k}": signed(width) for k in range(1, plan.dof + 1)},
                         {f"h{j}_{i}": signed(width) for (j, i) in plan.output_fracs},
                         tag_width=tag_width)

    @property
    def plan(self):
        """The :class:`InertiaPlan`: formats and schedule (:mod:`robohw.systolic.model`
        evaluates it bit for bit)."""
        return self._plan

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: the plan's depth and the
        output queue's (:meth:`~robohw.hw.stream.StreamPipeline.control_latency`)."""
        return self.control_latency(self._plan.latency)

    @property
    def interval(self):
        """Cycles between results under continuous input: the fold."""
        return self._plan.interval

    @property
    def fold(self):
        return self._plan.fold

    @property
    def window_lengths(self):
        return self._plan.window_lengths

    @property
    def output_fracs(self):
        return self._plan.output_fracs

    @property
    def input_fracs(self):
        return self._plan.input_fracs

    def resources(self):
        plan = self._plan
        resources = plan.resources()
        resources["register_bits"] += self.control_register_bits(plan.latency, fold=plan.fold)
        if plan.fold > 1:
            # Each processor's copy of the phase ring (phase_copy); each operand multiplexer's
            # and each shared CORDIC's binary phase (phase_index_copy).
            rings, selects = control_parts(plan.tracer, plan.live, plan.schedule)
            resources["register_bits"] += (len(rings) * plan.fold + (len(selects) + resources[
                "cordics"]) * (plan.fold - 1).bit_length())
        return resources

    def elaborate(self, platform):
        m = Module()
        plan = self._plan
        width, depth = plan.width, plan.latency
        advance, result, phases = self.fold_control(m, depth, plan.fold)
        sources = {}
        by_name = {plan.tracer.nodes[k].name: k for k in plan.live
                   if plan.tracer.nodes[k].op == "input"}
        angles = {}
        for k in range(2, plan.dof + 1):
            field = getattr(self.i.payload, f"q{k}")
            shifted = Signal(signed(width), name=f"joint{k}_input")
            m.d.comb += shifted.eq(field + plan.offset_code(k))  # wraps, as angles do
            if k in plan.cordic_slots:
                angles[k] = shifted
            elif f"d{k}" in by_name:
                sources[by_name[f"d{k}"]] = shifted
        for unit, fields in self._cordics(m, angles, advance, phases).items():
            for k, (owner, _) in plan.cordic_slots.items():
                for port, name in (("x", f"cos{k}"), ("y", f"sin{k}")):
                    if owner == unit and name in by_name:
                        sources[by_name[name]] = fields[port]
        reads = {key: (node.index, depth) for key, node in plan.outputs.items()
                 if not isinstance(node, float)}
        taken = self.i.valid & phases[0]
        values = build_dataflow(m, plan.tracer, plan.live, plan.formats, plan.schedule, sources,
                                advance, width, list(reads.values()),
                                check_valid=taken if self._check_ranges else None,
                                phases=phases,
                                phase_copy=lambda part: self.phase_copy(m, f"{part}_phase"),
                                phase_index_copy=lambda part: self.phase_index_copy(
                                    m, f"{part}_phase"))
        fracs = plan.output_fracs
        for key, node in plan.outputs.items():
            field = getattr(result, f"h{key[0]}_{key[1]}")
            if isinstance(node, float):
                m.d.comb += field.eq(round(node * 2.0 ** fracs[key]))
            else:
                m.d.comb += field.eq(values[reads[key]])
        return m

    def _cordics(self, m, angles, advance, phases):
        """The sin/cos processors: ``{unit: fields}``. Each takes, in phase ``slot``, the angle
        of the joint :attr:`InertiaPlan.cordic_slots` gives that slot: from the port in phase 0,
        from a register that holds it since phase 0 later."""
        plan, width = self._plan, self._plan.width
        one = Const(1 << plan.cordic.frac_bits, signed(width))
        units = {}
        for k, (unit, slot) in plan.cordic_slots.items():
            angle = angles[k]
            if slot:
                held = Signal(signed(width), name=f"joint{k}_held", reset_less=True)
                with m.If(advance & phases[0]):
                    m.d.sync += held.eq(angle)
                angle = held
            units.setdefault(unit, []).append((slot, k, angle))
        fields = {}
        for unit, members in units.items():
            if plan.fold == 1:
                (_, k, z), = members
                name = f"joint{k}_cordic"
            else:
                name = f"cordic{unit}"
                z = Signal(signed(width), name=f"{name}_angle")
                with m.Switch(self.phase_index_copy(m, f"{name}_phase")):
                    for slot, _, angle in members:
                        with m.Case(slot):
                            m.d.comb += z.eq(angle)
            fields[unit] = pipelined_datapath(m, plan.cordic, one, Const(0, signed(width)), z,
                                              advance, name=name)
        return fields
