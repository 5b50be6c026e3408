"""Reading Nsight Compute's output, for ncu_crosscheck.py: no GPU, no policy, only parsing.

  parse_number, to_base   ncu's value text -> float; its unit names (default units and those of
                          `--print-units base`) -> the units of our catalogue (ns, Hz, byte, ...)
  read_ncu_csv            the kernels and metrics of `--csv --page details` or `--page raw`, from
                          a log where CSV rows are mixed with ==PROF== lines and the
                          application's own output
  read_prof_kernels,      ncu's '==PROF== Profiling "K" ... - N passes' progress lines in the
  read_pass_counts        variants its versions print: the kernels it profiled, their passes
  count_profiled          how many kernels a log says ncu profiled (==PROF== lines, else CSV rows)
  ncu_version             the version from `ncu --version`

tests: scripts/device/tests/ncu_parse_test.py.
"""

import csv
import io
import re

_SI = {'': 1.0, 'K': 1e3, 'k': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}
# Time units -> ns. ncu prints 'nsecond' .. 'second' with its default units and 'ns' .. 's' with
# `--print-units base` (gpu__time_duration came back as '546,528' 'ns' on 2025.3).
_TIME_NS = {'ns': 1.0, 'nsecond': 1.0, 'nsec': 1.0,
            'us': 1e3, 'usecond': 1e3, 'usec': 1e3, '\u00b5s': 1e3,
            'ms': 1e6, 'msecond': 1e6, 'msec': 1e6,
            's': 1e9, 'second': 1e9, 'sec': 1e9}
# Byte units: ncu's prefixes are decimal (Kbyte = 1000 byte); KB/MB/GB read the same way, the
# binary KiB/MiB/GiB as 1024-based.
_BYTES = {'byte': 1.0, 'bytes': 1.0, 'B': 1.0,
          'Kbyte': 1e3, 'kbyte': 1e3, 'KB': 1e3, 'kB': 1e3,
          'Mbyte': 1e6, 'MB': 1e6, 'Gbyte': 1e9, 'GB': 1e9, 'Tbyte': 1e12, 'TB': 1e12,
          'KiB': 1024.0, 'MiB': 1024.0 ** 2, 'GiB': 1024.0 ** 3, 'TiB': 1024.0 ** 4}
_COUNT_WORDS = ('cycle', 'inst', 'sector', 'request', 'wavefront', 'warp', 'thread',
                'block', 'conflict', 'transaction')


def parse_number(text):
    """ncu's value text -> float, or None for n/a. Thousands separators are dropped."""
    t = text.strip().replace(',', '')
    if t == '' or t.lower() in ('n/a', 'nan', '-'):
        return None
    try:
        return float(t)
    except ValueError:
        return None


def _count_unit(word):
    """'Kbyte' -> (1e3, 'byte'), 'Minst' -> (1e6, 'inst'), 'warps' -> (1, 'warp'); None when the
    word is not a count or byte unit we know."""
    if word in _BYTES:
        return _BYTES[word], 'byte'
    for prefix in ('', 'K', 'k', 'M', 'G', 'T'):
        if not word.startswith(prefix):
            continue
        rest = word[len(prefix):]
        if rest in _COUNT_WORDS:
            return _SI[prefix], rest
        if rest.endswith('s') and rest[:-1] in _COUNT_WORDS:
            return _SI[prefix], rest[:-1]
    return None


def to_base(value, unit):
    """Converts an ncu value to the units of our catalogue: time in ns, frequencies and cycle
    rates in Hz, other rates per second, bytes and counts unscaled, % unchanged. Returns
    (value, unit) or (None, why) for a unit this script does not know (then the row says so
    instead of guessing)."""
    if value is None:
        return None, 'no value'
    u = unit.strip()
    if u in ('', '%'):
        return value, u
    if u in _TIME_NS:
        return value * _TIME_NS[u], 'ns'
    if u.lower().endswith('hz') and u[:-2] in _SI:
        return value * _SI[u[:-2]], 'Hz'
    if u.count('/') == 1:
        num, den = u.split('/')
        if den not in _TIME_NS:
            return None, 'unknown unit ' + u
        per_second = 1e9 / _TIME_NS[den]
        if num in ('', '1'):
            return value * per_second, 'Hz'
        count = _count_unit(num)
        if count is None:
            return None, 'unknown unit ' + u
        unit_out = 'Hz' if count[1] == 'cycle' else count[1] + '/s'
        return value * count[0] * per_second, unit_out
    count = _count_unit(u)
    if count is None:
        return None, 'unknown unit ' + u
    return value * count[0], count[1]


