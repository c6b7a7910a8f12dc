"""A traced algorithm planned as a fixed-point pipeline, and its bit-exact model.

:class:`TracedPlan` is what a traced design is built from, without building it: the algorithm
traced over the robot's constants (:mod:`robohw.dataflow.graph`, constants folded) from its
inputs, every value's format, and the schedule (every node as soon as its operands are ready,
or the windows of a subclass's processing elements; folded by ``k``, the modulo schedule of
:mod:`robohw.dataflow.folding`). Its inputs are payload fields: a joint angle enters through a
pipelined circular CORDIC that gives its cos and sin (a binary angle, one turn ``2**width``,
plus the joint's offset), any other value enters as a fixed-point code with fraction bits of its
own, and a **sign input** (:meth:`TracedPlan.sign_input`) is a constant whose sign a field's
code selects: ``c`` for a positive code, ``-c`` for a negative one, 0 for code 0 (Coulomb
friction, ``F_c sign(qd)``). :class:`~robohw.dataflow.component.TracedPipeline` builds a plan
without sign inputs, the engine (:mod:`robohw.engine`) any plan; :func:`model_codes` evaluates
it bit for bit.
"""

import functools
import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from robohw.cordic.config import CordicConfig
from robohw.cordic.model import cordic_model
from robohw.cordic.pipelined import pipelined_latency, pipelined_register_bits
from robohw.dataflow.evaluate import evaluate_fixed, evaluate_float
from robohw.dataflow.folding import modulo_schedule, product_pools
from robohw.dataflow.graph import RangeError, Tracer, assign_formats, error_bounds, frac_bits_for
from robohw.dataflow.narrowing import NARROWED, narrowed_products
from robohw.dataflow.operations import Op, Unit, operation
from robohw.dataflow.pipeline import (
    INPUT_CELL,
    MULTIPLIER_OPERAND_REGISTERS,
    MULTIPLIER_PRODUCT_REGISTERS,
    asap_schedule,
    delay_taps,
)
from robohw.hw.checks import check_integer
from robohw.hw.fixed import ANGLE_ERROR_LSB, angle_to_code, wrap
from robohw.hw.stream import check_fold

__all__ = ["TracedPlan", "SignInput", "TRIG_ERROR_LSB", "TRIG_MARGIN", "model_codes",
           "checked_model_codes", "in_bounds", "traced_float_values"]

# cos and sin leave the CORDIC within 1.25 LSB (2**-(width - 3) each; robohw.cordic.accuracy) of
# [-1, 1]; a margin of 1/64 covers that at every width from 12 up.
TRIG_MARGIN = 1.0 / 64
# Worst-case error of the CORDIC's cos and sin, in their LSBs: the stated bound of the circular
# system (robohw.cordic.accuracy.ERROR_BOUND_LSB; tests/systolic/test_inertia_arrays.py holds them
# equal).
TRIG_ERROR_LSB = 1.25


@dataclass(frozen=True)
class SignInput:
    """A sign input's payload ``field`` (whose code's sign selects) and ``code``: the constant in
    the input node's format (``round(c * 2**frac)``)."""
    field: str
    code: int


