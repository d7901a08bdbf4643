"""The models of benchmarks/models.py written by hand in NumPy, forward and backward.

These are the limit rows of the models' table, as the hand-written NumPy step is W4's:
what NumPy and its BLAS reach on the same step when a person writes out every
derivative. Each step is written once and runs two ways:

- fresh: every intermediate a new array, as NumPy code written as expressions makes;
- preallocated: every intermediate in an array made at the first call and reused (the
  zeros a convolution pads with are written once), the limit a plan's buffers aim at.

Each returns ``(loss, grads)`` with ``grads`` shaped as the parameters, and is checked
against PyTorch's gradients in float64 (benchmarks/models.py) before it is timed. The
layouts are the funcgrad models': channels last, the GPT's matrices ``(in, out)``.

>>> import numpy as np
>>> step = conv_step(keep=True)
>>> p = {"w": np.ones((3, 3, 1, 1)), "x": np.ones((1, 3, 3, 1))}
>>> loss, grads = step(p)
>>> float(loss), grads["w"].shape, grads["x"].shape    # (4 * 4**2 + 4 * 6**2 + 9**2) / 2
(144.5, (3, 3, 1, 1), (1, 3, 3, 1))
"""

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

GELU_C = math.sqrt(2.0 / math.pi)


class Buffers:
    """Where a step's arrays live: a fresh one at every call (``keep=False``), or one per
    name, made at the first call and handed out again (``keep=True``)."""

    def __init__(self, keep):
        self.keep = keep
        self.made = {}

    def __call__(self, name, shape, dtype, zeros=False):
        """An array of ``shape``; with ``zeros``, zeros when made (a preallocated one keeps
        what the step wrote: for the padding a step never writes)."""
        if not self.keep:
            return np.zeros(shape, dtype) if zeros else np.empty(shape, dtype)
        a = self.made.get(name)
        if a is None:
            a = self.made[name] = np.zeros(shape, dtype) if zeros else np.empty(shape, dtype)
        return a


# ---------------------------------------------------------------- pieces both models use


def _log_softmax_loss(logits, targets, buf):
    """Mean cross-entropy of ``logits`` ``(N, V)`` against ``targets`` ``(N,)``, and the
    logits' cotangent (written over ``logits``)."""
    n = logits.shape[0]
    rows = np.arange(n)
    logits -= logits.max(-1, keepdims=True)
    e = np.exp(logits, out=buf("softmax", logits.shape, logits.dtype))
    total = e.sum(-1, keepdims=True)
    loss = -(logits[rows, targets] - np.log(total[:, 0])).mean()
    np.divide(e, total, out=logits)
    logits[rows, targets] -= 1.0
    logits /= n
    return loss, logits


def _segment_sum(index, rows, out):
    """``out[index[i]] += rows[i]`` by a sort and one ``np.add.reduceat`` (np.add.at is
    several times slower)."""
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    out[ordered[starts]] += np.add.reduceat(rows[order], starts, axis=0)


# ---------------------------------------------------------------- the GPT step


