"""Combinational pieces of a CORDIC processor, shared by both architectures.

Each function builds Amaranth expressions for one part of the program of a
:class:`~robohw.cordic.config.CordicConfig`: :func:`prerotate` (port codes to internal units, into
the convergence domain), :func:`micro_step` (one step of a pipelined processor) and
:func:`finish_stages` (domain check, gain correction, rounding and saturation to the port formats,
as register stages). They mirror :mod:`robohw.cordic.model` operation for operation;
:func:`register_steps` cuts the program where a step would chain two adders, so no register stage
holds more than one carry chain per value.
"""

import dataclasses

from amaranth.hdl import Const, Mux, Signal, Value, signed

from robohw.cordic.config import Direction, System
from robohw.hw.fixed import hdl_add_sub, hdl_round_shift, hdl_saturate

__all__ = ["input_fields", "output_fields", "PAYLOAD_FIELDS", "prerotate", "micro_step",
           "register_steps", "finish_stages", "finish_registers", "state_shapes", "register_values",
           "output_registers"]


def input_fields(config):
    """Payload fields of the input stream: ``x``, ``y``, ``z`` port codes (the user tag is
    added by :class:`robohw.hw.stream.StreamPipeline`)."""
    w = config.width
    return {"x": signed(w), "y": signed(w), "z": signed(w)}


def output_fields(config):
    """Payload fields of the output stream: results and the ``domain_error`` and ``overflow``
    flags."""
    w = config.width
    return {"x": signed(w), "y": signed(w), "z": signed(w), "domain_error": 1, "overflow": 1}


PAYLOAD_FIELDS = ("x", "y", "z", "domain_error", "overflow")


def prerotate(config, x, y, z):
    """Internal ``(x, y, z)`` from port codes: scaled by ``2**guard_bits`` and, where the mode
    needs it, turned by half a turn (see :func:`robohw.cordic.model.prerotate`)."""
    g = config.guard_bits
    x, y, z = (Value.cast(v).as_signed() << g for v in (x, y, z))
    zw = config.z_width
    if config.system is System.CIRCULAR and config.direction is Direction.ROTATION:
        flip = z[zw - 1] ^ z[zw - 2]
    elif config.direction is Direction.VECTORING:
        flip = x < 0
    else:
        return x, y, z
    x, y = Mux(flip, -x, x), Mux(flip, -y, y)
    if config.system is System.CIRCULAR:
        z = Mux(flip, z + (1 << (zw - 1)), z)  # wraps when assigned to signed(z_width)
    return x, y, z


def micro_step(config, x, y, z, *, shift, angle, rotate=True, norm_shift=0, gamma=0,
               expanded=False, adder=None):
    """One program step, its parameters Python constants (logic is generated only for what
    the step does): a micro-rotation by ``shift``/``angle`` (when ``rotate``; by the factor
    ``1 - 2**-shift`` when ``expanded``), then the normalization factor
    ``(1 + gamma 2**-norm_shift)``. ``adder(a, b, sign, inverted, field)`` builds each
    rotation's add-or-subtract, subtracting where the ``sign`` bit is high (low, if
    ``inverted``): by default :func:`~robohw.hw.fixed.hdl_add_sub`; the pipelined
    processor's is :func:`robohw.hw.carry_chain.add_sub`, the same bits."""
    if adder is None:
        def adder(a, b, sign, inverted, field):
            return hdl_add_sub(a, b, ~sign if inverted else sign)
    if rotate:
        # The direction is the sign bit of z (rotation: up while z >= 0, so up is the bit
        # inverted) or of y (vectoring: up while y < 0, the bit itself).
        rotating = config.direction is Direction.ROTATION
        sign = z[-1] if rotating else y[-1]
        xs, ys = x >> shift, y >> shift
        if expanded:
            xs, ys = x - xs, y - ys
        # One carry chain each: the direction picks add or subtract inside the adder; an adder
        # that subtracts while up gets the sign bit inverted, one that adds while up, as it is.
        if config.system is System.CIRCULAR:
            x = adder(x, ys, sign, rotating, "x")
        elif config.system is System.HYPERBOLIC:
            x = adder(x, ys, sign, not rotating, "x")
        y = adder(y, xs, sign, not rotating, "y")
        z = adder(z, angle, sign, rotating, "z")
    if gamma > 0:
        x, y = x + (x >> norm_shift), y + (y >> norm_shift)
    elif gamma < 0:
        x, y = x - (x >> norm_shift), y - (y >> norm_shift)
    return x, y, z


def register_steps(config):
    """The program as register steps, each with at most one carry chain per value: every step of
    :attr:`CordicConfig.steps <robohw.cordic.config.CordicConfig.steps>` that both rotates and
    normalizes becomes two, the micro-rotation and then the normalization factor (the same
    arithmetic, so the model is unchanged). A pipelined processor has one stage per register
    step, a word-serial one spends one cycle on each."""
    out = []
    for step in config.steps:
        if step.shift is not None and step.gamma:
            out.append(dataclasses.replace(step, norm_shift=0, gamma=0))
            out.append(dataclasses.replace(step, shift=None, angle=0, expanded=False))
        else:
            out.append(step)
    return tuple(out)


_DOMAIN_OPERANDS = ("z_high", "z_low", "y_excess", "x_bound")


