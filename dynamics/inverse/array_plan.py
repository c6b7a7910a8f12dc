"""Lee & Chang's processor array for the Newton-Euler equations, planned: which element
computes what, when, and what the network carries.

The machine (what we chose where the paper defers to its ref. [10]):

- ``p`` identical processing elements, each one pipelined multiplier (``multiplier_latency``
  cycles from operands to a readable result) and one adder (``adder_latency``), both issuing
  once per cycle, and a register file holding the values the element computes or receives,
  each from its write to its last read (a register is reused once free,
  :meth:`ArrayPlan.addresses`), in banks by the value's writer (:data:`BANKS`). Each executes
  the fixed-point operation of its traced node exactly
  (:func:`robohw.dataflow.evaluate.fixed_op`: alignment shifts, the product, rounding to the
  node's format), so the array equals the bit-exact model of its traced graph.
- The work: the base-coordinate equations traced with every recurrence solved by Lee & Chang's
  PFP on the ``p`` elements (:func:`robohw.dynamics.inverse.scans.pfp_schedule`: P3 serial blocks,
  P4 recursive doubling of the block totals, P5 the fix-ups); the local work of link ``i`` on
  element ``i // ceil(n / p)`` (blocks of links, as the paper's "the j-th processor computes the
  elements in the j-th block serially"); each scan operation on the element its schedule
  names.
- A value an element needs from another travels over the network
(:mod:`robohw.dynamics.inverse.network`,
  direct links or an Omega network) in rounds.
- A controller with one program counter steps every element through its own micro-program
  (a horizontal micro-code word per cycle: the multiplier's and the adder's operation, a send,
  a receive), so the elements work in lock step, as the paper's single instruction stream
  does; the words differ between elements where their blocks differ.
- The joints' sin and cos come from one shared pipelined CORDIC, one joint per cycle.

The program is a list schedule: every cycle, each element issues its most urgent ready
multiplication and addition (urgency: the longest chain of latencies from the operation to a
torque), and the network its most urgent ready transfers that fit one round. Two ways to
sequence it:

- ``"dataflow"``: an operation issues as soon as its operands are at its element, so the
  phases and the scan steps overlap (the faster program);
- ``"steps"``: the paper's discipline: the controller runs the phases in order and each scan
  step of P3-P5 as a step of its own, a barrier between (an operation of the next waits until
  every operation of the current one is done); a scan step without an operation for this
  robot (a combination with a structural zero or with padding) still takes its cycle, so the
  steps the controller counts for a scan of ``K`` elements are the schedule's, part 1's
  ``T_p``. Values may travel ahead of their step.
"""

import functools
import math
from collections import defaultdict
from dataclasses import dataclass, field

from robohw.cordic.pipelined import pipelined_latency
from robohw.dataflow.graph import past_negation
from robohw.dataflow.micro_op import micro_operation
from robohw.dataflow.operations import Op, Unit, unit_of
from robohw.dataflow.unit import ADDER_STAGES, multiplier_stages
from robohw.dynamics.inverse.accuracy import BOUND_FRACTION
from robohw.dynamics.inverse.network import NETWORKS
from robohw.dynamics.inverse.pipeline import NewtonEulerPlan
from robohw.dynamics.inverse.reference import PHASES
from robohw.dynamics.inverse.scans import pfp_schedule, run_schedule
from robohw.engine.machine import product_latency
from robohw.hw.checks import check_choice, check_positive_integer
from robohw.hw.multiplier import PRODUCT_LATENCY
from robohw.hw.register_file import left_edge

__all__ = ["ArrayPlan", "Instruction", "Hop", "SEQUENCINGS", "BANKS",
           "MULTIPLIER_STAGES", "ADDER_STAGES", "multiplier_latency_at"]

SEQUENCINGS = ("dataflow", "steps")
# The pipelines of NewtonEulerArray's units (robohw.dataflow.unit), the least latency the
# hardware has, and the default up to 18 bits; the multiplier's product is an ECP5 tile's two
# registers (wider, one tile and the fabric's partial products, a stage more:
# multiplier_latency_at).
MULTIPLIER_STAGES = multiplier_stages(PRODUCT_LATENCY)


