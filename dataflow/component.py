"""A :class:`~robohw.dataflow.plan.TracedPlan` built as a stream component."""

from amaranth.hdl import Const, Module, Signal, signed, unsigned

from robohw.cordic.pipelined import pipelined_datapath, pipelined_latency
from robohw.dataflow.operations import Op
from robohw.dataflow.pipeline import build_dataflow, control_parts
from robohw.hw.checks import check_bool
from robohw.hw.delay_line import tapped_delay_line
from robohw.hw.global_buffer import global_buffer, global_buffers
from robohw.hw.stream import StreamPipeline, check_tag_width

__all__ = ["TracedPipeline", "within_limits", "held_state", "output_fields", "configuration_line",
           "refuse_sign_inputs"]


def output_fields(plan, outputs, flag=None):
    """The output payload's fields of a traced ``plan``'s design: ``signed(plan.width)`` for
    each field ``outputs`` names (``{plan output key: field name}``), and the one-bit ``flag``
    field (its name, or ``None``); ``TypeError`` for a flag that is not a name."""
    if flag is not None and not isinstance(flag, str):
        raise TypeError(f"flag must be a field name or None, not {flag!r}")
    fields = {name: signed(plan.width) for name in outputs.values()}
    if flag is not None:
        fields[flag] = unsigned(1)
    return fields


def within_limits(plan, payload):
    """1 when every fixed-point field of ``payload`` is within the plan's
    :attr:`~robohw.dataflow.plan.TracedPlan.field_limits` (the states its formats are proven
    for)."""
    inside = Const(1)
    for field, (low, high) in plan.field_limits.items():
        value = getattr(payload, field)
        inside &= (value >= low) & (value <= high)
    return inside


def refuse_sign_inputs(plan):
    """Raise ``ValueError`` if ``plan`` has sign inputs
    (:meth:`~robohw.dataflow.plan.TracedPlan.sign_input`): only the engine builds them."""
    if plan.sign_inputs:
        raise ValueError(f"sign inputs ({', '.join(plan.sign_inputs)}): this machine has no "
                         f"sign inputs; the engine (robohw.engine) builds them")


def held_state(m, plan, payload, advance, pc, slots):
    """A programmed machine's front end: the state in ``payload`` captured when ``advance``
    is high (each field plus its offset), and the joints' cos and sin from one shared
    pipelined CORDIC, joint ``k``'s angle registered in cycle ``slots[k]`` of the program
    counter ``pc`` (the held state exists from cycle 0 on), into the CORDIC a cycle later and
    out :func:`~robohw.cordic.pipelined.pipelined_latency` after that. Returns ``{input node
    name: signal}`` (``cos{k}``, ``sin{k}`` of ``signed(width)``, the fixed-point inputs by
    their names)."""
    refuse_sign_inputs(plan)
    held = {}
    for field in (*plan.angle_fields.values(), *plan.value_fields.values()):
        held[field] = Signal(payload.shape()[field].shape, name=f"{field}_held",
                             reset_less=True)
        with m.If(advance):
            m.d.sync += held[field].eq(getattr(payload, field) + plan.field_offset(field))
    values = {name: held[field] for name, field in plan.value_fields.items()}
    if slots:
        cordic = plan.cordic
        z = Signal(signed(cordic.width), name="cordic_angle", reset_less=True)
        with m.Switch(pc):
            for k, slot in slots.items():
                with m.Case(slot):
                    m.d.sync += z.eq(held[plan.angle_fields[k]])
        shape = signed(cordic.width)
        out = pipelined_datapath(m, cordic, Const(1 << cordic.frac_bits, shape),
                                 Const(0, shape), z, Const(1), name="cordic")
        arrive = 1 + pipelined_latency(cordic)
        for k, slot in slots.items():
            for port, name in (("x", f"cos{k}"), ("y", f"sin{k}")):
                values[name] = Signal(signed(plan.width), name=f"{name}_held",
                                      reset_less=True)
                with m.If(pc == slot + arrive):
                    m.d.sync += values[name].eq(out[port])
    return values


