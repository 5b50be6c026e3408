#!/usr/bin/env python3
"""Issue 3's proof, the parts that need no GPU: read Nsight Compute's CSV output, put it beside
flashscope-metric-probe's JSON (ours), and compute the profiling-overhead ratio of a suite run.

  ncu_crosscheck.py table    --ours ours.json --ncu-dir DIR --out-md F --out-json F [--commands F]
  ncu_crosscheck.py overhead --plain R.json --ours R.json [--ncu-report R.json] --ncu-log LOG
                             --walls walls.json --out-md F --out-json F [--commands F]

DIR holds one ncu log per workload, DIR/<workload>.csv: what `ncu --csv --log-file` wrote
(CSV rows and ==PROF== lines mixed). scripts/device/ncu-crosscheck.sh runs everything on the GPU
machine; tests: scripts/device/tests/ncu_crosscheck_test.py.
"""

import argparse
import csv
import io
import json
import math
import re
import statistics
import sys

# The bar: ours within 2 percentage points, or 2 % relative, of ncu.
TOLERANCE_PP = 2.0
TOLERANCE_REL_PCT = 2.0
# Collecting the basic set in-process must cost at most a third of what ncu costs.
REQUIRED_RATIO = 1.0 / 3.0

_PROF_PASSES = re.compile(
    r'==PROF==\s+Profiling\s+"(?P<kernel>.*)".*?-\s*(?P<n>\d+)\s+pass(?:es)?\b')
