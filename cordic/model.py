"""Bit-exact integer model of the CORDIC processors, vectorized over numpy ``int64`` arrays.

The model runs the same program (:attr:`robohw.cordic.config.CordicConfig.steps`) as the RTL and
gives the same output bits for every input; tests hold both architectures to it exactly.
It is written independently of the Amaranth code: only the configuration is shared.
"""

from typing import NamedTuple

import numpy as np

from robohw.cordic.config import Direction, Normalization, System
from robohw.cordic.functions import FUNCTIONS
from robohw.hw.fixed import angle_to_code, code_to_angle, round_shift, saturate, wrap

__all__ = ["CordicOutputs", "cordic_model", "prerotate", "evaluate_function"]


class CordicOutputs(NamedTuple):
    """Output codes of a CORDIC processor: ``x``, ``y``, ``z`` in the port formats, and the
    ``domain_error`` and ``overflow`` flags (boolean arrays); ``overflow`` is any of the
    per-port ``x_overflow``, ``y_overflow``, ``z_overflow``."""
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    domain_error: np.ndarray
    overflow: np.ndarray
    x_overflow: np.ndarray
    y_overflow: np.ndarray
    z_overflow: np.ndarray


def _check_codes(values, width, name):
    values = np.atleast_1d(np.asarray(values))
    if values.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer codes, not {values.dtype}")
    values = values.astype(np.int64)
    low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if np.any(values < low) or np.any(values > high):
        raise ValueError(f"{name} codes must fit signed({width}): [{low}, {high}]")
    return values


def prerotate(config, x, y, z):
    """Scale port codes to internal units and bring them into the convergence domain.

    Circular rotation: angles in [90, 270) degrees turn by half a turn (``x, y`` negated).
    Vectoring: ``x < 0`` negates ``x`` and ``y`` (circular: and adds half a turn to ``z``),
    which leaves ``y/x`` unchanged. Returns internal ``(x, y, z)``.
    """
    g = config.guard_bits
    x, y, z = x << g, y << g, z << g
    half_turn = np.int64(1) << (config.z_width - 1)
    if config.system is System.CIRCULAR and config.direction is Direction.ROTATION:
        flip = ((z >> (config.z_width - 1)) ^ (z >> (config.z_width - 2))) & 1 == 1
    elif config.direction is Direction.VECTORING:
        flip = x < 0
    else:
        return x, y, z
    x, y = np.where(flip, -x, x), np.where(flip, -y, y)
    if config.system is System.CIRCULAR:
        z = wrap(np.where(flip, z + half_turn, z), config.z_width)
    return x, y, z


def _check_internal(config, x, y, z, where):
    """Raise ``OverflowError`` if an internal value leaves the register it lives in: the RTL
    would wrap it where this model would not. The formats' growth bits promise it never
    happens (a real exception, not an ``assert``: ``python -O`` keeps it)."""
    registers = (("x", x, config.xy_width), ("y", y, config.xy_width))
    if config.system is not System.CIRCULAR:  # circular z wraps by design
        registers += (("z", z, config.z_width),)
    for name, values, width in registers:
        limit = np.int64(1) << (width - 1)
        if values.size and (values.min() < -limit or values.max() >= limit):
            raise OverflowError(f"internal {name} leaves signed({width}) {where} of {config!r}")


def _run_steps(config, x, y, z):
    m = config.m
    _check_internal(config, x, y, z, "after the pre-rotation")
    for index, step in enumerate(config.steps):
        if step.shift is not None:
            if config.direction is Direction.ROTATION:
                up = z >= 0
            else:
                up = y < 0
            sigma = np.where(up, 1, -1)
            ys, xs = y >> step.shift, x >> step.shift
            if step.expanded:  # factor (1 - 2^-k) instead of 2^-k
                ys, xs = y - ys, x - xs
            x, y = x - m * sigma * ys, y + sigma * xs
            z = z - sigma * step.angle
            if config.system is System.CIRCULAR:
                z = wrap(z, config.z_width)
        if step.gamma:
            x = x + step.gamma * (x >> step.norm_shift)
            y = y + step.gamma * (y >> step.norm_shift)
        _check_internal(config, x, y, z, f"after step {index}")
    return x, y, z


