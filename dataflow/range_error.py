"""What a traced plan cannot size or bound: :class:`RangeError`, raised where a format is
assigned (:mod:`robohw.dataflow.graph`) or an error rule meets a value it cannot bound
(:mod:`robohw.dataflow.operations`), caught by the width searches that try the next width."""

__all__ = ["RangeError"]


class RangeError(ValueError):
    """A traced value no fixed-point format at this width holds with a bounded error: its
    range, or the error bound carried with it, beyond float64, or its format's largest value
    beyond float64's (the bit-exact model decodes its codes as float64), or a divisor whose
    error bound reaches its smallest magnitude. The message names the value; a divisor's
    names it as ``value`` (its node's name, or ``None``) with its smallest magnitude ``least``
    and its error ``bound``, for a refusal to say what would serve."""

    def __init__(self, message, *, value=None, least=None, bound=None):
        super().__init__(message)
        self.value, self.least, self.bound = value, least, bound

    def renamed(self, message):
        """The same error with another ``message`` (its context added)."""
        return RangeError(message, value=self.value, least=self.least, bound=self.bound)
