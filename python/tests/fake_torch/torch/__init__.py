"""A CPU stand-in for torch: exactly what the bridge (python/flashscope/_calls.py) calls, so the
bridge's marshalling is tested where torch and a GPU are not. A tensor here is a record of the
buffer it would wrap: pointer, shape, dtype, strides. Nothing is allocated or computed."""

__version__ = "0.0-fake"


class dtype:
    def __init__(self, name, itemsize):
        self.name, self.itemsize = name, itemsize

    def __repr__(self):
        return "torch." + self.name


float32, float16, bfloat16, int16 = (dtype("float32", 4), dtype("float16", 2),
                                     dtype("bfloat16", 2), dtype("int16", 2))
float8_e4m3fn, uint8 = dtype("float8_e4m3fn", 1), dtype("uint8", 1)
_TYPESTRS = {"<f4": float32, "<f2": float16, "<i2": int16, "|u1": uint8}


class Tensor:
    def __init__(self, pointer, shape, dt):
        self._pointer, self.shape, self.dtype = pointer, tuple(shape), dt

    def data_ptr(self):
        return self._pointer

    def stride(self):
        strides, step = [], 1
        for extent in reversed(self.shape):
            strides.insert(0, step)
            step *= extent
        return tuple(strides)

    def view(self, dt):
        if dt.itemsize != self.dtype.itemsize:
            raise RuntimeError("fake torch: view changes the element size")
        return Tensor(self._pointer, self.shape, dt)


def as_tensor(obj):
    cai = obj.__cuda_array_interface__
    if cai.get("version") != 3 or cai.get("strides") is not None or cai.get("stream") is not None:
        raise ValueError("fake torch: unexpected __cuda_array_interface__ %r" % (cai,))
    return Tensor(cai["data"][0], cai["shape"], _TYPESTRS[cai["typestr"]])


from torch import cuda, nn  # noqa: E402,F401
