"""What every CORDIC architecture shares: the checked configuration and the stream signature."""

from robohw.cordic.config import CordicConfig
from robohw.cordic.datapath import input_fields, output_fields
from robohw.hw.stream import StreamPipeline

__all__ = ["CordicComponent"]


class CordicComponent(StreamPipeline):
    """Base of :class:`~robohw.cordic.pipelined.PipelinedCordic` and
    :class:`~robohw.cordic.word_serial.WordSerialCordic`.

    Parameters
    ----------
    config : :class:`~robohw.cordic.config.CordicConfig`
        Mode and number formats.
    tag_width : int
        Width of the user tag carried from ``i`` to ``o`` unchanged.

    Members
    -------
    i : ``In(stream.Signature(...))``
        ``x``, ``y``, ``z`` (signed ``config.width`` bits each) and ``tag``.
    o : ``Out(stream.Signature(...))``
        ``x``, ``y``, ``z``, ``domain_error``, ``overflow`` and ``tag``.
    """
    def __init__(self, config, *, tag_width=0):
        if not isinstance(config, CordicConfig):
            raise TypeError(f"config must be a CordicConfig, not {config!r}")
        self._config = config
        super().__init__(input_fields(config), output_fields(config), tag_width=tag_width)

    @property
    def config(self):
        return self._config
