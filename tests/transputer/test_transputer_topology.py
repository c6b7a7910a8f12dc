"""The transputer trees: the paper's for 3, 6, 7 and 8 slaves, and their rule beyond."""

import pytest

from robohw.transputer.topology import tree


def _shape(network):
    """Children per node, the master first, down to the last node with any."""
    counts = [len(network.children(node)) for node in range(network.processors + 1)]
    while counts and counts[-1] == 0:
        counts.pop()
    return counts


def test_the_papers_trees():
    assert _shape(tree(3)) == [3]
    assert _shape(tree(6)) == [3, 1, 1, 1]
    assert _shape(tree(7)) == [3, 2, 1, 1]
    assert _shape(tree(8)) == [3, 2, 2, 1]
    assert [tree(8).level(k) for k in range(1, 9)] == [1, 1, 1, 2, 2, 2, 2, 2]


@pytest.mark.parametrize("processors", [1, 2, 12, 13, 16, 64])
def test_every_tree_respects_the_links(processors):
    network = tree(processors)
    assert network.processors == processors
    for node in range(processors + 1):
        assert len(network.children(node)) <= 3
    levels = [network.level(k) for k in range(1, processors + 1)]
    assert levels == sorted(levels)                  # filled level by level
    assert max(levels) == {1: 1, 2: 1, 12: 2, 13: 3, 16: 3, 64: 4}[processors]


def test_a_bad_count_is_refused():
    with pytest.raises(ValueError, match="processors must be a positive integer, not 0"):
        tree(0)