class TracedPlan:
    """Base of the plans of traced designs; a subclass traces its algorithm in :meth:`_trace`
    (with :meth:`angle_input`, :meth:`value_input` and :meth:`sign_input`) and returns its
    outputs.

    **The contract the machines read** (the dataflow pipeline,
    :class:`~robohw.dataflow.component.TracedPipeline`, and the engine,
    :class:`~robohw.engine.component.Engine` with a program of
    :func:`~robohw.engine.plan.compile_plan`; nothing else of a plan is read by them):

    - the graph: :attr:`tracer` (its nodes, kinds from :mod:`robohw.dataflow.operations`),
      :attr:`live` (the nodes the outputs need, in order), :attr:`formats` (each live node's
      :class:`~robohw.dataflow.graph.Format`), :attr:`outputs` (``{key: node or float}``) and
      :attr:`output_fracs`;
    - the inputs: :attr:`width`, :attr:`cordic` (the angles' CORDIC), :attr:`angle_fields`,
      :attr:`value_fields`, :attr:`sign_inputs`, :attr:`held_fields`, :meth:`field_offset`,
      :attr:`field_limits` (what ``in_bounds`` checks) and :attr:`traced_inputs`;
    - the dataflow pipeline only: :attr:`fold`, :attr:`schedule`, :attr:`latency`,
      :attr:`interval`, :attr:`cordic_slots`, :attr:`ring_fanout` and :meth:`resources`.

    The bit-exact model (:func:`model_codes`) reads the same.

    Parameters
    ----------
    width : int
        Bits of every datapath value; each value has its own fraction bits, as many as its
        proven range leaves (:attr:`output_fracs` for the outputs).
    fold : int
        Cycles per input, 1 or more. With 1 every operation has its own hardware; folded by
        ``k`` (:mod:`robohw.dataflow.folding`), the products share ``ceil(products / k)``
        multipliers, the joints' sin and cos ``ceil(joints / k)`` CORDICs, and the latency is
        the modulo schedule's.
    trig_width : int
        Bits of the CORDICs and of the angle fields (default ``width``; at most ``width``).

    Attributes
    ----------
    ring_fanout : int or None
        Folded, the most flip-flops one copy of the phase ring enables
        (:func:`~robohw.dataflow.pipeline.ring_parts`); ``None`` (the base's): one copy per
        cell of the trace. Not used on an ECP5 with a clock network per phase: one ring there
        enables every register through them (:mod:`robohw.hw.global_buffer`).
    trig_integer_bits : int
        Bits of the CORDIC's cos and sin codes above the binary point, sign included: 3 (the
        base's: the CORDIC's default format, reals in [-4, 4)), or 2 (reals in [-2, 2): cos
        and sin within :data:`TRIG_MARGIN` of [-1, 1] fit, with one fraction bit more).
    proven : bool
        Whether the error analysis proves the plan's results (the base's, ``True``). A plan
        whose results a certificate checks row by row instead sets ``False``: its formats come
        from the proven ranges alone (:func:`~robohw.dataflow.graph.assign_formats`'
        ``ranges_only``), its checks guard the ranges with no error subtracted, a register
        that overflows wraps, as the hardware's does (the certificate fails such a row), and
        its :attr:`output_bounds` are infinite.
    pool_resolution : float or None
        Folded, give each community of the graph (:func:`~robohw.dataflow.folding.product_pools`
        at this resolution) multipliers of its own; ``None`` (every plan's default): one
        pool. Pools shorten the placed wires but did not raise the clock on the pipelines
        measured (``docs/notes/2026-11-dynamics-pipelined-routing.md``).
    """
    ring_fanout = None
    pool_resolution = None
    trig_integer_bits = 3
    proven = True

    def __init__(self, *, width, fold, trig_width=None):
        self._width, self._fold = width, check_fold(fold)
        trig_width = width if trig_width is None else trig_width
        check_integer("trig_width", trig_width, maximum=width)
        self.cordic = CordicConfig("circular", "rotation", width=trig_width,
                                   frac_bits=trig_width - self.trig_integer_bits)
        self.tracer = Tracer(fold=True)
        self._input_fracs, self._input_errors, self._input_ready = {}, {}, {}
        # {joint: payload field} of the angles, {input node name: payload field} of the rest,
        # {payload field: code added to it at the input}.
        self._angle_fields, self._value_fields, self._offsets = {}, {}, {}
        self._sign_inputs = {}           # {input node name: SignInput}
        self._joint_offsets = {}         # {joint: offset (rad)} of the angle inputs
        self._field_limits = {}
        self._true_errors = None
        outputs = self._trace()
        self.outputs = {key: (value if not isinstance(value, (int, float)) else float(value))
                        for key, value in outputs.items()}
        for key, value in self.outputs.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise RangeError(self._origin_named(
                    f"the output {key} is a constant beyond float64: no fixed-point format "
                    f"holds it"))
        self.live = self.tracer.live(self.outputs.values())
        self._format_errors = {}
        self.formats = self._formats(self._format_errors)
        self.narrowed = frozenset()     # the products of narrowed operands (_narrow)
        room = self._narrowing_room()
        if room:
            self._narrow(room)
        live = {self.tracer.nodes[k].name for k in self.live}
        joints = [k for k in self._angle_fields if {f"cos{k}", f"sin{k}"} & live]
        self.cordic_slots = {k: divmod(index, fold) for index, k in enumerate(joints)}

    def _formats(self, errors=None):
        """Every live node's format at the plan's width (``errors``, a dict if given, takes
        their error bounds: :func:`~robohw.dataflow.graph.assign_formats`)."""
        try:
            return assign_formats(self.tracer, self.live, self._width, self._input_fracs,
                                  self._input_errors, errors, ranges_only=not self.proven)
        except RangeError as error:
            raise error.renamed(self._origin_named(error)) from None

    def _narrowing_room(self):
        """``{output key: bound}``: how much each output's proven bound may grow where its
        products take operands narrowed to a DSP tile's (:meth:`_narrow`), or ``None`` (the
        base's: every product at the full width). A subclass may state it from
        :attr:`output_bounds` at the full width."""
        return None

    def _narrow(self, room):
        """Turn the products :func:`~robohw.dataflow.narrowing.narrowed_products` chooses
        within ``room`` into their narrowed kinds (``nmul``, ``ncmul``) and give every node its
        format again: the graph and its proven bounds are the narrowed ones from then on."""
        outputs = {key: node for key, node in self.outputs.items()
                   if not isinstance(node, float)}
        chosen = narrowed_products(self.tracer, self.live, self.formats, self._format_errors,
                                   self._width, outputs, room)
        for k in chosen:
            node = self.tracer.nodes[k]
            node.op = NARROWED[node.op]
        self.narrowed = frozenset(chosen)
        self.formats = self._formats(self._format_errors)
        self._true_errors = None

    @functools.cached_property
    def schedule(self):
        """The dataflow pipeline's schedule, made when first read (the engine never reads it):
        unfolded, every node as soon as its operands are ready (or a subclass's windows);
        folded, the modulo schedule of :mod:`robohw.dataflow.folding`, each CORDIC taking its
        joint's angle in its phase and giving cos and sin a CORDIC pipeline later."""
        if self._fold == 1:
            return self._unfolded_schedule()
        ready = dict(self._input_ready)
        for k, (_, slot) in self.cordic_slots.items():
            ready[f"cos{k}"] = ready[f"sin{k}"] = slot + pipelined_latency(self.cordic)
        pools = (product_pools(self.tracer, self.live, self.pool_resolution)
                 if self.pool_resolution else None)
        return modulo_schedule(self.tracer, self.live, self._fold, ready, pools=pools)

    def _values_origin(self, largest=True):
        """Where the traced constants come from, as a :class:`~robohw.dataflow.graph.RangeError`
        names it (a subclass's robot file, and with ``largest`` its largest value), or
        ``None`` (the base's)."""
        return None

    def _origin_named(self, error, largest=True):
        origin = self._values_origin(largest)
        return str(error) if origin is None else f"{origin}: {error}"

    # --- construction (for the subclass's _trace) --------------------------------------------
    def _trace(self):
        """Trace the algorithm on :attr:`tracer`; return ``{output key: node or number}``."""
        raise NotImplementedError

    def angle_input(self, k, field, offset):
        """``(cos, sin)`` nodes of joint ``k``'s angle, the payload ``field`` plus ``offset``
        (rad), from a CORDIC."""
        trig = 1 + TRIG_MARGIN
        nodes = []
        for name in (f"cos{k}", f"sin{k}"):
            with self.tracer.cell(*INPUT_CELL):
                nodes.append(self.tracer.input(name, -trig, trig))
            self._input_fracs[name] = self.cordic.frac_bits
            self._input_errors[name] = TRIG_ERROR_LSB * 2.0 ** -self.cordic.frac_bits
            self._input_ready[name] = pipelined_latency(self.cordic)
        self._angle_fields[k] = field
        self._joint_offsets[k] = float(offset)
        try:
            self._offsets[field] = int(angle_to_code(offset, self.cordic.width))
        except OverflowError:
            raise RangeError(self._origin_named(
                f"joint {k}'s offset of {offset:g} rad: beyond a {self.cordic.width}-bit binary "
                f"angle's exact codes (2**{47 - self.cordic.width} turns)", False)) from None
        return tuple(nodes)

    def value_input(self, name, field, low, high, offset=0.0, error_lsb=0.5):
        """The node of a fixed-point input, the payload ``field`` plus ``offset``, with its
        value in ``[low, high]`` (offset included); its fraction bits are as many as the range
        leaves (of the field and of the sum), and it carries an error of ``error_lsb`` LSBs
        (half an LSB: the field rounded to them; one: the offset rounded too)."""
        frac = frac_bits_for(max(abs(low), abs(high), abs(low - offset), abs(high - offset)),
                             self._width)
        with self.tracer.cell(*INPUT_CELL):
            node = self.tracer.input(name, low, high)
        self._input_fracs[name] = frac
        self._input_errors[name] = error_lsb * 2.0 ** -frac
        self._input_ready[name] = 0
        self._value_fields[name] = field
        self._offsets[field] = round(offset * 2.0 ** frac)
        # The field codes the proven ranges cover: the value within [low, high] up to half an
        # LSB of its rounding.
        self._field_limits[field] = (math.ceil((low - offset) * 2.0 ** frac - 0.5),
                                     math.floor((high - offset) * 2.0 ** frac + 0.5))
        return node

    def sign_input(self, name, field, constant):
        """The node of ``constant`` times the sign of the payload ``field``'s code (0 for code
        0), in ``[-|constant|, |constant|]``; the constant rounded to the node's format once
        (an error of half its LSB). The sign is the code's: a value within half an LSB of
        zero has code 0, so the node is 0 where the value's own sign would give
        ``+-constant``; a design states what that does to its promise."""
        magnitude = abs(float(constant))
        frac = frac_bits_for(magnitude, self._width)
        with self.tracer.cell(*INPUT_CELL):
            node = self.tracer.input(name, -magnitude, magnitude)
        self._input_fracs[name] = frac
        self._input_errors[name] = 0.5 * 2.0 ** -frac
        self._input_ready[name] = 0
        self._sign_inputs[name] = SignInput(field, round(float(constant) * 2.0 ** frac))
        return node

    def _unfolded_schedule(self):
        """Every node as soon as its operands are ready; a subclass may give windows."""
        return asap_schedule(self.tracer, self.live, self._input_ready)

    def _output_sources(self):
        """``{key: node}``: the node whose register holds each computed output (a negated
        output reads its operand's line); constant outputs have none."""
        return {key: node.args[0] if node.op == Op.NEG else node
                for key, node in self.outputs.items() if not isinstance(node, float)}

    def _processor(self, cell):
        """The processing element a cell belongs to (for counting)."""
        return cell

    # --- properties --------------------------------------------------------------------------
    @property
    def width(self):
        return self._width

    @property
    def fold(self):
        """Cycles per input (1: unfolded)."""
        return self._fold

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid: the schedule's length (the
        last output's ready cycle)."""
        return max((self.schedule.ready[source.index]
                    for source in self._output_sources().values()), default=1)

    @property
    def interval(self):
        """Cycles between results under continuous input: the fold."""
        return self._fold

    @property
    def throughput(self):
        return Fraction(1, self._fold)

    @property
    def traced_inputs(self):
        """Fraction bits of every input of the traced graph by name: ``cos{k}`` and ``sin{k}``
        from the CORDICs, the fixed-point inputs by their names."""
        return dict(self._input_fracs)

    @property
    def input_fracs(self):
        """Fraction bits of the fixed-point payload fields (of a robot state: ``qd{k}``,
        ``qdd{k}``, and ``q{k}`` of prismatic joints), by field."""
        return {self.value_fields[name]: bits for name, bits in self.traced_inputs.items()
                if name in self.value_fields}

    @property
    def angle_fields(self):
        """``{joint: payload field}`` of the inputs that go through a CORDIC."""
        return dict(self._angle_fields)

    @property
    def value_fields(self):
        """``{input node name: payload field}`` of the fixed-point inputs."""
        return dict(self._value_fields)

    @property
    def sign_inputs(self):
        """``{input node name: SignInput}`` of the sign inputs."""
        return dict(self._sign_inputs)

    @property
    def held_fields(self):
        """``{input node name: what a machine holds for it}`` of every input but the angles: a
        fixed-point input's payload field, a sign input's own name (the constant its field's
        sign selects, held as a value of its own)."""
        return {**self._value_fields, **{name: name for name in self._sign_inputs}}

    def field_offset(self, field):
        """The code added to a payload field at the input (wrapping, as angles do)."""
        return self._offsets.get(field, 0)

    def angle_codes(self, field, radians):
        """The codes of an angle ``field`` for joint angles ``radians`` (an array): the field
        plus its offset code is the binary angle nearest to the angle plus the joint's offset,
        so the hardware's angle carries one rounding (:data:`~robohw.hw.fixed.ANGLE_ERROR_LSB`),
        not the angle's and the offset's. A field the traced algorithm does not take (an
        inertia matrix does not depend on the first joint's angle) is the angle's code."""
        radians, width = np.asarray(radians, dtype=np.float64), self.cordic.width
        joint = next((k for k, name in self._angle_fields.items() if name == field), None)
        if joint is None:
            return angle_to_code(radians, width)
        return wrap(angle_to_code(radians + self._joint_offsets[joint], width) -
                    self._offsets[field], width)

    @property
    def output_bounds(self):
        """``{key: bound}``: the worst-case error of each output, in its units, against the
        exact result of the algorithm at the float64 inputs (for a state within the proven
        ranges): the formats' error analysis (:func:`~robohw.dataflow.graph.error_bounds`)
        from the inputs' errors against their true values: a joint angle's binary angle
        (:meth:`angle_codes`: :data:`~robohw.hw.fixed.ANGLE_ERROR_LSB`) through the CORDIC
        (:data:`TRIG_ERROR_LSB`), a fixed-point field's rounding (and its offset's), each
        register's rounding, and the output's own."""
        if not self.proven:
            return {key: math.inf for key in self.outputs}
        bounds = self._error_bounds()
        sources = self._output_sources()
        fracs = self.output_fracs
        return {key: bounds[sources[key].index] if key in sources else
                abs(node - round(node * 2.0 ** fracs[key]) * 2.0 ** -fracs[key])
                for key, node in self.outputs.items()}

    def _error_bounds(self):
        """``{index: bound}`` of every live node against the exact value at the float64
        inputs (see :attr:`output_bounds`), computed once."""
        if self._true_errors is None:
            errors = dict(self._input_errors)
            for k in self._angle_fields:
                turn_lsb = 2 * math.pi * 2.0 ** -self.cordic.width     # a radian per code
                for name in (f"cos{k}", f"sin{k}"):
                    errors[name] = TRIG_ERROR_LSB * 2.0 ** -self.cordic.frac_bits + \
                        ANGLE_ERROR_LSB * turn_lsb                      # |d cos| <= |d angle|
            self._true_errors = error_bounds(self.tracer, self.live, self.formats, errors)
        return self._true_errors

    @property
    def checks(self):
        """``{index: code}`` of the nodes whose range only holds under an assumption
        (:meth:`~robohw.dataflow.graph.Tracer.assume`): a machine flags a row where such a
        node's result, before it is stored, exceeds this code in magnitude, the range less
        the node's error bound (:attr:`output_bounds`' analysis). A row that passes every
        check has every exact value within its range, so every later range and error bound
        holds (by induction over the graph); a row that fails is flagged, whatever its
        registers then hold. ``RangeError`` where a range is within its error bound (the
        width too narrow to check it). A plan not :attr:`proven` checks the range itself."""
        bounds = self._error_bounds() if self.proven else {}
        out = {}
        for k in sorted(self.tracer.assumed & set(self.live)):
            node = self.tracer.nodes[k]
            room = node.magnitude - bounds.get(k, 0.0)
            if room <= 0:
                raise RangeError(self._origin_named(
                    f"{node.name or node.op} (node {k}): its range {node.magnitude:.3g} is "
                    f"within its error bound {bounds[k]:.3g} at {self._width} bits: no check "
                    f"of it is proven", False), value=node.name, least=node.magnitude,
                    bound=bounds[k])
            out[k] = math.floor(room * 2.0 ** self.formats[k].frac)
        return out

    @property
    def field_limits(self):
        """``{payload field: (low, high)}``: the codes of each fixed-point field that the
        proven ranges cover (angles have none: they wrap)."""
        return dict(self._field_limits)

    @property
    def checked_limits(self):
        """``{field: {"codes": [low, high], "values": [low, high]}}``: :attr:`field_limits`
        with what each field's codes are in its units, as an export sidecar states what
        ``in_bounds`` checks (:meth:`robohw.sim.design.Design.checked_limits`)."""
        fracs = self.input_fracs
        return {field: {"codes": [low, high],
                        "values": [low * 2.0 ** -fracs[field], high * 2.0 ** -fracs[field]]}
                for field, (low, high) in self._field_limits.items()}

    @property
    def output_fracs(self):
        """Fraction bits of each output (``{key: bits}``)."""
        out = {}
        for key, node in self.outputs.items():
            if isinstance(node, float):
                # As many fraction bits as the constant's magnitude leaves (a small constant
                # capped at width - 1 would lose its precision: 1.5e-4 at 24 bits by 2e-4).
                out[key] = frac_bits_for(abs(node), self._width) if node else self._width - 1
            else:
                out[key] = self.formats[node.index].frac
        return out

    def resources(self):
        """Processing elements, CORDICs, multipliers (constant and variable; folded, the shared
        ones, which take the constant products too), adders and register bits of the datapath
        (registers, delay lines, CORDIC stages, the folded plan's held angles, multiplier
        registers and product nodes' rounding registers; the stream control's are the
        component's)."""
        nodes = [self.tracer.nodes[k] for k in self.live]
        ops = Counter(node.op for node in nodes)
        processors = {self._processor(node.cell) for node in nodes if node.op != Op.INPUT}
        reads = [(source.index, self.latency) for source in self._output_sources().values()]
        taps = delay_taps(self.tracer, self.live, self.schedule, reads)
        w = self._width
        registered = sum(1 for node in nodes if operation(node.op).registered)
        delay_stages = sum(max(t) for t in taps.values() if t)
        slots = self.cordic_slots.values()
        cordics = len({unit for unit, _ in slots})
        held = sum(1 for _, slot in slots if slot)  # angles waiting for their phase
        cordic_bits = cordics * pipelined_register_bits(self.cordic)
        folded = self._fold > 1
        # A shared multiplier's registers: its operand pairs and double-width products.
        multiplier_bits = self.schedule.multipliers * 2 * w * (
            MULTIPLIER_OPERAND_REGISTERS + MULTIPLIER_PRODUCT_REGISTERS) if folded else 0
        # Each product node's first rounding step: the halved product's w + 1 bits and its
        # sticky bit (robohw.dataflow.pipeline).
        multiplier_bits += len(self.schedule.unit) * (w + 2) if folded else 0
        return {
            "processing_elements": len(processors),
            "cordics": cordics,
            "multipliers": self.schedule.multipliers if folded else ops[Op.MUL],
            "constant_multipliers": 0 if folded else ops[Op.CMUL],
            "adders": sum(count for op, count in ops.items() if operation(op).unit == Unit.ADD),
            "register_bits": (registered + delay_stages + held) * w + cordic_bits +
            multiplier_bits,
        }


