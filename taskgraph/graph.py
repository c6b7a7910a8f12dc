"""Task graphs of CORDIC computational modules (CCMs), as data (Lee & Chang, section 2.2).

A :class:`TaskGraph` lists CCMs in dependency order. Each :class:`Ccm` is one CORDIC operation
(coordinate system and direction) whose three operands ``x``, ``y``, ``z`` are
:class:`Operand` s: a constant, or an output port of a graph input or of an earlier CCM, times a
sign (possibly the sign of a branch indicator such as ``arm``), plus a constant. Signs are
wiring; an added constant costs one adder at the CCM input.

Values are of two kinds: reals (positions, products, lengths, in the data format) and angles
(the ``z`` output of a circular CCM or a graph input declared an angle, radians in float and
binary angles in hardware). Angles feed only the ``z`` operand of circular CCMs; reals feed
everything else, and a real may feed that ``z`` as a number of turns (``Operand.turns``: a
shift in hardware, so an angle computed by linear CCMs turns a vector). The graph checks this.

The same graph is evaluated in float (:func:`robohw.taskgraph.model.evaluate_float`), in the
bit-exact model (:func:`robohw.taskgraph.model.evaluate_model`), balanced by
:func:`robohw.buffers.assign_buffers` (:meth:`TaskGraph.edges`) and, later, built as hardware.
"""

import functools
from collections import defaultdict
from dataclasses import dataclass

from robohw.buffers import Edge, assign_buffers
from robohw.cordic.config import Direction, System

__all__ = ["Operand", "Guard", "Ccm", "TaskGraph", "BRANCH_INDICATORS", "const", "output_node"]

BRANCH_INDICATORS = ("arm", "elbow", "wrist")


@dataclass(frozen=True)
class Operand:
    """``sign * indicator * source.port + constant + addend`` (each part optional).

    ``source`` is a graph input or a CCM name (``None``: the constant alone); ``port`` one of
    ``"x"``, ``"y"``, ``"z"`` for CCMs (ignored for inputs); ``branch`` names a branch
    indicator (+1 or -1 per pose) that multiplies the value; ``constant`` is real (radians
    when the operand is an angle); ``addend`` is a second source, an :class:`Operand` of a
    source and a sign only, added by one more adder at the CCM input. ``turns``: the source is
    a real read as turns of an angle (the ``z`` operand of a circular CCM only): ``2 pi``
    times it in radians, its code shifted left by the integer bits and the sign bit of the
    real format in hardware (a binary angle wraps, so whole turns drop out).
    """
    source: "str | None" = None
    port: str = "x"
    sign: int = 1
    branch: "str | None" = None
    constant: float = 0.0
    addend: "Operand | None" = None
    turns: bool = False

    def sources(self):
        """``(source, port)`` of the values the operand reads (none, one or two)."""
        terms = [self] + ([self.addend] if self.addend is not None else [])
        return [(t.source, t.port) for t in terms if t.source is not None]


@dataclass(frozen=True)
class Guard:
    """A value whose magnitude must be at least ``minimum`` (a real, > 0) for the result to be
    valid: ``source.port`` of a CCM or a real input (a divisor, say: a pivot of a solve)."""
    source: str
    port: str
    minimum: float


def output_node(name):
    """The sink node through which graph output ``name`` leaves a balanced graph."""
    return f"out:{name}"


def const(value):
    """An operand that is the constant ``value``."""
    return Operand(constant=float(value))


@dataclass(frozen=True)
class Ccm:
    """One CORDIC computational module: ``system``/``direction`` applied to ``x``, ``y``, ``z``;
    ``expansion`` is the hyperbolic range expansion it needs; ``label`` says what it computes."""
    name: str
    system: System
    direction: Direction
    x: Operand
    y: Operand
    z: Operand
    expansion: int = 0
    label: str = ""

    def operands(self):
        return (("x", self.x), ("y", self.y), ("z", self.z))


