"""What every CORDIC architecture shares: checked parameters and the stream signature."""

from fractions import Fraction

from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from cordic.config import CordicConfig
from cordic.datapath import input_layout, output_layout

__all__ = ["CordicComponent"]


class CordicComponent(wiring.Component):
    """Base of :class:`~cordic.pipelined.PipelinedCordic` and
    :class:`~cordic.word_serial.WordSerialCordic`.

    Parameters
    ----------
    config : :class:`~cordic.config.CordicConfig`
        Mode and number formats.
    tag_width : int
        Width of the user tag carried from ``i`` to ``o`` unchanged.

    Members
    -------
    i : ``In(stream.Signature(input_layout))``
        ``x``, ``y``, ``z`` (signed ``config.width`` bits each) and ``tag``.
    o : ``Out(stream.Signature(output_layout))``
        ``x``, ``y``, ``z``, ``domain_error``, ``overflow`` and ``tag``.
    """
    def __init__(self, config, *, tag_width=0):
        if not isinstance(config, CordicConfig):
            raise TypeError(f"config must be a CordicConfig, not {config!r}")
        if not isinstance(tag_width, int) or isinstance(tag_width, bool) or tag_width < 0:
            raise ValueError(f"tag_width must be a non-negative integer, not {tag_width!r}")
        self._config = config
        self._tag_width = tag_width
        super().__init__({
            "i": In(stream.Signature(input_layout(config, tag_width))),
            "o": Out(stream.Signature(output_layout(config, tag_width))),
        })

    @property
    def config(self):
        return self._config

    @property
    def tag_width(self):
        return self._tag_width

    @property
    def latency(self):
        """Cycles from an input transfer to its result being valid."""
        raise NotImplementedError

    @property
    def interval(self):
        """Cycles between results under continuous input."""
        raise NotImplementedError

    @property
    def throughput(self):
        """Results per cycle, ``1 / interval``."""
        return Fraction(1, self.interval)
