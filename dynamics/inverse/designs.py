"""The inverse-dynamics designs for the flows (:class:`~robohw.sim.design.Design`):
:class:`~robohw.dynamics.NewtonEulerPipeline`, Lee & Chang's processor array
(:class:`~robohw.dynamics.inverse.array.NewtonEulerArray`) and the modulo-scheduled engine
(:class:`~robohw.dynamics.inverse.engine.NewtonEulerEngine`) for the PUMA 560, one class a
machine, and the machines the file commands and the API build through."""

import warnings

import numpy as np

from robohw.dataflow.component import configuration_line
from robohw.dataflow.folding import fold_for_tiles
from robohw.dynamics.inverse.accuracy import BOUND_FRACTION, accuracy_promise
from robohw.dynamics.inverse.array import NewtonEulerArray
from robohw.dynamics.inverse.array_plan import ArrayPlan
from robohw.dynamics.inverse.codec import (
    decode_torques,
    encode_states,
    field_formats,
    torque_codes,
    torque_field,
    torque_payloads,
)
from robohw.dynamics.inverse.engine import ENGINE_INTERVAL, LinkFramePlan, NewtonEulerEngine
from robohw.dynamics.inverse.engine_defaults import (
    ENGINE_WIDTH,
    engine_clustered,
    engine_interval,
    engine_lut_budget,
    engine_narrowed,
    engine_robot_intervals,
    engine_robot_widths,
    robot_digest,
    shipped_digest,
)
from robohw.dynamics.inverse.model import coded_friction
from robohw.dynamics.inverse.model import model_outputs as model_outputs_dynamics
from robohw.dynamics.inverse.pipeline import (
    MAX_WIDTH,
    MIN_WIDTH,
    NewtonEulerPipeline,
    NewtonEulerPlan,
)
from robohw.dynamics.inverse.reference import inverse_dynamics
from robohw.engine.design import OnEngine
from robohw.robots.sampling import sample_states, within_a_turn
from robohw.sim.design import TAG_WIDTH, Design, Workload, tagged_payloads
from robohw.sim.measured_width import MeasuredWidthWarning, measured_width
from robohw.sim.place_and_route import PlaceAndRoute
from robohw.support.held import Held

__all__ = ["DynamicsDesign", "PipelineDesign", "ArrayDesign", "EngineDesign", "DESIGNS",
           "MACHINES", "machine_design", "default_machine", "DYNAMICS_WIDTH", "DYNAMICS_FOLD",
           "ENGINE_WIDTH", "engine_robot_widths", "engine_robot_intervals", "engine_lut_budget",
           "robot_digest"]

