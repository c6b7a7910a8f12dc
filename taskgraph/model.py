"""Evaluate a :class:`robohw.taskgraph.graph.TaskGraph` in float64 (ideal CORDIC operations) and in
the bit-exact model (every CCM a :func:`robohw.cordic.model.cordic_model`), vectorized over samples.

Both return ``(outputs, valid, values)``: the named outputs (radians for angles), a boolean
array that is False wherever a CCM's operands leave its convergence domain (or, in the model,
any port overflows) or a guarded value falls below its minimum, and every CCM's ``(x, y, z)``
for inspection.
"""

import functools
import math

import numpy as np

from robohw.cordic.config import CordicConfig, Direction, System
from robohw.cordic.model import cordic_model
from robohw.cordic.reference import cordic_ideal
from robohw.hw.fixed import (
    FixedFormat,
    Rounding,
    angle_to_code,
    code_to_angle,
    round_shift,
    saturate,
    wrap,
)

__all__ = ["evaluate_float", "evaluate_model", "output_codes", "guard_code", "task_graph_outputs",
           "DEFAULT_WIDTH"]

DEFAULT_WIDTH = 24


def _branch_signs(branches, shape):
    signs = {}
    for name in ("arm", "elbow", "wrist"):
        value = np.broadcast_to(np.asarray(branches.get(name, 1)), shape)
        if not np.all(np.abs(value) == 1):
            raise ValueError(f"branch indicator {name} must be +1 or -1")
        signs[name] = value.astype(np.int64)
    return signs


def _domain_ok(ccm, x, y, z):
    """Float operands inside the CCM's convergence domain (limits of a 32-bit processor)."""
    if ccm.system is System.CIRCULAR:
        return np.ones(np.shape(x), dtype=bool)
    limit = CordicConfig(ccm.system, ccm.direction, width=32,
                         expansion=ccm.expansion).convergence_limit
    if ccm.direction is Direction.ROTATION:
        return np.abs(z) < limit
    ratio = limit if ccm.system is System.LINEAR else np.tanh(limit)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (x != 0) & (np.abs(y) < ratio * np.abs(x))


def evaluate_float(graph, inputs, branches=None):
    """Ideal evaluation: ``inputs`` maps every graph input to an array (or scalar)."""
    shape = np.broadcast(*(np.asarray(inputs[n]) for n in graph.inputs)).shape
    signs = _branch_signs(branches or {}, shape)
    values = {n: np.broadcast_to(np.asarray(inputs[n], dtype=np.float64), shape)
              for n in graph.inputs}
    valid = np.ones(shape, dtype=bool)

    def read(source, port):
        value = values[source]
        return value["xyz".index(port)] if isinstance(value, tuple) else value

    def operand(op):
        if op.source is None:
            return np.full(shape, op.constant)
        value = read(op.source, op.port)
        if op.turns:
            value = 2 * np.pi * value
        if op.branch:
            value = value * signs[op.branch]
        value = op.sign * value + op.constant
        if op.addend is not None:
            value = value + op.addend.sign * read(op.addend.source, op.addend.port)
        return value

    for ccm in graph.ccms:
        x, y, z = (operand(op) for _, op in ccm.operands())
        ok = _domain_ok(ccm, x, y, z)
        valid &= ok
        x, y, z = (np.where(ok, v, 1.0) for v in (x, y, z))  # keep undefined values finite
        values[ccm.name] = tuple(np.broadcast_to(v, shape) for v in
                                 cordic_ideal(ccm.system, ccm.direction, x, y, z))
    for guard in graph.guards:
        valid &= np.abs(read(guard.source, guard.port)) >= guard.minimum
    outputs = {}
    for name, (source, port) in graph.outputs.items():
        value = values[source]["xyz".index(port)]
        if graph.is_angle(source, port):
            value = np.pi - np.remainder(np.pi - value, 2 * np.pi)  # (-pi, pi]
        outputs[name] = np.where(valid, value, 0.0)
    return outputs, valid, {c.name: values[c.name] for c in graph.ccms}


