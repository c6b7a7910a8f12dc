"""The trees Zomaya & Morris connect their transputers in: the master ``P0`` (its fourth link
goes to the host PC) with up to three slaves on its other links, each slave with up to three
below it (a T800 has four links, one to its parent).

The paper draws 3 slaves on the master, 6 as three with one each below them, 7 with four below
(two under one), and 8 in a figure the text does not describe; :func:`tree` fills
every tree level by level, each level's slaves handed to the level above in turn, which gives
exactly those for 3, 6 and 7 and, for 8, three with five below (2, 2, 1), the natural reading.
Which slaves are on the first level is not in the paper: here ``P1``-``P3``.
"""

from dataclasses import dataclass

from robohw.hw.checks import check_positive_integer

__all__ = ["FANOUT", "Tree", "tree"]

FANOUT = 3      # slaves below the master or a slave: a T800's four links, one going up


@dataclass(frozen=True)
class Tree:
    """``parents[k - 1]``: the node slave ``P{k}`` hangs from (0: the master)."""
    parents: tuple

    @property
    def processors(self):
        return len(self.parents)

    def children(self, node):
        """The slaves directly below ``node`` (0: the master), in order."""
        return tuple(k for k, parent in enumerate(self.parents, start=1) if parent == node)

    def level(self, node):
        """Links between ``node`` and the master (1: on the master)."""
        hops = 0
        while node:
            node, hops = self.parents[node - 1], hops + 1
        return hops


def tree(processors, fanout=FANOUT):
    """The tree of ``processors`` slaves (module docstring)."""
    check_positive_integer("processors", processors)
    parents, level, next_slave = [], [0], 1
    while next_slave <= processors:
        below = []
        for turn in range(fanout * len(level)):
            if next_slave > processors:
                break
            parents.append(level[turn % len(level)])
            below.append(next_slave)
            next_slave += 1
        level = below
    return Tree(tuple(parents))