# The paper's designs (the pipeline, the array) at 20 bits: the narrowest at which their model is
# within 1e-4 of max |tau| on the PUMA 560 over 20,000 states within its limits (8.8e-5;
# 3.3e-4 at 18: docs/robots.md), the rule of robohw.sim.measured_width; the pipeline folded by
# 6, its shared products one DSP tile each (robohw.hw.multiplier.split_product up to 22 bits).
DYNAMICS_WIDTH = 20
DYNAMICS_FOLD = 6
class DynamicsDesign(Design):
    """What every inverse-dynamics machine's design shares: its workload (states within the
    robot's limits), its check against the float64 reference, its accuracy, its payload
    formats and its generation for another robot (:meth:`for_robot`). A subclass is one
    machine: :meth:`plan` (what it is built from, without building it), :meth:`hardware` (the
    machine for any robot; the file commands and the API build through it too),
    :meth:`configuration`, :meth:`structure`, :meth:`summary_for` and :meth:`progress_label`.
    """
    family = "dynamics"
    error_unit = "of max abs(tau)"
    takes_robot = True
    own_robot = "puma560"        # the robot its default width is the design's own for

    def __init__(self, name, robot="puma560", *, width=DYNAMICS_WIDTH):
        self.robot = robot
        super().__init__(name, self.summary_for(robot if isinstance(robot, str) else robot.name),
                         width, (width,), (MIN_WIDTH, MAX_WIDTH))

    # --- the machine (a subclass's) ------------------------------------------------------------
    def plan(self, robot, width, fold=None, *, bound_fraction=BOUND_FRACTION):
        """The machine's plan for ``robot`` at ``width`` bits, ``fold`` cycles a state (``None``:
        the machine's own default; the bits are the same at every fold), as the bit-exact
        model takes it (``bound_fraction`` ``None``: its accuracy unchecked)."""
        raise NotImplementedError

    def hardware(self, robot, width, fold=None, *, bound_fraction=BOUND_FRACTION,
                 tag_width=TAG_WIDTH):
        """The machine for ``robot`` at ``width`` bits, ``fold`` cycles a state (``None``: the
        machine's own default), a user tag of ``tag_width`` bits."""
        raise NotImplementedError

    def progress_label(self, dut):
        """What a progress line calls the states going through ``dut``."""
        raise NotImplementedError

    # --- the flows' design ---------------------------------------------------------------------
    def for_robot(self, robot, label, digest, hardware=None):
        """The design for ``robot``: the default width is the narrowest from the one that keeps
        its model within 1e-4 of max |tau| (:meth:`_measured_width`) whose proven bound meets
        :data:`~robohw.dynamics.inverse.accuracy.BOUND_FRACTION` of the largest torque (the
        hardware's refusal rule), and it is exported at that width alone (:meth:`_fitted` then fits
        the machine's own parameters)."""
        twin = super().for_robot(robot, label, digest, hardware)
        twin._for(robot)
        high = twin.width_range[1]
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", MeasuredWidthWarning)
            measured = twin._measured_width(robot)
        twin.default_width = next(
            (w for w in range(measured, high + 1)
             if accuracy_promise(twin.plan(twin.hardware_robot, w,
                                           bound_fraction=None)).fraction <= BOUND_FRACTION),
            high)
        for warning in said:            # a measurement says once what the width became
            text = str(warning.message)
            if twin.default_width > measured and issubclass(warning.category,
                                                            MeasuredWidthWarning):
                text += (f"; widened to {twin.default_width} bits, the narrowest whose proven "
                         f"bound is within {BOUND_FRACTION:.0%} of the largest torque the "
                         f"limits allow")
            warnings.warn(text, warning.category, stacklevel=2)
        twin.widths = (twin.default_width,)
        twin._fitted(robot)
        return twin

    def _measured_width(self, robot):
        """The narrowest width that keeps ``robot``'s model within 1e-4 of max |tau|: the
        design's own for its own robot, a shipped arm's from the machine's table
        (:meth:`_table_width`), else measured (:func:`~robohw.sim.measured_width.measured_width`,
        from the design's own up)."""
        digest = robot_digest(robot)
        if digest == shipped_digest(self.own_robot):
            return self.default_width
        width = self._table_width(digest)
        if width is not None:
            return width
        return measured_width(self, robot, digest, self.default_width).width

    def _table_width(self, digest):
        """A shipped arm's width measured over 100,000 states, or ``None`` (the base's:
        none)."""
        return None

    def sample_error(self, robot, width, count, seed):
        """The largest error of the model at ``width`` bits against the float64 reference over
        ``count`` states within ``robot``'s limits (drawn with ``seed``), a share of the largest
        torque among them (Coulomb friction's sign taken of qd's code, as the machine takes it:
        :func:`~robohw.dynamics.inverse.model.coded_friction`)."""
        plan = self.plan(self.hardware_of(robot), width, bound_fraction=None)
        q, qd, qdd = sample_states(plan.robot, count, np.random.default_rng(seed))
        q = within_a_turn(plan.robot, q)
        codes = encode_states(plan, q, qd, qdd)
        out, _ = model_outputs_dynamics(plan, codes)
        tau = decode_torques(plan, out)
        reference = inverse_dynamics(robot, q, qd, qdd) + coded_friction(plan, qd, codes)
        return np.abs(tau - reference).max() / np.abs(reference).max()

    def _for(self, robot):
        """Set what the machine's parameters are for ``robot`` (as given to :meth:`for_robot`;
        its plans take :attr:`hardware_robot`), before its width is chosen (the base's:
        nothing)."""

    def _fitted(self, robot):
        """Set what depends on the chosen width (the base's: nothing); ``robot`` as in
        :meth:`_for`."""

    def build(self, width=None, fold=None):
        return self.hardware(self.hardware_robot, width or self.default_width,
                             fold or self.default_fold)

    def width_of(self, dut):
        return dut.plan.width

    def workload(self, dut, count, seed=0):
        q, qd, qdd = sample_states(dut.plan.robot, count, np.random.default_rng(seed))
        codes = encode_states(dut.plan, q, qd, qdd)
        return Workload(tagged_payloads(codes, count), {"states": (q, qd, qdd), "codes": codes})

    def check(self, dut, workload, outputs):
        equal = self.equals_model(dut, workload, outputs)
        got = decode_torques(dut.plan, torque_codes(dut.plan, outputs))
        q, qd, qdd = workload.context["states"]
        reference = inverse_dynamics(self.reference_robot(dut), q, qd, qdd) + \
            coded_friction(dut.plan, qd, workload.context["codes"])
        errors = np.abs(got - reference).max(-1) / np.abs(reference).max()
        return equal, errors

    def accuracy(self, dut):
        return {torque_field(k): bound for k, bound in enumerate(dut.plan.accuracy.bounds, 1)}

    def error_bound(self, dut, workload):
        reference = inverse_dynamics(self.reference_robot(dut), *workload.context["states"])
        return dut.plan.accuracy.bound / np.abs(reference).max() + self.snapped_share

    def model_outputs(self, dut, workload):
        out, inside = model_outputs_dynamics(dut.plan, workload.context["codes"])
        return torque_payloads(out, in_bounds=inside)

    def formats(self, dut):
        return field_formats(dut.plan, "in_bounds")

    def checked_limits(self, dut):
        """``{field: {"codes": [low, high], "values": [low, high]}}``: the codes of each
        fixed-point input field that ``in_bounds`` accepts (the proven ranges: the robot's
        velocity, acceleration and prismatic position limits, to half an LSB) and what they
        are in the field's units."""
        return dut.plan.checked_limits

    def sign_constants(self, dut):
        """``{input: {...}}``: each joint's Coulomb friction as the machine holds it (the
        constant, its code and format, the velocity field whose code's sign selects it, the
        torque it is added to), or ``None`` for a machine without friction."""
        plan = dut.plan
        if not plan.sign_inputs:
            return None
        out = {}
        for name, sign in plan.sign_inputs.items():
            k = plan.input_joints[name]
            frac = plan.traced_inputs[name]
            out[name] = {"term": "Coulomb friction", "value": plan.robot.joints[k - 1].friction,
                         "code": sign.code, "format": f"fixed({plan.width}, {frac})",
                         "selected_by": sign.field, "added_to": torque_field(k)}
        return out


