"""A part of an engine by locality placed alone: some of its clusters, the values they take
from the rest of the machine as the part's inputs and the values the rest reads as its
outputs. What the engine's structure is measured on before the whole machine is built
(``robohw synth --clusters``): one cluster alone, then two neighbours with their hop.

:class:`PartPlan` replays the chosen operations of a traced plan (their kinds, constants and
proven ranges) into a plan of their own; every operand from outside the part (another
cluster's value, a loaded field, a CORDIC's cos or sin) is a fixed-point input of its range,
loaded as the engine loads a state's fields. :class:`PartDesign` builds its engine, each
operation on its cluster's units (:func:`~robohw.engine.partition.cell_partition`), for the
flows; its bits are not the robot's (the inputs are rounded to formats of their own), and no
model is claimed for it: it is measured for resources and clock only.
"""

from amaranth.hdl import signed

from robohw.dataflow.graph import past_negation
from robohw.dataflow.operations import Op
from robohw.dataflow.plan import TracedPlan
from robohw.engine.component import Engine
from robohw.engine.design import OnEngine
from robohw.engine.partition import cell_partition
from robohw.engine.plan import compile_plan
from robohw.sim.design import Design

__all__ = ["PartPlan", "PartDesign", "part_engine"]


class PartPlan(TracedPlan):
    """The operations ``nodes`` (indices) of the traced ``plan`` as a plan of their own: its
    inputs ``v<k>`` (the operands from outside, node k of ``plan``), its outputs ``v<k>``
    (the part's values ``plan`` reads elsewhere); :attr:`partition` binds each replayed
    operation to the cluster ``clusters`` (``{node of plan: cluster name}``) gives its
    original. ``ValueError`` for an empty part."""
    trig_integer_bits = 2

    def __init__(self, plan, nodes, clusters):
        self._parent, self._part, self._clusters = plan, frozenset(nodes), dict(clusters)
        if not self._part:
            raise ValueError("a part of an engine needs at least one operation")
        self.partition = {}
        super().__init__(width=plan.width, fold=1, trig_width=plan.cordic.width)

    @property
    def dof(self):
        return self._parent.dof

    def _trace(self):
        parent = self._parent.tracer.nodes
        made = {}

        def value(node):
            if node.op == Op.NEG:
                return self.tracer.neg(value(node.args[0]))
            if node.index not in made:
                made[node.index] = self.value_input(f"v{node.index}", f"v{node.index}",
                                                    node.low, node.high)
            return made[node.index]

        for k in sorted(self._part):
            node = parent[k]
            with self.tracer.cell(*(node.cell or ())):
                new = self.tracer.apply(node.op, [value(a) for a in node.args], node.constant)
            new.low, new.high = max(new.low, node.low), min(new.high, node.high)
            made[k] = new
            self.partition[new.index] = self._clusters[k]
        read = set()
        live = set(self._parent.live)
        for k in live - self._part:
            read |= {past_negation(arg).index for arg in parent[k].args}
        read |= {past_negation(node).index for node in self._parent.outputs.values()
                 if not isinstance(node, float)}
        return {f"v{k}": made[k] for k in sorted(read & self._part)}


def part_engine(plan, clusters, interval, *, tag_width=8):
    """The :class:`~robohw.engine.component.Engine` of the clusters named ``clusters`` of
    ``plan``'s engine by locality (:func:`~robohw.engine.partition.cell_partition`) at
    ``interval``. ``ValueError`` naming the clusters there are for a name not among them."""
    partition = cell_partition(plan)
    names = sorted(set(partition.values()), key=lambda c: int(c[len("link"):]))
    unknown = [c for c in clusters if c not in names]
    if unknown or not clusters:
        raise ValueError(f"clusters must be among {', '.join(names)}, not "
                         f"{', '.join(unknown) or 'none'}")
    part = PartPlan(plan, [k for k, c in partition.items() if c in clusters], partition)
    program = compile_plan(part, interval, partition=part.partition)
    inputs = {field: signed(plan.width) for field in part.value_fields.values()}
    return Engine(part, program, inputs, {key: key for key in part.outputs},
                  tag_width=tag_width)


class PartDesign(OnEngine, Design):
    """Clusters ``clusters`` of ``design``'s engine (an engine design of a traced plan:
    its ``plan(robot, width)`` and ``hardware_robot``), placed alone
    (:func:`part_engine`); its module named with the clusters."""

    def __init__(self, design, clusters):
        self._design, self.clusters = design, tuple(clusters)
        super().__init__(design.name, f"{design.summary}; clusters {', '.join(clusters)} "
                                      f"alone", design.default_width, design.widths,
                         design.width_range)
        self.default_fold = design.default_fold
        self.place_and_route = design.place_and_route
        self.robot_label, self.robot_digest = design.robot_label, design.robot_digest

    @property
    def module_name(self):
        return f"{self._design.module_name}_{'_'.join(self.clusters)}"

    def build(self, width=None, fold=None):
        plan = self._design.plan(self._design.hardware_robot, width or self.default_width,
                                 bound_fraction=None)
        return part_engine(plan, self.clusters, fold or self.default_fold)

    def formats(self, dut):
        fracs = dut.plan.traced_inputs
        formats = {field: f"fixed({dut.plan.width}, {fracs[name]})"
                   for name, field in dut.plan.value_fields.items()}
        formats |= {key: f"fixed({dut.plan.width}, {frac})"
                    for key, frac in dut.plan.output_fracs.items()}
        return formats | {"tag": "tag"}
