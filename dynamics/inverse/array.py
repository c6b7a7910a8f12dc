"""Lee & Chang's processor array for the Newton-Euler equations, in hardware: ``p`` identical
processing elements stepping through their micro-programs under one program counter, a network
between them, one shared pipelined CORDIC for the joints' sin and cos.

What each part is (:mod:`robohw.dynamics.inverse.array_plan` plans the program):

- **A processing element** is a register file, a multiplier and an adder, each unit a generic
  fixed-point operation: operands from the register file (either negated), for the adder each
  shifted left by its own amount (alignment), a constant from the micro-instruction in place of
  the second operand (``cmul``, ``addc``), the sum, difference or product rounded half to even
  by a variable right shift into the ``signed(width)`` register its node's format gives. Every
  element has the same units; only its micro-program differs.
- **A unit is a pipeline** (:func:`~robohw.dataflow.unit.fixed_point_unit`), one register
  stage per step: the operand read from the file, the operands' preparation, the product or
  sum, the rounding in two steps, the write into the unit's bank of the file (its write port's
  enable, address and data all registers):
  :func:`~robohw.dynamics.inverse.array_plan.multiplier_latency_at` the width (above 18 bits one
  tile and the fabric's partial products, :func:`~robohw.hw.multiplier.split_product`, a stage more)
  and :data:`~robohw.dynamics.inverse.array_plan.ADDER_STAGES` cycles, more (registers on the exact
  result) if the plan asks.
- **The micro-program** of an element gives, for each cycle, the fields each stage of its
  units and its network port need then: the datapath fields (addresses, shifts, constants)
  as one word of a ROM (a block RAM), the valid bits (issue, write, send, receive) decoded
  from the program counter; both read ahead into registers (:class:`MicroProgram`).
- **The register file** holds each value from its write to its last read; registers are
  reused (:meth:`~robohw.dynamics.inverse.array_plan.ArrayPlan.addresses`), so a bank has as many
  entries as its values live at once. It is banks by writer
  (:data:`~robohw.dynamics.inverse.array_plan.BANKS`; :class:`~robohw.hw.register_file.BankedFile`):
  the element's inputs (the held state and its sin and cos, read through a multiplexer
  tree), and a memory each for the multiplier's results, the adder's and the network's
  arrivals, with one write port (its writer's) and an asynchronous read port for each of the
  five reads (two operands a unit, the send): LUT RAM on the ECP5.
- **The network**: direct links (``j`` to ``j +- 2**k``, a send register) or an Omega
  network (``ceil(log2 p)`` stages of 2 x 2 switches, each registered, steering every value by
  the destination tag that travels with it); either ends in a receive register at the element.
- **Counters** per element (``counters[e]``): multiplications and additions issued, cycles of
  the program with neither unit busy; sequenced by steps, the controller's count of the steps
  it runs of each scan (``steps[phase]``). They count from reset.

The array takes one state every :attr:`interval` cycles (the program, plus the cycle the state
is captured in) and gives its torques :attr:`latency` cycles after the state's transfer; the
stream's output queue (:meth:`~robohw.hw.stream.StreamPipeline.pipeline_control`) keeps every
result under backpressure.
"""

from amaranth.hdl import Const, Module, Mux, Signal, signed, unsigned

from robohw.dataflow.component import held_state, within_limits
from robohw.dataflow.operations import Op, Unit
from robohw.dataflow.unit import fixed_point_unit
from robohw.dynamics.inverse.accuracy import BOUND_FRACTION
from robohw.dynamics.inverse.array_plan import ADDER_STAGES, ArrayPlan, multiplier_latency_at
from robohw.dynamics.inverse.codec import state_fields, torque_field, torque_fields
from robohw.engine.machine import unit_product
from robohw.hw.checks import check_positive_integer
from robohw.hw.micro_program import MicroProgram
from robohw.hw.register_file import BankedFile, read_port
from robohw.hw.stream import StreamPipeline, check_tag_width

__all__ = ["NewtonEulerArray"]