class PipelineDesign(DynamicsDesign):
    """The Newton-Euler pipeline (:class:`~robohw.dynamics.NewtonEulerPipeline`): every step a
    node of one traced graph, recursive-doubling scans, its products shared ``fold`` ways."""
    default_fold = DYNAMICS_FOLD

    def summary_for(self, robot_name):
        return (f"joint torques of {robot_name}, Newton-Euler with recursive-doubling scans, "
                f"fully pipelined")

    def plan(self, robot, width, fold=None, *, bound_fraction=BOUND_FRACTION):
        return NewtonEulerPlan(robot, width=width, fold=fold or 1, bound_fraction=bound_fraction)

    def hardware(self, robot, width, fold=None, *, bound_fraction=BOUND_FRACTION,
                 tag_width=TAG_WIDTH):
        return NewtonEulerPipeline(robot, width=width, fold=fold or 1, tag_width=tag_width,
                                   bound_fraction=bound_fraction)

    def _fitted(self, robot):
        # The smallest fold from the registry's whose shared products fit the ECP5-85F's DSP
        # tiles at the chosen width.
        self.default_fold = fold_for_tiles(
            self.plan(self.hardware_robot, self.default_width, bound_fraction=None),
            least=self.default_fold)

    def progress_label(self, dut):
        return f"states through the {dut.latency}-cycle Newton-Euler pipeline"

    def configuration(self, dut):
        return configuration_line(dut, f"{dut.plan.cordic.width}-bit CORDICs, ")

    def structure(self, dut):
        return "multipliers", dut.resources()["multipliers"]


