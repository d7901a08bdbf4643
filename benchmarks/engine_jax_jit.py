"""JAX under ``jax.jit`` (XLA), float64 on the CPU: the same functions as engine_jax,
jitted whole (W4: the training step with its update; W5: ``jax.jit(jax.hessian(f))``)."""

import engine_jax
from engine_jax import ovc_make, ovg_make, w4_make, w5_make  # noqa: F401

engine_jax.JIT = True
NAME = "jax_jit"
