"""The vocabulary of operations (robohw.dataflow.operations): every kind's rules in one place. A
toy kind, ``a + 2 b`` on the adders, added through the vocabulary alone, traced, sized, modelled
bit for bit and run through the engine's RTL equal to the model; the built-in kinds' rules
against the float64 values they bound."""

import numpy as np
import pytest
from amaranth.hdl import signed

from robohw.dataflow import operations
from robohw.dataflow.operations import (
    OPERATIONS,
    ROUNDING,
    Op,
    Operation,
    frac_bits_for,
    hdl_rounded,
    operation,
    register,
)
from robohw.dataflow.plan import TracedPlan, model_codes, traced_float_values
from robohw.engine.component import Engine
from robohw.engine.plan import compile_plan
from robohw.hw.fixed import round_shift
from robohw.sim.harness import run_stream


class TwiceAdded(Operation):
    """``a + 2 b``: an adder's micro-operation with ``b`` shifted one bit further."""
    kind, arity, registered, counted_as, unit = "add2b", 2, True, "add", "add"

    def interval(self, args, constant):
        a, b = args
        return a.low + 2 * b.low, a.high + 2 * b.high

    def evaluate(self, args, constant):
        return args[0] + 2 * args[1]

    def cap(self, fracs, constant, width):
        return max(fracs), None

    def propagated(self, node, errors, formats, constant_format):
        a, b = node.args
        return errors[a.index] + 2 * errors[b.index]

    def fixed(self, node, fmt, args, arg_formats, width):
        top = max(f.frac for f in arg_formats)
        a = np.asarray(args[0]) << (top - arg_formats[0].frac)
        b = np.asarray(args[1]) << (top - arg_formats[1].frac + 1)
        return round_shift(a + b, top - fmt.frac, ROUNDING)

    def hdl(self, node, fmt, args, arg_formats):
        top = max(f.frac for f in arg_formats)
        return hdl_rounded((args[0] << (top - arg_formats[0].frac)) +
                           (args[1] << (top - arg_formats[1].frac + 1)), top - fmt.frac)

    def word(self, node, fmt, fracs, args, negs):
        top = max(fracs)
        return {"b": args[1].index, "neg_b": negs[1], "shift_a": top - fracs[0],
                "shift_b": top - fracs[1] + 1, "shift": top - fmt.frac}


@pytest.fixture
def toy(monkeypatch):
    """The toy kind in the vocabulary for one test (``register``, undone after it)."""
    monkeypatch.setattr(operations, "OPERATIONS", dict(OPERATIONS))
    return register(TwiceAdded())


class ToyPlan(TracedPlan):
    """``(x + 2 y) * z + 2 (x * 0.75)`` over three fixed-point fields, on the engine."""

    def __init__(self, width, interval):
        super().__init__(width=width, fold=1)
        self.program = compile_plan(self, interval)

    def _trace(self):
        x = self.value_input("x", "x", -1.5, 1.5)
        y = self.value_input("y", "y", -0.8, 0.8)
        z = self.value_input("z", "z", -2.0, 2.0)
        first = self.tracer.apply("add2b", (x, y))
        return {"out": self.tracer.apply("add2b", (first * z, x * 0.75))}


def test_a_toy_kind_runs_through_the_engine(toy):
    plan = ToyPlan(width=16, interval=3)
    nodes = [plan.tracer.nodes[k] for k in plan.live]
    assert sum(node.op == "add2b" for node in nodes) == 2
    assert plan.tracer.counts(plan.live) == {"mul": 2, "add": 2, "div": 0}
    rng = np.random.default_rng(4)
    fracs = plan.input_fracs
    values = {"x": rng.uniform(-1.5, 1.5, 24), "y": rng.uniform(-0.8, 0.8, 24),
              "z": rng.uniform(-2.0, 2.0, 24)}
    codes = {f: np.round(v * 2.0 ** fracs[f]).astype(np.int64) for f, v in values.items()}
    expected = model_codes(plan, codes)["out"]
    # Within its proven bound of the float64 value.
    exact = (values["x"] + 2 * values["y"]) * values["z"] + 1.5 * values["x"]
    assert np.allclose(traced_float_values(plan, values)["out"], exact, rtol=0, atol=1e-12)
    got = expected * 2.0 ** -plan.output_fracs["out"]
    assert np.all(np.abs(got - exact) <= plan.output_bounds["out"])
    # The engine's RTL, every unit's program from the words the vocabulary gives.
    dut = Engine(plan, plan.program, {f: signed(16) for f in "xyz"}, {"out": "out"}, tag_width=4)
    inputs = [{**{f: int(codes[f][b]) for f in "xyz"}, "tag": b % 16} for b in range(24)]
    run = run_stream(dut, inputs)
    assert [o["tag"] for o in run.outputs] == [p["tag"] for p in inputs]
    assert [o["out"] for o in run.outputs] == expected.tolist()


