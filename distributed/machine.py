"""The thesis's link computers in hardware: one processor per link, each running its link's
program (:class:`~robohw.distributed.plan.LinkComputersPlan`) once a sample, neighbour
channels between them, one shared pipelined CORDIC for the joints' sin and cos.

What each part is:

- **A link processor**: a register file, a multiplier and an adder (one operation a cycle
  between them, or one each with dual issue) executing the micro-operations of its traced
  nodes (:func:`robohw.dataflow.micro_op.micro_operation`: operands from the file, either negated,
  the adder's alignment shifts, the product, sum or difference, rounding half to even by the
  node's own shift), the result written ``multiplier_latency`` or ``adder_latency`` cycles
  after issue (1, the thesis's accounting: the whole operation in its cycle). Its
  micro-program (:class:`robohw.hw.micro_program.MicroProgram`) gives each cycle's word. The
  file holds each computed value from its write to its last read (registers reused,
  :func:`robohw.hw.register_file.left_edge`); a value a neighbour reads, and the torque, have
  registers of their own. Constants (the link's mass, centre of mass, inertia, the rotations'
  fixed entries) are operands wired in.
- **Channels**: a neighbour's term the scheme waits for is read from the producer's register
  directly; the schedule is static, so the wait is compiled into the programs (a processor is
  idle where the thesis's computer waits, :mod:`robohw.distributed.timing`). A predicted term
  is read from a register of the consumer's own, loaded with the producer's value at the end
  of each sample's program: a register of one sample on the channel, the systolic array of
  zero-order prediction. Channel registers start at zero (reset-less, their initial value).
- **Three stages of one sample period each**: the state is captured and its local values
  made (the CORDIC, one revolute joint a cycle; constant factors), then copied into the
  processors' bank at the period's end; the programs run; the torques are copied out (the
  last operation writes its register at the period's last edge). A sample every
  :attr:`LinkComputers.interval` cycles: the schedule's cycles per sample, the thesis's
  formulas (1,542 serial ... 257 zero-order with its units).
- **Validity**: a torque is valid when its state and the :func:`~robohw.distributed.model.
  prediction_depth` states before it (since reset) were within the proven ranges: a shift
  register of their flags, reset to zero.

The bit-exact model is :func:`robohw.distributed.model.model_run` (from reset, samples in
stream order; bubbles do not count: a period without an input changes no channel).
"""

from amaranth.hdl import Const, Module, Mux, Signal, signed, unsigned

from robohw.cordic.pipelined import pipelined_latency
from robohw.dataflow.component import held_state, within_limits
from robohw.dataflow.micro_op import micro_operation
from robohw.dataflow.operations import UNIT_KINDS, Op, Unit
from robohw.dataflow.pipeline import hdl_op
from robohw.distributed.model import prediction_depth
from robohw.distributed.plan import FASTEST, LinkComputersPlan
from robohw.distributed.timing import schedule
from robohw.dynamics.inverse.codec import state_fields, torque_field, torque_fields
from robohw.hw.fixed import rounding_increment, rounding_mask, rounding_shift
from robohw.hw.micro_program import MicroProgram
from robohw.hw.register_file import left_edge, read_port
from robohw.hw.stream import StreamPipeline, check_tag_width
from robohw.robots.joint_type import JointType

__all__ = ["LinkComputers", "STAGES"]

# Local values, programs, torques out: one sample period each.
STAGES = 3
_MULTIPLIES = (Op.MUL,)
_ADDS = (Op.ADD, Op.SUB)


def _source(node):
    return _source(node.args[0]) if node.op == Op.NEG else node