class TracedPipeline(StreamPipeline):
    """The pipeline of a traced plan: the joints' CORDICs, the scheduled registers and delay
    lines, one enable (:class:`~robohw.hw.stream.StreamPipeline`). A subclass gives its plan
    and its payload fields.

    Parameters
    ----------
    plan : :class:`~robohw.dataflow.plan.TracedPlan`
        What to build.
    inputs : dict
        The input payload's fields, ``{name: shape}``: every field the plan reads
        (:attr:`~robohw.dataflow.plan.TracedPlan.angle_fields`,
        :attr:`~robohw.dataflow.plan.TracedPlan.value_fields`) and any others.
    outputs : dict
        ``{plan output key: field name}``; every output field is ``signed(width)`` with the
        plan's :attr:`~robohw.dataflow.plan.TracedPlan.output_fracs`.
    tag_width : int
        User tag carried from ``i`` to ``o``.
    check_ranges : bool
        Simulation aid: ``Assert`` that no register holding a real input's values overflows
        (the formats promise it).
    flag : str or None
        If given, the name of a one-bit output field that is 1 when every fixed-point input
        field was within :attr:`~robohw.dataflow.plan.TracedPlan.field_limits` (the results are
        proven only then; outside, the registers may overflow and wrap).

    Latency is the plan's, plus the output queue's
    (:meth:`~robohw.hw.stream.StreamPipeline.control_latency`); one input per ``fold``
    clocks. The pipeline never stops: its results wait in the stream's output queue while
    ``o.ready`` is low, and ``i.ready`` falls once the queue could not take the results on their
    way (:meth:`~robohw.hw.stream.StreamPipeline.pipeline_control`): nothing is lost,
    duplicated or reordered. Only valid bits are reset.

    Folded and elaborated for an ECP5 (a platform whose ``family`` is ``"ecp5"``, such as
    :data:`robohw.hw.devices.DEVICES`' entries, which ``robohw synth`` passes), each shared
    multiplier of up to 18 bits keeps its operand and product registers inside its DSP tile
    (:func:`robohw.hw.multiplier.registered_product`); the same cycles either way.
    """

    def __init__(self, plan, inputs, outputs, *, tag_width=0, check_ranges=False, flag=None):
        check_tag_width(tag_width)
        check_bool("check_ranges", check_ranges)
        refuse_sign_inputs(plan)
        self._plan, self._check_ranges, self._flag = plan, check_ranges, flag
        self._output_names = dict(outputs)
        super().__init__(dict(inputs), output_fields(plan, outputs, flag), tag_width=tag_width)

    @property
    def plan(self):
        """The plan: formats and schedule (:func:`robohw.dataflow.plan.model_codes` evaluates
        it bit for bit)."""
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
    def output_fracs(self):
        return self._plan.output_fracs

    def resources(self):
        plan = self._plan
        resources = plan.resources()
        resources["register_bits"] += self.control_register_bits(plan.latency, fold=plan.fold)
        if self._flag is not None:
            resources["register_bits"] += plan.latency  # the flag's delay line
        if plan.fold > 1:
            # Each processor's copy of the phase ring (phase_copy); each operand multiplexer's
            # and each shared CORDIC's binary phase (phase_index_copy). Counted for the generic
            # netlist: an ECP5's has one ring on its clock networks instead of the copies.
            rings, selects = control_parts(plan.tracer, plan.live, plan.schedule,
                                           list(self._reads().values()), plan.width,
                                           plan.ring_fanout)
            resources["register_bits"] += (len(rings) * plan.fold + (len(selects) + resources[
                "cordics"]) * (plan.fold - 1).bit_length())
        return resources

    def elaborate(self, platform):
        m = Module()
        plan = self._plan
        width, depth = plan.width, plan.latency
        advance, result, phases = self.fold_control(m, depth, plan.fold)
        by_name = {plan.tracer.nodes[k].name: k for k in plan.live
                   if plan.tracer.nodes[k].op == Op.INPUT}
        shifted = {}
        angle_fields = set(plan.angle_fields.values())
        for field in sorted({*angle_fields, *plan.value_fields.values()}):
            bits = plan.cordic.width if field in angle_fields else width
            shifted[field] = Signal(signed(bits), name=f"{field}_input")
            # Angles wrap, as angles do; the other inputs' offsets keep them in range.
            m.d.comb += shifted[field].eq(getattr(self.i.payload, field) +
                                          plan.field_offset(field))
        sources = {by_name[name]: shifted[field] for name, field in plan.value_fields.items()
                   if name in by_name}
        angles = {k: shifted[field] for k, field in plan.angle_fields.items()
                  if k in plan.cordic_slots}
        for unit, fields in self._cordics(m, angles, advance, phases).items():
            for k, (owner, _) in plan.cordic_slots.items():
                for port, name in (("x", f"cos{k}"), ("y", f"sin{k}")):
                    if owner == unit and name in by_name:
                        sources[by_name[name]] = fields[port]
        reads = self._reads()
        taken = self.i.valid & phases[0]
        if plan.fold > 1 and global_buffers(platform, plan.fold):
            # One ring, its bits on the FPGA's clock networks, enables every register.
            ring = [global_buffer(m, bit, f"global_phase{p}", platform)
                    for p, bit in enumerate(self.phase_copy(m, "global_ring"))]

            def phase_copy(part):
                return ring
        else:
            def phase_copy(part):
                return self.phase_copy(m, f"{part}_phase")
        values = build_dataflow(m, plan.tracer, plan.live, plan.formats, plan.schedule, sources,
                                advance, width, list(reads.values()),
                                check_valid=taken if self._check_ranges else None,
                                phases=phases,
                                phase_copy=phase_copy,
                                phase_index_copy=lambda part: self.phase_index_copy(
                                    m, f"{part}_phase"),
                                ring_fanout=plan.ring_fanout, platform=platform)
        if self._flag is not None:
            line = tapped_delay_line(m, within_limits(plan, self.i.payload), {depth}, advance,
                                     self._flag)
            m.d.comb += getattr(result, self._flag).eq(line[depth])
        fracs = plan.output_fracs
        for key, node in plan.outputs.items():
            field = getattr(result, self._output_names[key])
            if isinstance(node, float):
                m.d.comb += field.eq(round(node * 2.0 ** fracs[key]))
            else:
                m.d.comb += field.eq(values[reads[key]])
        return m

    def _reads(self):
        """``{output key: (node, cycle)}``: where the outputs are read, the plan's depth."""
        plan = self._plan
        return {key: (node.index, plan.latency) for key, node in plan.outputs.items()
                if not isinstance(node, float)}

    def _cordics(self, m, angles, advance, phases):
        """The sin/cos processors: ``{unit: fields}``. Each takes, in phase ``slot``, the angle
        of the joint the plan's ``cordic_slots`` gives that slot: from the port in phase 0,
        from a register that holds it since phase 0 later."""
        plan = self._plan
        width = plan.cordic.width
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


def configuration_line(dut, cordics=""):
    """One line of a :class:`TracedPipeline` ``dut`` for the report: size, width, ``cordics``
    (the CORDICs' width, when it has some), fold."""
    plan = dut.plan
    folded = (f"folded by {plan.fold}: {dut.resources()['multipliers']} shared "
              f"multipliers" if plan.fold > 1 else "unfolded")
    return (f"N = {plan.dof}, {plan.width}-bit datapath, {cordics}per-signal fraction bits, "
            f"{folded}")