def test_registering_checks_its_argument(toy):
    with pytest.raises(ValueError, match="op kind must be a new name, not 'add2b'"):
        register(TwiceAdded())
    with pytest.raises(TypeError, match="op must be an Operation, not 3"):
        register(3)
    with pytest.raises(ValueError, match="unknown op 'nothing'"):
        operation("nothing")
    with pytest.raises(ValueError, match="op 'sqrt': no bit-exact value"):
        operation(Op.SQRT).fixed(None, None, None, None, 16)


def test_the_kinds_are_their_names():
    assert Op.ADD == "add" and f"{Op.CMUL}" == "cmul" and {"mul": 1}[Op.MUL] == 1
    assert {kind for kind, op in OPERATIONS.items() if op.unit == "mul"} == {"mul", "cmul"}
    assert {kind for kind, op in OPERATIONS.items() if op.unit == "add"} == {"add", "sub",
                                                                              "addc"}


@pytest.mark.parametrize("kind, constant", [(Op.ADD, None), (Op.SUB, None), (Op.MUL, None),
                                            (Op.ADDC, 0.3), (Op.CMUL, -1.7)])
def test_each_kinds_range_holds_its_values(kind, constant):
    from robohw.dataflow.graph import Tracer
    tracer = Tracer()
    a, b = tracer.input("a", -1.0, 2.0), tracer.input("b", 0.5, 3.0)
    op = operation(kind)
    node = tracer.apply(kind, (a, b)[:op.arity], constant)
    rng = np.random.default_rng(1)
    values = [rng.uniform(-1.0, 2.0, 1000), rng.uniform(0.5, 3.0, 1000)]
    got = op.evaluate(values[:op.arity], constant)
    assert node.low <= got.min() and got.max() <= node.high
    assert frac_bits_for(node.magnitude, 16) <= 15


@pytest.mark.parametrize("low, high", [(0.25, 3.0), (-3.0, -0.25)])
def test_the_reciprocals_range_holds_its_values(low, high):
    from robohw.dataflow.graph import Tracer
    tracer = Tracer()
    node = tracer.reciprocal(tracer.input("a", low, high))
    values = np.random.default_rng(2).uniform(low, high, 1000)
    got = operation(Op.RECIP).evaluate([values], None)
    assert node.low <= got.min() and got.max() <= node.high
    assert (node.low, node.high) == (1 / high, 1 / low)


def test_a_reciprocal_of_a_range_through_zero_is_refused():
    from robohw.dataflow.graph import RangeError, Tracer
    tracer = Tracer()
    with pytest.raises(RangeError, match=r"1 / d \(node 0\): its range \[-1, 2\] reaches 0"):
        tracer.reciprocal(tracer.input("d", -1.0, 2.0))
    # Counting a general algorithm's divisions: an unbounded node, never sized.
    counting = Tracer(fold=False)
    assert counting.reciprocal(counting.input("d", -1.0, 2.0)).high == np.inf
    with pytest.raises(ValueError, match=r"needs x's range on one side of 0"):
        operation(Op.RECIP).interval([counting.input("e", 0.0, 1.0)], None)


def _rounded_quotient(numerator, divisor):
    """``numerator / divisor`` rounded half to even, in exact rationals."""
    from fractions import Fraction
    return round(Fraction(numerator, divisor))      # Python rounds a Fraction half to even


@pytest.mark.parametrize("in_frac, out_frac, width", [(12, 9, 16), (-3, 20, 24), (40, 30, 48),
                                                      (5, 7, 16)])
def test_the_reciprocals_codes_are_the_exact_quotient_rounded_half_to_even(in_frac, out_frac,
                                                                          width):
    from robohw.dataflow.graph import Format
    rng = np.random.default_rng(in_frac + 100)
    codes = rng.integers(1, 1 << (width - 2), 400) * rng.choice([-1, 1], 400)
    shift = in_frac + out_frac
    # The numerator a power of two, the one halfway quotient is 1/2 (a = +-2**(shift + 1)):
    # rounded to 0, the even code.
    if 0 <= shift + 1 < width - 2:
        codes[:2] = [1 << (shift + 1), -(1 << (shift + 1))]
    got = operation(Op.RECIP).fixed(None, Format(out_frac), [codes], [Format(in_frac)], width)
    largest = (1 << (width - 1)) - 1        # where the quotient leaves the width: saturated
    want = [int(np.sign(a)) * min(abs(_rounded_quotient(1 << shift, int(a))), largest)
            for a in codes]
    assert [int(v) for v in got] == want
    with pytest.raises(ValueError, match=r"the numerator 2\*\*-1; the reciprocal units take"):
        operation(Op.RECIP).fixed("n", Format(-6), [codes], [Format(5)], width)
    zero = operation(Op.RECIP).fixed(None, Format(out_frac), [np.array([0])], [Format(in_frac)],
                                     width)
    assert int(zero[0]) == (1 << (width - 1)) - 1


@pytest.mark.parametrize("kind, method, exponent", [(Op.RECIP, "reciprocal", -1.0),
                                                    (Op.RSQRT, "reciprocal_sqrt", -0.5)])
