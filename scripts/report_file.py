"""Reading a flashscope report from a script: plain JSON, or compressed with xz or gzip, recognised
by the file's first bytes as flashscope itself does (reports/input_file.h), whatever its name.
zstd needs a module outside the standard library: such a file is refused with a message saying so
(`zstd -d` decompresses it). Standard library only.
Duplicate keys are refused, as flashscope refuses them (reports/json_strict.h)."""
import gzip
import json
import lzma

XZ_MAGIC = b"\xfd7zXZ\x00"
GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def _refuse_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r} in one object: refused, as flashscope does")
        seen[key] = value
    return seen


def load_report(path):
    """The report at `path` as parsed JSON; OSError, ValueError or lzma.LZMAError when unreadable."""
    with open(path, "rb") as f:
        head = f.read(6)
    if head.startswith(XZ_MAGIC):
        opener = lzma.open
    elif head.startswith(GZIP_MAGIC):
        opener = gzip.open
    elif head.startswith(ZSTD_MAGIC):
        raise ValueError(f"{path}: zstd-compressed; Python's standard library cannot read zstd "
                         "(decompress it first: zstd -d PATH)")
    else:
        opener = open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=_refuse_duplicates)


def trust_checks(case):
    """The trust checks recorded for a case (docs/trust.md), [] when it has none."""
    return (case.get("trust") or {}).get("checks", [])


def check_value(check, name):
    """The value named `name` of a trust check, None when the check does not record it."""
    for v in check.get("values", []):
        if v["name"] == name:
            return v["value"]
    return None