class ArrayDesign(DynamicsDesign):
    """Lee & Chang's processor array (:class:`~robohw.dynamics.inverse.array.NewtonEulerArray`) of
    ``processors`` elements (``None``: one per joint) on a ``network`` (``"direct"`` or
    ``"shuffle"``); one state every program's length."""

    def __init__(self, name, robot="puma560", *, processors=None, network="direct"):
        self.processors, self.network = processors, network
        super().__init__(name, robot)

    def summary_for(self, robot_name):
        elements = "one element per joint" if self.processors is None else \
            f"{self.processors} elements"
        return (f"joint torques of {robot_name}, Lee & Chang's array of {elements}, "
                f"{self.network} network")

    def _for(self, robot):
        # One element per joint, as the PUMA's six.
        self.processors = robot.dof
        self.summary = self.summary_for(robot.name)

    def plan(self, robot, width, fold=None, *, bound_fraction=BOUND_FRACTION):
        return ArrayPlan(robot, processors=self.processors, network=self.network, width=width,
                         bound_fraction=bound_fraction)

    def hardware(self, robot, width, fold=None, *, bound_fraction=BOUND_FRACTION,
                 tag_width=TAG_WIDTH):
        return NewtonEulerArray(robot, processors=self.processors, network=self.network,
                                width=width, tag_width=tag_width, bound_fraction=bound_fraction)

    def progress_label(self, dut):
        return (f"states through the {dut.plan.processors}-element array ({dut.interval} "
                f"cycles a state)")

    def configuration(self, dut):
        plan = dut.plan
        return (f"N = {plan.dof}, {plan.processors} elements, {plan.network.name} network, "
                f"{plan.width}-bit datapath, multiplier {plan.multiplier_latency} and adder "
                f"{plan.adder_latency} cycles, {plan.program_cycles}-cycle program")

    def structure(self, dut):
        return "processing elements", dut.plan.processors