def multiplier_latency_at(width):
    """The least latency of NewtonEulerArray's multiplier at ``width`` bits, its default: the
    unit's pipeline around a tile's product up to 18 bits, around
    :func:`~robohw.hw.multiplier.split_product` above
    (:func:`~robohw.engine.machine.product_latency`)."""
    return multiplier_stages(product_latency(width))
# A register file's banks, by the writer of their values: the element's inputs (held for the
# program, never written), its multiplier, its adder, the network's receive. One writer per
# register: LUT RAM with one write port (robohw.hw.register_file.BankedFile), no write
# multiplexer (a file of shared registers with five read trees filled the elements' area,
# and its writes' routing limited the clock: docs/dynamics.md).
BANKS = ("input", "multiplies", "adds", "receive")


@dataclass(frozen=True)
class Instruction:
    """One operation an element issues: the traced ``node`` (its index), in ``cycle``."""
    cycle: int
    element: int
    node: int


@dataclass(frozen=True)
class Hop:
    """One value (``node``) sent from ``source`` to ``target`` in the round starting at
    ``cycle``."""
    cycle: int
    source: int
    target: int
    node: int


@dataclass
class Program:
    """The array's schedule: the multiplier's and the adder's instructions and the network's
    hops, the cycle each value becomes readable at each element (``ready[(node, element)]``),
    the cycle the last torque is readable (``length``), which element holds each node
    (``owner``) and, sequenced by steps, the cycle each step begins (``steps``, a list of
    ``((phase, step), cycle)`` in order; ``step`` is ``None`` for a phase of local work)."""
    multiplies: list = field(default_factory=list)
    adds: list = field(default_factory=list)
    hops: list = field(default_factory=list)
    ready: dict = field(default_factory=dict)
    owner: dict = field(default_factory=dict)
    length: int = 0
    steps: list = field(default_factory=list)


