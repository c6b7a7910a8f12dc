"""Dataflow graphs traced from arithmetic code, as fixed-point pipelines: the graph and its
proven ranges (:mod:`~robohw.dataflow.graph`), their float64 and bit-exact evaluation
(:mod:`~robohw.dataflow.evaluate`), schedules and Amaranth registers
(:mod:`~robohw.dataflow.pipeline`), and folding onto shared multipliers
(:mod:`~robohw.dataflow.folding`). The inertia arrays and the Newton-Euler pipeline are built
on it."""