class TaskGraph:
    """CCMs in dependency order, their inputs and named outputs ``{name: (ccm, port)}``;
    ``angle_inputs`` are the inputs that are angles (binary angles in hardware); ``guards``
    (:class:`Guard` s) are values too small for a valid result below their minimum."""
    def __init__(self, name, inputs, ccms, outputs, description="", angle_inputs=(),
                 guards=()):
        self.name = name
        self.inputs = tuple(inputs)
        self.angle_inputs = tuple(angle_inputs)
        self.guards = tuple(guards)
        if not set(self.angle_inputs) <= set(self.inputs):
            strangers = sorted(set(self.angle_inputs) - set(self.inputs))
            raise ValueError(f"{name}: angle inputs {strangers} are not inputs")
        self.ccms = tuple(ccms)
        self.outputs = dict(outputs)
        self.description = description
        self._check()

    def is_angle(self, source, port):
        """Whether ``source.port`` carries an angle."""
        if source in self.angle_inputs:
            return True
        ccm = self._by_name.get(source)
        return ccm is not None and ccm.system is System.CIRCULAR and port == "z"

    def _check(self):
        self._by_name = {}
        seen = set(self.inputs)
        for ccm in self.ccms:
            if ccm.name in seen:
                raise ValueError(f"{self.name}: duplicate node name {ccm.name!r}")
            for slot, operand in ccm.operands():
                where = f"{self.name}: {ccm.name}.{slot}0"
                if operand.sign not in (1, -1):
                    raise ValueError(f"{where}: sign must be +1 or -1")
                if operand.branch not in (None, *BRANCH_INDICATORS):
                    raise ValueError(f"{where}: unknown branch indicator {operand.branch!r}")
                addend = operand.addend
                if addend is not None and (
                        addend.source is None or addend.branch or addend.constant or
                        addend.addend is not None or addend.sign not in (1, -1) or
                        addend.turns or operand.source is None):
                    raise ValueError(f"{where}: an addend is a source and a sign, added to an "
                                     f"operand that has a source")
                wants_angle = ccm.system is System.CIRCULAR and slot == "z"
                if operand.turns and (not wants_angle or operand.source is None or
                                      addend is not None or
                                      self.is_angle(operand.source, operand.port)):
                    raise ValueError(f"{where}: turns are a real source alone, read as the "
                                     f"angle of a circular CCM")
                for source, port in operand.sources():
                    if source not in seen:
                        raise ValueError(f"{where}: {source!r} is not an input or an "
                                         f"earlier node")
                    if source in self._by_name and port not in "xyz":
                        raise ValueError(f"{where}: port must be x, y or z")
                    if self.is_angle(source, port) != (wants_angle and not operand.turns):
                        raise ValueError(f"{where}: {'an angle' if wants_angle else 'a real'} "
                                         f"is needed, {source}.{port} is not one")
            seen.add(ccm.name)
            self._by_name[ccm.name] = ccm
        for name, (source, port) in self.outputs.items():
            if source not in self._by_name or port not in "xyz":
                raise ValueError(f"{self.name}: output {name!r}: no node port {source}.{port}")
        for guard in self.guards:
            known = guard.source in self._by_name and guard.port in "xyz" or \
                guard.source in self.inputs
            if not known or self.is_angle(guard.source, guard.port) or \
                    not guard.minimum > 0:
                raise ValueError(f"{self.name}: guard {guard}: a real port of a node and a "
                                 f"positive minimum are needed")

    def __getitem__(self, name):
        return self._by_name[name]

    def __len__(self):
        return len(self.ccms)

    @property
    def branches(self):
        """The branch indicators some operand uses, in :data:`BRANCH_INDICATORS` order."""
        used = {op.branch for c in self.ccms for _, op in c.operands() if op.branch}
        return tuple(b for b in BRANCH_INDICATORS if b in used)

    def edges(self, width=1):
        """One :class:`robohw.buffers.Edge` per operand fed by an input or a CCM (``width`` bits),
        and one per operand that takes a branch indicator's sign (1 bit)."""
        edges = []
        for ccm in self.ccms:
            for _, op in ccm.operands():
                for source, port in op.sources():
                    port = port if source in self._by_name else "value"
                    edges.append(Edge(source, ccm.name, port=port, width=width))
                if op.branch:
                    edges.append(Edge(op.branch, ccm.name, port="value", width=1))
        return edges

    def latencies(self, ccm_latency=1):
        """``{node: latency}``: inputs and branch indicators 0, CCMs ``ccm_latency`` (a number,
        or a function of the :class:`Ccm`)."""
        latency = ccm_latency if callable(ccm_latency) else (lambda ccm: ccm_latency)
        return {**dict.fromkeys(self.inputs + self.branches, 0),
                **{c.name: int(latency(c)) for c in self.ccms}}

    def depth(self):
        """Length of the longest chain of CCMs."""
        level = dict.fromkeys(self.inputs, 0)
        for ccm in self.ccms:
            level[ccm.name] = 1 + max((level[source] for _, op in ccm.operands()
                                       for source, _ in op.sources()), default=0)
        return max(level[c.name] for c in self.ccms)

    def used_ports(self, name):
        """The output ports of CCM ``name`` that an operand or a graph output reads."""
        return self._used_ports.get(name, "")

    @functools.cached_property
    def _used_ports(self):
        used = defaultdict(set)
        for c in self.ccms:
            for _, op in c.operands():
                for source, port in op.sources():
                    used[source].add(port)
        for source, port in self.outputs.values():
            used[source].add(port)
        for guard in self.guards:
            used[guard.source].add(guard.port)
        return {name: "".join(p for p in "xyz" if p in ports) for name, ports in used.items()}

    def balance(self, latencies, *, width=1, share=False, align_outputs=False):
        """The optimal buffer assignment (:func:`robohw.buffers.assign_buffers`) of the graph
        with node ``latencies`` (:meth:`latencies`): every graph output leaves through a sink
        node of its own, :func:`output_node`, of latency 0, so aligning the outputs delays the
        results, not the CCMs that also feed later ones. Inputs and branch indicators start at
        0. The assignment's ``edges`` are :meth:`edges` followed by one edge per output."""
        latencies = {**latencies, **{output_node(name): 0 for name in self.outputs}}
        edges = self.edges(width=width)
        edges += [Edge(source, output_node(name), port=port, width=width)
                  for name, (source, port) in self.outputs.items()]
        return assign_buffers(latencies, edges, inputs=self.inputs + self.branches,
                              outputs=[output_node(name) for name in self.outputs],
                              align_outputs=align_outputs, share=share)

    def adders(self):
        """Operands that add a constant or a second source to a source: one adder each."""
        return sum((op.source is not None and op.constant != 0) + (op.addend is not None)
                   for c in self.ccms for _, op in c.operands())
