"""Lee & Chang's processor array for the Newton-Euler equations, in hardware: ``p`` identical
processing elements stepping through their micro-programs under one program counter, a network
between them, one shared pipelined CORDIC for the joints' sin and cos.

What each part is (:mod:`robohw.dynamics.array_plan` plans the program):

- **A processing element** is a register file, a multiplier and an adder, each unit a generic
  fixed-point operation: operands from the register file (either negated), for the adder each
  shifted left by its own amount (alignment), a constant from the micro-instruction in place of
  the second operand (``cmul``, ``addc``), the sum, difference or product rounded half to even
  by a variable right shift into the ``signed(width)`` register its node's format gives, written
  ``multiplier_latency`` (``adder_latency``) cycles after issue. Every element has the same
  units; only its micro-program (the fields each cycle) differs.
- **The micro-program** of an element is one word per cycle, read by the program counter: the
  multiplier's operation, the adder's operation, a send and a receive.
- **The network**: direct links (``j`` to ``j +- 2**k``, a send register between) or an Omega
  network (``ceil(log2 p)`` stages of 2 x 2 switches, each registered, steering every value by
  the destination tag that travels with it).
- **Counters** per element (``counters[e]``): multiplications and additions issued, cycles of
  the program with neither unit busy; sequenced by steps, the controller's count of the steps
  it runs of each scan (``steps[phase]``). They count from reset.

The array takes one state every :attr:`interval` cycles (the program, plus the cycle the state
is captured in) and gives its torques :attr:`latency` cycles after the state's transfer; the
stream's output queue (:meth:`~robohw.hw.stream.StreamPipeline.pipeline_control`) keeps every
result under backpressure.
"""

from amaranth.hdl import Array, Const, Module, Mux, Signal, signed, unsigned

from robohw.cordic.pipelined import pipelined_datapath, pipelined_latency
from robohw.dataflow.component import within_limits
from robohw.dynamics.array_plan import ArrayPlan
from robohw.dynamics.pipeline import state_fields
from robohw.hw.stream import StreamPipeline, check_tag_width

__all__ = ["NewtonEulerArray", "round_shift_by"]


def round_shift_by(value, shift):
    """``value`` divided by ``2**shift`` (``shift`` a signal), rounded half to even: the
    Amaranth twin of :func:`robohw.hw.fixed.round_shift` with a variable shift."""
    shifting = shift.any()      # a reduction, not a logical not (lint-clean Verilog)
    bias = ((Const(1, unsigned(1)) << shift) >> 1) - shifting
    odd = Mux(shifting, (value >> shift)[0], 0)
    return (value + bias + odd) >> shift


def _bits(limit):
    return max(1, int(limit).bit_length())