def _domain_operands(config, x, y, z):
    """The domain check split at its carry chains: two comparisons for the rotation mode's
    ``|z| > limit``; ``|y| - slack`` and ``(|x| << 2) >> s`` for the vectoring mode's ``|y| >
    ((|x| << 2) >> s) + slack``, compared in the next stage."""
    if not config.checks_domain:
        return {}
    if config.direction is Direction.ROTATION:
        limit = config.residual_z_limit
        return {"z_high": z > limit, "z_low": z < -limit}
    slack = config.residual_y_slack
    return {"y_excess": Mux(y < 0, -y - slack, y - slack),
            "x_bound": (abs(x) << 2) >> config.shifts[-1]}


def finish_stages(config):
    """What follows the last step, as register stages with one carry chain each: a list of
    functions from one stage's values (a dict) to the next's. The first takes ``x``, ``y``, ``z``
    in internal units; the last gives the output fields (see :func:`robohw.cordic.model.
    cordic_model`): ``x``, ``y``, ``z``, ``domain_error``, ``overflow`` and the per-port
    ``x_overflow``, ``y_overflow``, ``z_overflow`` (not in the payload).

    Stages: the gain multiplication when the configuration has one (normalization
    ``"multiply"``); rounding to the port formats with the domain check's operands; saturation
    with the domain comparison."""
    g, w, rounding = config.guard_bits, config.width, config.rounding
    stages = []
    if config.multiplier is not None:
        constant, shift = config.multiplier

        def multiply(v):
            return {"x": (v["x"] * constant) >> shift, "y": (v["y"] * constant) >> shift,
                    "z": v["z"], **_domain_operands(config, v["x"], v["y"], v["z"])}
        stages.append(multiply)

    def round_(v):
        if config.multiplier is not None:     # computed before the multiplication
            domain = {k: v[k] for k in _DOMAIN_OPERANDS if k in v}
        else:
            domain = _domain_operands(config, v["x"], v["y"], v["z"])
        return {"x": hdl_round_shift(v["x"], config.output_shift, rounding),
                "y": hdl_round_shift(v["y"], config.output_shift, rounding),
                "z": hdl_round_shift(v["z"], g, rounding), **domain}

    def saturate(v):
        x, x_over = hdl_saturate(v["x"], w)
        y, y_over = hdl_saturate(v["y"], w)
        if config.system is System.CIRCULAR:
            z, z_over = v["z"][:w].as_signed(), Const(0, 1)
        else:
            z, z_over = hdl_saturate(v["z"], w)
        if not config.checks_domain:
            domain_error = Const(0, 1)
        elif config.direction is Direction.ROTATION:
            domain_error = v["z_high"] | v["z_low"]
        else:
            domain_error = v["y_excess"] > v["x_bound"]
        return {"x": x, "y": y, "z": z, "domain_error": domain_error,
                "overflow": x_over | y_over | z_over,
                "x_overflow": x_over, "y_overflow": y_over, "z_overflow": z_over}

    return stages + [round_, saturate]


def state_shapes(config):
    """The shapes of the internal ``x``, ``y``, ``z`` between steps: ``z`` wraps at its width (a
    binary angle in the circular system), ``x`` and ``y`` keep their proven range."""
    return {"x": signed(config.xy_width), "y": signed(config.xy_width),
            "z": signed(config.z_width)}


def register_values(m, values, enable, name, shapes=None):
    """Reset-less registers named ``{name}_{field}`` loaded with ``values`` (a dict of
    expressions) when ``enable`` is high (always, for ``enable=True``); returns them as a
    dict. A field's shape is ``shapes[field]`` if given (the value is truncated to it), else
    the value's own."""
    registers = {}
    for field, value in values.items():
        shape = (shapes or {}).get(field) or Value.cast(value).shape()
        registers[field] = Signal(shape, name=f"{name}_{field}", reset_less=True)
    _load(m, [registers[f].eq(v) for f, v in values.items()], enable)
    return registers


def _load(m, statements, enable):
    """Clocked ``statements`` under ``enable`` (unconditional for ``True``)."""
    if enable is True:
        m.d.sync += statements
    else:
        with m.If(enable):
            m.d.sync += statements


def finish_registers(m, config, values, enable, name, fields=None):
    """The finish stages (:func:`finish_stages`) as registers inside module ``m``, loaded when
    ``enable`` is high (always, for ``True``): ``values`` holds ``x``, ``y``, ``z`` in
    internal units and, if present, a ``"sideband"`` carried beside them. Returns the output
    registers (:func:`output_registers`, only ``fields`` if given, and the sideband),
    ``len(finish_stages(config))`` enabled cycles later."""
    stages = finish_stages(config)
    sideband = values.get("sideband")
    carried = {} if sideband is None else {"sideband": sideband}
    for number, stage in enumerate(stages):
        results = {**stage(values), **carried}
        if number < len(stages) - 1:
            values = register_values(m, results, enable, f"{name}_finish{number}")
            carried = {} if sideband is None else {"sideband": values["sideband"]}
    if fields is not None:
        results = {f: results[f] for f in (*fields, *carried)}
    outputs = output_registers(config, results, name, sideband)
    _load(m, [outputs[field].eq(value) for field, value in results.items()], enable)
    return outputs


def output_registers(config, fields, name, sideband=None):
    """Reset-less registers for the fields of :func:`finish_stages` (and a ``"sideband"``), named
    ``{name}_out_{field}``: ``signed(width)`` for ``x``, ``y``, ``z``, one bit for flags."""
    registers = {}
    for field in fields:
        if field == "sideband":
            shape = sideband.shape()
        else:
            shape = signed(config.width) if field in "xyz" else 1
        registers[field] = Signal(shape, name=f"{name}_out_{field}", reset_less=True)
    return registers
