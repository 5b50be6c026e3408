"""torch.cuda for the CPU stand-in: streams are handles, the current one is tracked, and each
synchronisation is counted (the bridge synchronises only when it prepares a kernel)."""

synchronizations = 0


class ExternalStream:
    def __init__(self, stream_ptr):
        self.cuda_stream = stream_ptr

    def synchronize(self):
        global synchronizations
        synchronizations += 1


_default = ExternalStream(0)
_current = _default


def default_stream():
    return _default


def current_stream():
    return _current


class stream:
    def __init__(self, s):
        self.s = s

    def __enter__(self):
        global _current
        self.previous, _current = _current, self.s

    def __exit__(self, *exc):
        global _current
        _current = self.previous


def synchronize():
    _default.synchronize()
