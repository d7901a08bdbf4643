"""Integer labels traced by jit and vmap are still labels: cross_entropy and one_hot read
their dtype, not their Python type (a jitted loss used to take them for probabilities)."""

import numpy as np

import funcgrad as fg
from tests.helpers import assert_close

LOGITS = np.random.default_rng(0).normal(size=(4, 3))
LABELS = np.array([0, 1, 2, 0])


def test_cross_entropy_with_traced_integer_labels_is_the_eager_loss():
    eager = fg.nn.cross_entropy(LOGITS, LABELS)
    assert_close(fg.jit(fg.nn.cross_entropy)(LOGITS, LABELS), eager, rtol=1e-15)
    assert_close(
        fg.jit(fg.grad(fg.nn.cross_entropy))(LOGITS, LABELS),
        fg.grad(fg.nn.cross_entropy)(LOGITS, LABELS),
        rtol=1e-15,
    )
    per_example = fg.vmap(fg.nn.cross_entropy)(LOGITS[:, None], LABELS[:, None])
    loop = [fg.nn.cross_entropy(LOGITS[i : i + 1], LABELS[i : i + 1]) for i in range(4)]
    assert_close(per_example, np.array(loop), rtol=1e-15)
    assert_close(fg.nn.cross_entropy(LOGITS, LABELS.tolist()), eager, rtol=1e-15)


def test_one_hot_of_traced_labels():
    assert_close(fg.jit(fg.nn.one_hot, static_argnums=1)(LABELS, 3), np.eye(3)[LABELS])
    assert_close(fg.vmap(lambda y: fg.nn.one_hot(y, 3))(LABELS), np.eye(3)[LABELS])
