"""Where the arrays of a GPU call live, and getting them onto the device.

A call is in *device mode* when any input already lives on a CUDA device (CuPy,
PyTorch, Numba... through ``__cuda_array_interface__`` or DLPack): every input is
then viewed as a CuPy array (no copy when it is already contiguous with the kernel's
dtype), kernels run on CuPy's current stream and the results are CuPy arrays.
Otherwise it is in *host mode*: numpy inputs are uploaded once into
``fastamfm._cuda.DeviceArray`` buffers, kernels run on the legacy default stream,
and results are copied back into numpy arrays. A float matrix that is already a
DeviceArray (``fastamfm.gpu.to_device``: U_k, word vectors) stays where it is, so
repeated calls (rewards in a training loop) upload only their small inputs.

Contents (offsets, ids) are checked with the array's own module (numpy or CuPy)
before any kernel runs, so no kernel can read out of bounds.
"""
from __future__ import annotations

import numpy as np

_KDLCUDA = 2  # DLPack device type of CUDA memory


def is_resident(x) -> bool:
    """A ``fastamfm._cuda.DeviceArray``: device memory usable in either mode."""
    kind = type(x)
    return kind.__name__ == "DeviceArray" and kind.__module__ == "fastamfm._cuda"


def is_device_array(x) -> bool:
    """A foreign device array (CuPy, PyTorch...), which puts the call in device mode."""
    if is_resident(x):
        return False
    if hasattr(x, "__cuda_array_interface__"):
        return True
    dlpack_device = getattr(x, "__dlpack_device__", None)
    if dlpack_device is None or isinstance(x, np.ndarray):
        return False
    return dlpack_device()[0] == _KDLCUDA


def cupy_module():
    try:
        import cupy
    except ImportError as exc:
        raise ImportError(
            "device arrays were passed to fastamfm.gpu but CuPy is not installed; install the CuPy "
            "wheel for your CUDA version (e.g. pip install cupy-cuda12x) or pass numpy arrays"
        ) from exc
    return cupy


class Placement:
    """Converts a call's arrays to one side, checks their contents, allocates outputs."""

    def __init__(self, *arrays):
        self.on_device = any(is_device_array(a) for a in arrays if a is not None)
        self.xp = cupy_module() if self.on_device else np

    def raw(self, x, name: str, ndim: int, kind: str):
        """``x`` on this call's side, any dtype of ``kind`` ("int" or "real"); no conversion yet."""
        if is_resident(x) and not self.on_device:
            raise TypeError(f"{name}: ids and offsets are checked on the host, pass them as numpy arrays "
                            "(resident DeviceArrays are for the float matrices)")
        if self.on_device:
            if not hasattr(x, "__cuda_array_interface__") and is_device_array(x):
                x = self.xp.from_dlpack(x)
            arr = self.xp.asarray(x)
        else:
            arr = np.asarray(x)
        if arr.ndim != ndim:
            raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(arr.shape)}")
        allowed = "iu" if kind == "int" else "fiu"
        if arr.dtype.kind not in allowed:
            what = "integers" if kind == "int" else "real numbers"
            raise TypeError(f"{name} must hold {what}, got dtype {arr.dtype}")
        return arr

    def array(self, x, dtype, name: str, ndim: int):
        """``x`` as a C-contiguous array of ``dtype`` (no copy when it already is one)."""
        if is_resident(x) and not self.on_device and np.dtype(dtype).kind == "f":
            if x.typestr != np.dtype(dtype).str or len(x.shape) != ndim:
                raise TypeError(f"{name}: this DeviceArray is {x.typestr} with shape {x.shape}; expected "
                                f"{np.dtype(dtype).name} with {ndim} dimension(s)")
            return x
        kind = "int" if np.dtype(dtype).kind in "iu" else "real"
        return self.xp.ascontiguousarray(self.raw(x, name, ndim, kind), dtype=dtype)

    def offsets(self, x, name: str, *, total: int):
        """int64 offsets: starting at 0, non-decreasing, ending at ``total``."""
        off = self.array(x, np.int64, name, 1)
        if off.shape[0] == 0:
            raise ValueError(f"{name} is empty; it needs one more element than there are rows")
        first, last = int(off[0]), int(off[-1])
        if first != 0:
            raise ValueError(f"{name}[0] must be 0, got {first}")
        if last != total:
            raise ValueError(f"{name}[-1] must be {total} (the number of entries), got {last}")
        steps = off[1:] - off[:-1]
        if steps.shape[0] and int(steps.min()) < 0:
            bad = int(self.xp.argmax(steps < 0))
            raise ValueError(f"{name} must be non-decreasing, but {name}[{bad + 1}] < {name}[{bad}]")
        return off

    def ids(self, x, name: str, *, limit: int, limit_name: str):
        """int32 row numbers in [0, limit)."""
        ids = self.raw(x, name, 1, "int")
        if ids.shape[0]:
            low, high = int(ids.min()), int(ids.max())
            if low < 0 or high >= limit:
                bad = low if low < 0 else high
                raise ValueError(f"{name} holds {bad}, outside [0, {limit}) ({limit_name})")
        return self.xp.ascontiguousarray(ids, dtype=np.int32)

    def stream(self) -> int:
        return self.xp.cuda.get_current_stream().ptr if self.on_device else 0

    def to_kernel(self, arr):
        """What a kernel receives: the CuPy array itself, or an uploaded DeviceArray."""
        if self.on_device or is_resident(arr):
            return arr
        from ..runtime import cuda_module

        return cuda_module().DeviceArray.from_host(np.ascontiguousarray(arr))

    def scratch(self, shape):
        """A float32 device buffer for intermediate results (NaN-filled in host mode)."""
        if self.on_device:
            return self.xp.empty(shape, dtype=np.float32)
        from ..runtime import cuda_module

        return cuda_module().DeviceArray.empty(tuple(shape), "<f4")

    def result(self, device_out, out):
        """Hand back the kernel output: ``out`` itself when given, else a new array of this side."""
        if self.on_device:
            return device_out
        host = device_out.to_host()
        if out is None:
            return host
        np.copyto(out, host)
        return out

    def output(self, shape, out, name: str = "out"):
        """The buffer the kernel writes: the caller's device ``out``, or a fresh one."""
        if out is None:
            return self.scratch(shape)
        if tuple(out.shape) != tuple(shape) or np.dtype(out.dtype) != np.float32:
            raise ValueError(f"{name} must be a float32 array of shape {tuple(shape)}, "
                             f"got {np.dtype(out.dtype)} {tuple(out.shape)}")
        if self.on_device:
            if not is_device_array(out):
                raise TypeError(f"{name} must be a device array when the inputs are device arrays")
            return out
        if not isinstance(out, np.ndarray):
            raise TypeError(f"{name} must be a numpy array when the inputs are numpy arrays")
        return self.scratch(shape)
