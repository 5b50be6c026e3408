#!/usr/bin/env python3
"""check_text.py FILE [ALLOWED]: exit 1 naming the first character of FILE that no output of
flashscope may hold raw (docs/robustness.md, "Strings"): a byte that is not UTF-8, a C0 control
(other than those in ALLOWED, default "\\n"), DEL, a C1 control, or a bidi control (U+202A..U+202E,
U+2066..U+2069, U+200E, U+200F, U+061C). ALLOWED takes Python escapes ("\\r\\n")."""
import sys

BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}


def main():
    data = open(sys.argv[1], "rb").read()
    allowed = (sys.argv[2].encode().decode("unicode_escape") if len(sys.argv) > 2 else "\n")
    try:
        text = data.decode("utf-8", "strict")
    except UnicodeDecodeError as e:
        sys.exit(f"{sys.argv[1]}: byte {data[e.start]:#04x} at {e.start} is not UTF-8")
    for at, ch in enumerate(text):
        cp = ord(ch)
        unsafe = cp < 0x20 or cp == 0x7F or 0x80 <= cp <= 0x9F or cp in BIDI
        if unsafe and ch not in allowed:
            sys.exit(f"{sys.argv[1]}: U+{cp:04X} at character {at}: "
                     f"...{text[max(0, at - 40):at]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
