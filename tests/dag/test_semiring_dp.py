"""Dynamic programs as folds: an HMM's marginals from the gradient of its log-partition
function (against forward-backward), and soft-DTW's expected alignment (against
enumerating every alignment)."""

import itertools

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

rng = np.random.default_rng(5)


def hmm_log_partition(theta, log_a, log_pi):
    """log Z by the forward algorithm in the log semiring; theta[t, s] = log p(obs_t | s)."""
    alpha = log_pi + theta[0]
    for t in range(1, theta.shape[0]):
        alpha = fg.nn.logsumexp(alpha[:, None] + log_a, axis=0) + theta[t]
    return fg.nn.logsumexp(alpha, axis=0)


def forward_backward(theta, log_a, log_pi):
    """Posterior marginals p(z_t = s | obs), the textbook way, in probabilities."""
    a, e = np.exp(log_a), np.exp(theta)
    T, S = theta.shape
    alpha, beta = np.zeros((T, S)), np.ones((T, S))
    alpha[0] = np.exp(log_pi) * e[0]
    for t in range(1, T):
        alpha[t] = (alpha[t - 1] @ a) * e[t]
    for t in range(T - 2, -1, -1):
        beta[t] = a @ (e[t + 1] * beta[t + 1])
    post = alpha * beta
    return post / post.sum(axis=1, keepdims=True), np.log(alpha[-1].sum())


@pytest.mark.parametrize("T,S", [(1, 3), (5, 2), (12, 4)])
def test_hmm_marginals_are_the_gradient_of_log_z(T, S):
    log_a = np.log(rng.dirichlet(np.ones(S), size=S))
    log_pi = np.log(rng.dirichlet(np.ones(S)))
    theta = np.log(rng.dirichlet(np.ones(6), size=S))[:, rng.integers(0, 6, size=T)].T
    marginals, log_z = forward_backward(theta, log_a, log_pi)
    value, grad = fg.value_and_grad(hmm_log_partition)(theta, log_a, log_pi)
    np.testing.assert_allclose(value, log_z, rtol=1e-12)
    np.testing.assert_allclose(grad, marginals, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad.sum(axis=1), 1.0, rtol=1e-12)


def soft_dtw(D, gamma):
    """Soft-DTW: the smoothed-min dynamic program over alignments of a cost matrix D."""
    n, m = D.shape
    big = 1e10  # stands for +inf without making inf - inf
    R = [[big] * (m + 1) for _ in range(n + 1)]
    R[0][0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            prev = fnp.stack([R[i - 1][j - 1] * 1.0, R[i - 1][j] * 1.0, R[i][j - 1] * 1.0])
            R[i][j] = D[i - 1, j - 1] - gamma * fg.nn.logsumexp(-prev / gamma, axis=0)
    return R[n][m]


def alignments(n, m):
    """Every monotone path of cells from (0, 0) to (n - 1, m - 1)."""

    def extend(path):
        i, j = path[-1]
        if (i, j) == (n - 1, m - 1):
            yield path
            return
        for di, dj in ((1, 0), (0, 1), (1, 1)):
            if i + di < n and j + dj < m:
                yield from extend(path + [(i + di, j + dj)])

    return list(extend([(0, 0)]))


@pytest.mark.parametrize("n,m", [(2, 3), (3, 4), (4, 4)])
def test_soft_dtw_gradient_is_the_expected_alignment(n, m):
    D = rng.random((n, m))
    gamma = 0.7
    expected = np.zeros((n, m))
    paths = alignments(n, m)
    costs = np.array([sum(D[c] for c in p) for p in paths])
    weights = np.exp(-(costs - costs.min()) / gamma)
    weights /= weights.sum()
    for w, p in zip(weights, paths):
        for c in p:
            expected[c] += w
    value, E = fg.value_and_grad(soft_dtw)(D, gamma)
    np.testing.assert_allclose(E, expected, rtol=1e-9, atol=1e-12)
    soft_min = costs.min() - gamma * np.log(np.exp(-(costs - costs.min()) / gamma).sum())
    np.testing.assert_allclose(value, soft_min, rtol=1e-10)


def test_soft_dtw_alignment_tends_to_the_best_path():
    D = rng.random((4, 5))
    best = min(alignments(4, 5), key=lambda p: sum(D[c] for c in p))
    E = fg.grad(soft_dtw)(D, 1e-3)
    hard = np.zeros_like(D)
    for c in best:
        hard[c] = 1.0
    np.testing.assert_allclose(E, hard, atol=1e-6)


def test_viterbi_by_max_plus_matches_brute_force():
    """The same HMM graph, read with best_path: a layered DAG of (state, time) nodes."""
    S, T = 3, 4
    log_a = np.log(rng.dirichlet(np.ones(S), size=S))
    theta = np.log(rng.random((T, S)))
    source = fg.var(0.0, name="start")
    layer = [fg.add_n(source) for _ in range(S)]
    nodes = [layer]
    for _ in range(1, T):
        layer = [fg.add_n(*nodes[-1]) for _ in range(S)]
        nodes.append(layer)
    end = fg.add_n(*nodes[-1])
    where = {n: (t, s) for t, layer in enumerate(nodes) for s, n in enumerate(layer)}

    def weight(parent, child):  # entering child (t, s): transition + emission
        if child is end:
            return 0.0
        t, s = where[child]
        return theta[t, s] + (0.0 if parent is source else log_a[where[parent][1], s])

    score, path = fg.best_path(end, source, weight)
    best = max(
        itertools.product(range(S), repeat=T),
        key=lambda z: (
            theta[0, z[0]] + sum(log_a[z[t - 1], z[t]] + theta[t, z[t]] for t in range(1, T))
        ),
    )
    assert [where[n][1] for n in path[1:-1]] == list(best)
    assert np.isclose(
        score,
        theta[0, best[0]]
        + sum(log_a[best[t - 1], best[t]] + theta[t, best[t]] for t in range(1, T)),
    )
