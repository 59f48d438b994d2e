"""The two growth laws the softmax ε-rank claim compares."""

from attndepth.theory.softmax_rank import doubly_exponential_growth, exponential_growth


def test_exponential_keeps_the_growth_and_doubly_exponential_triples_it():
    assert [exponential_growth(0.5, k) for k in (1, 2, 3)] == [0.5, 0.5, 0.5]
    assert [doubly_exponential_growth(0.5, k) for k in (1, 2, 3)] == [1.5, 4.5, 13.5]
