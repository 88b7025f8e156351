"""Writes the .npy inputs of rownorm.pto and the expected z, computed independently with NumPy
(fp32 subtraction and maximum are IEEE operations, so the result must match bit for bit)."""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)
x = (rng.standard_normal((16, 64)) * 3).astype(np.float32)
m = x.max(axis=1, keepdims=True).astype(np.float32)
lo = np.full((16, 1), -8.0, dtype=np.float32)
z = np.maximum(np.subtract(x, m), lo)
for name, a in (("x", x), ("m", m), ("lo", lo), ("expected_z", z)):
    np.save(os.path.join(here, "rownorm_%s.npy" % name), a)