class ArrayPlan(NewtonEulerPlan):
    """The plan of :class:`robohw.dynamics.inverse.array.NewtonEulerArray`.

    Parameters
    ----------
    robot, width, trig_width, bound_fraction
        See :class:`~robohw.dynamics.inverse.pipeline.NewtonEulerPlan`.
    processors : int
        ``p``, 1 or more (default: the robot's joints).
    network : str
        ``"direct"`` or ``"shuffle"`` (:data:`robohw.dynamics.inverse.network.NETWORKS`).
    multiplier_latency, adder_latency : int
        Cycles from an operation's issue to its result being readable, 1 or more (defaults
        :func:`multiplier_latency_at` the width and :data:`ADDER_STAGES`, the hardware's
        units; a plan with less is a what-if the hardware does not build).
    sequencing : str
        ``"dataflow"`` (default) or ``"steps"`` (see the module docstring).
    """
    design = "array"

    def __init__(self, robot, *, processors=None, network="direct", width=24,
                 trig_width=None, multiplier_latency=None,
                 adder_latency=ADDER_STAGES, sequencing="dataflow",
                 bound_fraction=BOUND_FRACTION):
        check_choice("sequencing", sequencing, SEQUENCINGS)
        self.sequencing = sequencing
        self._scan_sizes = {}
        if multiplier_latency is None:
            multiplier_latency = multiplier_latency_at(width)
        check_positive_integer("multiplier_latency", multiplier_latency)
        check_positive_integer("adder_latency", adder_latency)
        check_choice("network", network, NETWORKS)
        if processors is not None:
            check_positive_integer("processors", processors)
        self._processors = processors
        self.multiplier_latency, self.adder_latency = multiplier_latency, adder_latency
        super().__init__(robot, width=width, trig_width=trig_width,
                         bound_fraction=bound_fraction)
        self.network = NETWORKS[network](self.processors)
        self.program = self._compile()

    def _replan(self, robot, width):
        # The bounds come from the traced graph and its formats, which the processors shape
        # (their scans) and the network and latencies do not.
        return ArrayPlan(robot, processors=self._processors, width=width, bound_fraction=None)

    @property
    def processors(self):
        return self._robot.dof if self._processors is None else self._processors

    def _scan(self, phase, elements, combine):
        """PFP on the ``p`` elements, every combination in the cell ``(phase, step, pe)``."""
        self._scan_sizes[phase] = len(elements)
        return run_schedule(pfp_schedule(len(elements), self.processors), elements, combine,
                            at=lambda step, pe: self.tracer.cell(phase, step, pe))

    # --- placement -------------------------------------------------------------------------
    def _block(self):
        return math.ceil(self._robot.dof / self.processors)

    def element_of(self, node):
        """The element that computes (or, for an input, receives) ``node``."""
        if node.op == Op.INPUT:
            return (self.input_joints[node.name] - 1) // self._block()
        phase, step, where = node.cell
        return where // self._block() if step is None else where

    def trig_slots(self):
        """``{joint: cycle}``: when the shared CORDIC takes each revolute joint's angle."""
        return {k: slot for slot, k in enumerate(sorted(self.cordic_slots))}

    def input_ready(self, node):
        """The cycle an input is readable at its element: rates, accelerations and lengths at
        once; sin and cos after the shared CORDIC (one joint a cycle, its angle registered on
        the way in) and its output register."""
        if node.name[:3] in ("cos", "sin"):
            return self.trig_slots()[int(node.name[3:])] + pipelined_latency(self.cordic) + 2
        return 0

    # --- the list schedule -----------------------------------------------------------------
    def _compile(self):
        nodes = self.tracer.nodes
        live = [nodes[k] for k in self.live]

        def source(node):        # a neg is wiring: read its operand
            return source(node.args[0]) if node.op == Op.NEG else node

        program = Program()
        owner = program.owner
        for node in live:
            if node.op != Op.NEG:
                owner[node.index] = self.element_of(node)
        latency = {node.index: (self.multiplier_latency if unit_of(node) == Unit.MUL else
                                self.adder_latency) for node in live
                   if unit_of(node) is not None}
        # Urgency: the longest chain of latencies from a node to any torque.
        consumers = defaultdict(list)
        for node in live:
            for arg in node.args:
                consumers[source(arg).index].append(node)
        urgency = {}
        for node in reversed(live):
            if node.op == Op.NEG:
                continue
            below = [urgency[c.index] for c in consumers[node.index] if c.op != Op.NEG]
            urgency[node.index] = latency.get(node.index, 0) + max(below, default=0)
        ready = program.ready
        for node in live:
            if node.op == Op.INPUT:
                ready[(node.index, owner[node.index])] = self.input_ready(node)
        # Every value an element reads from another arrives by the network's path.
        needs = defaultdict(set)          # node -> elements that read it
        for node in live:
            if node.op in (Op.INPUT, Op.NEG):
                continue
            for arg in node.args:
                needs[source(arg).index].add(owner[node.index])
        for key, value in self.outputs.items():
            if not isinstance(value, float):
                needs[source(value).index]          # read where it is
        pending_hops = []                 # [node, remaining hops]
        for index, elements in needs.items():
            for element in sorted(elements - {owner[index]}):
                pending_hops.append([index, self.network.path(owner[index], element)])
        waiting = {node.index for node in live if unit_of(node) is not None}
        waiting_by_unit = ({k for k in waiting if unit_of(nodes[k]) == Unit.MUL},
                           {k for k in waiting if unit_of(nodes[k]) == Unit.ADD})
        operands = {k: {(source(a).index, owner[k]) for a in nodes[k].args} for k in waiting}
        # The cycle all of an operation's operands are readable at its element, known once
        # every operand's ready time is (a ready time, once set, never changes): each unit's
        # operations whose time is known, kept as the times become known, so a cycle looks
        # only at those.
        readable = {}
        known = tuple(set() for _ in waiting_by_unit)
        missing = {k: {key for key in keys if key not in ready} for k, keys in operands.items()}
        watchers = defaultdict(list)
        for k, keys in missing.items():
            for key in keys:
                watchers[key].append(k)

        def settle(k):
            readable[k] = max(ready[key] for key in operands[k])
            known[0 if k in waiting_by_unit[0] else 1].add(k)

        def make_ready(key, cycle):
            """``ready[key] = cycle`` if it has no time yet."""
            if key in ready:
                return
            ready[key] = cycle
            for k in watchers.pop(key, ()):
                missing[k].discard(key)
                if not missing[k]:
                    settle(k)
        for k, keys in missing.items():
            if not keys:
                settle(k)
        cycle = 0
        outputs = [source(v).index for v in self.outputs.values() if not isinstance(v, float)]
        segments, segment_of = self._segments(live)
        current, members = 0, defaultdict(set)
        for index, segment in segment_of.items():
            members[segment].add(index)
        if segments:
            program.steps.append((segments[0], 0))
        while waiting or pending_hops or any((k, owner[k]) not in ready for k in outputs) or \
                current < len(segments) - 1:
            # Steps: the next begins once every operation of the current one is readable (and
            # it has had its cycle).
            if segments and current < len(segments) - 1 and \
                    program.steps[-1][1] < cycle and \
                    all(ready.get((k, owner[k]), math.inf) <= cycle for k in members[current]):
                current += 1
                program.steps.append((segments[current], cycle))
            # The network: the most urgent ready hops that share a round.
            chosen = []
            for entry in sorted(pending_hops, key=lambda e: -urgency.get(e[0], 0)):
                index, hops = entry
                first = hops[0]
                if ready.get((index, first[0]), math.inf) > cycle:
                    continue
                if self.network.compatible([h for _, h in chosen] + [first]):
                    chosen.append((entry, first))
            for entry, hop in chosen:
                program.hops.append(Hop(cycle, hop[0], hop[1], entry[0]))
                make_ready((entry[0], hop[1]), cycle + self.network.stages + 1)
                entry[1] = entry[1][1:]
            pending_hops = [e for e in pending_hops if e[1]]
            # Each element: its most urgent ready multiplication and addition.
            for unit, store, candidates in zip(waiting_by_unit,
                                               (program.multiplies, program.adds), known):
                best = {}
                for index in candidates:
                    if segment_of.get(index, current) != current or readable[index] > cycle:
                        continue
                    element = owner[index]
                    if element not in best or urgency[index] > urgency[best[element]] or (
                            urgency[index] == urgency[best[element]] and index < best[element]):
                        best[element] = index
                for element, index in sorted(best.items()):
                    store.append(Instruction(cycle, element, index))
                    make_ready((index, element), cycle + latency[index])
                    unit.discard(index)
                    candidates.discard(index)
                    waiting.discard(index)
            cycle += 1
            if cycle > 100_000:
                raise AssertionError("the array's schedule does not terminate")
        program.length = max(ready[(k, owner[k])] for k in outputs) if outputs else 1
        return program

    def _segments(self, live):
        """Sequenced by steps: the steps in order and ``{node: step number}`` of every
        operation; by dataflow, none."""
        if self.sequencing == "dataflow":
            return [], {}
        segments = []
        for phase, kind in PHASES.items():
            if kind.endswith("scan") and phase in self._scan_sizes:
                steps = len(pfp_schedule(self._scan_sizes[phase], self.processors))
                segments += [(phase, step) for step in range(steps)]
            else:
                segments.append((phase, None))
        number = {key: k for k, key in enumerate(segments)}
        return segments, {node.index: number[node.cell[:2]] for node in live
                          if unit_of(node) is not None}

    def writes(self, hop):
        """Whether ``hop``'s arrival writes its value into the target's register file: only
        the value's first arrival there does (a value may pass an element that has it
        already, on its way elsewhere; the register it had may hold another value by then)."""
        return self.program.ready[(hop.node, hop.target)] == \
            hop.cycle + self.network.stages + 1

    def step_counts(self):
        """Sequenced by steps, ``{scan phase: steps the controller runs}``."""
        counts = defaultdict(int)
        for (phase, step), _ in self.program.steps:
            if step is not None:
                counts[phase] += 1
        return dict(counts)

    # --- figures ---------------------------------------------------------------------------
    @property
    def program_cycles(self):
        """Cycles from the state's arrival to the last torque being readable."""
        return self.program.length

    def counts(self):
        """Per element: ``multiplies``, ``adds`` (operations issued per torque vector),
        ``sends`` and ``receives`` (network hops), ``idle`` (cycles of the program with
        neither unit issuing)."""
        out = [{"multiplies": 0, "adds": 0, "sends": 0, "receives": 0}
               for _ in range(self.processors)]
        busy = [set() for _ in range(self.processors)]
        for kind, store in (("multiplies", self.program.multiplies),
                            ("adds", self.program.adds)):
            for instruction in store:
                out[instruction.element][kind] += 1
                busy[instruction.element].add(instruction.cycle)
        for hop in self.program.hops:
            out[hop.source]["sends"] += 1
            out[hop.target]["receives"] += 1
        for element, row in enumerate(out):
            row["idle"] = self.program.length - len(busy[element])
        return out

    def scan_steps(self):
        """``{phase: steps}``: the scan steps of each recurrence that hold an operation (the
        traced cells' step numbers), the paper's T_p measured on the traced work."""
        steps = defaultdict(set)
        for k in self.live:
            node = self.tracer.nodes[k]
            if unit_of(node) is not None and node.cell and node.cell[1] is not None:
                steps[node.cell[0]].add(node.cell[1])
        return {phase: len(found) for phase, found in steps.items()}

    def registers(self):
        """Register-file entries each element needs (:meth:`addresses`)."""
        return [max(table.values(), default=-1) + 1 for table in self.addresses()]

    def last_reads(self):
        """``{(node, element): cycle}``: the last cycle each value is read at each element
        that holds it: an operation's issue (its operands are read then), a send, or, for a
        torque, the program's end (the stream takes the torques in that cycle)."""
        nodes, program = self.tracer.nodes, self.program
        last = defaultdict(lambda: -1)

        def read(node, element, cycle):
            key = (past_negation(node).index, element)
            last[key] = max(last[key], cycle)

        for instruction in program.multiplies + program.adds:
            for arg in nodes[instruction.node].args:
                read(arg, instruction.element, instruction.cycle)
        for hop in program.hops:
            read(nodes[hop.node], hop.source, hop.cycle)
        for value in self.outputs.values():
            if not isinstance(value, float):
                source = value.args[0] if value.op == Op.NEG else value
                read(source, program.owner[source.index], self.program_cycles)
        return dict(last)

    def bank(self, index, element):
        """The bank (:data:`BANKS`) of node ``index``'s value at ``element``: by its writer."""
        node = self.tracer.nodes[index]
        if node.op == Op.INPUT:
            return "input"
        if self.program.owner[index] != element:
            return "receive"
        return "multiplies" if unit_of(node) == Unit.MUL else "adds"

    @functools.cached_property
    def _addresses(self):
        nodes, program = self.tracer.nodes, self.program
        last = self.last_reads()
        tables = []
        for element in range(self.processors):
            held = sorted(k for (k, e) in program.ready if e == element)
            # The given values (the inputs) all program long; the rest in the order of their
            # writes (the cycle before they are readable) to their last reads.
            end = self.program_cycles + 1
            lives = {bank: {} for bank in BANKS}
            for k in held:
                if nodes[k].op == Op.INPUT:
                    lives["input"][k] = (-1, end)
            for write, k in sorted((program.ready[(k, element)] - 1, k) for k in held
                                   if nodes[k].op != Op.INPUT):
                lives[self.bank(k, element)][k] = (write + 1,
                                                   last.get((k, element), write))
            table, offset = {}, 0
            for bank in BANKS:
                allocated = left_edge(lives[bank])
                table.update({k: offset + r for k, r in allocated.items()})
                offset += max(allocated.values(), default=-1) + 1
            tables.append(table)
        return tables

    def addresses(self):
        """Per element, ``{node: address}`` of its register file. Its banks (:data:`BANKS`,
        :meth:`bank`) hold consecutive runs of addresses, in that order. The values the element
        is given (its joints' inputs) hold the input bank all program long; a value it
        computes or receives holds a register of its writer's bank from its write (the cycle
        before it is readable) to its last read (:meth:`last_reads`), and takes the bank's
        lowest register free by its write (left-edge allocation in the order of the writes):
        a bank needs as many registers as its values live at once, not one per value."""
        return [dict(table) for table in self._addresses]

    def operation(self, index):
        """The micro-operation of node ``index`` as its element's unit executes it
        (:func:`robohw.dataflow.micro_op.micro_operation`)."""
        return micro_operation(self.tracer, self.formats, index)
