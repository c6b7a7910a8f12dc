"""The dynamics family's registered designs for the flows, in the report's order: inverse
dynamics' (:mod:`robohw.dynamics.inverse.designs`), then forward dynamics'
(:mod:`robohw.dynamics.forward.design`), then the gradient's
(:mod:`robohw.dynamics.gradient.design`), each with how it is placed and routed."""

from robohw.dynamics.forward.design import DESIGNS as FORWARD_DESIGNS
from robohw.dynamics.gradient.design import DESIGNS as GRADIENT_DESIGNS
from robohw.dynamics.inverse.designs import DESIGNS as INVERSE_DESIGNS

__all__ = ["DESIGNS"]

DESIGNS = INVERSE_DESIGNS + FORWARD_DESIGNS + GRADIENT_DESIGNS
