"""Neural-network functions of the two-page backprop note, differentiable.

>>> import numpy as np
>>> import funcgrad as fg
>>> x = fg.var(np.array([1.0, 2.0, 3.0]))
>>> loss = fg.nn.pnls(x, 2)            # log(sum(exp(x))) - x[2]
>>> round(float(loss.value), 4)
0.4076
>>> fg.backprop(loss)[x].round(4)      # softmax(x) - e_2
array([ 0.09  ,  0.2447, -0.3348])
"""

from .rules.elementwise import relu, sigmoid, tanh
from .rules.nn import log_softmax, logsumexp, pnls, softmax

__all__ = ["relu", "sigmoid", "tanh", "softmax", "log_softmax", "logsumexp", "pnls"]
