"""The engine's parts that compute (:mod:`robohw.engine.component`), each built from the
program and the control (:class:`~robohw.engine.control.EngineControl`) alone:

- **the held state** (:func:`held_state`): the payload's fields (plus their offsets) captured
  in the interval's first cycle, and each sign input's constant selected by its field's sign;
- **units** (:func:`build_unit`): :func:`~robohw.dataflow.unit.fixed_point_unit` multipliers (one
  DSP tile each up to :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_BITS` bits on an ECP5, the
  tile's registered product up to 18 bits, :func:`~robohw.hw.multiplier.split_product`
  above), multipliers of narrowed operands (one tile each, :mod:`robohw.hw.narrowing`) and
  adders, and reciprocal units (:mod:`robohw.hw.reciprocal`,
  :mod:`robohw.hw.reciprocal_sqrt`); an operand port of several files reads the OR of their
  words, each kept only by the file the program names in that cycle;
- **loaders** (:func:`build_loader`) give a held field, selected and registered, to the files that
  hold it; **CORDICs** (:func:`build_cordic`, pipelined, one angle a cycle) take a held angle and
  give its cos and sin to theirs;
- **the writers' copies** (:func:`writer_copies`): a loader's field and a CORDIC's cos and sin
  reach their files through register copies, one a group of files.

Datapath registers are reset-less.
"""

import functools
import operator

from amaranth.hdl import Const, Mux, Signal, signed, unsigned

from robohw.cordic.pipelined import pipelined_datapath
from robohw.dataflow.operations import MULTIPLIER_KINDS, RECIPROCAL_KINDS, Unit
from robohw.dataflow.unit import fixed_point_unit
from robohw.engine.machine import unit_product
from robohw.hw.narrowing import narrowing_drop
from robohw.hw.reciprocal import reciprocal
from robohw.hw.reciprocal_sqrt import reciprocal_sqrt
from robohw.hw.register_file import read_port

__all__ = ["held_state", "build_unit", "build_loader", "build_cordic", "writer_copies"]


def writer_copies(m, program, values, kept=False):
    """``{file: {writer: signal}}``: what each file's writers write, ``values`` (``{writer:
    signal}``) but for a loader's field and a CORDIC's cos and sin, which reach their
    files through register copies, one a group of files
    (:meth:`~robohw.engine.program.EngineProgram.fanout`), each a cycle after its
    writer's register, and a value of another cluster's unit, which reaches them through its
    hop (:attr:`~robohw.engine.program.EngineProgram.hops`: a copy of the unit's result
    register for the cluster, a cycle after it). With ``kept`` every copy and hop is marked
    ``keep``: copies of one register have the same inputs, which Yosys merges into one unless
    the flow keeps them (:mod:`robohw.flows.synth`)."""
    values = dict(values)
    attrs = {"keep": 1} if kept else {}
    for hop, writer in program.hops.items():
        values[hop] = Signal(values[writer].shape(), name=hop, reset_less=True, attrs=attrs)
        m.d.sync += values[hop].eq(values[writer])
    sources = {name: {w: values[w] for w in file.writers}
               for name, file in program.files.items()}
    for writer in program.fanned_writers():
        for j, files in enumerate(program.fanout(writer)):
            copy = Signal(values[writer].shape(), name=f"{writer}_copy{j}",
                          reset_less=True, attrs=attrs)
            m.d.sync += copy.eq(values[writer])
            for file in files:
                sources[file][writer] = copy
    return sources


def held_state(m, plan, payload, first):
    """``{payload field: signal}``: each field plus its offset, captured in the interval's
    first cycle (angles wrap, as angles do). On an ECP5 ``first`` reaches their enables
    on a clock network (:func:`~robohw.hw.global_buffer.global_buffer`): every held bit
    across the chip, the fabric net the PUMA 560's engine at II 5 was limited by."""
    held = {}
    for field in (*plan.angle_fields.values(), *plan.value_fields.values()):
        held[field] = Signal(payload.shape()[field].shape, name=f"{field}_held",
                             reset_less=True)
        with m.If(first):
            m.d.sync += held[field].eq(getattr(payload, field) +
                                       plan.field_offset(field))
    for name, sign in plan.sign_inputs.items():
        held[name] = Signal(signed(plan.width), name=f"{name}_held", reset_less=True)
        code = getattr(payload, sign.field)
        with m.If(first):
            m.d.sync += held[name].eq(Mux(code > 0, sign.code, Mux(code < 0, -sign.code, 0)))
    return held


