"""CORDIC configuration: checked parameters and the micro-step program they imply.

A :class:`CordicConfig` is the single source of truth shared by the bit-exact model
(:mod:`robohw.cordic.model`) and both architectures (:mod:`robohw.cordic.pipelined`,
:mod:`robohw.cordic.word_serial`): they all execute its :attr:`~CordicConfig.steps`.

The iteration follows Lee & Chang, Eqs. (4)-(11), written in Walther's unified form with
``sigma`` in {-1, +1}::

    x' = x - m * sigma * (y >> s)
    y' = y + sigma * (x >> s)
    z' = z - sigma * d(s)        d(s) = atan(2^-s), 2^-s, atanh(2^-s)   for m = 1, 0, -1

Rotation mode drives ``z`` to zero (``sigma = sign(z)``); vectoring mode drives ``y`` to zero
(``sigma = -sign(y)``, with ``x >= 0`` ensured by a pre-rotation). Scale normalization
multiplies ``x`` and ``y`` by factors ``(1 + gamma * 2^-j)``, ``gamma`` in {-1, 0, 1}: either in
the same step as iteration ``j`` (Eq. 11, ``interleaved``) or as extra steps afterwards
(Eq. 10, ``after``; steps with ``gamma = 0`` are dropped).

Number formats
--------------
``x`` and ``y``, in and out: signed ``width`` bits with ``frac_bits`` fraction bits.
``z`` in the circular system: a binary angle, one turn = ``2**width`` (so it wraps for free;
``-2**(width-1)`` is -pi). ``z`` in the linear and hyperbolic systems: the same fixed-point
format as ``x`` and ``y``. Inside, every quantity carries ``guard_bits`` more fraction bits,
and ``x``/``y`` carry enough integer bits that no input can overflow them.
"""

import enum
import functools
import math
from dataclasses import dataclass

from robohw.hw.checks import check_integer
from robohw.hw.fixed import FixedFormat, Rounding

__all__ = [
    "System", "Direction", "Normalization", "Step", "CordicConfig", "hyperbolic_shifts",
    "MIN_WIDTH", "MAX_WIDTH",
]


class System(enum.Enum):
    """Coordinate system, the ``m`` of Eq. (4)."""
    CIRCULAR = 1
    LINEAR = 0
    HYPERBOLIC = -1


class Direction(enum.Enum):
    """Rotation drives ``z`` to zero; vectoring drives ``y`` to zero."""
    ROTATION = "rotation"
    VECTORING = "vectoring"


class Normalization(enum.Enum):
    """How the outputs are freed of the CORDIC gain ``K``.

    ``INTERLEAVED``: shift-and-add factors in the iteration steps (Eq. 11).
    ``AFTER``: shift-and-add factors after the iterations (Eq. 10).
    ``MULTIPLY``: one multiplication by the constant ``1/K`` at the end.
    ``NONE``: outputs keep the gain; see :attr:`CordicConfig.output_gain`.
    """
    INTERLEAVED = "interleaved"
    AFTER = "after"
    MULTIPLY = "multiply"
    NONE = "none"


@dataclass(frozen=True)
class Step:
    """One step of the program: a micro-rotation, a normalization factor, or both.

    ``shift`` is ``s(i)`` (``None`` for a pure normalization step), ``angle`` is ``d(s)`` in
    internal ``z`` units, and the step multiplies ``x`` and ``y`` by
    ``(1 + gamma * 2**-norm_shift)`` after rotating (``gamma == 0``: no factor). An
    ``expanded`` step (hyperbolic range expansion) rotates by ``(1 - 2**-shift)`` instead of
    ``2**-shift``: ``x' = x + sigma (y - (y >> shift))``.
    """
    shift: "int | None"
    angle: int
    norm_shift: int
    gamma: int
    expanded: bool = False


def hyperbolic_shifts(count):
    """The hyperbolic shift sequence 1, 2, 3, 4, 4, 5, ..., 13, 13, ..., 40, 40, ...

    Shifts ``k = 4, 13, 40, ...`` (``k' = 3k + 1``) are repeated so that the sequence
    converges (Walther 1971). Returns the first ``count`` shifts.
    """
    shifts, repeat, s = [], 4, 1
    while len(shifts) < count:
        shifts.append(s)
        if s == repeat and shifts.count(s) == 1:
            repeat = 3 * repeat + 1
            continue
        s += 1
    return tuple(shifts[:count])