def _input_codes(plan, codes):
    """The traced graph's inputs from payload codes: cos and sin from the CORDIC model."""
    inputs = {}
    one = 1 << plan.cordic.frac_bits
    live = {plan.tracer.nodes[k].name for k in plan.live}
    for k, field in plan.angle_fields.items():
        if {f"cos{k}", f"sin{k}"} & live:
            # An angle wraps at the CORDIC's width, as its field does in the machines.
            z = wrap(np.asarray(codes[field], dtype=np.int64) + plan.field_offset(field),
                     plan.cordic.width)
            out = cordic_model(plan.cordic, np.full(z.shape, one), np.zeros_like(z), z)
            inputs[f"cos{k}"], inputs[f"sin{k}"] = out.x, out.y
    for name, field in plan.value_fields.items():
        # The offset is added in a signed(width) signal: it wraps (only out of bounds).
        inputs[name] = wrap(np.asarray(codes[field], dtype=np.int64) + plan.field_offset(field),
                            plan.width)
    for name, sign in plan.sign_inputs.items():
        inputs[name] = np.sign(np.asarray(codes[sign.field], dtype=np.int64)) * sign.code
    return inputs


def in_bounds(plan, codes):
    """``(B,)`` bool: every fixed-point field's code within :attr:`TracedPlan.field_limits`
    (what a pipeline built with an ``in_bounds`` flag streams out)."""
    batch = len(np.atleast_1d(next(iter(codes.values()))))
    inside = np.ones(batch, dtype=bool)
    for field, (low, high) in plan.field_limits.items():
        value = np.asarray(codes[field])
        inside &= (value >= low) & (value <= high)
    return inside