def test_each_reciprocals_error_rule_bounds_its_error(kind, method, exponent):
    from robohw.dataflow.graph import Tracer
    op = operation(kind)
    rng = np.random.default_rng(3)
    low, high, error = 0.05, 2.0, 1e-3
    tracer = Tracer()
    node = getattr(tracer, method)(tracer.input("x", low, high))
    bound = op.propagated(node, {0: error}, {}, None)
    x = rng.uniform(low, high, 100_000)
    x[:2] = low                                     # where the bound is reached
    e = rng.uniform(-error, error, x.shape)
    e[:2] = -error
    assert np.abs((x + e) ** exponent - x ** exponent).max() <= bound
    assert np.abs((x + e) ** exponent - x ** exponent).max() >= 0.99 * bound
    with pytest.raises(ValueError, match="x's error bound 0.06 reaches its smallest magnitude"):
        op.propagated(node, {0: 0.06}, {}, None)


def test_the_reciprocal_square_roots_range_holds_its_values():
    from robohw.dataflow.graph import RangeError, Tracer
    tracer = Tracer()
    node = tracer.reciprocal_sqrt(tracer.input("a", 0.04, 9.0))
    values = np.random.default_rng(5).uniform(0.04, 9.0, 1000)
    got = operation(Op.RSQRT).evaluate([values], None)
    assert node.low <= got.min() and got.max() <= node.high
    assert (node.low, node.high) == pytest.approx((1 / 3, 5.0), rel=1e-15)
    with pytest.raises(RangeError, match=r"1 / sqrt\(d\) \(node 2\): its range \[0, 2\] is "
                                         r"not above 0"):
        tracer.reciprocal_sqrt(tracer.input("d", 0.0, 2.0))
    with pytest.raises(ValueError, match=r"1 / sqrt\(x\) needs x's range above 0"):
        operation(Op.RSQRT).interval([tracer.input("e", -1.0, 1.0)], None)


def _rounded_root(numerator, divisor):
    """``sqrt(numerator / divisor)`` rounded half to even, through 80 decimal digits."""
    import decimal
    with decimal.localcontext() as context:
        context.prec = 80
        root = (decimal.Decimal(numerator) / decimal.Decimal(divisor)).sqrt()
        return int(root.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_EVEN))


@pytest.mark.parametrize("in_frac, out_frac, width", [(12, 9, 16), (-3, 20, 24), (40, 30, 48),
                                                      (5, 7, 16), (2, 20, 16)])
def test_the_reciprocal_square_roots_codes_are_exact_rounded_half_to_even(in_frac, out_frac,
                                                                         width):
    from robohw.dataflow.graph import Format
    rng = np.random.default_rng(in_frac + 200)
    codes = rng.integers(1, 1 << (width - 2), 400)
    shift = 2 * out_frac + in_frac
    # sqrt(2**shift / 2**(shift + 2)) = 1/2: rounded to 0, the even code.
    if 0 <= shift + 2 < width - 2:
        codes[0] = 1 << (shift + 2)
    codes[1:3] = [0, -5]                            # outside every proven range
    got = operation(Op.RSQRT).fixed(None, Format(out_frac), [codes], [Format(in_frac)], width)
    largest = (1 << (width - 1)) - 1        # where the root leaves the width: saturated
    want = [largest if a <= 0 else min(_rounded_root(1 << shift, int(a)), largest)
            for a in codes]
    assert [int(v) for v in got] == want
    if 0 <= shift + 2 < width - 2:
        assert int(got[0]) == 0


class ReciprocalPlan(TracedPlan):
    """``x / d``, ``1 / d``, ``x / sqrt(d)`` and ``1 / sqrt(d)`` with ``d`` in [0.2, 3]: the
    reciprocals through the formats, the error bounds and the bit-exact model."""

    def _trace(self):
        x = self.value_input("x", "x", -2.0, 2.0)
        d = self.value_input("d", "d", 0.2, 3.0)
        inverse, root = self.tracer.reciprocal(d), self.tracer.reciprocal_sqrt(d)
        return {"quotient": x * inverse, "inverse": inverse, "scaled": x * root, "root": root}


@pytest.mark.parametrize("width", [16, 24, 40])
def test_a_traced_reciprocal_is_modelled_within_its_proven_bound(width):
    plan = ReciprocalPlan(width=width, fold=1)
    rng = np.random.default_rng(width)
    values = {"x": rng.uniform(-2.0, 2.0, 5000), "d": rng.uniform(0.2, 3.0, 5000)}
    values["d"][:2] = (0.2, 3.0)
    fracs = plan.input_fracs
    codes = {f: np.round(v * 2.0 ** fracs[f]).astype(np.int64) for f, v in values.items()}
    out = model_codes(plan, codes)
    exact = {"quotient": values["x"] / values["d"], "inverse": 1 / values["d"],
             "scaled": values["x"] / np.sqrt(values["d"]), "root": 1 / np.sqrt(values["d"])}
    for key, want in exact.items():
        got = np.asarray(out[key], dtype=np.float64) * 2.0 ** -plan.output_fracs[key]
        error = np.abs(got - want)
        assert error.max() <= plan.output_bounds[key], key
        # The bound is not loose by more than a few bits.
        assert error.max() >= plan.output_bounds[key] / 64, key