def _parse_enum(enum_type, value, name):
    if isinstance(value, enum_type):
        return value
    for member in enum_type:
        if value == member.value or (isinstance(value, str)
                                     and value.lower() == member.name.lower()):
            return member
    allowed = ", ".join(repr(member.value if isinstance(member.value, str) else member.name.lower())
                        for member in enum_type)
    raise ValueError(f"{name} must be one of {allowed}, not {value!r}")


def _check_int(value, name, low, high):
    return check_integer(name, value, minimum=low, maximum=high)
    return value


# Largest data width: internal x/y values (width + guard + growth bits) must fit numpy's int64
# in the bit-exact model, with room for the rounding increment.
MAX_WIDTH = 40
# Smallest data width: the sign bit, an integer bit and two fraction bits.
MIN_WIDTH = 4
MAX_GUARD_BITS = 16
MAX_INTERNAL_WIDTH = 60


class CordicConfig:
    """Parameters of a CORDIC processor, checked eagerly, and everything derived from them.

    Parameters
    ----------
    system : :class:`System` or str or int
        ``"circular"`` (m = 1), ``"linear"`` (m = 0) or ``"hyperbolic"`` (m = -1).
    direction : :class:`Direction` or str
        ``"rotation"`` or ``"vectoring"``.
    width : int
        Bits of each of ``x``, ``y``, ``z`` at the ports, 4 to 40.
    frac_bits : int
        Fraction bits of ``x`` and ``y`` (and of ``z`` outside the circular system).
        Default ``width - 3``: reals in [-4, 4).
    iterations : int
        Number of micro-rotations ``n``. Default: until the shift reaches ``width``, so the
        residual rotation is worth at most half an output LSB at full scale (``width + 1``
        circular; linear and hyperbolic stop at shift ``min(width, frac_bits + 3)``, and
        hyperbolic adds its repeats).
    shifts : sequence of int
        The shift sequence ``s(i)``; overrides ``iterations``. Default ``0, 1, 2, ...``
        (circular, linear) or :func:`hyperbolic_shifts`.
    guard_bits : int
        Extra internal fraction bits. Default ``max(1, ceil(log2(steps))) + 1`` (with
        ``"after"`` normalization, counting ``2n - 1`` steps, an upper bound), so the truncation
        errors of all steps together stay near half an output LSB.
    normalization : :class:`Normalization` or str
        Default ``"interleaved"``. Ignored (no steps) in the linear system, whose gain is 1.
    rounding : :class:`robohw.hw.fixed.Rounding` or str
        Output rounding, ``"half_even"`` (default) or ``"truncate"``.
    expansion : int
        Hyperbolic only: ``M`` extra iterations before the others with factors
        ``(1 - 2^-k)``, ``k = M+1 .. 2`` (Hu, Harber & Bass, IEEE Trans. Computers 40(1),
        1991), which widen the domain from ``|z| < 1.118`` to 2.09, 3.44, 5.16, 6.92 for
        ``M`` = 1 .. 4 (vectoring: ``|y/x| <`` 0.806, 0.970, 0.998, 0.99994, 0.999998). Their
        gain is made up by a left shift (:attr:`norm_exponent`) and the usual normalization,
        and the default guard bits grow by the bits that gain costs. Default 0.
    """
    def __init__(self, system, direction, *, width=16, frac_bits=None, iterations=None,
                 shifts=None, guard_bits=None, normalization="interleaved", rounding="half_even",
                 expansion=0):
        if isinstance(system, int) and not isinstance(system, bool):
            try:
                system = System(system)
            except ValueError:
                raise ValueError(f"system must be one of 1, 0, -1 (m), or 'circular', 'linear', "
                                 f"'hyperbolic', not {system!r}") from None
        self.system = _parse_enum(System, system, "system")
        self.direction = _parse_enum(Direction, direction, "direction")
        self.normalization = _parse_enum(Normalization, normalization, "normalization")
        self.rounding = _parse_enum(Rounding, rounding, "rounding")
        self.width = _check_int(width, "width", MIN_WIDTH, MAX_WIDTH)
        if frac_bits is None:
            frac_bits = width - 3
        self.frac_bits = _check_int(frac_bits, "frac_bits", 0, width - 1)

        if shifts is not None:
            if iterations is not None and iterations != len(shifts):
                raise ValueError(f"iterations ({iterations}) disagrees with len(shifts) "
                                 f"({len(shifts)}); give one of them")
            shifts = tuple(shifts)
        else:
            if iterations is None:
                iterations = self._default_iterations()
            _check_int(iterations, "iterations", 1, 2 * MAX_WIDTH)
            shifts = self._default_shifts(iterations)
        self.shifts = self._check_shifts(shifts)
        _check_int(expansion, "expansion", 0, 4)
        if expansion and self.system is not System.HYPERBOLIC:
            raise ValueError("expansion applies to the hyperbolic system only")
        self.expansion_shifts = tuple(range(expansion + 1, 1, -1))

        if guard_bits is None:
            guard_bits = max(1, math.ceil(math.log2(self._step_count()))) + 1 + \
                self._gain_bits()
        self.guard_bits = _check_int(guard_bits, "guard_bits", self.norm_exponent, MAX_GUARD_BITS)

        # The smallest micro-rotation must still move an internal bit.
        limit = self.internal_frac_bits if self.system is not System.CIRCULAR else \
            self.width + self.guard_bits
        if max(self.shifts) > limit:
            raise ValueError(
                f"iterations: shift {max(self.shifts)} exceeds the {limit} internal bits "
                f"of width={width} with guard_bits={self.guard_bits}; use at most "
                f"{sum(1 for s in self.shifts if s <= limit)} iterations or more guard bits")
        self._check_convergence()
        self.gammas = self._normalization_gammas()
        self.steps = self._build_steps()
        if self.xy_width > MAX_INTERNAL_WIDTH:
            raise ValueError(f"width: {width} data bits with {self.guard_bits} guard and "
                             f"{self.growth_bits} growth bits need {self.xy_width} internal bits; "
                             f"the bit-exact model holds at most {MAX_INTERNAL_WIDTH}")

    # -- parameter defaults and checks ---------------------------------------------------

    def _default_shifts(self, count):
        if self.system is System.HYPERBOLIC:
            return hyperbolic_shifts(count)
        return tuple(range(count))

    def _default_iterations(self):
        # Circular: shifts 0 .. width. Otherwise the last shift is also capped by the internal
        # fraction bits of z, frac_bits + guard_bits, where guard_bits >= 3 by default.
        last = self.width if self.system is System.CIRCULAR else min(self.width, self.frac_bits + 3)
        if self.system is System.HYPERBOLIC:
            return sum(1 for s in hyperbolic_shifts(2 * last + 8) if s <= max(1, last))
        return last + 1

    def _check_shifts(self, shifts):
        if not shifts:
            raise ValueError("shifts must not be empty")
        for s in shifts:
            check_integer("shifts", s, minimum=0)
        if any(b < a for a, b in zip(shifts, shifts[1:])):
            raise ValueError(f"shifts must be non-decreasing, not {list(shifts)}")
        if self.system is System.HYPERBOLIC and shifts[0] < 1:
            raise ValueError("shifts must start at 1 or more in the hyperbolic system "
                             "(atanh(2^0) is infinite)")
        return shifts

    def _check_convergence(self):
        # With greedy signs, |z| <= sum_{j>=i} d_j + r before step i implies the same after it
        # whenever d_i <= sum_{j>i} d_j + r, so the final residual is at most
        # r = max_i (d_i - sum_{j>i} d_j) (Walther's condition; r = d_last for exact halving).
        # Truncated hyperbolic sequences leave r slightly above d_last; more than twice it
        # means a repeat is missing.
        d = [self.micro_angle(k, expanded=True) for k in self.expansion_shifts] + \
            [self.micro_angle(s) for s in self.shifts]
        tails = [sum(d[i + 1:]) for i in range(len(d))]
        self.residual_angle = max(di - tail for di, tail in zip(d, tails))
        if self.residual_angle > 2 * d[-1]:
            i = max(range(len(d)), key=lambda i: d[i] - tails[i]) - len(self.expansion_shifts)
            raise ValueError(
                f"shifts do not converge: step {i} (shift {self.shifts[i]}) is larger than all "
                f"later steps together; the hyperbolic system must repeat shifts 4, 13, 40, ...")

    def _step_count(self):
        extra = 0
        if self.normalization is Normalization.AFTER and self.system is not System.LINEAR:
            extra = len(self.shifts) - 1  # an upper bound before gammas are known
        return len(self.shifts) + len(self.expansion_shifts) + extra

    # -- derived quantities --------------------------------------------------------------

    @property
    def m(self):
        return self.system.value

    @property
    def iterations(self):
        return len(self.shifts)

    @property
    def io_format(self):
        """:class:`robohw.hw.fixed.FixedFormat` of ``x`` and ``y`` (and of non-circular ``z``)."""
        return FixedFormat(self.width, self.frac_bits)

    @property
    def internal_frac_bits(self):
        return self.frac_bits + self.guard_bits

    def micro_angle(self, shift, expanded=False):
        """``d(s)`` of Eq. (4), in radians (circular) or real units; an expanded step's
        ``atanh(1 - 2^-shift)``."""
        t = 1 - 2.0 ** -shift if expanded else 2.0 ** -shift
        return {System.CIRCULAR: math.atan, System.LINEAR: float,
                System.HYPERBOLIC: math.atanh}[self.system](t)

    @functools.cached_property
    def gain(self):
        """``K``: the factor by which the micro-rotations scale ``x`` and ``y``
        (1.6468 circular, 1 linear, 0.8282 hyperbolic; the paper's ``1/k_m``)."""
        expanded = math.prod(math.sqrt(1 - (1 - 2.0 ** -k) ** 2) for k in self.expansion_shifts)
        return expanded * math.prod(math.sqrt(1 + self.m * 2.0 ** (-2 * s)) for s in self.shifts)

    @property
    def norm_exponent(self):
        """Left shift ``e`` applied to ``x``/``y`` before rounding: the power of two in
        ``1 / K`` when range expansion makes ``K < 1/2`` (0 otherwise, and without
        normalization)."""
        if self.normalization is Normalization.NONE:
            return 0
        return self._gain_bits()

    def _gain_bits(self):
        # Integer bits of 1/K lost to range expansion (0 otherwise: K > 1/2 without it).
        if not self.expansion_shifts:
            return 0
        return max(0, math.floor(-math.log2(self.gain)))

    @functools.cached_property
    def convergence_limit(self):
        """Largest ``|z|`` (rotation) or ``|angle(y/x)|`` (vectoring) that converges: the sum
        of all micro-angles (radians in the circular system, before pre-rotation)."""
        return sum(self.micro_angle(k, expanded=True) for k in self.expansion_shifts) + \
            sum(self.micro_angle(s) for s in self.shifts)

    @property
    def z_lsb(self):
        """Real value of one internal ``z`` unit (radians in the circular system)."""
        if self.system is System.CIRCULAR:
            return 2 * math.pi / 2 ** (self.width + self.guard_bits)
        return 2.0 ** -self.internal_frac_bits

    def angle_code(self, shift, expanded=False):
        """``d(s)`` rounded to internal ``z`` units."""
        return round(self.micro_angle(shift, expanded) / self.z_lsb)

    def _normalization_gammas(self):
        """Greedy signed-digit choice of ``gamma_j``, ``j = 1 .. n-1``, so that
        ``K * prod(1 + gamma_j 2^-j)`` comes closest to one (in the log domain)."""
        if self.normalization in (Normalization.NONE, Normalization.MULTIPLY) or \
                self.system is System.LINEAR:
            return {}
        target, gammas = -math.log(self.gain) - self.norm_exponent * math.log(2), {}
        for j in range(1, len(self.shifts)):
            best = min((-1, 0, 1), key=lambda g: abs(target - math.log1p(g * 2.0 ** -j)))
            if best:
                gammas[j] = best
                target -= math.log1p(best * 2.0 ** -j)
        return gammas

    @property
    def multiplier(self):
        """``(C, c)`` for ``Normalization.MULTIPLY``: outputs are ``(x * C) >> c`` with
        ``C = round(2**c / K)``; ``None`` otherwise."""
        if self.normalization is not Normalization.MULTIPLY or self.system is System.LINEAR:
            return None
        c = self.width + self.guard_bits + 1
        return round(2 ** c / (self.gain * 2 ** self.norm_exponent)), c

    @property
    def output_gain(self):
        """The scale left on the ``x``/``y`` outputs: 1 up to :attr:`scale_error`, or ``K`` for
        ``Normalization.NONE``."""
        gain = self.gain * 2 ** self.norm_exponent * \
            math.prod(1 + g * 2.0 ** -j for j, g in self.gammas.items())
        if self.multiplier is not None:
            constant, shift = self.multiplier
            gain *= constant / 2 ** shift
        return gain

    @property
    def scale_error(self):
        """Residual relative scale error ``output_gain - 1`` of a normalizing configuration."""
        return self.output_gain - 1.0

    def _build_steps(self):
        steps = [Step(shift=k, angle=self.angle_code(k, expanded=True), norm_shift=0, gamma=0,
                      expanded=True) for k in self.expansion_shifts]
        interleave = self.normalization is Normalization.INTERLEAVED
        for i, s in enumerate(self.shifts):
            gamma = self.gammas.get(i, 0) if interleave else 0
            steps.append(Step(shift=s, angle=self.angle_code(s), norm_shift=i, gamma=gamma))
        if self.normalization is Normalization.AFTER:
            for j, gamma in sorted(self.gammas.items()):
                steps.append(Step(shift=None, angle=0, norm_shift=j, gamma=gamma))
        return tuple(steps)

    @functools.cached_property
    def growth_bits(self):
        """Integer bits added to ``x``/``y`` inside so that no input overflows them.

        Bounds, as multiples of the largest input magnitude, valid for every sign sequence:
        circular, ``sqrt(2)`` times the largest partial gain (each micro-rotation scales the
        vector length exactly); linear, ``1 + sum 2^-s``; hyperbolic, each step multiplies
        ``|x| + |y|`` by at most ``1 + 2^-s`` (``2 - 2^-k`` for expanded steps). Normalization
        factors multiply in. (The scaling by ``2**norm_exponent`` happens in the output
        rounding, which drops ``guard_bits - norm_exponent`` bits; saturation checks it.)
        """
        bound = peak = math.sqrt(2) if self.system is System.CIRCULAR else 2.0
        if self.system is System.LINEAR:
            peak = 1 + sum(2.0 ** -s for s in self.shifts)
        for step in self.steps:
            if step.shift is not None and self.system is not System.LINEAR:
                if self.system is System.CIRCULAR:
                    bound *= math.sqrt(1 + 2.0 ** (-2 * step.shift))
                elif step.expanded:
                    bound *= 2 - 2.0 ** -step.shift
                else:
                    bound *= 1 + 2.0 ** -step.shift
            bound *= 1 + step.gamma * 2.0 ** -step.norm_shift
            peak = max(peak, bound)
        # Truncation errors add at most a few internal LSBs: keep a hair of headroom.
        return max(1, math.ceil(math.log2(peak * (1 + 2.0 ** -self.width))))

    @property
    def output_shift(self):
        """Bits dropped from internal ``x``/``y`` by the output rounding:
        ``guard_bits - norm_exponent``."""
        return self.guard_bits - self.norm_exponent

    @property
    def xy_width(self):
        """Internal width of ``x`` and ``y``: sign + integer + growth + fraction + guard bits."""
        return self.width + self.guard_bits + self.growth_bits

    @property
    def z_width(self):
        """Internal width of ``z``. Circular: ``width + guard_bits`` (a binary angle that wraps).
        Otherwise enough for the largest input plus the convergence limit."""
        if self.system is System.CIRCULAR:
            return self.width + self.guard_bits
        largest = 2.0 ** (self.width - 1 - self.frac_bits) + self.convergence_limit
        return math.ceil(math.log2(largest)) + self.internal_frac_bits + 1

    @property
    def checks_domain(self):
        """Whether outputs carry a meaningful ``domain_error`` flag (linear and hyperbolic:
        their convergence domain is bounded; circular converges everywhere)."""
        return self.system is not System.CIRCULAR

    @property
    def residual_z_limit(self):
        """Rotation mode: largest ``|z_n|`` (internal units) of a converged input: the residual
        angle bound :attr:`residual_angle` plus half a unit of rounding per angle constant."""
        return math.ceil(self.residual_angle / self.z_lsb) + len(self.shifts)

    @property
    def residual_y_slack(self):
        """Vectoring mode: a converged input ends with ``|y_n| <= ((|x_n| << 2) >> s_last) +
        slack``: four last micro-rotations (the residual angle is at most two) plus one unit
        of truncation per step."""
        return 2 * len(self.steps)

    def __repr__(self):
        return (f"CordicConfig({self.system.name.lower()!r}, {self.direction.value!r}, "
                f"width={self.width}, frac_bits={self.frac_bits}, "
                f"iterations={self.iterations}, guard_bits={self.guard_bits}, "
                f"normalization={self.normalization.value!r}, rounding={self.rounding.value!r}, "
                f"expansion={len(self.expansion_shifts)})")
