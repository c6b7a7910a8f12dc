"""Forward dynamics on a board (``robohw board build|run --design forward-dynamics``): the
engine the design builds for a robot, with a board's tag, its identity, and the outputs of a
file's states computed on it behind its serial port.

The board holds :func:`robohw.dynamics.forward.files.certified_plan`'s plan, built as the
``forward-dynamics`` design builds it
(:meth:`~robohw.dynamics.forward.engine.ForwardDynamicsEngine.for_plan`); the host encodes each
state, reads back each acceleration with ``in_bounds`` and ``checked``, and certifies the rows
as it certifies the model's (:func:`~robohw.dynamics.forward.files.solve_forward`'s ``board``
backend), so ``board run`` writes the model's file byte for byte.
"""

from robohw.dynamics.forward.engine import ForwardDynamicsEngine, forward_interval

__all__ = ["forward_board_design", "forward_board_digest", "forward_on_board"]


def forward_board_digest(plan, interval):
    """The digest a board holding the engine of ``plan`` at ``interval`` answers with
    (:func:`robohw.board.frames.design_digest`): the design, its formulation, the width, the
    interval and the robot's description."""
    from robohw.board.frames import design_digest
    from robohw.robots.toml_file import description_identity
    return design_digest(f"forward-dynamics {plan.formulation} width={plan.width} "
                         f"interval={interval} {description_identity(plan.robot)}")


def forward_board_design(plan, interval=None):
    """``(dut, digest)``: the engine of ``plan`` (a
    :class:`~robohw.dynamics.forward.plan.ForwardPlan`) at ``interval`` (default
    :func:`~robohw.dynamics.forward.engine.forward_interval`'s) with a board's tag
    (:data:`robohw.board.frame_decoder.TAG_BITS` bits), and its
    :func:`forward_board_digest`."""
    from robohw.board.frame_decoder import TAG_BITS
    dut = ForwardDynamicsEngine.for_plan(plan, interval=interval or forward_interval(plan),
                                         tag_width=TAG_BITS)
    return dut, forward_board_digest(plan, dut.interval)


def forward_on_board(plan, payloads, port, interval=None, progress=None):
    """The output payloads of ``payloads`` (input codes, as
    :func:`robohw.hw.payload.payload_rows` gives them) on the board behind ``port`` (an open
    serial port, or :class:`~robohw.board.sim_port.SimulatedPort`) holding the engine of
    ``plan`` at ``interval``; :class:`~robohw.board.driver.BoardError` where its identity is
    another's. ``progress``: a stream for the count's line."""
    from robohw.board.core import frame_format_of
    from robohw.board.driver import Board
    from robohw.support.progress import Progress
    dut, digest = forward_board_design(plan, interval)
    shown = Progress(len(payloads), progress)
    outputs = Board(port, frame_format_of(dut), digest=digest, outstanding=None).run(
        payloads, lambda done: shown.update(done, "on the board"))
    shown.update(len(payloads), "on the board", force=True)
    return outputs
