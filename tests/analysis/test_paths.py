"""Best and k-best paths from the fold with back-pointers, checked by enumerating every path."""

import itertools
import math

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.cli.demo import all_paths, layered_dag

rng = np.random.default_rng(3)


def random_dag(n, p):
    """A source, n nodes each adding a random subset of earlier nodes (at least one), a sink."""
    s = fg.var(1.0, name="s")
    nodes = [s]
    for _ in range(n):
        chosen = [m for m in nodes if rng.random() < p] or [nodes[int(rng.integers(len(nodes)))]]
        nodes.append(fg.add_n(*chosen))
    t = fg.add_n(*nodes[-3:])
    return t, s


def edge_weights():
    table = {}

    def weight(parent, child):
        key = (id(parent), id(child))
        if key not in table:
            table[key] = float(rng.integers(1, 10))
        return table[key]

    return weight


def path_score(path, weight, semiring):
    score = semiring.one
    for a, b in itertools.pairwise(path):
        score = semiring.times(score, weight(a, b))
    return score


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("name", ["max_plus", "min_plus", "max_product"])
def test_best_path_equals_brute_force(seed, name):
    semiring = getattr(fg.semirings, name)
    t, s = random_dag(7, 0.4)
    weight = edge_weights()
    score, nodes = fg.best_path(t, s, weight, semiring)
    every = list(all_paths(t, s))
    scores = [path_score(p, weight, semiring) for p in every]
    best = max(scores) if name != "min_plus" else min(scores)
    assert math.isclose(score, best)
    assert nodes[0] is s and nodes[-1] is t
    assert all(a in b.args for a, b in itertools.pairwise(nodes))  # a real path
    assert math.isclose(path_score(nodes, weight, semiring), score)


@pytest.mark.parametrize("seed", range(6))
def test_k_best_paths_equal_brute_force(seed):
    t, s = random_dag(6, 0.5)
    weight = edge_weights()
    every = sorted(
        (path_score(p, weight, fg.semirings.max_plus) for p in all_paths(t, s)), reverse=True
    )
    found = fg.k_best_paths(t, s, weight, 5)
    assert [score for score, _ in found] == every[:5]
    for score, nodes in found:
        assert math.isclose(path_score(nodes, weight, fg.semirings.max_plus), score)
    assert len({tuple(map(id, p)) for _, p in found}) == len(found)  # distinct paths


def test_best_path_on_the_notes_dag_agrees_with_sum_product():
    t, s, names = layered_dag(layers=4, width=3)
    weight = lambda p, c: float(len(names[p]) + 2 * len(names[c]) % 5)
    score, nodes = fg.best_path(t, s, weight, fg.semirings.min_plus)
    assert score == fg.sum_product(t, weight, fg.semirings.min_plus)[s]
    assert next(names[n] for n in nodes) == "s" and names[nodes[-1]] == "t"


def test_errors_name_what_is_wrong():
    x = fg.var(1.0, name="x")
    y = fg.numpy.sin(x) + fg.numpy.cos(x)
    with pytest.raises(ValueError, match="'log' is not selective"):
        fg.best_path(y, x, lambda p, c: -1.0, fg.semirings.log)
    with pytest.raises(ValueError, match="does not depend on source"):
        fg.best_path(y, fg.var(2.0), lambda p, c: 1.0)
    with pytest.raises(TypeError, match=r"semiring must be a fg.Semiring"):
        fg.best_path(y, x, lambda p, c: 1.0, "max_plus")
    with pytest.raises(ValueError, match="k must be a positive int"):
        fg.k_best_paths(y, x, lambda p, c: 1.0, 0)