def _operand_reader(m, unit, plan, program, control, registers):
    """``operands(fetch) -> (a, b, issued)`` of a unit
    (:func:`~robohw.dataflow.unit.fixed_point_unit`'s): its operand ports read their files at
    the addresses the program gives (a cycle ahead, rotated)."""
    files = {port: program.reads.get((unit, port), []) for port in "ab"}

    def operands(fetch):
        values = []
        for port in "ab":
            shapes, reached = {}, files[port]
            for file in reached:
                shapes |= {f"{port}_in_{file}": unsigned(1),
                           f"{port}_at_{file}": range(max(program.files[file].depth, 2))}

            def word(fields, issue, port=port, reached=reached):
                node = fields[port]
                source = program.source.get(((unit, port), node))
                out = {}
                for file in reached:
                    chosen = node is not None and source == file
                    out[f"{port}_in_{file}"] = int(chosen)
                    out[f"{port}_at_{file}"] = (program.offset(file, node, issue.cycle)
                                                if chosen else 0)
                return out
            ahead_fields = fetch(-1, shapes, word)
            words = []
            for file in reached:
                data = registers.read(file, control.address(f"{unit}_{port}_{file}", file,
                                          ahead_fields[f"{port}_at_{file}"]))
                if len(reached) > 1:
                    # Each file's word kept only in the cycles the port reads it: an OR.
                    chosen = Signal(name=f"{unit}_{port}_in_{file}", reset_less=True)
                    m.d.sync += chosen.eq(ahead_fields[f"{port}_in_{file}"])
                    data = Mux(chosen, data, 0)
                words.append(data)
            values.append(functools.reduce(operator.or_, words) if words else
                          Const(0, signed(plan.width)))
        issued = fetch(0, {"valid": unsigned(1)}, lambda f, _: {"valid": 1})["valid"]
        return values[0], values[1], issued
    return operands


def build_unit(m, micro, unit, kind, plan, program, control, registers, platform, checks=None):
    """One multiplier, adder or reciprocal unit: ``(value, failed)``, its result's register
    and (``None`` where it has none of ``checks``, ``{node: code}``) its check flag, high
    where the result readable in that cycle exceeds its code
    (:func:`~robohw.dataflow.unit.fixed_point_unit`'s ``limits``). Its operand ports read
    their files at the addresses the program gives (a cycle ahead, rotated)."""
    issues = [issue for issue in program.issues if issue.unit == unit]
    instructions = [(issue.cycle, program.operation(issue), issue) for issue in issues]
    limits = {issue: checks[issue.node] for issue in issues if issue.node in (checks or {})}
    operands = _operand_reader(m, unit, plan, program, control, registers)
    if kind in RECIPROCAL_KINDS:
        if limits:
            raise ValueError(f"{unit}: the engine checks multipliers' and adders' results, "
                             f"not a reciprocal's")
        return _reciprocal_unit(m, micro, unit, kind, instructions, operands,
                                program.machine.fold(kind)), None
    result = []

    def written(fetch, offset, value):
        # The files write it (_file_write) in the cycle ``offset`` after the issue: one
        # before it is readable.
        assert offset + 1 == latency, (unit, offset, latency)
        result.append(value)

    multiplier = kind in MULTIPLIER_KINDS
    latency = (program.machine.multiplier_latency if multiplier else
               program.machine.adder_latency)
    if kind == Unit.NMUL:
        product = {"narrow": narrowing_drop(plan.width)}        # a tile's registered product
    else:
        product = unit_product(plan.width, balanced=bool(program.machine.clusters))
    flags = fixed_point_unit(m, micro, unit, multiplier, instructions, width=plan.width,
                             latency=latency, operands=operands, write=written,
                             platform=platform, limits=limits or None, **product)
    return result[0], (flags[1] if limits else None)