def _domain_error(config, x, y, z):
    if not config.checks_domain:
        return np.zeros(x.shape, dtype=bool)
    if config.direction is Direction.ROTATION:
        return np.abs(z) > config.residual_z_limit
    last = config.shifts[-1]
    return np.abs(y) > ((np.abs(x) << 2) >> last) + config.residual_y_slack


def cordic_model(config, x, y, z):
    """Outputs of the processor described by ``config`` for integer input codes.

    Parameters
    ----------
    config : :class:`robohw.cordic.config.CordicConfig`
    x, y, z : array_like of int
        Port codes, each within ``signed(config.width)``.

    Returns
    -------
    :class:`CordicOutputs`
    """
    w = config.width
    x, y, z = (_check_codes(v, w, n) for v, n in ((x, "x"), (y, "y"), (z, "z")))
    x, y, z = np.broadcast_arrays(x, y, z)
    x, y, z = _run_steps(config, *prerotate(config, x, y, z))
    domain_error = _domain_error(config, x, y, z)
    if config.multiplier is not None:
        constant, shift = config.multiplier
        # Products reach ~80 bits: multiply in Python integers, floor-shift back.
        x = (x.astype(object) * constant >> shift).astype(np.int64)
        y = (y.astype(object) * constant >> shift).astype(np.int64)
    g, rounding = config.guard_bits, config.rounding
    x, x_over = saturate(round_shift(x, config.output_shift, rounding), w)
    y, y_over = saturate(round_shift(y, config.output_shift, rounding), w)
    z = round_shift(z, g, rounding)
    if config.system is System.CIRCULAR:
        z, z_over = wrap(z, w), np.zeros(z.shape, dtype=bool)
    else:
        z, z_over = saturate(z, w)
    return CordicOutputs(x, y, z, domain_error, x_over | y_over | z_over, x_over, y_over, z_over)


def evaluate_function(name, *arguments, **config):
    """A named function of :data:`robohw.cordic.functions.FUNCTIONS`, computed bit-exactly.

    ``arguments`` are reals (radians for angles); ``config`` are
    :class:`~robohw.cordic.config.CordicConfig` keywords (``width``, ``frac_bits``, ...). Returns
    ``(results, outputs)``: the tuple of real results and the raw :class:`CordicOutputs`
    (check ``domain_error`` and ``overflow``). Arguments that do not fit the port format raise
    ``OverflowError``. With ``normalization="none"`` the ``x``/``y`` results are divided by
    the gain ``K`` in floating point.
    """
    try:
        function = FUNCTIONS[name]
    except KeyError:
        raise ValueError(f"Unknown CORDIC function {name!r}; known: "
                         f"{', '.join(sorted(FUNCTIONS))}") from None
    if len(arguments) != len(function.arguments):
        raise TypeError(f"{name} takes {len(function.arguments)} arguments "
                        f"({', '.join(function.arguments)}), not {len(arguments)}")
    cfg = function.config(**config)
    fmt = cfg.io_format
    x, y, z = function.to_ports(*(np.asarray(a, dtype=np.float64) for a in arguments))
    circular = cfg.system is System.CIRCULAR
    z_codes = angle_to_code(z, cfg.width) if circular else fmt.from_float(z)
    out = cordic_model(cfg, fmt.from_float(x), fmt.from_float(y), z_codes)
    scale = cfg.gain if cfg.normalization is Normalization.NONE else 1.0
    results = function.from_ports(fmt.to_float(out.x) / scale, fmt.to_float(out.y) / scale,
                                  code_to_angle(out.z, cfg.width) if circular
                                  else fmt.to_float(out.z))
    return results, out
