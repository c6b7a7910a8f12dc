"""What a top-level design tells the flows (simulate, export, synth, sweep, report): the
:class:`Design` contract every family's designs fill in, and their :class:`Workload`.

A :class:`Design` builds its component at a width (plain ready/valid stream ports, a tag of
:data:`TAG_WIDTH` bits), draws a seeded workload, checks simulated outputs against its bit-exact
model and measures their error against its float reference, and describes its ports' number
formats. The registry of every design is :mod:`robohw.registry`.
"""

import copy
import functools
from dataclasses import dataclass

from robohw.hw.payload import layout_fields, payload_rows
from robohw.robots.chain import Chain
from robohw.robots.hardware_form import SNAP_ERROR
from robohw.robots.loading import hardware_robot
from robohw.sim.place_and_route import PlaceAndRoute

__all__ = ["Design", "Workload", "tagged_payloads", "TAG_WIDTH"]

# The user tag every top-level design carries through, input to output.
TAG_WIDTH = 8


def tagged_payloads(codes, count):
    """``count`` input payloads from ``{field: codes}`` (indexable columns), each tagged by
    its index modulo the tag's range."""
    return [{**row, "tag": k % (1 << TAG_WIDTH)}
            for k, row in enumerate(payload_rows(codes, count))]


@dataclass
class Workload:
    """Input payloads (dicts of ints) and what the check needs to judge the outputs."""
    payloads: list
    context: dict


