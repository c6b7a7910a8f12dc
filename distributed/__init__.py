"""The thesis's distributed Newton-Euler: one computer per link of the Stanford (JPL) arm,
exchanging terms with its neighbours, waiting for them or predicting them from the previous
sample (``docs/references.md``, ref. 9): the link
terms (:mod:`.link_terms`), the predictions (:mod:`.prediction`), the trajectories
(:mod:`.thesis`, :mod:`.quintic`), Bejczy's simplified model (:mod:`.simplified_dynamics`), the
link computers (:mod:`.machine`) and their model (:mod:`.model`), a run (:mod:`.study`), the
``distributed`` command's files (:mod:`.files`) and the report section (:mod:`.report`)."""

from robohw.distributed.family import FAMILY
from robohw.distributed.files import hardware_runner, write_run
from robohw.distributed.report import write_distributed_report
from robohw.distributed.study import run_study
from robohw.distributed.thesis import VIA_Q6

__all__ = ["FAMILY", "VIA_Q6", "run_study", "hardware_runner", "write_run",
           "write_distributed_report"]
