"""The registered designs of the flows, by name: each family's designs
(:class:`~robohw.sim.design.Design`), gathered in the families' order, for the report,
``robohw sim``, ``robohw export``, ``robohw synth`` and ``robohw sweep``. Not every top-level
component is registered: the inertia matrix on the engine
(:class:`robohw.systolic.engine.InertiaEngine`) and the distributed link computers
(:class:`robohw.distributed.machine.LinkComputers`) are built by their families' reports and
tests.

=============================  ================================================================
name                           component
=============================  ================================================================
``cordic-pipelined``           :class:`robohw.cordic.pipelined.PipelinedCordic`, circular
                               rotation
``cordic-word-serial``         :class:`robohw.cordic.word_serial.WordSerialCordic`, circular
                               rotation
``ik-best-pipelined``          :class:`robohw.taskgraph.pipeline.TaskGraphPipeline`, best PUMA
                               IK graph
``ik-best-word-serial``        the same graph on word-serial CCMs
``ik-paper-pipelined``         the reconstruction of Lee & Chang's graph
``ik-paper-word-serial``       the same on word-serial CCMs
``inertia-linear``             :class:`robohw.systolic.LinearInertiaArray` for the PUMA 560
``inertia-logdepth``           :class:`robohw.systolic.LogDepthInertiaArray` for the PUMA 560
``dynamics-pipelined``         :class:`robohw.dynamics.NewtonEulerPipeline` for the PUMA 560
``dynamics-array``             :class:`robohw.dynamics.inverse.array.NewtonEulerArray`, 6
                               elements, direct
``dynamics-engine``            :class:`robohw.dynamics.inverse.engine.NewtonEulerEngine`, a
                               state every ``ENGINE_INTERVAL`` cycles (its fold: the initiation
                               interval)
``forward-dynamics``           :class:`robohw.dynamics.forward.engine.ForwardDynamicsEngine`,
                               the certified model's formulation on the engine with
                               reciprocal units
``dynamics-gradient``          :class:`robohw.dynamics.gradient.engine.GradientEngine`:
                               dtau/dq and dtau/dqd by forward mode on the engine, by locality
``platform-ik-pipelined``      :class:`robohw.taskgraph.pipeline.TaskGraphPipeline` of the
                               hexapod's legs (:func:`robohw.legs.ik_graph.leg_ik_graph`): one
                               processor per leg
``platform-ik-word-serial``    the same on word-serial CCMs
``platform-dynamics-machine``  :class:`robohw.legs.leg_machine.LegMachine` of the hexapod's
                               inverse dynamics (:func:`robohw.legs.dynamics_graph
                               .dynamics_graph`): Gosselin's machine
``platform-fk-machine``        :class:`robohw.legs.servo.FkServo` of the hexapod on Gosselin's
                               machine: the forward kinematics' servo loop, two iterations a row
=============================  ================================================================
"""

from robohw import cordic, distributed, dynamics, ik, legs, systolic, transputer

__all__ = ["FAMILIES", "DESIGNS", "design", "designs", "robot_designs", "design_part"]

# Every family's declaration (robohw.sim.family.Family), in the layers' order
# (pyproject.toml's [tool.robohw.layers]): a new family is one line here.
FAMILIES = tuple(package.FAMILY for package in (cordic, ik, systolic, dynamics, transputer,
                                                distributed, legs))

DESIGNS = {d.name: d for family in FAMILIES for d in family.registered_designs()}


def design(name, robot=None, *, base=None, tip=None):
    """The :class:`~robohw.sim.design.Design` called ``name``; ``ValueError`` naming the known
    ones otherwise. With ``robot`` (a robot file or shipped name, and a URDF's ``base`` and
    ``tip`` links), the design generated for that robot
    (:meth:`~robohw.sim.design.Design.for_robot`); ``ValueError`` for a design whose hardware
    takes no robot, :class:`~robohw.robots.RobotFileError` for a bad robot file."""
    return designs([name], robot, base=base, tip=tip)[name]


def designs(names, robot=None, *, base=None, tip=None):
    """``{name: design}``: :func:`design` of each of ``names``, the robot loaded and its
    hardware form converted once for them all."""
    found = {}
    for name in names:
        try:
            found[name] = DESIGNS[name]
        except KeyError:
            raise ValueError(f"unknown design {name!r}; known: {', '.join(DESIGNS)}") from None
    if robot is None:
        return found
    for name, each in found.items():
        if not each.takes_robot:
            raise ValueError(f"{name}: its hardware is not generated from a serial robot "
                             f"(--robot is for {', '.join(robot_designs())})")
    from robohw.robots.loading import hardware_robot, load_robot, robot_label, robot_record
    loaded = load_robot(robot, base=base, tip=tip)
    record = robot_record(robot, loaded, base=base, tip=tip)
    hardware = hardware_robot(loaded, terms=())
    label = robot_label(robot, tip)
    for name, each in found.items():
        found[name] = each.for_robot(loaded, label, record["description_sha256"][:16], hardware)
        found[name].robot_record = record
    return found


def robot_designs(every=False):
    """The names of the designs generated from a serial robot (``--robot``'s designs); with
    ``every``, those generated for every robot by default (``robots.md``, ``robohw export
    --robot`` and ``synth --robot`` without ``--designs``: not forward dynamics, which plans
    only for the arms its analysis proves)."""
    return [name for name, d in DESIGNS.items() if d.takes_robot and
            (d.every_robot or not every)]


def design_part(design, clusters):
    """The clusters named ``clusters`` (``link<k>``) of ``design``'s engine by locality placed
    alone (:class:`~robohw.engine.part.PartDesign`): a design on the engine whose traced
    operations name their links. ``ValueError`` for another design, or a cluster the
    engine does not have (naming those it has, when it is built)."""
    from robohw.engine.design import OnEngine
    from robohw.engine.part import PartDesign
    if not isinstance(design, OnEngine):
        engines = [name for name, each in DESIGNS.items() if isinstance(each, OnEngine)]
        raise ValueError(f"{design.name}: only a design on the engine has clusters (--clusters "
                         f"is for {', '.join(engines)})")
    return PartDesign(design, clusters)