class Design:
    """One top-level design; subclasses fill in the family's parts.

    :attr:`width_range`: the widths it builds at, ``(low, high)`` inclusive
    (:meth:`check_width`); :attr:`widths`: those ``robohw export`` writes by default.
    :attr:`default_fold` is ``None`` for a design without a folding factor; a folded design's
    default is the smallest fold that fits an ECP5-85F at its default width. :attr:`fold_name`:
    what its command line calls the fold (``ii``: the initiation interval of a modulo-scheduled
    design, ``robohw sim --ii``).
    :attr:`one_at_a_time`: the design holds one input at a time for thousands of cycles
    (Gosselin's machine), so a few results show its timing. :attr:`word_serial`: its CORDICs
    are word-serial, a result every tens of cycles, so fewer results show its interval.
    :attr:`place_and_route`: nextpnr's options for it by default (:meth:`placed_by`).
    :attr:`unplaced`: why ``robohw synth`` leaves it out unless named (it does not fit the
    ECP5-85F, or does not route), or ``None``.
    :attr:`takes_robot`: the hardware is generated from a serial robot (:meth:`for_robot`),
    and by default for every robot (:attr:`every_robot`: ``robots.md``, ``robohw export
    --robot``) unless it plans only for some;
    :attr:`robot_label`: ``None`` for the design's own robot, else the name its modules carry,
    and :attr:`robot_digest` what identifies that robot's files.
    """
    family = None
    error_unit = None
    default_fold = None
    fold_name = "fold"
    one_at_a_time = False
    word_serial = False
    place_and_route = PlaceAndRoute()
    unplaced = None
    takes_robot = False
    every_robot = True
    robot_label = None
    robot_digest = None
    robot_record = None     # robohw.robots.loading.robot_record, for the export's sidecar

    def __init__(self, name, summary, default_width, widths, width_range):
        self.name, self.summary = name, summary
        self.default_width, self.widths = default_width, widths
        low, high = width_range
        self.width_range = (low, high)

    def check_width(self, width):
        """Return ``width`` if the design builds at it (:attr:`width_range`, inclusive: every
        command states and checks this one range); raise ``ValueError`` naming the design
        and its range otherwise."""
        low, high = self.width_range
        if type(width) is not int or not low <= width <= high:
            raise ValueError(f"{self.name}: width must be an integer in [{low}, {high}], not "
                             f"{width!r}")
        return width

    def placed_by(self, place_and_route=None, *, unplaced=None):
        """Set :attr:`place_and_route` (a :class:`~robohw.sim.place_and_route.PlaceAndRoute`)
        and :attr:`unplaced` (a reason, or ``None``); return the design (the registries'
        entries are built this way)."""
        if place_and_route is not None:
            if not isinstance(place_and_route, PlaceAndRoute):
                raise TypeError(f"place_and_route must be a PlaceAndRoute, not "
                                f"{type(place_and_route).__name__}")
            self.place_and_route = place_and_route
        if unplaced is not None and not isinstance(unplaced, str):
            raise TypeError(f"unplaced must be a str, not {type(unplaced).__name__}")
        self.unplaced = unplaced
        return self

    def for_robot(self, robot, label, digest, hardware=None):
        """This design generated for ``robot`` (a loaded :class:`robohw.robots.Robot` or
        :class:`robohw.robots.Chain`), its modules named with ``label`` and its caches keyed
        on ``digest`` (:func:`robohw.robots.loading.robot_record`'s); ``hardware``: its
        :attr:`hardware_robot` if the caller has converted it already. ``ValueError`` for a
        design whose hardware takes no robot."""
        if not self.takes_robot:
            raise ValueError(f"{self.name}: its hardware is not generated from a serial robot")
        twin = copy.copy(self)
        twin.robot, twin.robot_label, twin.robot_digest = robot, label, digest
        twin.__dict__.pop("hardware_robot", None)       # the original's, if it had one
        if hardware is not None:
            twin.hardware_robot = hardware
        twin.summary = self.summary_for(robot.name)
        return twin

    @functools.cached_property
    def hardware_robot(self):
        """The standard-DH :class:`robohw.robots.Robot` the hardware is generated from: the
        design's robot loaded (a shipped name) and converted (a URDF chain's snapped DH form,
        :func:`robohw.robots.hardware_form.hardware_form`) once, for every plan and machine
        the design builds; the float64 references keep :attr:`robot` (:meth:`reference_robot`)."""
        return hardware_robot(self.robot, terms=())

    def hardware_of(self, robot):
        """:attr:`hardware_robot` for the design's own ``robot``, another's converted."""
        return self.hardware_robot if robot is self.robot else hardware_robot(robot, terms=())

    def reference_robot(self, dut):
        """The robot the float64 reference runs on: the one given to :meth:`for_robot` (a
        URDF robot's chain, not the DH form its hardware is generated from), else the plan's."""
        return dut.plan.robot if isinstance(self.robot, str) else self.robot

    @property
    def snapped_share(self):
        """What snapping a URDF robot's DH form adds to the bound, as a share of the largest
        output (:data:`robohw.robots.hardware_form.SNAP_ERROR`; 0 for a DH robot)."""
        return SNAP_ERROR if isinstance(self.robot, Chain) else 0.0

    def summary_for(self, robot_name):
        """The one-line summary of this design for the robot called ``robot_name``."""
        raise NotImplementedError

    @property
    def module_name(self):
        """The Verilog module name: the design's name with underscores, and the robot's label
        for a robot other than the design's own (``inertia_linear_ur5``)."""
        label = "" if self.robot_label is None else f"_{self.robot_label}"
        return self.name.replace("-", "_") + label

    def module(self, dut):
        """The exported module of ``dut``: :attr:`module_name`, the width and, for a design
        with a folding factor, the fold (``inertia_linear_w18_f7``,
        ``inertia_linear_ur5_w18_f6``)."""
        fold = "" if self.default_fold is None else f"_f{dut.fold}"
        return f"{self.module_name}_w{self.width_of(dut)}{fold}"

    def identity(self, dut):
        """What the compiled models of ``dut`` are cached under: the design, its robot's
        digest, width and fold (the code's digest is added by the cache)."""
        robot = "" if self.robot_digest is None else f" robot={self.robot_digest}"
        return f"{self.name}{robot} width={self.width_of(dut)} fold={self.fold_of(dut)}"

    def width_of(self, dut):
        """The data width ``dut`` was built at."""
        raise NotImplementedError

    def fold_of(self, dut):
        """Cycles per result the fold gives (1 for a design without one)."""
        return 1 if self.default_fold is None else dut.fold

    def build(self, width=None, fold=None):
        """The component at ``width`` (default :attr:`default_width`) folded by ``fold``
        (default :attr:`default_fold`; ignored by a design without one), tag of 8 bits."""
        raise NotImplementedError

    def checked_limits(self, dut):
        """What a design with an ``in_bounds`` output checks, ``{field: {"codes": [low,
        high], "values": [low, high]}}``, or ``None`` (the base's: none)."""
        return None

    def sign_constants(self, dut):
        """What a design adds by the sign of an input field's code, ``{input: {...}}``, or
        ``None`` (the base's: nothing)."""
        return None

    def configuration(self, dut):
        """One line: what this instance is."""
        raise NotImplementedError

    def workload(self, dut, count, seed=0):
        """A :class:`Workload` of ``count`` seeded inputs from the design's domain."""
        raise NotImplementedError

    def check(self, dut, workload, outputs):
        """``(equals_model, errors)``: whether ``outputs`` equal the bit-exact model, and the
        per-result errors against float64 in :attr:`error_unit`."""
        raise NotImplementedError

    def model_outputs(self, dut, workload):
        """The output payloads (dicts) the bit-exact model gives for the workload."""
        raise NotImplementedError

    def accuracy(self, dut):
        """The design's accuracy promise: ``{output field: bound}``, each output's worst-case
        error against float64 in its own units, for inputs within the design's domain (proven
        from its formats, or stated from measurement where the docs say so: the CORDICs');
        ``None`` for a design that states no bound (docs/accuracy.md)."""
        return None

    def error_bound(self, dut, workload):
        """The largest bound of :meth:`accuracy` in :attr:`error_unit` for ``workload`` (what
        :meth:`check`'s errors are measured in), or ``None``."""
        return None

    def equals_model(self, dut, workload, outputs):
        """Whether every output carries the fields of :meth:`model_outputs` with the model's
        values, in order (the tag and any extra fields are not compared)."""
        expected = self.model_outputs(dut, workload)
        return len(outputs) == len(expected) and \
            [{k: o[k] for k in e} for o, e in zip(outputs, expected)] == expected

    def structure(self, dut):
        """Buffer stages or processing elements: ``(label, value)``."""
        raise NotImplementedError

    def formats(self, dut):
        """``{field: format}`` for every payload field: ``"fixed(W, F)"`` (W bits, F fraction
        bits), ``"turns(W, F)"`` (the same bits counting turns), ``"angle(W)"`` (binary angle,
        one turn = 2**W), ``"bit"`` or ``"tag"``."""
        raise NotImplementedError

    def ports(self, dut):
        """Ports of the exported module with payload fields at their bit offsets."""
        return {
            stream: {"valid": f"{stream}__valid", "ready": f"{stream}__ready",
                     "payload": f"{stream}__payload",
                     "fields": {name: {"offset": offset, "width": width, "signed": signed}
                                for name, (offset, width, signed) in
                                layout_fields(getattr(dut, stream).payload.shape()).items()}}
            for stream in ("i", "o")}
