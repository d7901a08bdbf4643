"""A block of a matrix product held in vector registers: the inner loop of a direct convolution.

:func:`block` ``(rows, vectors, size)`` is a numba intrinsic, written as LLVM IR, computing

    C[p, v·L + l]  (+)=  Σ_{i < k1} Σ_{j < k2}  a[a0 + p·sa + i·a1 + j·ea] · b[b0 + i·b1 + j·sb + v·L + l]

for ``p < rows``, ``v < vectors``, ``l < L`` and storing it at ``c[c0 + p·sc + v·L + l]`` (``a``,
``b``, ``c``: flat float arrays of one dtype; ``L`` the lanes of a vector of ``size`` bytes,
by default the CPU's widest: 16 float32s with AVX-512, 8 with AVX2). Each step of the loop
broadcasts one number of ``a`` per row and multiplies it into ``vectors`` vectors of ``b``,
adding into ``rows x vectors`` accumulators that live in registers for the whole loop: a
product's inner loop as BLAS writes it by hand. numba's own loops keep such accumulators in
memory (or in scalars its vectoriser does not pack), a third of the speed; an intrinsic
states the vectors outright, and LLVM's ``fmuladd`` fuses each multiply and add where the
CPU has FMA.

With ``rows=6, vectors=2``, 12 accumulators, 2 vectors of ``b`` and one broadcast fill 15 of
AVX2's 16 registers, and half of AVX-512's 32 (where blocks of 32-byte vectors lost to
BLAS's and Winograd's products, which run 64 bytes wide there). ``a`` is read with any
strides, so a convolution's overlapping windows need no copy
(:mod:`funcgrad.kernels.direct_conv`); ``k1`` and ``k2`` are two levels of the sum (a
window's rows, then a run of ``k2`` numbers along one). With ``accumulate`` false the
block starts from zeros; with it, from what ``c`` holds. Offsets are in elements.

>>> import numba, numpy as np
>>> mul = block(2, 1, NARROW_BYTES)                   # vectors of 8 float32s on any CPU
>>> @numba.njit
... def product(a, b, c):   # c = a (2 x 3) @ b (3 x 8), both C-ordered
...     mul(a, 0, 3, 0, 1, b, 0, 0, 8, 1, 3, c, 0, 8, False)
>>> a, b = np.arange(6.0, dtype=np.float32), np.ones((3, 8), np.float32)
>>> c = np.zeros(16, np.float32)
>>> product(a, b.ravel(), c)
>>> c.reshape(2, 8)[:, :3]
array([[ 3.,  3.,  3.],
       [12., 12., 12.]], dtype=float32)
"""

import functools

from llvmlite import ir
from llvmlite.binding import get_host_cpu_features
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["block", "lanes", "VECTOR_BYTES", "NARROW_BYTES"]

NARROW_BYTES = 32  # AVX2's registers; LLVM splits them in two on a CPU of 16-byte vectors
# the CPU's widest vectors: AVX-512's where numba's compiler targets them
VECTOR_BYTES = 64 if get_host_cpu_features().get("avx512f", False) else NARROW_BYTES

_I64 = ir.IntType(64)


def lanes(itemsize, size=VECTOR_BYTES):
    """How many numbers of ``itemsize`` bytes one vector of ``size`` bytes holds."""
    return size // itemsize


@functools.cache
def block(rows, vectors, size=VECTOR_BYTES):
    """The intrinsic for a block of ``rows x vectors`` accumulators, vectors of ``size``
    bytes (see the module)."""

    @intrinsic
    def register_block(typingctx, a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate):
        i = types.intp
        sig = types.void(a, i, i, i, i, b, i, i, i, i, i, c, i, i, types.boolean)
        return sig, functools.partial(_emit, rows, vectors, size)

    return register_block


def _emit(rows, vectors, size, context, builder, signature, args):
    a, a0, sa, a1, ea, b, b0, b1, sb, k1, k2, c, c0, sc, accumulate = args
    kind = signature.args[0]
    scalar = context.get_value_type(kind.dtype)
    width = lanes(context.get_abi_sizeof(scalar), size)
    vector = ir.VectorType(scalar, width)
    bits = 32 if kind.dtype.bitwidth == 32 else 64
    fmuladd = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(vector, [vector] * 3), f"llvm.fmuladd.v{width}f{bits}"
    )

    def data(value, array_type, offset):
        return builder.gep(context.make_array(array_type)(context, builder, value).data, [offset])

    def at(pointer, offset):  # a vector's pointer, ``offset`` elements on
        return builder.bitcast(builder.gep(pointer, [offset]), vector.as_pointer())

    def const(n):
        return ir.Constant(_I64, n)

    pa0, pb0 = data(a, kind, a0), data(b, signature.args[5], b0)
    pc = data(c, signature.args[11], c0)
    places = [
        builder.add(builder.mul(const(p), sc), const(v * width))
        for p in range(rows)
        for v in range(vectors)
    ]
    zero = ir.Constant(vector, None)
    first = [
        builder.select(accumulate, builder.load(at(pc, place), align=1), zero) for place in places
    ]
    steps = builder.mul(k1, k2)

    entry = builder.block
    head = builder.append_basic_block("block.head")
    body = builder.append_basic_block("block.body")
    done = builder.append_basic_block("block.done")
    builder.branch(head)

    builder.position_at_end(head)
    step, j = builder.phi(_I64), builder.phi(_I64)
    pa, pb = builder.phi(pa0.type), builder.phi(pb0.type)
    sums = [builder.phi(vector) for _ in first]
    for phi, start in [(step, const(0)), (j, const(0)), (pa, pa0), (pb, pb0), *zip(sums, first)]:
        phi.add_incoming(start, entry)
    builder.cbranch(builder.icmp_signed("<", step, steps), body, done)

    builder.position_at_end(body)
    columns = [builder.load(at(pb, const(v * width)), align=1) for v in range(vectors)]
    spread = ir.Constant(ir.VectorType(ir.IntType(32), width), [0] * width)
    added = []
    for p in range(rows):
        number = builder.load(builder.gep(pa, [builder.mul(const(p), sa)]))
        broadcast = builder.shuffle_vector(
            builder.insert_element(zero, number, ir.Constant(ir.IntType(32), 0)), zero, spread
        )
        for v in range(vectors):
            added.append(builder.call(fmuladd, [broadcast, columns[v], sums[p * vectors + v]]))
    # along the run by ea and sb; past its end, to the next run's start (a1 and b1 on)
    next_j = builder.add(j, const(1))
    wraps = builder.icmp_signed("==", next_j, k2)
    back = builder.sub(k2, const(1))
    move_a = builder.select(wraps, builder.sub(a1, builder.mul(back, ea)), ea)
    move_b = builder.select(wraps, builder.sub(b1, builder.mul(back, sb)), sb)
    end = builder.block
    step.add_incoming(builder.add(step, const(1)), end)
    j.add_incoming(builder.select(wraps, const(0), next_j), end)
    pa.add_incoming(builder.gep(pa, [move_a]), end)
    pb.add_incoming(builder.gep(pb, [move_b]), end)
    for phi, value in zip(sums, added):
        phi.add_incoming(value, end)
    builder.branch(head)

    builder.position_at_end(done)
    for place, total in zip(places, sums):
        builder.store(total, at(pc, place), align=1)
    return context.get_dummy_value()
