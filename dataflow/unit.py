"""A programmable fixed-point unit: a multiplier or an adder that executes, in each cycle its
micro-program names, one traced node's micro-operation
(:func:`robohw.dataflow.micro_op.micro_operation`) exactly as
:func:`robohw.dataflow.evaluate.fixed_op` computes it.

Shared by the Newton-Euler processor array's elements (:mod:`robohw.dynamics.inverse.array`) and the
modulo-scheduled engine's units (:mod:`robohw.engine.component`): both give the unit its
instructions, where its operands come from and where its results go.

The unit is a pipeline, one register stage per step, so no cycle holds more than one of them
(a file read, a carry chain, a shifter; the ECP5 at 100 MHz):

- the operands, read in the issue cycle (by the caller's ``operands``) and registered (for a
  multiplier of narrowed operands, then narrowed to a tile's 18 bits into registers of their
  own, :func:`~robohw.hw.narrowing.hdl_narrowed`: a stage more);
- their preparation: the adder's negations and alignment shifts; the multiplier's constant and
  operand complement (``-a * b = ~a * b + b``, so the DSP tile's operands stay ``width`` bits),
  into the product's operand registers (or, for a product that needs registered operands, in
  the read cycle, into the unit's);
- the sum or difference; the product (``product``'s register stages: on an ECP5 the DSP
  tile's own, :func:`~robohw.hw.multiplier.registered_product`), then its sign correction;
- the rounding half to even by a right shift, in two steps
  (:func:`~robohw.hw.fixed.rounding_shift`, then :func:`~robohw.hw.fixed.rounding_increment`)
  into a ``signed(width)`` register (wrapping, as the model's register does): the unit's least
  shift wired, the rest by a shifter of the range its instructions use;
- the write, by the caller's ``write``, in the cycle after.

A result is readable :func:`multiplier_stages` or :data:`ADDER_STAGES` cycles after its issue
(more if the unit is given a longer ``latency``: registers on the exact result).
"""

from amaranth.hdl import Const, Mux, Signal, signed, unsigned

from robohw.hw.fixed import rounding_increment, rounding_mask, rounding_shift
from robohw.hw.multiplier import PRODUCT_LATENCY, registered_product
from robohw.hw.narrowing import hdl_narrowed

__all__ = ["fixed_point_unit", "multiplier_stages", "ADDER_STAGES", "swapped_operation"]

# The adder's stages: the operand read, the preparation, the sum, the rounding's two steps, the
# write.
ADDER_STAGES = 6
# The multiplier's stages beside its product's: the operand read, the preparation, the sign
# correction, the rounding's two steps, the write.
_MULTIPLIER_STAGES_BESIDE_PRODUCT = 5


def multiplier_stages(product_latency=PRODUCT_LATENCY):
    """Cycles from a multiplier's issue to its result being readable, its product taking
    ``product_latency`` register stages (:data:`~robohw.hw.multiplier.PRODUCT_LATENCY`, or
    :data:`~robohw.hw.multiplier.SPLIT_PRODUCT_LATENCY` for a product wider than a tile)."""
    return _MULTIPLIER_STAGES_BESIDE_PRODUCT + product_latency


def swapped_operation(word):
    """A commutative micro-operation (an ``add``'s or a ``mul``'s fields) with its operands
    exchanged: the same result, ``a`` read from the other port."""
    if word["subtract"] or word["b"] is None:
        raise ValueError("only an add or a mul of two operands can swap them")
    return {**word, "a": word["b"], "b": word["a"], "neg_a": word["neg_b"],
            "neg_b": word["neg_a"], "shift_a": word["shift_b"], "shift_b": word["shift_a"]}


def _bits(limit):
    return max(1, int(limit).bit_length())