def gpt_step(shape, keep):
    """The GPT step of ``shape`` (benchmarks/models.py ``gpt_shape``):
    ``step(params, tokens, targets) -> (loss, grads)``."""
    _V, D, H, T, B = (shape[k] for k in "VDHTB")
    dh, n = D // H, B * T
    scale = 1.0 / math.sqrt(dh)
    masked = ~np.tril(np.ones((T, T), bool))
    buf = Buffers(keep)

    def layer_norm(x, g, b, name):
        xc = np.subtract(x, x.mean(-1, keepdims=True), out=buf(name + "xhat", x.shape, x.dtype))
        rstd = np.square(xc, out=buf(name + "sq", x.shape, x.dtype)).mean(-1, keepdims=True)
        rstd += 1e-5
        np.sqrt(rstd, out=rstd)
        np.divide(1.0, rstd, out=rstd)
        xhat = np.multiply(xc, rstd, out=xc)
        h = np.multiply(xhat, g, out=buf(name + "h", x.shape, x.dtype))
        h += b
        return h, xhat, rstd

    def layer_norm_back(dh_, xhat, rstd, g, name):
        """(dg, db, dx) of a layer norm; dx is written over ``dh_``."""
        tmp = np.multiply(dh_, xhat, out=buf(name + "tmp", xhat.shape, xhat.dtype))
        dg, db = tmp.sum(0), dh_.sum(0)
        dxhat = np.multiply(dh_, g, out=dh_)
        mean_dxhat = dxhat.mean(-1, keepdims=True)
        mean_both = np.multiply(dxhat, xhat, out=tmp).mean(-1, keepdims=True)
        dxhat -= np.multiply(xhat, mean_both, out=tmp)
        dxhat -= mean_dxhat
        dxhat *= rstd
        return dg, db, dxhat

    def heads(a):  # (n, D) -> (B, H, T, dh), a view
        return a.reshape(B, T, H, dh).transpose(0, 2, 1, 3)

    def step(p, tokens, targets):
        dt = p["emb"].dtype
        x = buf("x", (n, D), dt)
        np.take(p["emb"], tokens, axis=0, out=x.reshape(B, T, D))
        x.reshape(B, T, D)[...] += p["pos"]
        saved = []
        for i, lay in enumerate(p["layers"]):
            h1, xhat1, rstd1 = layer_norm(x, lay["g1"], lay["b1"], f"ln1{i}")
            qkv = np.matmul(h1, lay["qkv"], out=buf(f"qkv{i}", (n, 3 * D), dt))
            q, k, v = heads(qkv[:, :D]), heads(qkv[:, D : 2 * D]), heads(qkv[:, 2 * D :])
            s = np.matmul(q, k.transpose(0, 1, 3, 2), out=buf(f"p{i}", (B, H, T, T), dt))
            s *= scale
            np.copyto(s, -1e9, where=masked)
            s -= s.max(-1, keepdims=True)
            np.exp(s, out=s)
            s /= s.sum(-1, keepdims=True)
            a = np.matmul(s, v, out=buf("a", (B, H, T, dh), dt))
            flat = buf(f"att{i}", (n, D), dt)
            np.copyto(flat.reshape(B, T, H, dh), a.transpose(0, 2, 1, 3))
            x += np.matmul(flat, lay["proj"], out=buf("nd", (n, D), dt))
            h2, xhat2, rstd2 = layer_norm(x, lay["g2"], lay["b2"], f"ln2{i}")
            f = np.matmul(h2, lay["fc"], out=buf(f"f{i}", (n, 4 * D), dt))
            t = np.multiply(f, f, out=buf(f"t{i}", f.shape, dt))
            t *= 0.044715
            t += 1.0
            t *= f
            t *= GELU_C
            np.tanh(t, out=t)
            ge = np.add(t, 1.0, out=buf("ge", f.shape, dt))
            ge *= f
            ge *= 0.5
            x += np.matmul(ge, lay["out"], out=buf("nd", (n, D), dt))
            saved.append((h1, xhat1, rstd1, qkv, s, flat, h2, xhat2, rstd2, f, t))
        logits = np.matmul(x, p["emb"].T, out=buf("logits", (n, p["emb"].shape[0]), dt))
        loss, dlogits = _log_softmax_loss(logits, targets.reshape(-1), buf)
        demb = np.matmul(dlogits.T, x, out=buf("demb", p["emb"].shape, dt))
        dx = np.matmul(dlogits, p["emb"], out=buf("dx", (n, D), dt))
        grads = []
        for lay, (h1, xhat1, rstd1, qkv, s, flat, h2, xhat2, rstd2, f, t) in zip(
            reversed(p["layers"]), reversed(saved)
        ):
            g = {}
            ge = np.add(t, 1.0, out=buf("ge", f.shape, dt))
            ge *= f
            ge *= 0.5
            g["out"] = ge.T @ dx
            dge = np.matmul(dx, lay["out"].T, out=buf("dge", f.shape, dt))
            # gelu'(f) = (1 + t) / 2 + f (1 - t^2) c (1 + 3 * 0.044715 f^2) / 2
            slope = np.multiply(f, f, out=buf("slope", f.shape, dt))
            slope *= 3 * 0.044715
            slope += 1.0
            slope *= f
            slope *= GELU_C
            tt = np.multiply(t, t, out=buf("tt", f.shape, dt))
            np.subtract(1.0, tt, out=tt)
            slope *= tt
            slope += t
            slope += 1.0
            slope *= 0.5
            dge *= slope
            g["fc"] = h2.T @ dge
            dh2 = np.matmul(dge, lay["fc"].T, out=buf("dh", (n, D), dt))
            g["g2"], g["b2"], dln = layer_norm_back(dh2, xhat2, rstd2, lay["g2"], "ln2")
            dx += dln
            g["proj"] = flat.T @ dx
            da = heads(np.matmul(dx, lay["proj"].T, out=buf("da", (n, D), dt)))
            q, k, v = heads(qkv[:, :D]), heads(qkv[:, D : 2 * D]), heads(qkv[:, 2 * D :])
            dqkv = buf("dqkv", (n, 3 * D), dt)
            dv = np.matmul(s.transpose(0, 1, 3, 2), da, out=buf("dv", v.shape, dt))
            heads(dqkv[:, 2 * D :])[...] = dv
            ds = np.matmul(da, v.transpose(0, 1, 3, 2), out=buf("ds", s.shape, dt))
            ds -= np.multiply(ds, s, out=buf("dsp", s.shape, dt)).sum(-1, keepdims=True)
            ds *= s
            ds *= scale
            heads(dqkv[:, :D])[...] = np.matmul(ds, k, out=buf("dq", q.shape, dt))
            heads(dqkv[:, D : 2 * D])[...] = np.matmul(
                ds.transpose(0, 1, 3, 2), q, out=buf("dq", q.shape, dt)
            )
            g["qkv"] = h1.T @ dqkv
            dh1 = np.matmul(dqkv, lay["qkv"].T, out=buf("dh", (n, D), dt))
            g["g1"], g["b1"], dln = layer_norm_back(dh1, xhat1, rstd1, lay["g1"], "ln1")
            dx += dln
            grads.append(g)
        _segment_sum(tokens.reshape(-1), dx, demb)
        dpos = dx.reshape(B, T, D).sum(0)
        return loss, {"emb": demb, "pos": dpos, "layers": grads[::-1]}

    return step


