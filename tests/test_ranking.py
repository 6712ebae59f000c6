"""C-5: ranks in a result."""

from referee.ranking import competition_ranks


def test_C_5_ties_share_and_next_rank_skips():
    assert competition_ranks([10, 5, 5, 1]) == [1, 2, 2, 4]


def test_C_5_all_tied():
    assert competition_ranks([3, 3, 3]) == [1, 1, 1]


def test_C_5_disqualified_rank_below_everyone_ordered_by_measure():
    # seat 0 would be best, but is disqualified; seat 3 too, with a lower measure
    assert competition_ranks([100, 5, 7, 50], disqualified={0, 3}) == [3, 2, 1, 4]


def test_C_5_disqualified_ties_share():
    assert competition_ranks([1, 1, 9], disqualified={0, 1}) == [2, 2, 1]