_SI = {'': 1.0, 'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}
_TIME_NS = {'nsecond': 1.0, 'usecond': 1e3, 'msecond': 1e6, 'second': 1e9}
_PER_TIME = {'nsecond': 1e9, 'usecond': 1e6, 'msecond': 1e3, 'second': 1.0}
_COUNT_WORDS = ('byte', 'cycle', 'inst', 'sector', 'request', 'wavefront', 'warp', 'thread',
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
    """'Kbyte' -> (1e3, 'byte'), 'inst' -> (1, 'inst'); None when not a count unit we know."""
    for prefix in ('', 'K', 'M', 'G', 'T'):
        rest = word[len(prefix):]
        if word.startswith(prefix) and (rest in _COUNT_WORDS or rest.rstrip('s') in _COUNT_WORDS):
            return _SI[prefix], rest
    return None


def to_base(value, unit):
    """Converts an ncu value to the units of our catalogue: time in ns, rates per second, counts
    and bytes unscaled, % unchanged. Returns (value, our unit) or (None, why) when the unit is
    one this script does not know (then the row says so instead of guessing)."""
    if value is None:
        return None, 'no value'
    u = unit.strip()
    if u in ('', '%'):
        return value, u
    if u in _TIME_NS:
        return value * _TIME_NS[u], 'ns'
    if u.lower().endswith('hz') and u[:-2].upper() in _SI:
        return value * _SI[u[:-2].upper()], 'Hz'
    if '/' in u:
        num, den = u.split('/', 1)
        if den not in _PER_TIME:
            return None, 'unknown unit ' + u
        count = (1.0, '') if num in ('', '1') else _count_unit(num)
        if count is None:
            return None, 'unknown unit ' + u
        per_second = count[1] + '/s' if count[1] not in ('', 'cycle') else 'Hz'
        return value * count[0] * _PER_TIME[den], per_second
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


def read_pass_counts(text):
    """[(kernel, passes)] from ncu's '==PROF== Profiling "K" - 0: 0%....100% - 9 passes' lines."""
    return [(m.group('kernel'), int(m.group('n'))) for m in _PROF_PASSES.finditer(text)]


def ncu_version(text):
    m = re.search(r'Version\s+(\S+)', text)
    return m.group(1) if m else 'unknown'


def compare(ours_value, ncu_value, unit):
    """(diff pp or None, diff % relative or None, within: bool)."""
    diff = ours_value - ncu_value
    pp = diff if unit == '%' else None
    rel = abs(diff) / abs(ncu_value) * 100.0 if ncu_value != 0 else (0.0 if diff == 0 else None)
    within = (pp is not None and abs(pp) <= TOLERANCE_PP) or (
        rel is not None and rel <= TOLERANCE_REL_PCT)
    return pp, rel, within


def build_table(ours, ncu_logs):
    """Rows (metric × workload) of ours against ncu. `ncu_logs` maps workload -> log text."""
    rows = []
    passes = []
    for w in ours['workloads']:
        text = ncu_logs.get(w['name'])
        kernels = read_ncu_csv(text) if text is not None else []
        ncu_passes = read_pass_counts(text) if text is not None else []
        passes.append({'workload': w['name'], 'ours': w.get('passes', []),
                       'ncu': [n for _, n in ncu_passes], 'ncu_kernels': len(kernels)})
        for m in ours['metrics']:
            hw = m['hw_name']
            row = {'metric': m['name'], 'hw_name': hw, 'unit': m['unit'], 'workload': w['name'],
                   'ours': None, 'ncu': None, 'diff_pp': None, 'diff_pct': None,
                   'within': False, 'note': ''}
            mine = w.get('values', {}).get(hw)
            if mine is None:
                row['note'] = 'ours: ' + w.get('error', 'no value')
            else:
                row['ours'] = mine['median']
                if len(mine['samples']) > 1:
                    row['note'] = 'ours {:.4g}..{:.4g} over {} runs'.format(
                        mine['min'], mine['max'], len(mine['samples']))
            if text is None:
                row['note'] = 'no ncu output for this workload'
            elif len(kernels) != 1:
                # One launch per workload is the design; anything else is not comparable.
                row['note'] = 'ncu profiled {} kernels, expected 1'.format(len(kernels))
            elif hw not in kernels[0]['metrics']:
                row['note'] = 'ncu did not report ' + hw
            else:
                unit, text_value = kernels[0]['metrics'][hw]
                value, why = to_base(parse_number(text_value), unit)
                if value is None:
                    row['note'] = 'ncu: {} ({!r} {!r})'.format(why, text_value, unit)
                else:
                    row['ncu'] = value
            if row['ours'] is not None and row['ncu'] is not None:
                row['diff_pp'], row['diff_pct'], row['within'] = compare(
                    row['ours'], row['ncu'], m['unit'])
            rows.append(row)
    return rows, passes


def _fmt(v, digits=4):
    if v is None:
        return '–'
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return str(v)
    return '{:.{}g}'.format(v, digits) if abs(v) < 1e6 else '{:.4e}'.format(v)


def table_markdown(ours, rows, passes, commands, version):
    ok = sum(1 for r in rows if r['within'])
    lines = [
        '# Cross-check: flashscope range profiler vs Nsight Compute',
        '',
        'Device: {} (sm_{}, {} SMs), chip {}; ncu {}.'.format(
            ours['device']['name'], ours['device']['cc'], ours['device']['sm_count'],
            ours.get('chip', '?'), version),
        'Ours: {} ({} pass(es) per profile, median of {} runs). ncu: one launch per workload, '
        '`--clock-control none`, default cache control (caches flushed before each pass).'.format(
            ours.get('replay', ''), ours.get('passes_needed', '?'), ours.get('repeat', '?')),
        '',
        '**{} of {} rows within {:g} pp or {:g} % relative.**'.format(
            ok, len(rows), TOLERANCE_PP, TOLERANCE_REL_PCT),
        '',
        '| metric | workload | ours | ncu | diff pp | diff % | within 2 pp or 2 % | note |',
        '|---|---|---:|---:|---:|---:|---|---|',
    ]
    for r in rows:
        lines.append('| {} | {} | {} | {} | {} | {} | {} | {} |'.format(
            r['metric'], r['workload'], _fmt(r['ours']), _fmt(r['ncu']), _fmt(r['diff_pp'], 3),
            _fmt(r['diff_pct'], 3), 'yes' if r['within'] else 'no', r['note']))
    lines += ['', '## Passes', '', '| workload | ours (per run) | ncu | ncu kernels |',
              '|---|---|---|---:|']
    for p in passes:
        lines.append('| {} | {} | {} | {} |'.format(
            p['workload'], ', '.join(map(str, p['ours'])) or '–',
            ', '.join(map(str, p['ncu'])) or '–', p['ncu_kernels']))
    lines += ['', '## Commands', '', '```sh', commands.strip(), '```', '']
    return '\n'.join(lines)


def _cases(report):
    return report.get('cases', []) if report else []


def _launched(case):
    # Cases that reached the verify-phase launch: the ones ncu's NVTX filter profiles.
    return case.get('status') in ('passed', 'failed')


def overhead(plain, ours, ncu_report, ncu_log, walls):
    """The issue's speed check. Ours = the wall time `--metrics basic` adds to the suite run;
    ncu = the wall time running the same suite under ncu (same metrics, the verify launch of each
    case) adds. The ratio must be <= 1/3. A timed-out ncu run only bounds ncu from below, so the
    ratio is then an upper bound."""
    profiled = [c for c in _cases(ours) if (c.get('profile') or {}).get('available')]
    ours_passes = [c['profile'].get('passes', 0) for c in profiled]
    ncu_passes = read_pass_counts(ncu_log)
    ours_extra = walls['ours_s'] - walls['plain_s']
    ncu_extra = walls['ncu_s'] - walls['plain_s']
    profile_sum = sum(c['profile'].get('wall_s', 0.0) for c in profiled)
    timed_out = bool(walls.get('ncu_timed_out'))
    ratio = ours_extra / ncu_extra if ncu_extra > 0 else None
    ratio_profile = profile_sum / ncu_extra if ncu_extra > 0 else None
    if ratio is None:
        verdict = 'unknown: ncu added no wall time over the plain run'
    elif ratio <= REQUIRED_RATIO:
        verdict = 'meets <= 1/3' + (' (upper bound: ncu was stopped at its time limit)'
                                    if timed_out else '')
    else:
        verdict = ('unknown: ncu was stopped at its time limit' if timed_out
                   else 'fails: more than 1/3')
    return {
        'suite': walls.get('suite', 'smoke'),
        'kernels_filter': walls.get('kernels_filter', ''),
        'cases_total': len(_cases(plain)),
        'cases_launched_plain': sum(1 for c in _cases(plain) if _launched(c)),
        'cases_launched_ncu_run': sum(1 for c in _cases(ncu_report) if _launched(c)),
        'cases_profiled_ours': len(profiled),
        'wall_plain_s': walls['plain_s'],
        'wall_ours_s': walls['ours_s'],
        'wall_ncu_s': walls['ncu_s'],
        'ncu_timed_out': timed_out,
        'ncu_exit_code': walls.get('ncu_rc'),
        'ours_extra_s': ours_extra,
        'ours_profile_wall_sum_s': profile_sum,
        'ncu_extra_s': ncu_extra,
        'ours_passes_total': sum(ours_passes),
        'ours_passes_per_case': sorted(set(ours_passes)),
        'ncu_kernels_profiled': len(ncu_passes),
        'ncu_passes_total': sum(n for _, n in ncu_passes),
        'ncu_passes_per_kernel': sorted(set(n for _, n in ncu_passes)),
        'ratio': ratio,
        'ratio_profile_wall_sum': ratio_profile,
        'required_ratio': REQUIRED_RATIO,
        'verdict': verdict,
        'ours_profile_wall_per_case_s': (statistics.median(
            [c['profile'].get('wall_s', 0.0) for c in profiled]) if profiled else None),
    }


def overhead_markdown(o, commands):
    r = _fmt(o['ratio'], 3)
    lines = [
        '# Profiling overhead: `--metrics basic` in-process vs Nsight Compute',
        '',
        'Suite {}{}: {} cases, {} launched (plain run), {} profiled by us; ncu profiled {} '
        'kernels.'.format(o['suite'], ' (--kernels ' + o['kernels_filter'] + ')'
                          if o['kernels_filter'] else '', o['cases_total'],
                          o['cases_launched_plain'], o['cases_profiled_ours'],
                          o['ncu_kernels_profiled']),
        '',
        '| | wall s | extra over plain s | passes |',
        '|---|---:|---:|---:|',
        '| plain run | {} | – | – |'.format(_fmt(o['wall_plain_s'])),
        '| ours (`--metrics basic`) | {} | {} (profile.wall_s sum {}) | {} |'.format(
            _fmt(o['wall_ours_s']), _fmt(o['ours_extra_s']), _fmt(o['ours_profile_wall_sum_s']),
            o['ours_passes_total']),
        '| ncu (same metrics, verify launch) | {}{} | {} | {} |'.format(
            _fmt(o['wall_ncu_s']), ' (stopped)' if o['ncu_timed_out'] else '',
            _fmt(o['ncu_extra_s']), o['ncu_passes_total']),
        '',
        '**ratio ours / ncu = {} (profile.wall_s sum / ncu extra = {}); required <= 1/3: {}.**'
        .format(r, _fmt(o['ratio_profile_wall_sum'], 3), o['verdict']),
        '',
        'Passes per case, ours: {}; per kernel, ncu: {}.'.format(
            o['ours_passes_per_case'], o['ncu_passes_per_kernel']),
        '',
        '## Commands', '', '```sh', commands.strip(), '```', '',
    ]
    return '\n'.join(lines)


def _read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


def _load_json(path):
    try:
        return json.loads(_read(path))
    except (OSError, ValueError) as e:
        print('ncu_crosscheck: cannot read {}: {}'.format(path, e), file=sys.stderr)
        return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    t = sub.add_parser('table')
    t.add_argument('--ours', required=True)
    t.add_argument('--ncu-dir', required=True)
    t.add_argument('--out-md', required=True)
    t.add_argument('--out-json', required=True)
    t.add_argument('--commands', default='')
    t.add_argument('--ncu-version-file', default='')
    o = sub.add_parser('overhead')
    for name in ('--plain', '--ours', '--ncu-log', '--walls', '--out-md', '--out-json'):
        o.add_argument(name, required=True)
    o.add_argument('--ncu-report', default='')
    o.add_argument('--commands', default='')
    args = ap.parse_args(argv)
    commands = _read(args.commands) if args.commands else '(not recorded)'
    if args.cmd == 'table':
        ours = _load_json(args.ours)
        if ours is None:
            return 1
        logs = {}
        for w in ours['workloads']:
            try:
                logs[w['name']] = _read('{}/{}.csv'.format(args.ncu_dir, w['name']))
            except OSError:
                pass
        version = ncu_version(_read(args.ncu_version_file)) if args.ncu_version_file else '?'
        rows, passes = build_table(ours, logs)
        with open(args.out_json, 'w') as f:
            json.dump({'rows': rows, 'passes': passes, 'ncu_version': version,
                       'device': ours['device'], 'tolerance_pp': TOLERANCE_PP,
                       'tolerance_rel_pct': TOLERANCE_REL_PCT}, f, indent=2)
        md = table_markdown(ours, rows, passes, commands, version)
        with open(args.out_md, 'w') as f:
            f.write(md)
        print(md)
        return 0 if rows and all(r['within'] for r in rows) else 1
    plain, ours = _load_json(args.plain), _load_json(args.ours)
    walls = _load_json(args.walls)
    if plain is None or ours is None or walls is None:
        return 1
    ncu_report = _load_json(args.ncu_report) if args.ncu_report else None
    result = overhead(plain, ours, ncu_report, _read(args.ncu_log), walls)
    with open(args.out_json, 'w') as f:
        json.dump(result, f, indent=2)
    md = overhead_markdown(result, commands)
    with open(args.out_md, 'w') as f:
        f.write(md)
    print(md)
    return 0 if result['verdict'].startswith('meets') else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