# ---------------------------------------------------------------- the CNN step and one convolution


def _conv3x3(x, w, buf, name, images=None):
    """A "SAME" 3x3 convolution of ``x`` ``(N, H, W, C)`` by ``w`` ``(3, 3, C, O)``: the
    output ``(N * H * W, O)`` and its window rows ``(N * H * W, 9 C)`` (one strided copy).
    With ``images``, that many images' rows at a time, read back from the cache by the
    product (no rows returned)."""
    n, h, wd, c = x.shape
    o = w.shape[-1]
    padded = buf(name + "pad", (n, h + 2, wd + 2, c), x.dtype, zeros=True)
    padded[:, 1:-1, 1:-1] = x
    out = buf(name + "y", (n * h * wd, o), x.dtype)
    step = images or n
    for start in range(0, n, step):
        stop = min(n, start + step)
        rows = buf(name + f"rows{stop - start}", (stop - start, h, wd, 3, 3, c), x.dtype)
        windows = sliding_window_view(padded[start:stop], (3, 3), axis=(1, 2))
        np.copyto(rows, windows.transpose(0, 1, 2, 4, 5, 3))
        rows = rows.reshape(-1, 9 * c)
        np.matmul(rows, w.reshape(9 * c, o), out=out[start * h * wd : stop * h * wd])
    return out, None if images else rows


def _conv3x3_input_grad(dy, w, shape, buf, name):
    """The input's cotangent of :func:`_conv3x3`: the "SAME" convolution of ``dy`` with the
    kernel turned half a circle and its channel axes swapped (a transposed convolution,
    eight images at a time; adding the rows' cotangent back window element by window
    element is slower)."""
    n, h, wd, _c = shape
    turned = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
    dx, _ = _conv3x3(dy.reshape(n, h, wd, -1), turned, buf, name + "t", images=8)
    return dx.reshape(shape)