class LinkComputers(StreamPipeline):
    """The torques of the thesis's six link computers, one state per sample.

    Parameters
    ----------
    robot, scheme, width, trig_width, fastest, multiplier_latency, adder_latency, issue
        See :class:`~robohw.distributed.plan.LinkComputersPlan`.
    tag_width : int
        User tag carried from ``i`` to ``o``.

    Members
    -------
    i : ``In(stream.Signature(...))``
        ``q1`` .. ``q6`` (binary angles of ``trig_width`` bits for revolute joints, one turn
        ``2**trig_width``; ``signed(width)`` fixed point in m for the prismatic one), ``qd1``
        .. ``qd6``, ``qdd1`` .. ``qdd6`` (``signed(width)``, fraction bits
        ``plan.input_fracs``), ``tag``. Consecutive inputs are consecutive samples.
    o : ``Out(stream.Signature(...))``
        ``tau1`` .. ``tau6`` (``signed(width)``, ``plan.output_fracs`` fraction bits; N m,
        N for the prismatic joint), ``valid`` (see the module docstring), ``tag``.

    Latency :attr:`latency` cycles (three sample periods and the output queue's); one state
    every :attr:`interval` cycles. Nothing is lost, duplicated or reordered under
    backpressure (the stream's output queue, :meth:`~robohw.hw.stream.StreamPipeline.
    pipeline_control`); only valid bits are reset.
    """

    def __init__(self, robot="stanford_thesis", *, scheme="zero", width=48, trig_width=None,
                 fastest=FASTEST, multiplier_latency=1, adder_latency=1, issue="single",
                 tag_width=0):
        check_tag_width(tag_width)
        plan = LinkComputersPlan(robot, scheme=scheme, width=width, trig_width=trig_width,
                                 fastest=fastest, multiplier_latency=multiplier_latency,
                                 adder_latency=adder_latency, issue=issue)
        self._plan = plan
        self._timeline = schedule(scheme, plan.dof, term_cycles=plan.term_cycles)
        slots = len([k for k, j in enumerate(plan.robot.joints) if j.type == JointType.REVOLUTE])
        # The local values are ready within a sample (the shortest, dual issue, is 139 cycles;
        # the CORDIC at 40 bits takes 43).
        assert slots + pipelined_latency(plan.cordic) + 3 <= self._timeline.cycles
        outputs = torque_fields(plan)
        outputs["valid"] = unsigned(1)
        super().__init__(state_fields(plan), outputs, tag_width=tag_width)

    @property
    def plan(self):
        return self._plan

    @property
    def dof(self):
        return self._plan.dof

    @property
    def interval(self):
        """Cycles per sample: the schedule's (:func:`robohw.distributed.timing.schedule`
        with the plan's term lengths)."""
        return self._timeline.cycles

    @property
    def latency(self):
        """Cycles from a state's transfer to its torques at ``o``: :data:`STAGES` sample
        periods and the output queue's."""
        return self.control_latency(STAGES, self.interval)

    def elaborate(self, platform):
        m = Module()
        plan = self._plan
        period = self.interval
        advance, result = self.pipeline_control(m, STAGES, period=period, slots=1)
        # The program counter: 0 in the cycle after an advance, period - 1 in the advance's;
        # and its copies one and two cycles ahead (the micro-programs read ahead).
        pc = Signal(range(period), name="pc")
        ahead = Signal(range(period), name="pc_ahead", init=1 % period)
        ahead2 = Signal(range(period), name="pc_ahead2", init=2 % period)
        m.d.sync += [pc.eq(ahead), ahead.eq(ahead2),
                     ahead2.eq(Mux(ahead2 == period - 1, 0, ahead2 + 1))]
        # Which stage holds a real state (an advance without an input moves a bubble).
        taken = Signal(name="taken")
        m.d.comb += taken.eq(self.i.valid & self.i.ready)
        real = [Signal(name=f"real_{s}") for s in "abc"]
        inside = [Signal(name=f"in_bounds_{s}") for s in "ab"]
        with m.If(advance):
            m.d.sync += [real[0].eq(taken), real[1].eq(real[0]), real[2].eq(real[1]),
                         inside[0].eq(within_limits(plan, self.i.payload)),
                         inside[1].eq(inside[0])]
        given = self._local_stage(m, pc, advance)
        bank = {}
        for k, value in given.items():
            bank[k] = Signal(signed(plan.width), name=f"bank_{plan.tracer.nodes[k].name or k}",
                             reset_less=True)
            with m.If(advance):
                m.d.sync += bank[k].eq(value)
        torques = self._processors(m, pc, ahead, ahead2, advance, real[1], bank)
        # Stage C: the torques copied out in the first cycle of the next period; the flags of
        # the last depth + 1 states (reset: none in bounds yet).
        depth = prediction_depth(plan)
        window = Signal(depth + 1, name="bounds_window")
        with m.If(advance & real[1]):
            m.d.sync += window.eq((window << 1) | inside[1])
        for k, torque in torques.items():
            out = Signal(signed(plan.width), name=f"tau{k}_out", reset_less=True)
            with m.If(pc == 0):
                m.d.sync += out.eq(torque)
            m.d.comb += getattr(result, torque_field(k)).eq(out)
        valid = Signal(name="valid_out")
        with m.If(pc == 0):
            m.d.sync += valid.eq(window.all())
        m.d.comb += result.valid.eq(valid)
        return m

    def _local_stage(self, m, pc, advance):
        """Stage A: the state captured, the CORDIC's cos and sin, the constant factors.
        Returns ``{node index: value}`` of every value the programs read from the stage (its
        inputs and computed local values), valid in the period's last cycle."""
        plan = self._plan
        nodes = plan.tracer.nodes
        joints = sorted(plan.angle_fields)
        values = held_state(m, plan, self.i.payload, advance, pc,
                            {k: slot for slot, k in enumerate(joints)})
        cache = {}

        def value_of(node):
            if node.index in cache:
                return cache[node.index]
            if node.op == Op.INPUT:
                out = values[node.name]
            elif node.op == Op.NEG:
                out = -value_of(node.args[0])
            else:
                out = hdl_op(node, plan.formats[node.index],
                             [value_of(a) for a in node.args],
                             [plan.formats[a.index] for a in node.args])
            cache[node.index] = out
            return out

        given = {}
        for k in plan.live:
            node = nodes[k]
            if node.cell and node.cell[0] == "link":
                continue
            if node.op == Op.INPUT and (node.name in plan.channels or
                                       node.name in plan.constants or
                                       node.name in plan.previous):
                continue
            if node.op == Op.NEG:
                continue
            given[k] = value_of(node)
        return given

    def _processors(self, m, pc, ahead, ahead2, advance, real, bank):
        """Stage B: the link processors and the channels. Returns ``{joint: torque register}``."""
        plan = self._plan
        nodes, width = plan.tracer.nodes, plan.width
        start = {(s.link, s.term): s.start for s in self._timeline.slots}
        issue, owner = {}, {}
        for link, ops in plan.program.items():
            for op in ops:
                issue[op.node] = start[link, op.slot] + op.cycle
                owner[op.node] = link
                if nodes[op.node].op not in _MULTIPLIES + _ADDS:
                    raise ValueError(f"{nodes[op.node]}: a link processor executes mul, add "
                                     f"and sub")
        latency = {k: (plan.multiplier_latency if nodes[k].op in _MULTIPLIES else
                       plan.adder_latency) for k in issue}
        own_registers = {}            # node -> register of its own (sent values, torques)
        for (link, term), vector in plan.sent.items():
            for c, node in enumerate(vector):
                own_registers[node.index] = Signal(signed(width), reset_less=True,
                                                   name=f"link{link + 1}_{term}{c}")
        torques = {}
        for k in range(1, plan.dof + 1):
            node = plan.outputs[k]
            own_registers[node.index] = torques[k] = Signal(signed(width), reset_less=True,
                                                            name=f"tau{k}")
        # Channel inputs: the producer's register (waited for) or a register of one sample.
        predicted = plan.predicted
        channel = {}
        for name, producer in plan.channels.items():
            term = name.split("_", 1)[1][:-1]
            if term in predicted:
                held = Signal(signed(width), reset_less=True, name=f"chan_{name}")
                with m.If(advance & real):
                    m.d.sync += held.eq(own_registers[producer])
                channel[name] = held
            else:
                channel[name] = own_registers[producer]
        # First-order prediction: the joints' previous rates and accelerations.
        for name, current in plan.previous.items():
            node = next(n for n in nodes if n.op == Op.INPUT and n.name == current)
            held = Signal(signed(width), reset_less=True, name=f"prev_{current}")
            with m.If(advance & real):
                m.d.sync += held.eq(bank[node.index])
            channel[name] = held
        # Each link's last read of each of its values.
        last = {}
        for k, cycle in issue.items():
            for arg in nodes[k].args:
                arg = _source(arg)
                last[arg.index] = max(last.get(arg.index, -1), cycle)
        for link in range(plan.dof):
            self._processor(m, link, pc, ahead, ahead2, bank, channel, own_registers,
                            {k: c for k, c in issue.items() if owner[k] == link}, latency,
                            last)
        return torques

    def _processor(self, m, link, pc, ahead, ahead2, bank, channel, own_registers, issue,
                   latency, last):
        """One link's processor: its file, its units, its micro-program."""
        plan = self._plan
        nodes, width = plan.tracer.nodes, plan.width
        prefix = f"link{link + 1}"
        # The pooled values' registers (left-edge), then the operand sources.
        lives = {k: (c + latency[k], max(last.get(k, c + latency[k]), c + latency[k]))
                 for k, c in sorted(issue.items(), key=lambda kv: kv[1])
                 if k not in own_registers}
        pool = left_edge(lives)
        registers = [Signal(signed(width), reset_less=True, name=f"{prefix}_r{r}")
                     for r in range(max(pool.values(), default=-1) + 1)]
        writable, target, slot_of = [], {}, {}
        for k in issue:
            register = own_registers[k] if k in own_registers else registers[pool[k]]
            if id(register) not in slot_of:
                slot_of[id(register)] = len(writable)
                writable.append(register)
            target[k] = slot_of[id(register)]
        sources, address = [], {}

        def operand(node):
            node = _source(node)
            k = node.index
            if k not in address:
                if k in issue:
                    value = own_registers[k] if k in own_registers else registers[pool[k]]
                elif k in bank:
                    value = bank[k]
                elif node.op == Op.INPUT and node.name in plan.constants:
                    value = Const(plan.constants[node.name], signed(width))
                elif node.op == Op.INPUT and node.name in channel:
                    value = channel[node.name]
                else:
                    raise AssertionError(f"{node}: no source at link {link + 1}")
                address[k] = len(sources)
                sources.append(value)
            return address[k]

        words = {unit: {} for unit in UNIT_KINDS}
        for k, cycle in issue.items():
            node = nodes[k]
            word = micro_operation(plan.tracer, plan.formats, k)
            word.update(a=operand(node.args[0]), b=operand(node.args[1]), target=target[k],
                        valid=1, mask=rounding_mask(word["shift"]))
            # Single issue: the schedule gives at most one of the two units a word a cycle.
            words[Unit.MUL if node.op in _MULTIPLIES else Unit.ADD][cycle] = word
        program = MicroProgram(m, ahead, ahead2, prefix)
        units = [u for u in UNIT_KINDS if words[u]]
        writes = []
        for unit in units:
            table = words[unit]
            shift_limit = max(w["shift"] for w in table.values())
            align = max(max(w["shift_a"], w["shift_b"]) for w in table.values())
            shapes = {"valid": unsigned(1), "a": range(max(len(sources), 2)),
                      "b": range(max(len(sources), 2)), "neg_a": unsigned(1),
                      "neg_b": unsigned(1), "shift": range(shift_limit + 1),
                      "mask": unsigned(max(shift_limit - 1, 1)),
                      "target": range(max(len(writable), 2))}
            if unit == Unit.ADD:
                shapes.update({"subtract": unsigned(1), "shift_a": range(align + 1),
                               "shift_b": range(align + 1)})
            field = program.fetch(shapes, {c: {f: w.get(f, 0) for f in shapes}
                                           for c, w in table.items()}, f"{prefix}_{unit}")
            a = read_port(sources, field["a"], m=m, name=f"{prefix}_{unit}_a")
            b = read_port(sources, field["b"], m=m, name=f"{prefix}_{unit}_b")
            a = Mux(field["neg_a"], -a, a)
            b = Mux(field["neg_b"], -b, b)
            if unit == Unit.MUL:
                exact = a * b
            else:
                left, right = a << field["shift_a"], b << field["shift_b"]
                exact = Mux(field["subtract"], left - right, left + right)
            halved, sticky = rounding_shift(exact, field["shift"], field["mask"])
            value = Signal(signed(width), name=f"{prefix}_{unit}_value")
            m.d.comb += value.eq(rounding_increment(halved, sticky))
            lat = plan.multiplier_latency if unit == Unit.MUL else plan.adder_latency
            valid, where = field["valid"], field["target"]
            for stage in range(lat - 1):         # the result's pipeline registers
                delayed = [Signal(value.shape(), name=f"{prefix}_{unit}_value{stage}",
                                  reset_less=True),
                           Signal(where.shape(), name=f"{prefix}_{unit}_target{stage}",
                                  reset_less=True),
                           Signal(name=f"{prefix}_{unit}_valid{stage}")]
                m.d.sync += [delayed[0].eq(value), delayed[1].eq(where),
                             delayed[2].eq(valid)]
                value, where, valid = delayed
            writes.append((valid, where, value))
        for index, register in enumerate(writable):
            for valid, where, value in writes:
                with m.If(valid & (where == index)):
                    m.d.sync += register.eq(value)
        program.build(self.interval)