def _csv_rows(text):
    """The CSV rows of a mixed ncu log: only lines that start with a quote are ncu's CSV; ==PROF==
    lines and the application's own output are skipped."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    return list(csv.reader(io.StringIO('\n'.join(lines))))


def read_ncu_csv(text):
    """Profiled kernels in ncu's order: [{'id', 'kernel', 'metrics': {name: (unit, value)}}].
    Reads both `--page details --csv` (one row per metric: ..., "Metric Name", "Metric Unit",
    "Metric Value") and `--page raw --csv` (one row per kernel, metric columns, a units row)."""
    kernels = {}
    order = []
    header = None
    units = None
    for row in _csv_rows(text):
        if 'ID' in row and 'Kernel Name' in row:
            header = {name: i for i, name in enumerate(row)}
            units = None
            continue
        if header is None or len(row) != len(header):
            continue
        kid = row[header['ID']]
        if kid == '':  # the units row of the raw page
            units = row
            continue
        if kid not in kernels:
            kernels[kid] = {'id': kid, 'kernel': row[header['Kernel Name']], 'metrics': {}}
            order.append(kid)
        k = kernels[kid]
        if 'Metric Name' in header:
            unit = row[header['Metric Unit']] if 'Metric Unit' in header else ''
            k['metrics'][row[header['Metric Name']]] = (unit, row[header['Metric Value']])
        else:
            for name, i in header.items():
                if '__' in name:
                    k['metrics'][name] = (units[i] if units else '', row[i])
    return [kernels[i] for i in order]


# ncu's progress line for one profiled kernel, in the variants seen across versions:
#   ==PROF== Profiling "K" - 0: 0%....50%....100% - 9 passes
#   ==PROF== Profiling "K" - 0 (1/1): 0%....100% - 1 pass
#   ==PROF== Profiling "K": 0%....100% - 9 passes
# The progress may be split over lines or carriage returns, interleaved with the application's
# own output (which then pushes "- 9 passes" onto a later line), or redrawn with '\r'. Kernel
# names may hold parentheses, templates and quotes: the name ends at the quote that is followed
# by the optional " - ID (i/n)" and a colon that starts the progress.
_PROF_START = re.compile(r'==PROF==[ \t]+Profiling[ \t]+"')
_PROF_HEAD = r'"[ \t]*(?:-[ \t]*(?P<id>\d+)(?:[ \t]*\(\d+/\d+\))?[ \t]*)?:'
_PROF_HEAD_STRICT = re.compile(_PROF_HEAD + r'[ \t]*(?=\d+%|\.|$)')
_PROF_HEAD_LOOSE = re.compile(_PROF_HEAD)
_PROF_PASSES = re.compile(r'-[ \t]*(?P<n>\d+)[ \t]+pass\w*')
_PROF_ANY = re.compile(r'==(?:PROF|ERROR)==')


def read_prof_kernels(text):
    """Kernels ncu started profiling, in order: [{'kernel', 'id', 'passes'}] from its '==PROF==
    Profiling' lines; 'passes' is None when the line never got to its pass count (a stopped run,
    a failed kernel). A line redrawn with '\r' counts once."""
    starts = [m.end() for m in _PROF_START.finditer(text)]
    entries = []
    for i, begin in enumerate(starts):
        line_end = len(text)
        for stop in ('\n', '\r'):
            j = text.find(stop, begin)
            if j != -1:
                line_end = min(line_end, j)
        line = text[begin:line_end]
        heads = list(_PROF_HEAD_STRICT.finditer(line))
        head = heads[0] if heads else None
        if head is None:
            loose = list(_PROF_HEAD_LOOSE.finditer(line))
            head = loose[-1] if loose else None
        if head is not None:
            name, kid, rest_at = line[:head.start()], head.group('id'), begin + head.end()
        else:
            q = line.rfind('"')
            name, kid, rest_at = (line[:q] if q != -1 else line), None, line_end
        # The pass count belongs to this kernel until the next ==PROF== (or ==ERROR==) message.
        nxt = _PROF_ANY.search(text, rest_at)
        segment_end = nxt.start() if nxt else len(text)
        m = _PROF_PASSES.search(text, rest_at, segment_end)
        entries.append({'kernel': name, 'id': None if kid is None else int(kid),
                        'passes': int(m.group('n')) if m else None,
                        'start': begin, 'next': starts[i + 1] if i + 1 < len(starts) else None})
    out = []
    for i, e in enumerate(entries):
        later = entries[i + 1] if i + 1 < len(entries) else None
        redrawn = (e['passes'] is None and later is not None and later['kernel'] == e['kernel']
                   and later['id'] == e['id'] and '\n' not in text[e['start']:e['next']])
        if not redrawn:
            out.append({'kernel': e['kernel'], 'id': e['id'], 'passes': e['passes']})
    return out


def read_pass_counts(text):
    """[(kernel, passes)] of the kernels whose ==PROF== line got to its pass count."""
    return [(k['kernel'], k['passes']) for k in read_prof_kernels(text) if k['passes'] is not None]


def count_profiled(text):
    """How many kernels ncu profiled according to a log: its ==PROF== Profiling lines or, when it
    printed none (some versions keep progress off --log-file), the kernels in its CSV rows."""
    return max(len(read_prof_kernels(text)), len(read_ncu_csv(text)))


def ncu_version(text):
    """The version `ncu --version` printed ('2025.3.1.0'), or 'unknown'."""
    m = re.search(r'Version\s+(\S+)', text)
    return m.group(1) if m else 'unknown'