class NewtonEulerArray(StreamPipeline):
    """The joint torques of a serial robot on Lee & Chang's ``p``-element array.

    Parameters
    ----------
    robot, processors, network, width, trig_width, multiplier_latency, adder_latency, sequencing
        See :class:`~robohw.dynamics.array_plan.ArrayPlan`.
    tag_width : int
        User tag carried from ``i`` to ``o``.

    Members
    -------
    i, o
        The payloads of :class:`~robohw.dynamics.pipeline.NewtonEulerPipeline`.
    """

    def __init__(self, robot="puma560", *, processors=None, network="direct", width=24,
                 trig_width=None, multiplier_latency=3, adder_latency=1,
                 sequencing="dataflow", tag_width=0):
        check_tag_width(tag_width)
        plan = ArrayPlan(robot, processors=processors, network=network, width=width,
                         trig_width=trig_width, multiplier_latency=multiplier_latency,
                         adder_latency=adder_latency, sequencing=sequencing)
        self._plan = plan
        outputs = {f"tau{k}": signed(width) for k in range(1, plan.dof + 1)}
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
        # The program counter: 0 in the cycle after a state is captured (advance_copy's
        # phase, which starts at 0 too and raises advance at period - 1).
        pc = Signal(range(period), name="pc")
        m.d.sync += pc.eq(Mux(pc == period - 1, 0, pc + 1))
        sources = self._inputs(m, pc, advance)
        addresses = plan.addresses()
        files, computed = [], []
        for element, table in enumerate(addresses):
            registers, written = [None] * len(table), []
            for index, address in table.items():
                if plan.tracer.nodes[index].op == "input":
                    registers[address] = sources[plan.tracer.nodes[index].name]
                else:
                    registers[address] = Signal(signed(width), name=f"pe{element}_r{address}",
                                                reset_less=True)
                    written.append(address)
            files.append(registers)
            computed.append(written)
        writes = [[] for _ in files]          # (enable, address, value) per element
        for element in range(plan.processors):
            for unit in ("multiplies", "adds"):
                writes[element].append(self._unit(m, pc, element, unit, files[element],
                                                  addresses[element]))
            self._count(m, pc, element)
        for phase, counter in self.steps.items():
            starts = [cycle for (name, step), cycle in plan.program.steps
                      if name == phase and step is not None]
            with m.Switch(pc):
                with m.Case(*starts):
                    m.d.sync += counter.eq(counter + 1)
        for element, write in self._network(m, pc, files, addresses).items():
            writes[element].append(write)
        for element, registers in enumerate(files):
            for address in computed[element]:
                for enable, target, value in writes[element]:
                    with m.If(enable & (target == address)):
                        m.d.sync += registers[address].eq(value)
        for key, node in plan.outputs.items():
            field = getattr(result, f"tau{key}")
            if isinstance(node, float):
                m.d.comb += field.eq(round(node * 2.0 ** plan.output_fracs[key]))
                continue
            negate = node.op == "neg"
            node = node.args[0] if negate else node
            owner = plan.program.owner[node.index]
            value = files[owner][addresses[owner][node.index]]
            m.d.comb += field.eq(-value if negate else value)
        m.d.comb += result.in_bounds.eq(sources["in_bounds"])
        return m

    def _inputs(self, m, pc, advance):
        """The state, captured when it is taken, and the joints' sin and cos from the shared
        CORDIC: ``{input node name: signal}`` and ``in_bounds``."""
        plan, width = self._plan, self._plan.width
        held = {}
        for field, shape in ((f, self.i.payload.shape()[f].shape)
                             for f in (*plan.angle_fields.values(),
                                       *plan.value_fields.values())):
            held[field] = Signal(shape, name=f"{field}_held", reset_less=True)
            with m.If(advance):
                m.d.sync += held[field].eq(getattr(self.i.payload, field) +
                                           plan.field_offset(field))
        sources = {"in_bounds": Signal(name="in_bounds_held", reset_less=True)}
        with m.If(advance):
            m.d.sync += sources["in_bounds"].eq(within_limits(plan, self.i.payload))
        for name, field in plan.value_fields.items():
            sources[name] = held[field]
        slots = plan.trig_slots()
        if slots:
            cordic = plan.cordic
            z = Signal(signed(cordic.width), name="cordic_angle")
            with m.Switch(pc):
                for k, slot in slots.items():
                    with m.Case(slot):
                        m.d.comb += z.eq(held[plan.angle_fields[k]])
            shape = signed(cordic.width)
            out = pipelined_datapath(m, cordic, Const(1 << cordic.frac_bits, shape),
                                     Const(0, shape), z, Const(1), name="cordic")
            arrive = pipelined_latency(cordic)
            for k, slot in slots.items():
                for port, name in (("x", f"cos{k}"), ("y", f"sin{k}")):
                    sources[name] = Signal(signed(width), name=f"{name}_held",
                                           reset_less=True)
                    with m.If(pc == slot + arrive):
                        m.d.sync += sources[name].eq(out[port])
        return sources

    def _unit(self, m, pc, element, unit, registers, table):
        """One element's multiplier or adder: the micro-program's fields each cycle, the
        generic operation, the result ``latency - 1`` registers later as a write."""
        plan, width = self._plan, self._plan.width
        store = plan.program.multiplies if unit == "multiplies" else plan.program.adds
        program = [(i.cycle, plan.operation(i.node), i.node) for i in store
                   if i.element == element]
        prefix = f"pe{element}_{'mul' if unit == 'multiplies' else 'add'}"
        size = max(len(registers), 1)
        constant_bits = max([_bits(abs(w["constant"])) + 1 for _, w, _ in program] + [width])
        shift_limit = max([w["shift"] for _, w, _ in program] + [1])
        align_limit = max([max(w["shift_a"], w["shift_b"]) for _, w, _ in program] + [1])
        word = {
            "valid": Signal(name=f"{prefix}_valid"),
            "a": Signal(range(size), name=f"{prefix}_a"),
            "b": Signal(range(size), name=f"{prefix}_b"),
            "neg_a": Signal(name=f"{prefix}_neg_a"), "neg_b": Signal(name=f"{prefix}_neg_b"),
            "use_constant": Signal(name=f"{prefix}_use_constant"),
            "constant": Signal(signed(constant_bits), name=f"{prefix}_constant"),
            "subtract": Signal(name=f"{prefix}_subtract"),
            "shift_a": Signal(range(align_limit + 1), name=f"{prefix}_shift_a"),
            "shift_b": Signal(range(align_limit + 1), name=f"{prefix}_shift_b"),
            "shift": Signal(range(shift_limit + 1), name=f"{prefix}_shift"),
            "target": Signal(range(size), name=f"{prefix}_target"),
        }
        with m.Switch(pc):
            for cycle, fields, index in program:
                with m.Case(cycle):
                    m.d.comb += [word["valid"].eq(1), word["a"].eq(table[fields["a"]]),
                                 word["neg_a"].eq(fields["neg_a"]),
                                 word["neg_b"].eq(fields["neg_b"]),
                                 word["subtract"].eq(fields["subtract"]),
                                 word["constant"].eq(fields["constant"]),
                                 word["use_constant"].eq(fields["b"] is None),
                                 word["shift_a"].eq(fields["shift_a"]),
                                 word["shift_b"].eq(fields["shift_b"]),
                                 word["shift"].eq(fields["shift"]),
                                 word["target"].eq(table[index])]
                    if fields["b"] is not None:
                        m.d.comb += word["b"].eq(table[fields["b"]])
        files = Array(registers)
        a = Mux(word["neg_a"], -files[word["a"]], files[word["a"]])
        b = Mux(word["neg_b"], -files[word["b"]], files[word["b"]])
        if unit == "multiplies":
            exact = a * Mux(word["use_constant"], word["constant"], b)
            latency = plan.multiplier_latency
        else:
            left = a << word["shift_a"]
            right = Mux(word["use_constant"], word["constant"], b << word["shift_b"])
            exact = Mux(word["subtract"], left - right, left + right)
            latency = plan.adder_latency
        value = Signal(signed(width), name=f"{prefix}_result")
        m.d.comb += value.eq(round_shift_by(exact, word["shift"]))  # wraps out of bounds
        enable, target = word["valid"], word["target"]
        for stage in range(latency - 1):       # the unit's pipeline registers
            staged = (Signal(name=f"{prefix}_valid{stage}"),
                      Signal(range(size), name=f"{prefix}_target{stage}"),
                      Signal(signed(width), name=f"{prefix}_value{stage}", reset_less=True))
            m.d.sync += [staged[0].eq(enable), staged[1].eq(target), staged[2].eq(value)]
            enable, target, value = staged
        return enable, target, value

    def _count(self, m, pc, element):
        plan, counters = self._plan, self.counters[element]
        busy = {unit: {i.cycle for i in store if i.element == element}
                for unit, store in (("multiplies", plan.program.multiplies),
                                    ("adds", plan.program.adds))}
        for unit, cycles in busy.items():
            if cycles:
                with m.Switch(pc):
                    with m.Case(*sorted(cycles)):
                        m.d.sync += counters[unit].eq(counters[unit] + 1)
        idle = [c for c in range(plan.program_cycles)
                if c not in busy["multiplies"] | busy["adds"]]
        if idle:
            with m.Switch(pc):
                with m.Case(*idle):
                    m.d.sync += counters["idle"].eq(counters["idle"] + 1)

    def _network(self, m, pc, files, addresses):
        """The network's sends and receives: ``{element: (enable, address, value)}``, the
        receive write of each element."""
        plan, width = self._plan, self._plan.width
        network, p = plan.network, plan.processors
        if p == 1 or not plan.program.hops:
            return {}
        stages = network.stages
        writes = {}
        sends = []       # per element: (valid, target element, value) entering the network
        for element in range(p):
            table = addresses[element]
            hops = [h for h in plan.program.hops if h.source == element]
            valid = Signal(name=f"pe{element}_send_valid")
            source = Signal(range(max(len(table), 1)), name=f"pe{element}_send_source")
            target = Signal(range(max(p, 2)), name=f"pe{element}_send_target")
            with m.Switch(pc):
                for hop in hops:
                    with m.Case(hop.cycle):
                        m.d.comb += [valid.eq(1), source.eq(table[hop.node]),
                                     target.eq(hop.target)]
            sends.append((valid, target, Array(files[element])[source]))
        if network.name == "direct":
            held = []
            for element, (valid, target, value) in enumerate(sends):
                register = Signal(signed(width), name=f"pe{element}_send", reset_less=True)
                m.d.sync += register.eq(value)
                held.append(register)
            for element in range(p):
                links = [element - d for d in network.distances if 0 <= element - d < p]
                arrivals = [h for h in plan.program.hops if h.target == element]
                enable = Signal(name=f"pe{element}_receive")
                link = Signal(range(max(len(links), 1)), name=f"pe{element}_link")
                address = Signal(range(max(len(addresses[element]), 1)),
                                 name=f"pe{element}_receive_target")
                with m.Switch(pc):
                    for hop in arrivals:
                        with m.Case(hop.cycle + stages):
                            m.d.comb += [enable.eq(1), link.eq(links.index(hop.source)),
                                         address.eq(addresses[element][hop.node])]
                writes[element] = (enable, address, Array([held[s] for s in links])[link])
            return writes
        arrived = self._omega(m, sends)
        for element in range(p):
            arrivals = [h for h in plan.program.hops if h.target == element]
            enable = Signal(name=f"pe{element}_receive")
            address = Signal(range(max(len(addresses[element]), 1)),
                             name=f"pe{element}_receive_target")
            with m.Switch(pc):
                for hop in arrivals:
                    with m.Case(hop.cycle + stages):
                        m.d.comb += [enable.eq(1), address.eq(addresses[element][hop.node])]
            writes[element] = (enable & arrived[element][0], address, arrived[element][2])
        return writes

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