def evaluate_model(graph, inputs, branches=None, *, width=DEFAULT_WIDTH, frac_bits=None,
                   guard_bits=0, **config):
    """Bit-exact evaluation with ``width``-bit ports: reals with ``frac_bits`` fraction bits
    (default ``width - 3``: [-4, 4) metres), angles as binary angles. Inside, every CCM is a
    ``width + guard_bits``-bit processor with ``guard_bits`` more fraction bits; the outputs are
    rounded (half to even) back to the ports. ``inputs`` are reals, rounded to the port format
    (``OverflowError`` outside it), and radians for the graph's angle inputs (binary angles of
    the port width, wrapped); ``config`` goes to every :class:`CordicConfig`. Outputs are
    radians (exact images of the port codes) or reals; ``values`` holds every CCM's internal
    codes (:func:`output_codes` gives the ports')."""
    frac_bits = width - 3 if frac_bits is None else frac_bits
    port = FixedFormat(width, frac_bits)
    width, frac_bits = width + guard_bits, frac_bits + guard_bits   # inside
    fmt = FixedFormat(width, frac_bits)
    shape = np.broadcast(*(np.asarray(inputs[n]) for n in graph.inputs)).shape
    signs = _branch_signs(branches or {}, shape)

    def input_code(name):
        if name in graph.angle_inputs:
            return angle_to_code(inputs[name], port.width)
        return port.from_float(inputs[name])

    codes = {n: np.broadcast_to(input_code(n) << guard_bits, shape) for n in graph.inputs}
    valid = np.ones(shape, dtype=bool)

    def read(source, port):
        value = codes[source]
        return value["xyz".index(port)] if isinstance(value, tuple) else value

    def operand(op, angle):
        constant = int(angle_to_code(op.constant, width)) if angle else round(op.constant / fmt.lsb)
        if op.source is None:
            value = np.full(shape, constant, dtype=np.int64)
        else:
            value = read(op.source, op.port)
            if op.turns:        # a real in turns: exactly a binary angle, shifted
                shift = width - frac_bits
                # The bits shifted past the angle's width are whole turns: dropped first,
                # so no code grows beyond it (the angle wraps at the end in any case).
                value = wrap(value, width - shift) << shift if shift < width else 0 * value
            if op.branch:
                value = value * signs[op.branch]
            value = op.sign * value + constant
            if op.addend is not None:
                value = value + op.addend.sign * read(op.addend.source, op.addend.port)
        if angle:
            return wrap(value, width), np.zeros(shape, dtype=bool)
        return saturate(value, width)

    for ccm in graph.ccms:
        angle_slot = ccm.system is System.CIRCULAR
        (x, xo), (y, yo), (z, zo) = (operand(op, angle_slot and slot == "z")
                                     for slot, op in ccm.operands())
        cfg = _config(ccm.system, ccm.direction, width, frac_bits, ccm.expansion,
                      tuple(sorted(config.items())))
        out = cordic_model(cfg, x, y, z)
        # Only the ports the graph reads count: an unused z may saturate harmlessly.
        port_overflow = [getattr(out, f"{p}_overflow") for p in graph.used_ports(ccm.name)]
        valid &= ~(xo | yo | zo | out.domain_error | np.logical_or.reduce(port_overflow))
        codes[ccm.name] = (out.x, out.y, out.z)
    for guard in graph.guards:
        valid &= np.abs(read(guard.source, guard.port)) >= guard_code(guard, fmt.lsb)
    values = {c.name: codes[c.name] for c in graph.ccms}
    outputs = {}
    for name, (code, overflow) in _port_codes(graph, values, port.width, guard_bits).items():
        valid &= ~overflow
        source, port_name = graph.outputs[name]
        outputs[name] = code_to_angle(code, port.width) if graph.is_angle(source, port_name) \
            else port.to_float(code)
    return {n: np.where(valid, v, 0.0) for n, v in outputs.items()}, valid, values


@functools.lru_cache(maxsize=256)
def _config(system, direction, width, frac_bits, expansion, config):
    # One configuration a kind of CCM: a graph has hundreds of CCMs of a few kinds, and a
    # servo loop evaluates it row by row.
    return CordicConfig(system, direction, width=width, frac_bits=frac_bits,
                        expansion=expansion, **dict(config))


def guard_code(guard, lsb):
    """The smallest code magnitude that passes ``guard`` where a code is ``lsb``: its minimum
    rounded up to whole LSBs."""
    return math.ceil(guard.minimum / lsb)


def _port_codes(graph, values, width, guard_bits):
    """``{output: (port codes, overflow)}``: internal codes rounded half to even by
    ``guard_bits``; angles wrap (a turn is a turn), reals saturate and flag."""
    out = {}
    for name, (source, port) in graph.outputs.items():
        code = round_shift(values[source]["xyz".index(port)], guard_bits, Rounding.HALF_EVEN)
        if graph.is_angle(source, port):
            out[name] = wrap(code, width), np.zeros(code.shape, dtype=bool)
        else:
            out[name] = saturate(code, width)
    return out


def output_codes(graph, values, width, guard_bits=0):
    """``{output: port codes}`` of the graph's named outputs, from the ``values`` that
    :func:`evaluate_model` returns (every CCM's internal ``(x, y, z)`` codes)."""
    return {name: code for name, (code, _) in
            _port_codes(graph, values, width, guard_bits).items()}


def task_graph_outputs(dut, inputs, formats):
    """The output payloads of a :class:`~robohw.taskgraph.pipeline.TaskGraphPipeline` by its
    graph's bit-exact model, for graph ``inputs`` (reals, radians) at ``formats``."""
    _, valid, codes = evaluate_model(dut.graph, inputs, **formats)
    out = [{"unreachable": int(not v)} for v in valid]
    for name, values in output_codes(dut.graph, codes, dut.width, dut.plan.guard_bits).items():
        for row, value in zip(out, values.tolist()):
            row[name] = value
    return out