def _reciprocal_unit(m, micro, unit, kind, instructions, operands, fold):
    """A reciprocal (``kind`` ``Unit.RECIP``) or reciprocal square root (``Unit.RSQRT``) unit of
    ``fold`` (:func:`~robohw.engine.machine.reciprocal_fold`), its result's register returned:
    the operand read in the issue cycle and registered; in the next its shift (the numerator's
    exponent, wired where the unit has one), negation and (folded) start bit into the
    recurrence (:func:`~robohw.hw.reciprocal.reciprocal`,
    :func:`~robohw.hw.reciprocal_sqrt.reciprocal_sqrt`), whose result register the files
    write in the cycle after it holds it
    (:func:`~robohw.engine.machine.reciprocal_unit_latency`)."""
    def fetch(offset, shapes, word):
        label = f"{unit}_s{offset}" if offset >= 0 else f"{unit}_sm{-offset}"
        return micro.fetch(shapes, {cycle + offset: word(fields, issue)
                                    for cycle, fields, issue in instructions}, label)

    a, _, _ = operands(fetch)
    held = Signal(a.shape(), name=f"{unit}_a", reset_less=True)
    m.d.sync += held.eq(a)
    shifts = {word["shift"] for _, word, _ in instructions} or {0}
    wanted = {}
    if len(shifts) > 1:
        wanted["shift"] = range(max(shifts) + 1)
    if any(word["neg_a"] for _, word, _ in instructions):
        wanted["negate"] = unsigned(1)
    if fold > 1:
        wanted["valid"] = unsigned(1)         # a folded unit's start bit
    fields = fetch(1, wanted, lambda f, _: {"shift": f["shift"], "negate": int(f["neg_a"]),
                                            "valid": 1}) if wanted else {}
    compute = reciprocal if kind == Unit.RECIP else reciprocal_sqrt
    return compute(m, held, fields.get("shift", min(shifts)), Const(1), unit,
                   negate=fields.get("negate", 0), fold=fold, start=fields.get("valid"))


def build_loader(m, micro, unit, program, held):
    """A loader, its output returned: in each cycle its program names, one held field
    selected (the select registered in that cycle), registered in the next, then copied
    (:func:`writer_copies`) for its files to write (:data:`~robohw.engine.program.LOAD_LATENCY`)."""
    loads = [load for load in program.loads if load.unit == unit]
    fields = sorted({load.field for load in loads})
    ahead_fields = micro.fetch(
        {"select": range(max(len(fields), 2))},
        {load.cycle - 1: {"select": fields.index(load.field)} for load in loads},
        f"{unit}_sm1")
    select = Signal(range(max(len(fields), 2)), name=f"{unit}_select", reset_less=True)
    m.d.sync += select.eq(ahead_fields["select"])
    chosen = read_port([held[f] for f in fields], select, m=m, name=f"{unit}_field")
    value = Signal(chosen.shape(), name=f"{unit}_value", reset_less=True)
    m.d.sync += value.eq(chosen)
    return value


def build_cordic(m, micro, unit, plan, program, held):
    """A pipelined CORDIC, ``{"cos<k>": signal, "sin<k>": signal}`` returned: in each
    cycle its program names, a held angle into its angle register; a pipeline later its cos
    and sin, which their files write."""
    trigs = [trig for trig in program.trigs if trig.unit == unit]
    fields = sorted({trig.field for trig in trigs})
    config = plan.cordic
    select = micro.fetch({"select": range(max(len(fields), 2))},
                         {trig.cycle - 1: {"select": fields.index(trig.field)}
                          for trig in trigs}, f"{unit}_sm1")["select"]
    chosen = Signal(range(max(len(fields), 2)), name=f"{unit}_select", reset_less=True)
    m.d.sync += chosen.eq(select)
    angle = Signal(signed(config.width), name=f"{unit}_angle", reset_less=True)
    m.d.sync += angle.eq(read_port([held[f] for f in fields], chosen, m=m,
                                   name=f"{unit}_field"))
    shape = signed(config.width)
    out = pipelined_datapath(m, config, Const(1 << config.frac_bits, shape), Const(0, shape),
                             angle, Const(1), name=unit)
    # The angle is registered in the issue cycle, enters the pipeline in the next and
    # leaves it pipelined_latency later, is copied (writer_copies) in the cycle after
    # (trig_latency - 1 after the issue): written then, readable a cycle after.
    suffix = unit[len(Unit.CORDIC):]
    return {f"cos{suffix}": out["x"], f"sin{suffix}": out["y"]}