def fixed_point_unit(m, program, name, multiplier, instructions, *, width, latency, operands,
                     write, platform=None, product=registered_product,
                     product_latency=PRODUCT_LATENCY, registered_operands=False, narrow=0,
                     limits=None, hopped_preparation=False):
    """Build one unit in module ``m``; returns its issue flag (1 in the cycles it issues) and,
    with ``limits``, its check flag.

    Parameters
    ----------
    program : :class:`~robohw.hw.micro_program.MicroProgram`
        Where the unit's fields come from.
    name : str
        Prefix of its signals and fields.
    multiplier : bool
        A multiplier or an adder (the kinds each executes: the operations whose
        :attr:`~robohw.dataflow.operations.Operation.unit` is ``Unit.MUL`` or ``Unit.ADD``).
    instructions : list
        ``(cycle, word, node)``: the issue cycle, the micro-operation's fields, the node.
    width : int
        Bits of the operands and of the result.
    latency : int
        Cycles from an issue to the result being readable, at least the pipeline's
        (:func:`multiplier_stages` of ``product_latency``, :data:`ADDER_STAGES`).
    operands : callable
        ``operands(fetch) -> (a, b, issued)``: the operand values in the issue cycle and the
        issue flag. ``fetch(offset, shapes, word)`` gives the fields ``word(fields, node)``
        of each instruction ``offset`` cycles after its issue (``{field: signal}``).
    write : callable
        ``write(fetch, offset, value)``: write ``value``, the result's register, in the cycle
        ``offset`` after the issue (the register holds it from that cycle).
    product : callable
        ``product(m, a, b, enable, name, platform)``: the registered product
        (:func:`~robohw.hw.multiplier.registered_product` or
        :func:`~robohw.hw.multiplier.split_product`), ``product_latency`` cycles.
    registered_operands : bool
        Whether ``product`` takes its operands straight from registers
        (:func:`~robohw.hw.multiplier.split_product`, whose partial products in the fabric
        are two adder levels from them): the multiplier's preparation is then done in the
        read cycle, into the operand registers, instead of after them. The latency is the
        same.
    narrow : int
        A multiplier whose products take their operands narrowed
        (:func:`~robohw.hw.narrowing.hdl_narrowed`, by ``narrow`` bits each, its instructions'
        constants ``signed(18)`` codes): the operands as read, registered, then narrowed into
        registers of a tile's width, a stage more before the product's (``product`` then
        :func:`~robohw.hw.multiplier.registered_product`: one tile). 0: the full width.
    hopped_preparation : bool
        Whether a multiplier's preparation fields (the complement, the constant) come from
        the micro-program ``hopped`` (:class:`~robohw.hw.micro_program.MicroProgram`): a
        register a hop from the ROM's, beside the product's operand registers. The latency is
        the same.
    limits : dict or None
        ``{instruction's node (its third element): code}``: the instructions whose result,
        rounded before it wraps into ``width`` bits, is checked against ``code`` in magnitude
        (:attr:`~robohw.dataflow.plan.TracedPlan.checks`). The check flag returned is high,
        ``latency`` cycles after such an issue (when its result is readable), where the result
        exceeds its code: a register of its own, compared in the cycle the result's register
        is loaded in.

    Returns
    -------
    issued, or (issued, failed) with ``limits``
    """
    narrowing = 1 if narrow else 0          # the narrowing's stage
    least = multiplier_stages(product_latency) + narrowing if multiplier else ADDER_STAGES
    if latency < least:
        raise ValueError(f"{name}: latency must be at least {least} (the unit's pipeline), "
                         f"not {latency}")
    extra = latency - least
    operand_bits = width - narrow
    constant_bits = max([_bits(abs(w["constant"])) + 1 for _, w, _ in instructions] +
                        [operand_bits])
    if constant_bits > operand_bits and narrow:
        raise ValueError(f"{name}: a narrowed multiplier's constants must be "
                         f"signed({operand_bits}) codes")
    shift_limit = max([w["shift"] for _, w, _ in instructions] + [1])
    align_limit = max([max(w["shift_a"], w["shift_b"]) for _, w, _ in instructions] + [1])

    def fetch(offset, shapes, word, hopped=False):
        """The fields of stage ``offset`` (cycles after the issue)."""
        label = f"{name}_s{offset}" if offset >= 0 else f"{name}_sm{-offset}"
        return program.fetch(shapes, {cycle + offset: word(fields, index)
                                      for cycle, fields, index in instructions}, label,
                             hopped=hopped)

    def stage(value, label):
        held = Signal(value.shape(), name=f"{name}_{label}", reset_less=True)
        m.d.sync += held.eq(value)
        return held

    a, b, issued = operands(fetch)
    if multiplier:
        if narrow:
            if registered_operands:
                raise ValueError(f"{name}: a narrowed multiplier's product is a tile's, its "
                                 f"operands registered in it")
            a, b = stage(a, "read_a"), stage(b, "read_b")
        # The preparation in the read cycle, into the operand registers, for a product that
        # takes its operands straight from registers; otherwise in the cycle after (after
        # the narrowing's), into the product's own operand registers (a DSP tile's).
        prep = fetch(0 if registered_operands else 1 + narrowing,
                     {"complement": unsigned(1), "use_constant": unsigned(1),
                      "constant": signed(constant_bits)},
                     lambda f, _: {"complement": f["neg_a"] ^ f["neg_b"],
                                   "use_constant": f["b"] is None,
                                   "constant": f["constant"]}, hopped_preparation)
        if registered_operands:
            left = stage(Mux(prep["complement"], ~a, a), "a")
            right = stage(Mux(prep["use_constant"], prep["constant"], b), "b")
            complement = stage(prep["complement"], "complement")
        else:
            if narrow:
                a, b = hdl_narrowed(a, narrow), hdl_narrowed(b, narrow)
            a, b = stage(a, "a"), stage(b, "b")
            left = Mux(prep["complement"], ~a, a)
            right = Mux(prep["use_constant"], prep["constant"], b)
            complement = prep["complement"]
        exact_product = product(m, left, right, Const(1), name, platform)
        correction = Mux(complement, right, 0)
        for k in range(product_latency):
            correction = stage(correction, f"correction{k}" if k else "correction")
        for k in range(extra):
            exact_product = stage(exact_product, f"product{k}")
            correction = stage(correction, f"correction{k + product_latency}")
        exact = stage(exact_product + correction, "exact")
        offset = 2 + narrowing + product_latency + extra
    else:
        a, b = stage(a, "a"), stage(b, "b")
        prep = fetch(1, {"neg_a": unsigned(1), "neg_b": unsigned(1),
                         "use_constant": unsigned(1), "constant": signed(constant_bits),
                         "shift_a": range(align_limit + 1), "shift_b": range(align_limit + 1)},
                     lambda f, _: {key: f[key] for key in ("neg_a", "neg_b", "constant",
                                                           "shift_a", "shift_b")} |
                     {"use_constant": f["b"] is None})
        left = stage(Mux(prep["neg_a"], -a, a) << prep["shift_a"], "left")
        right = stage(Mux(prep["use_constant"], prep["constant"],
                          Mux(prep["neg_b"], -b, b) << prep["shift_b"]), "right")
        operation = fetch(2, {"subtract": unsigned(1)}, lambda f, _: {"subtract": f["subtract"]})
        exact = stage(Mux(operation["subtract"], left - right, left + right), "exact")
        for k in range(extra):
            exact = stage(exact, f"exact{k}")
        offset = 3 + extra
    # Rounding half to even by `shift` bits, in two steps (rounding_shift, then
    # rounding_increment a cycle later).
    # The unit's least shift is wired; only the rest is multiplexed (a multiplier's shifts lie
    # within a few bits of each other).
    wired = min(w["shift"] for _, w, _ in instructions) if instructions else 0
    # (at least a bit: a field of no bits would be a Verilog range of -1 to 0)
    rounding = fetch(offset, {"shift": range(max(shift_limit - wired + 1, 2)),
                              "mask": unsigned(max(rounding_mask(shift_limit, wired)
                                                   .bit_length(), 1))},
                     lambda f, _: {"shift": f["shift"] - wired,
                                   "mask": rounding_mask(f["shift"], wired)})
    halved, sticky = rounding_shift(exact, rounding["shift"], rounding["mask"], wired)
    halved, sticky = stage(halved, "halved"), stage(sticky, "sticky")
    # The increment, into a register (wrapping out of bounds, as the model's register does);
    # written in the next cycle, from registers.
    value = Signal(signed(width), name=f"{name}_value", reset_less=True)
    rounded = rounding_increment(halved, sticky)
    m.d.sync += value.eq(rounded)
    write(fetch, offset + 2, value)
    if limits is None:
        return issued
    # The check: the rounded result before it wraps, registered, against its code.
    whole = stage(rounded, "rounded")
    check = fetch(offset + 2, {"checked": unsigned(1), "limit": unsigned(width)},
                  lambda f, node: {"checked": int(node in limits), "limit": limits.get(node, 0)})
    failed = Signal(name=f"{name}_failed", reset_less=True)
    m.d.sync += failed.eq(check["checked"] & ((whole > check["limit"]) |
                                              (whole < -check["limit"])))
    return issued, failed
