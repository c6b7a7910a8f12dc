"""Accuracy of the bit-exact CORDIC model against the float64 reference.

:func:`sample_inputs` draws input codes from a stated domain per mode (inside the convergence
domain, outputs inside the port range); :func:`measure_error` runs the model and the reference
and reports the error of each meaningful output in output LSBs.

Domains, with ``R = 2**(width-1-frac_bits)`` the port range and ``L`` the convergence limit
(:attr:`robohw.cordic.config.CordicConfig.convergence_limit`):

=====================  ============================================================  ========
mode                   inputs                                                        outputs
=====================  ============================================================  ========
circular rotation      ``|x|, |y| <= 0.7 R``, any angle ``z``                        x, y
circular vectoring     ``R/8 <= |(x, y)| <= 0.95 R``, any angle ``z``                 x, z
linear rotation        ``|x|, |y| <= R/4``, ``|z| <= 0.99 min(L, R)``                y
linear vectoring       ``R/8 <= |x| <= R/2``, ``|y/x| <= 0.99 min(L, R/2)``,           z
                       ``|z| <= R/4``
hyperbolic rotation    ``|x|, |y| <= 0.99 R / (2 e^L)``, ``|z| <= 0.99 L``            x, y
hyperbolic vectoring   ``R/8 <= |x| <= R/2``, ``|y/x| <= 0.99 tanh L``, ``|z| <= R/4``  x, z
=====================  ============================================================  ========

With ``Normalization.NONE``, ``R`` is first divided by the gain ``K`` when ``K > 1``.
"""

import math

import numpy as np

from robohw.cordic.config import Direction, Normalization, System
from robohw.cordic.model import cordic_model
from robohw.cordic.reference import cordic_ideal
from robohw.hw.fixed import code_to_angle

__all__ = ["sample_inputs", "corner_inputs", "mixed_inputs", "measure_error", "output_errors",
           "MEANINGFUL_OUTPUTS", "ERROR_BOUND_LSB", "error_bound_lsb"]


# Stated bound on the max error, in output LSBs, of every meaningful output, for default
# iterations, guard bits and half-even rounding, any normalization, widths 8 to 40, over the
# domains above. An empirical bound, not a proof: the largest errors measured over 2 x 500,000
# vectors per mode, normalization and width (8, 12, 16, 20, 24, 28, 32, 40) were 1.176
# circular, 0.813 linear and 1.064 hyperbolic (vectoring z), rounded up here. A worst-case
# sum of the error terms (output rounding, residual angle, rounded angle constants,
# truncation in every step) is larger, ~1.6 LSB for hyperbolic vectoring.
ERROR_BOUND_LSB = {System.CIRCULAR: 1.25, System.LINEAR: 1.0, System.HYPERBOLIC: 1.25}
# With range expansion, hyperbolic vectoring reaches |y/x| near 1, where atanh(y/x) amplifies
# the internal truncation error by 1/(1 - (y/x)^2): measured up to 2.95 LSB in z over
# 200,000 vectors per width (8 to 32), expansion (1 to 4) and normalization; x and y stay
# within 1.05 LSB.
EXPANDED_VECTORING_Z_BOUND_LSB = 4.0


def error_bound_lsb(config, output):
    """The stated max error bound of one output of ``config`` (defaults as above)."""
    if config.expansion_shifts and config.direction is Direction.VECTORING and output == "z":
        return EXPANDED_VECTORING_Z_BOUND_LSB
    return ERROR_BOUND_LSB[config.system]


MEANINGFUL_OUTPUTS = {
    (System.CIRCULAR, Direction.ROTATION): ("x", "y"),
    (System.CIRCULAR, Direction.VECTORING): ("x", "z"),
    (System.LINEAR, Direction.ROTATION): ("y",),
    (System.LINEAR, Direction.VECTORING): ("z",),
    (System.HYPERBOLIC, Direction.ROTATION): ("x", "y"),
    (System.HYPERBOLIC, Direction.VECTORING): ("x", "z"),
}