def model_codes(plan, codes, overflow="raise"):
    """Output codes ``{key: array}`` for payload codes ``{field: array}``, bit for bit what the
    pipeline streams out (``int64``, or Python integers above
    :data:`~robohw.dataflow.evaluate.INT64_WIDTH` bits). ``overflow``: see
    :func:`~robohw.dataflow.evaluate.evaluate_fixed` (``"wrap"`` for inputs outside the
    proven ranges)."""
    batch = len(np.atleast_1d(next(iter(codes.values()))))
    values = evaluate_fixed(plan.tracer, plan.live, plan.formats, _input_codes(plan, codes),
                            plan.width, overflow)
    return _output_codes(plan, values, batch)


def _output_codes(plan, values, batch):
    """``{key: (batch,) codes}`` of the plan's outputs from its nodes' ``values``: a constant
    output as its code in every row."""
    fracs = plan.output_fracs
    out = {}
    for key, node in plan.outputs.items():
        if isinstance(node, float):
            out[key] = np.full(batch, round(node * 2.0 ** fracs[key]), dtype=np.int64)
        else:
            out[key] = np.broadcast_to(values[node.index], (batch,)).copy()
    return out


def checked_model_codes(plan, codes):
    """``(out, passed)``: :func:`model_codes`' output codes for every row (registers wrap, as
    the hardware's do, on a row that fails) and ``(B,)`` bool, every check of
    :attr:`TracedPlan.checks` passed. ``OverflowError`` if a register overflows on a row
    within :func:`in_bounds` whose checks pass (the formats promise it never does); on a plan
    not :attr:`~TracedPlan.proven`, such a row's registers wrap, as the hardware's do, and its
    checks are what the hardware's are."""
    checks = plan.checks
    batch = len(np.atleast_1d(next(iter(codes.values()))))
    passed = np.ones(batch, dtype=bool)
    overflowed = np.zeros(batch, dtype=bool)
    low, high = -(1 << (plan.width - 1)), (1 << (plan.width - 1)) - 1

    def observe(k, result):
        nonlocal passed, overflowed
        if k in checks:
            passed = passed & np.asarray(abs(result) <= checks[k], dtype=bool)
        overflowed = overflowed | np.asarray((result < low) | (result > high), dtype=bool)

    values = evaluate_fixed(plan.tracer, plan.live, plan.formats, _input_codes(plan, codes),
                            plan.width, "wrap", observe=observe)
    if not plan.proven:
        return _output_codes(plan, values, batch), passed
    broken = overflowed & passed & in_bounds(plan, codes)
    if broken.any():
        raise OverflowError(f"a register overflowed on {int(broken.sum())} rows within the "
                            f"limits whose checks passed: the formats' promise is broken")
    return _output_codes(plan, values, batch), passed


def traced_float_values(plan, inputs):
    """The plan's traced graph in float64 (``inputs``: values by input name): ``{key: (B,)
    array}``; equal to the references up to float rounding, which checks the tracing."""
    batch = len(np.atleast_1d(next(iter(inputs.values()))))
    values = evaluate_float(plan.tracer, plan.live, inputs)
    return {key: np.full(batch, node) if isinstance(node, float) else
            np.broadcast_to(values[node.index], (batch,)) for key, node in plan.outputs.items()}
