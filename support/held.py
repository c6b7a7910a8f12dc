"""What a run builds once: a file command solving its file chunk by chunk, or the API called in
a loop, asks for the same design, plan or machine again and again; :class:`Held` builds each on
first use and hands the same one back, keeping the last few."""

__all__ = ["Held"]


class Held:
    """The last ``kept`` things built, by key (a hashable naming everything that determines
    one).

    Parameters
    ----------
    kept : int
        How many are held; the one built longest ago goes first (at least 1).
    """

    def __init__(self, kept):
        if not isinstance(kept, int) or isinstance(kept, bool):
            raise TypeError(f"kept must be an integer, not {kept!r}")
        if kept < 1:
            raise ValueError(f"kept must be at least 1, not {kept}")
        self._kept, self._held = kept, {}

    def get(self, key, build):
        """The thing held under ``key``, else ``build()``'s, held."""
        if key not in self._held:
            value = build()
            if len(self._held) >= self._kept:
                del self._held[next(iter(self._held))]
            self._held[key] = value
        return self._held[key]