class NewtonEulerArray(StreamPipeline):
    """The joint torques of a serial robot on Lee & Chang's ``p``-element array.

    Parameters
    ----------
    robot, processors, network, width, trig_width, sequencing, bound_fraction
        See :class:`~robohw.dynamics.inverse.array_plan.ArrayPlan`.
    multiplier_latency, adder_latency : int
        Cycles from an operation's issue to its result being readable: at least the units'
        pipelines, :func:`~robohw.dynamics.inverse.array_plan.multiplier_latency_at` the width and
        :data:`~robohw.dynamics.inverse.array_plan.ADDER_STAGES` (the defaults).
    tag_width : int
        User tag carried from ``i`` to ``o``.

    Members
    -------
    i, o
        The payloads of :class:`~robohw.dynamics.inverse.pipeline.NewtonEulerPipeline`.
    """

    def __init__(self, robot, *, processors=None, network="direct", width=24,
                 trig_width=None, multiplier_latency=None,
                 adder_latency=ADDER_STAGES, sequencing="dataflow", tag_width=0,
                 bound_fraction=BOUND_FRACTION):
        check_tag_width(tag_width)
        if multiplier_latency is None:
            multiplier_latency = multiplier_latency_at(width)
        for name, value, least in (("multiplier_latency", multiplier_latency,
                                    multiplier_latency_at(width)),
                                   ("adder_latency", adder_latency, ADDER_STAGES)):
            if check_positive_integer(name, value) < least:
                raise ValueError(f"{name} must be at least {least} (the unit's pipeline), "
                                 f"not {value}")
        plan = ArrayPlan(robot, processors=processors, network=network, width=width,
                         trig_width=trig_width, multiplier_latency=multiplier_latency,
                         adder_latency=adder_latency, sequencing=sequencing,
                         bound_fraction=bound_fraction)
        self._plan = plan
        outputs = torque_fields(plan)
        outputs["in_bounds"] = unsigned(1)
        super().__init__(state_fields(plan), outputs, tag_width=tag_width)
        self.counters = [{kind: Signal(32, name=f"pe{e}_{kind}")
                          for kind in ("multiplies", "adds", "idle")}
                         for e in range(plan.processors)]
        self.steps = {phase: Signal(16, name=f"steps_{phase.replace('-', '_')}")
                      for phase in plan.step_counts()}

    @property
    def plan(self):
        return self._plan

    @property
    def interval(self):
        """Cycles between states: the program and the cycle the state is captured in."""
        return self._plan.program_cycles + 1

    @property
    def latency(self):
        """Cycles from a state's transfer to its torques at ``o``: one interval and the output
        queue's (:meth:`~robohw.hw.stream.StreamPipeline.control_latency`)."""
        return self.control_latency(1, self.interval)

    @property
    def dof(self):
        return self._plan.dof

    def elaborate(self, platform):
        m = Module()
        plan, width = self._plan, self._plan.width
        period = self.interval
        advance, result = self.pipeline_control(m, 1, period=period, slots=1)
        # The program counter (0 in the cycle after a state is captured, as advance_copy's
        # phase) and its copies one and two cycles ahead, from which the micro-programs are
        # read (MicroProgram).
        pc = Signal(range(period), name="pc")
        ahead = Signal(range(period), name="pc_ahead", init=1 % period)
        ahead2 = Signal(range(period), name="pc_ahead2", init=2 % period)
        m.d.sync += [pc.eq(ahead), ahead.eq(ahead2),
                     ahead2.eq(Mux(ahead2 == period - 1, 0, ahead2 + 1))]
        programs = [MicroProgram(m, ahead, ahead2, f"pe{e}")
                    for e in range(plan.processors)]
        sources = self._inputs(m, pc, advance)
        addresses = plan.addresses()
        files, nodes = [], plan.tracer.nodes
        for element, table in enumerate(addresses):
            files.append(BankedFile(
                m, f"pe{element}", {a: plan.bank(k, element) for k, a in table.items()},
                signed(width), {a: sources[nodes[k].name] for k, a in table.items()
                                if nodes[k].op == Op.INPUT}))
        for element in range(plan.processors):
            issues = [self._unit(m, programs[element], element, unit, files[element],
                                 addresses[element], platform)
                      for unit in ("multiplies", "adds")]
            self._count(m, pc, element, issues)
        controller = MicroProgram(m, ahead, ahead2, "controller")
        for phase, counter in self.steps.items():
            starts = [cycle for (name, step), cycle in plan.program.steps
                      if name == phase and step is not None]
            starting = controller.fetch({"valid": unsigned(1)},
                                        {cycle: {"valid": 1} for cycle in starts},
                                        f"steps_{phase.replace('-', '_')}")["valid"]
            with m.If(starting):
                m.d.sync += counter.eq(counter + 1)
        self._network(m, programs, files, addresses)
        for program in programs:
            program.build(period)
        for key, node in plan.outputs.items():
            field = getattr(result, torque_field(key))
            if isinstance(node, float):
                m.d.comb += field.eq(round(node * 2.0 ** plan.output_fracs[key]))
                continue
            negate = node.op == Op.NEG
            node = node.args[0] if negate else node
            owner = plan.program.owner[node.index]
            value = files[owner].peek(m, addresses[owner][node.index])
            m.d.comb += field.eq(-value if negate else value)
        m.d.comb += result.in_bounds.eq(sources["in_bounds"])
        return m

    def _inputs(self, m, pc, advance):
        """The state, captured when it is taken, and the joints' sin and cos from the shared
        CORDIC (:func:`~robohw.dataflow.component.held_state`): ``{input node name:
        signal}`` and ``in_bounds``."""
        plan = self._plan
        sources = held_state(m, plan, self.i.payload, advance, pc, plan.trig_slots())
        sources["in_bounds"] = Signal(name="in_bounds_held", reset_less=True)
        with m.If(advance):
            m.d.sync += sources["in_bounds"].eq(within_limits(plan, self.i.payload))
        return sources

    def _unit(self, m, program, element, unit, file, table, platform):
        """One element's multiplier or adder (:func:`~robohw.dataflow.unit.fixed_point_unit`),
        its operands read from ``file``, its results written into its bank of it: returns
        its issue flag (1 in the cycles it issues)."""
        plan = self._plan
        multiplier = unit == "multiplies"
        store = plan.program.multiplies if multiplier else plan.program.adds
        instructions = [(i.cycle, plan.operation(i.node), i.node) for i in store
                        if i.element == element]
        # The issue cycle: the operands read from the banks each port reads.
        reached = {port: sorted({table[f[port]] for _, f, _ in instructions
                                 if f[port] is not None}) for port in "ab"}

        def operands(fetch):
            read = fetch(0, {"valid": unsigned(1)} | file.widths("a", reached["a"]) |
                         file.widths("b", reached["b"]),
                         lambda f, _: {"valid": 1} | file.fields("a", reached["a"], table[f["a"]])
                         | file.fields("b", reached["b"],
                                       table[f["b"]] if f["b"] is not None else None))
            return (file.read(m, read, "a", reached["a"]), file.read(m, read, "b", reached["b"]),
                    read["valid"])

        def write(fetch, offset, value):
            depth = file.depth(unit) if unit in file.memories else 1
            fields = fetch(offset, {"valid": unsigned(1), "at": range(max(depth, 2))},
                           lambda _, index: {"valid": 1, "at": file.address(table[index])})
            file.write(m, unit, fields["valid"], fields["at"], value)

        return fixed_point_unit(
            m, program, f"pe{element}_{Unit.MUL if multiplier else Unit.ADD}", multiplier,
            instructions, width=plan.width,
            latency=plan.multiplier_latency if multiplier else plan.adder_latency,
            operands=operands, write=write, platform=platform, hopped_preparation=True,
            **unit_product(plan.width, balanced=True))

    def _count(self, m, pc, element, issues):
        """The element's counters, from its units' issue flags."""
        counters = self.counters[element]
        for kind, issued in zip(("multiplies", "adds"), issues):
            with m.If(issued):
                m.d.sync += counters[kind].eq(counters[kind] + 1)
        # The program's cycles are those before the capture cycle (pc == period - 1).
        with m.If((pc != self.interval - 1) & ~issues[0] & ~issues[1]):
            m.d.sync += counters["idle"].eq(counters["idle"] + 1)

    def _network(self, m, programs, files, addresses):
        """The network's sends and receives, each receive written into its element's receive
        bank."""
        plan, width = self._plan, self._plan.width
        network, p = plan.network, plan.processors
        if p == 1 or not plan.program.hops:
            return
        stages = network.stages
        sends = []       # per element: (valid, target element, value) entering the network
        for element in range(p):
            table, file = addresses[element], files[element]
            hops = [hop for hop in plan.program.hops if hop.source == element]
            sent = sorted({table[hop.node] for hop in hops})
            send = programs[element].fetch(
                {"valid": unsigned(1), "target": range(max(p, 2))} |
                file.widths("source", sent),
                {hop.cycle: {"valid": 1, "target": hop.target} |
                 file.fields("source", sent, table[hop.node]) for hop in hops},
                f"pe{element}_send")
            sends.append((send["valid"], send["target"],
                          file.read(m, send, "source", sent)))
        if network.name == "direct":
            held = []
            for element, (valid, target, value) in enumerate(sends):
                register = Signal(signed(width), name=f"pe{element}_send", reset_less=True)
                m.d.sync += register.eq(value)
                held.append(register)
        else:
            arrived = self._omega(m, sends)
        for element in range(p):
            # The inputs are held at every element (the input bank): no arrival writes them.
            arrivals = [hop for hop in plan.program.hops
                        if hop.target == element and plan.writes(hop) and
                        plan.bank(hop.node, element) == "receive"]
            # The receive register takes the value one cycle before the write.
            received = Signal(signed(width), name=f"pe{element}_received", reset_less=True)
            if network.name == "direct":
                links = [element - d for d in network.distances if 0 <= element - d < p]
                select = programs[element].fetch(
                    {"link": range(max(len(links), 1))},
                    {hop.cycle + 1: {"link": links.index(hop.source)} for hop in arrivals},
                    f"pe{element}_link")
                m.d.sync += received.eq(read_port([held[s] for s in links], select["link"]))
                present = Const(1)
            else:
                present = Signal(name=f"pe{element}_received_valid")
                m.d.sync += [received.eq(arrived[element][2]),
                             present.eq(arrived[element][0])]
            file = files[element]
            if "receive" not in file.memories:
                continue
            receive = programs[element].fetch(
                {"valid": unsigned(1), "at": range(max(file.depth("receive"), 2))},
                {hop.cycle + stages: {"valid": 1,
                                      "at": file.address(addresses[element][hop.node])}
                 for hop in arrivals}, f"pe{element}_receive")
            file.write(m, "receive", receive["valid"] & present, receive["at"], received)

    def _omega(self, m, sends):
        """The Omega network: each stage a perfect shuffle of the ports and a column of 2 x 2
        switches steering by the destination tag's bit (most significant first), registered.
        Returns the ``(valid, tag, value)`` at each output port."""
        network, width = self._plan.network, self._plan.width
        ports, levels = network.ports, network.levels
        idle = (Const(0), Const(0, range(ports)), Const(0, signed(width)))
        lanes = [sends[k] if k < len(sends) else idle for k in range(ports)]
        for stage in range(levels):
            shuffled = [None] * ports
            for position, lane in enumerate(lanes):
                moved = ((position << 1) | (position >> (levels - 1))) & (ports - 1)
                shuffled[moved] = lane
            bit = levels - 1 - stage
            out = []
            for position in range(ports):
                pair = (shuffled[position & ~1], shuffled[position | 1])
                wanted = position & 1
                valid = Signal(name=f"omega{stage}_{position}_valid")
                tag = Signal(range(ports), name=f"omega{stage}_{position}_tag")
                value = Signal(signed(width), name=f"omega{stage}_{position}_value",
                               reset_less=True)
                first = pair[0][0] & (pair[0][1][bit] == wanted)
                second = pair[1][0] & (pair[1][1][bit] == wanted)
                m.d.sync += [valid.eq(first | second),
                             tag.eq(Mux(first, pair[0][1], pair[1][1])),
                             value.eq(Mux(first, pair[0][2], pair[1][2]))]
                out.append((valid, tag, value))
            lanes = out
        return lanes