def sample_inputs(config, count, rng):
    """Random input codes ``(x, y, z)`` from the documented domain of ``config``'s mode."""
    fmt = config.io_format
    r = 2.0 ** (config.width - 1 - config.frac_bits)
    limit = config.convergence_limit

    def uniform(bound, size=count):
        return rng.uniform(-bound, bound, size)

    def to_codes(values):
        return np.clip(np.rint(values / fmt.lsb), fmt.min_int, fmt.max_int).astype(np.int64)

    def divisor():
        return rng.choice([-1.0, 1.0], count) * rng.uniform(r / 8, r / 2, count)

    key = (config.system, config.direction)
    if config.normalization is Normalization.NONE:
        r /= max(1.0, config.gain)  # the outputs keep the gain K
    if config.system is System.CIRCULAR:
        z = rng.integers(fmt.min_int, fmt.max_int + 1, count)
        if config.direction is Direction.ROTATION:
            return to_codes(uniform(0.7 * r)), to_codes(uniform(0.7 * r)), z
        # The angle of a short vector is only as good as its length in LSBs: keep |v| >= R/8.
        length, angle = rng.uniform(r / 8, 0.95 * r, count), rng.uniform(-np.pi, np.pi, count)
        return to_codes(length * np.cos(angle)), to_codes(length * np.sin(angle)), z
    if key == (System.LINEAR, Direction.ROTATION):
        return to_codes(uniform(r / 4)), to_codes(uniform(r / 4)), \
            to_codes(uniform(0.99 * min(limit, r)))
    if key == (System.HYPERBOLIC, Direction.ROTATION):
        bound = 0.99 * r / (2 * math.exp(limit))
        return to_codes(uniform(bound)), to_codes(uniform(bound)), to_codes(uniform(0.99 * limit))
    ratio = 0.99 * (min(limit, r / 2) if config.system is System.LINEAR else math.tanh(limit))
    x = to_codes(divisor())
    # Clip after quantization: rounding must not carry |y/x| past the limit.
    y_max = np.floor(np.abs(x) * ratio).astype(np.int64)
    y = np.clip(to_codes(x * fmt.lsb * uniform(ratio)), -y_max, y_max)
    return x, y, to_codes(uniform(r / 4))


def corner_inputs(config):
    """Every combination of extreme and small codes: ``x``, ``y`` in {min, -1, 0, 1, max} and
    ``z`` in those plus the quarter turns and their neighbours (225 vectors)."""
    fmt = config.io_format
    edges = [fmt.min_int, -1, 0, 1, fmt.max_int]
    quarter = 1 << (config.width - 2)
    z_values = edges + [quarter - 1, quarter, -quarter, -quarter - 1]
    grid = np.array([(x, y, z) for x in edges for y in edges for z in z_values], dtype=np.int64)
    return grid[:, 0], grid[:, 1], grid[:, 2]


def mixed_inputs(config, count, seed):
    """The exactness workload: ``count`` in-domain samples, ``count`` raw codes drawn from the
    whole port range (out of domain too), then :func:`corner_inputs`."""
    rng = np.random.default_rng(seed)
    fmt = config.io_format
    sampled = sample_inputs(config, count, rng)
    raw = [rng.integers(fmt.min_int, fmt.max_int + 1, count) for _ in range(3)]
    return tuple(np.concatenate(parts) for parts in zip(sampled, raw, corner_inputs(config)))


def _to_real(config, name, codes):
    if name == "z" and config.system is System.CIRCULAR:
        return code_to_angle(codes, config.width)
    return config.io_format.to_float(codes)


def output_errors(config, x, y, z, out):
    """``{output: |error| in output LSBs}`` (arrays) of the meaningful outputs ``out`` (a
    :class:`~robohw.cordic.model.CordicOutputs` or anything with ``x``, ``y``, ``z`` codes) for
    input codes ``x``, ``y``, ``z``, against float64; binary-angle LSBs for circular ``z``.
    For ``Normalization.NONE`` the reference is scaled by the gain ``K``, which such outputs
    keep by design."""
    ideal = dict(zip("xyz", cordic_ideal(config.system, config.direction,
                                         *(_to_real(config, n, v)
                                           for n, v in zip("xyz", (x, y, z))))))
    errors = {}
    for name in MEANINGFUL_OUTPUTS[(config.system, config.direction)]:
        got = _to_real(config, name, np.asarray(getattr(out, name)))
        want = ideal[name]
        if name == "z" and config.system is System.CIRCULAR:
            lsb = 2 * math.pi / 2 ** config.width
            diff = np.remainder(got - want + math.pi, 2 * math.pi) - math.pi
        else:
            lsb = config.io_format.lsb
            if config.normalization is Normalization.NONE and name in "xy":
                want = want * config.gain
            diff = got - want
        errors[name] = np.abs(diff) / lsb
    return errors


def measure_error(config, count=100_000, seed=0):
    """Error of the model against float64 over ``count`` sampled inputs.

    Returns ``{output: {"max": lsb, "rms": lsb}, "domain_errors": n, "overflows": n}``, errors
    as :func:`output_errors` gives them.
    """
    rng = np.random.default_rng(seed)
    x, y, z = sample_inputs(config, count, rng)
    out = cordic_model(config, x, y, z)
    result = {"domain_errors": int(out.domain_error.sum()), "overflows": int(out.overflow.sum())}
    for name, err in output_errors(config, x, y, z, out).items():
        result[name] = {"max": float(err.max()), "rms": float(np.sqrt(np.mean(err ** 2)))}
    return result
