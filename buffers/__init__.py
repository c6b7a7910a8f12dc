"""The buffer-assignment optimizer that balances pipelined task graphs (Lee & Chang, section
2.2): :func:`~robohw.buffers.assignment.assign_buffers`. The delay lines it plans are built by
:func:`robohw.hw.delay_line.tapped_delay_line`."""

from robohw.buffers.assignment import BufferAssignment, Edge, assign_buffers, critical_path

__all__ = ["BufferAssignment", "Edge", "assign_buffers", "critical_path"]
