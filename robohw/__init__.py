"""robohw: cycle-accurate hardware for robot computations in Amaranth HDL.

One import root, in layers, lowest first (stated in ``pyproject.toml``'s
``[tool.robohw.layers]``; every import runs downward, ``tests/app/test_layers.py``):

=====================  ======================================================================
``robohw.hw``          hardware primitives: fixed point, stream payloads, delay lines, the
                       stream-pipeline base
``robohw.buffers``     the optimal buffer assignment of pipelined task graphs
``robohw.robots``      robot and platform descriptions (TOML), forward kinematics, sampling
``robohw.sim``         the design contract, simulation harnesses, measurement
``robohw.support``     the commands' CSV tables, atomic outputs, progress and plots
``robohw.board``       a design on a board behind a serial link, and its host's driver
``robohw.cordic``      the CORDIC family (the arithmetic of every later family)
``robohw.dataflow``    traced dataflow graphs as fixed-point pipelines
``robohw.taskgraph``   task graphs of CORDIC modules, pipelined
``robohw.engine``      traced graphs modulo-scheduled on units over rotating register files
``robohw.ik`` ...      the families, in order: ``ik``, ``systolic`` (inertia), ``dynamics``,
                       ``transputer``, ``distributed``, ``legs``; each holds its reference,
                       model, hardware, designs, command files and report section
``robohw``             the application: the design registry, the flows, the report's summary,
                       sweeps and the command line (``robohw.commands``)
=====================  ======================================================================
"""

__version__ = "0.1.0"
