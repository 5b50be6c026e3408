"""Reading a flashscope report from a script: plain JSON or xz-compressed (the larger committed
runs under results/runs/ are kept as .json.xz). Standard library only."""
import json
import lzma


def load_report(path):
    """The report at `path` as parsed JSON; OSError, ValueError or lzma.LZMAError when unreadable."""
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)
