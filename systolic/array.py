"""What both inertia-matrix arrays share: the algorithm traced from the joints' cos and sin,
the cell windows of their processing elements, the stream interface.

An array is built from its algorithm (:func:`robohw.systolic.reference.table1` or
:func:`robohw.systolic.reference.table2`) traced over the robot's constants
(:class:`robohw.dataflow.plan.TracedPlan`, constants folded), and from the windows in which its
processing elements run (the plan subclass's ``_first_cycle``). :class:`InertiaPlan` holds all
that; :class:`InertiaArray` builds it; :mod:`robohw.systolic.model` evaluates it bit for bit.
"""

from collections import Counter
from functools import cached_property

from amaranth.hdl import signed

from robohw.cordic.pipelined import pipelined_latency
from robohw.dataflow.component import TracedPipeline
from robohw.dataflow.pipeline import cell_depths, schedule
from robohw.dataflow.plan import TRIG_ERROR_LSB, TracedPlan
from robohw.hw.checks import check_integer
from robohw.robots import hardware_robot
from robohw.robots.magnitudes import values_origin
from robohw.systolic.codec import inertia_field, joint_field
from robohw.systolic.model import MAX_WIDTH
from robohw.systolic.reference import link_frames

__all__ = ["InertiaPlan", "InertiaArray", "MIN_WIDTH", "TRIG_ERROR_LSB"]

MIN_WIDTH = 12


class InertiaPlan(TracedPlan):
    """What an inertia array is built from, without building it: the traced algorithm with the
    robot's constants folded, every value's format, the cell windows and the schedule (the
    bit-exact model, :mod:`robohw.systolic.model`, evaluates it). Subclasses
    (:class:`~robohw.systolic.linear.LinearPlan`, :class:`~robohw.systolic.logdepth.LogDepthPlan`)
    give the algorithm, the windows and the latency formula.

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` or str
        A robot with inertial data (its hardware form), or a robot file or shipped name.
    width : int
        Bits of every datapath value, 12 to 31 (default 24). Each value has its own fraction
        bits, as many as its proven range leaves (:attr:`output_fracs` for the outputs).
    fold : int
        Cycles per configuration, 1 or more (default 1). With 1 every operation has its own
        hardware and the processing elements run in the windows of the paper's timing; folded
        by ``k`` (:mod:`robohw.dataflow.folding`), the products share ``ceil(products / k)``
        multipliers, the joints' sin and cos ``ceil(joints / k)`` CORDICs, and the latency is
        the modulo schedule's.
    """
    algorithm = None     # table1 or table2, set by the subclass
    kinds = ()           # the kinds of cell, each with its window length

    def __init__(self, robot, *, width=24, fold=1):
        check_integer("width", width, minimum=MIN_WIDTH, maximum=MAX_WIDTH)
        robot = hardware_robot(robot, terms=())    # H holds the armature alone: on its diagonal
        self._robot = robot
        self._frames = link_frames(robot)
        self._n = len(self._frames)
        super().__init__(width=width, fold=fold)
        depth = self.latency
        for (j, i), source in self._output_sources().items():
            late = self.schedule.ready[source.index] if fold > 1 else \
                self.schedule.windows.get(source.cell, (0, 0))[1]
            if late > depth:
                raise AssertionError(f"{inertia_field(j, i)} is late for the stated latency "
                                     f"{depth}")

    # --- construction ------------------------------------------------------------------------
    def _trace(self):
        joints = [None]
        for k, frame in enumerate(self._frames[1:], start=2):
            if frame.revolute:
                joints.append(self.angle_input(k, joint_field(k), frame.offset))
            else:
                low, high = (limit + frame.offset for limit in frame.limits)
                joints.append(self.value_input(f"d{k}", joint_field(k), low, high, frame.offset,
                                               error_lsb=1.0))
        h = type(self).algorithm(self._frames, joints, self.tracer)
        return dict(sorted(h.items()))

    def _unfolded_schedule(self):
        # The processing elements run in the windows of the paper's timing.
        return schedule(self.tracer, self.live, self._window, self._input_ready)

    @cached_property
    def _lengths(self):
        """``{kind: cycles}`` of each kind of cell, from the traced depths."""
        lengths = Counter({kind: 0 for kind in self.kinds})
        for cell, depth in cell_depths(self.tracer, self.live).items():
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

    # --- properties --------------------------------------------------------------------------
    @property
    def robot(self):
        return self._robot

    def _values_origin(self, largest=True):
        return values_origin(self._robot, largest)

    @property
    def dof(self):
        return self._n

    @property
    def frames(self):
        """The links' constants in the paper's frames
        (:class:`robohw.systolic.reference.LinkFrame`)."""
        return list(self._frames)

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: the subclass's formula in
        the window lengths (:attr:`window_latency`) unfolded, the modulo schedule's length (the
        last output's ready cycle) folded."""
        if self._fold == 1:
            return self.window_latency
        return super().latency

    @property
    def window_latency(self):
        raise NotImplementedError

    @property
    def window_lengths(self):
        """Cycles each kind of processing element takes (``"in"``: the CORDIC front end)."""
        return dict(self._lengths)

    @property
    def input_fracs(self):
        """Fraction bits of the prismatic joints' ``q`` fields (``{k: bits}``)."""
        return {int(name[1:]): bits for name, bits in self._input_fracs.items()
                if name.startswith("d")}

    def offset_code(self, k):
        """Joint ``k``'s offset as a code of its ``q`` field, added to ``q`` at the input."""
        return self.field_offset(joint_field(k))


class InertiaArray(TracedPipeline):
    """Base of :class:`~robohw.systolic.linear.LinearInertiaArray` and
    :class:`~robohw.systolic.logdepth.LogDepthInertiaArray`; see those for the architectures.

    Parameters
    ----------
    robot : :class:`robohw.robots.Robot` or str
        A robot with inertial data (its hardware form), or a robot file or shipped name.
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

    def __init__(self, robot, *, width=24, fold=1, tag_width=0, check_ranges=False):
        plan = self.plan_class(robot, width=width, fold=fold)
        super().__init__(plan, {joint_field(k): signed(width) for k in range(1, plan.dof + 1)},
                         {(j, i): inertia_field(j, i) for (j, i) in plan.output_fracs},
                         tag_width=tag_width, check_ranges=check_ranges)

    @property
    def window_lengths(self):
        return self._plan.window_lengths

    @property
    def input_fracs(self):
        return self._plan.input_fracs
