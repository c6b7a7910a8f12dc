"""Every top-level design of the project, by name: each family's designs
(:class:`~robohw.sim.design.Design`), gathered in the families' order, for the report,
``robohw sim``, ``robohw export``, ``robohw synth`` and ``robohw sweep``.

=============================  ================================================================
name                           component
=============================  ================================================================
``cordic-pipelined``           :class:`robohw.cordic.pipelined.PipelinedCordic`, circular
                               rotation
``cordic-word-serial``         :class:`robohw.cordic.word_serial.WordSerialCordic`, circular
                               rotation
``ik-best-pipelined``          :class:`robohw.ik.pipeline.TaskGraphPipeline`, best PUMA IK graph
``ik-best-word-serial``        the same graph on word-serial CCMs
``ik-paper-pipelined``         the reconstruction of Lee & Chang's graph
``ik-paper-word-serial``       the same on word-serial CCMs
``inertia-linear``             :class:`robohw.systolic.LinearInertiaArray` for the PUMA 560
``inertia-logdepth``           :class:`robohw.systolic.LogDepthInertiaArray` for the PUMA 560
``dynamics-pipelined``         :class:`robohw.dynamics.NewtonEulerPipeline` for the PUMA 560
``dynamics-array``             :class:`robohw.dynamics.array.NewtonEulerArray`, 6 elements,
                               direct
``platform-ik-pipelined``      :class:`robohw.ik.pipeline.TaskGraphPipeline` of the hexapod's
                               legs (:func:`robohw.legs.ik_graph.leg_ik_graph`): one processor
                               per leg
``platform-ik-word-serial``    the same on word-serial CCMs
``platform-dynamics-machine``  :class:`robohw.legs.leg_machine.LegMachine` of the hexapod's
                               inverse dynamics (:func:`robohw.legs.dynamics_graph
                               .dynamics_graph`): Gosselin's machine
``platform-fk-machine``        :class:`robohw.legs.servo.FkServo` of the hexapod on Gosselin's
                               machine: the forward kinematics' servo loop, two iterations a row
=============================  ================================================================
"""

from robohw.cordic import CORDIC_DESIGNS
from robohw.dynamics import DYNAMICS_DESIGNS
from robohw.ik import IK_DESIGNS
from robohw.legs import PLATFORM_DESIGNS
from robohw.systolic import INERTIA_DESIGNS

__all__ = ["DESIGNS", "design"]

DESIGNS = {d.name: d for family in (CORDIC_DESIGNS, IK_DESIGNS, INERTIA_DESIGNS,
                                    DYNAMICS_DESIGNS, PLATFORM_DESIGNS) for d in family}


def design(name):
    """The :class:`~robohw.sim.design.Design` called ``name``; ``ValueError`` naming the known
    ones otherwise."""
    try:
        return DESIGNS[name]
    except KeyError:
        raise ValueError(f"unknown design {name!r}; known: {', '.join(DESIGNS)}") from None