class EngineDesign(OnEngine, DynamicsDesign):
    """The modulo-scheduled engine (:class:`~robohw.dynamics.inverse.engine.NewtonEulerEngine`): its
    fold is its initiation interval, cycles per state (``robohw sim --ii``); its units scale
    with the robot. For a shipped arm its width is :func:`engine_robot_widths`' (the proven
    bound's rule may widen it), else measured (:meth:`_measured_width`); its interval is
    :func:`~robohw.dynamics.inverse.engine_defaults.engine_interval`'s (an arm's placed one, for
    another the smallest whose engine is estimated within :func:`engine_lut_budget`), searched
    when first asked for: the bit-exact model, the same at every interval, never asks. An arm
    of seven joints or more runs on the engine by locality
    (:func:`~robohw.dynamics.inverse.engine_defaults.engine_clustered`), its products on
    narrowed operands where the bound allows
    (:func:`~robohw.dynamics.inverse.engine_defaults.engine_narrowed`)."""
    _interval = ENGINE_INTERVAL         # the design's own robot's; None: not searched yet

    def __init__(self, name, robot="puma560"):
        super().__init__(name, robot, width=ENGINE_WIDTH)

    def summary_for(self, robot_name):
        return (f"joint torques of {robot_name}, Newton-Euler in link frames modulo-scheduled "
                f"on multipliers and adders over rotating register files")

    def _table_width(self, digest):
        return engine_robot_widths().get(digest)

    def _fitted(self, robot):
        self._interval = None

    @property
    def default_fold(self):
        """The default interval, :data:`~robohw.dynamics.inverse.engine.ENGINE_INTERVAL` for the
        design's own robot, :func:`~robohw.dynamics.inverse.engine_defaults.engine_interval`'s
        for the robot of :meth:`for_robot`."""
        if self._interval is None:
            self._interval = engine_interval(self.hardware_robot, self.default_width,
                                             robot_digest(self.robot))
        return self._interval

    def plan(self, robot, width, fold=None, *, bound_fraction=BOUND_FRACTION):
        # The traced graph alone, uncompiled: its bits are the same at every interval.
        return LinkFramePlan(robot, width=width, bound_fraction=bound_fraction,
                             narrowed=engine_narrowed(robot, self._digest_of(robot)))

    def hardware(self, robot, width, fold=None, *, bound_fraction=BOUND_FRACTION,
                 tag_width=TAG_WIDTH):
        digest = self._digest_of(robot)
        return NewtonEulerEngine(robot, width=width, interval=fold or ENGINE_INTERVAL,
                                 clustered=engine_clustered(robot, digest),
                                 narrowed=engine_narrowed(robot, digest), tag_width=tag_width,
                                 bound_fraction=bound_fraction)

    def _digest_of(self, robot):
        """The :func:`robot_digest` the defaults file keys ``robot`` by: the design's robot's
        for its hardware form (:attr:`hardware_robot`), another robot's own."""
        if robot is not self.hardware_robot:
            return robot_digest(robot)
        return shipped_digest(self.robot) if isinstance(self.robot, str) else \
            robot_digest(self.robot)


# router2 finishes the congested dynamics designs where router1 stalls (docs/dynamics.md).
_ROUTER2_FOR_100 = PlaceAndRoute(router="router2", target_mhz=100,
                                 reason="router1 stalled on its congestion; router2 routed for "
                                        "100 MHz routes it (figures: docs/results.md, "
                                        "docs/dynamics.md)")


DESIGNS = (
    PipelineDesign("dynamics-pipelined").placed_by(
        _ROUTER2_FOR_100, unplaced="does not route on the ECP5-85F at any fold tried (6 to 48, at "
                                   "18 bits; 20, its default, is wider) with any placer or "
                                   "router: docs/dynamics.md"),
    ArrayDesign("dynamics-array", processors=6, network="direct").placed_by(_ROUTER2_FOR_100),
    EngineDesign("dynamics-engine").placed_by(_ROUTER2_FOR_100),
)

# The machines of the file commands' and the API's --design, by name.
MACHINES = {"pipelined": PipelineDesign, "array": ArrayDesign, "engine": EngineDesign}


def machine_design(design, robot, *, processors=None, network="direct"):
    """The design the file commands and the API build ``design`` (a :data:`MACHINES` name)
    through, for ``robot``; the array's ``processors`` (``None``: one per joint) and
    ``network``."""
    name = f"dynamics-{design}"
    if design == "array":
        return ArrayDesign(name, robot, processors=processors, network=network)
    return MACHINES[design](name, robot)


# This run's default machines by design and robot digest.
_DEFAULT_MACHINES = Held(8)


def default_machine(design, robot, hardware=None):
    """The design of :func:`machine_design` ``design`` generated for ``robot`` at its defaults
    (:meth:`~DynamicsDesign.for_robot`: its width and interval, those of ``robohw sim --robot``
    and ``robohw export --robot``), once a run; ``hardware``: ``robot``'s hardware form, if
    converted."""
    digest = robot_digest(robot)
    return _DEFAULT_MACHINES.get((design, digest), lambda: machine_design(
        design, robot).for_robot(robot, None, digest, hardware))
