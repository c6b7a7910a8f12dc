"""Delay lines and the buffer-assignment optimizer that balances pipelined task graphs
(Lee & Chang, section 2.2): :func:`~buffers.assignment.assign_buffers`."""

from buffers.assignment import BufferAssignment, Edge, assign_buffers, critical_path

__all__ = ["BufferAssignment", "Edge", "assign_buffers", "critical_path"]