def _corners(r):
    """The four elements of each 2x2 window of ``r`` ``(N, H, W, C)``, as strided views, in
    the windows' reading order."""
    return [r[:, i::2, j::2] for i in (0, 1) for j in (0, 1)]


def _max_pool(r, buf, name):
    """2x2 max pooling of ``r`` ``(N, H, W, C)``, a pass per window element."""
    a, b, c, d = _corners(r)
    out = np.maximum(a, b, out=buf(name + "pool", a.shape, r.dtype))
    np.maximum(out, c, out=out)
    return np.maximum(out, d, out=out)


def _max_pool_back(dpooled, r, pooled, buf, name):
    """The cotangent of :func:`_max_pool`: ``dpooled`` to each window's first maximum (as
    PyTorch's and XLA's cotangents send it), a pass per window element."""
    dr = buf(name + "dr", r.shape, r.dtype)
    taken = buf(name + "taken", pooled.shape, bool)
    taken.fill(False)
    hit = buf(name + "hit", pooled.shape, bool)
    for corner, into in zip(_corners(r), _corners(dr)):
        np.equal(corner, pooled, out=hit)
        hit &= ~taken
        taken |= hit
        np.multiply(dpooled, hit, out=into)
    return dr


def cnn_step(keep):
    """The CNN step: ``step(params, images, labels) -> (loss, grads)``."""
    buf = Buffers(keep)

    def block(x, w, b, name):  # conv, bias, relu, pool
        y, rows = _conv3x3(x, w, buf, name)
        y += b
        r = np.maximum(y, 0.0, out=buf(name + "r", y.shape, y.dtype))
        r = r.reshape(*x.shape[:3], -1)
        pooled = _max_pool(r, buf, name)
        return pooled, (y, rows, r, pooled)

    def block_back(dpooled, x, w, saved, name, input_grad):
        y, rows, r, pooled = saved
        dy = _max_pool_back(dpooled, r, pooled, buf, name).reshape(y.shape)
        dy *= y > 0
        dw = (rows.T @ dy).reshape(w.shape)
        dx = _conv3x3_input_grad(dy, w, x.shape, buf, name) if input_grad else None
        return dw, dy.sum(0), dx

    def step(p, images, labels):
        h1, saved1 = block(images, p["c1"], p["b1"], "1")
        h2, saved2 = block(h1, p["c2"], p["b2"], "2")
        flat = h2.reshape(h2.shape[0], -1)
        logits = np.matmul(flat, p["d"], out=buf("logits", (flat.shape[0], 10), flat.dtype))
        logits += p["b3"]
        loss, dz = _log_softmax_loss(logits, labels, buf)
        g = {"d": flat.T @ dz, "b3": dz.sum(0)}
        dh2 = (dz @ p["d"].T).reshape(h2.shape)
        g["c2"], g["b2"], dh1 = block_back(dh2, h1, p["c2"], saved2, "2", True)
        g["c1"], g["b1"], _ = block_back(dh1, images, p["c1"], saved1, "1", False)
        return loss, g

    return step


def conv_step(keep):
    """One convolution: ``step(params) -> (loss, grads)`` of the squared sum / 2."""
    buf = Buffers(keep)

    def step(p):
        x, w = p["x"], p["w"]
        y, rows = _conv3x3(x, w, buf, "")
        loss = np.vdot(y, y) / 2
        return loss, {
            "w": (rows.T @ y).reshape(w.shape),
            "x": _conv3x3_input_grad(y, w, x.shape, buf, ""),
        }

    return step


STEPS = {
    "gpt": gpt_step,
    "gpt-large": gpt_step,
    "cnn": lambda shape, keep: cnn_step(keep),
    "conv": lambda shape, keep: conv_step(keep),
}
"""Each model's hand-written step maker, ``make(shape, keep)``."""
