"""The dynamics engine's shared machinery: any traced dataflow graph
(:mod:`robohw.dataflow`) modulo-scheduled onto pipelined multipliers, adders and CORDICs whose
values live in rotating register files, one state every initiation interval: the files'
allocation (:mod:`~robohw.engine.registers`), the compiler (:mod:`~robohw.engine.program`), a
plan compiled (:mod:`~robohw.engine.plan`) and the machine as a stream component
(:mod:`~robohw.engine.component`)."""
