#!/usr/bin/env python3
"""Issue 3's proof, the parts that need no GPU: put Nsight Compute's metrics (read from its CSV
output by ncu_parse.py, beside this script) beside flashscope-metric-probe's JSON (ours), judge
each row, and compute the profiling-overhead ratio of a suite run.

  ncu_crosscheck.py table    --ours ours.json --ncu-dir DIR [--ncu-rerun-dir DIR2] --out-md F
                             --out-json F [--commands F] [--ncu-version-file F]
  ncu_crosscheck.py overhead --plain R.json --ours R.json [--ncu-report R.json] [--ncu-log LOG]
                             --walls walls.json [--nvtx-probe TSV] --out-md F --out-json F
                             [--commands F]
  ncu_crosscheck.py count    LOG...      (prints how many kernels ncu profiled per those logs)

DIR holds one ncu log per workload, DIR/<workload>.csv: what `ncu --csv` wrote (CSV rows and
==PROF== lines mixed with the application's output); DIR2 the same for a second ncu run of the same
commands, which gives ncu's own run-to-run difference. scripts/device/ncu-crosscheck.sh runs
everything on the GPU machine; tests: scripts/device/tests/ncu_crosscheck_test.py (the table, the
overhead ratio, the command line) and ncu_parse_test.py (the parsing).
"""

import argparse
import collections
import json
import math
import os
import statistics
import sys

# ncu_parse.py sits beside this script; the script is run by path from any working directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_parse import (count_profiled, ncu_version, parse_number, read_ncu_csv,  # noqa: E402
                       read_pass_counts, read_prof_kernels, to_base)

# The bar: ours within 2 percentage points, or 2 % relative, of ncu.
TOLERANCE_PP = 2.0
TOLERANCE_REL_PCT = 2.0
# The noise-aware bar: |ours - ncu| within 1.5 x ncu's own run-to-run difference (two ncu runs
# of the same command) plus the spread of our runs.
NOISE_FACTOR = 1.5
# Collecting the basic set in-process must cost at most a third of what ncu costs.
REQUIRED_RATIO = 1.0 / 3.0


def compare(ours_value, ncu_value, unit):
    """(diff pp or None, diff % relative or None, within the strict bar: bool)."""
    diff = ours_value - ncu_value
    pp = diff if unit == '%' else None
    rel = abs(diff) / abs(ncu_value) * 100.0 if ncu_value != 0 else (0.0 if diff == 0 else None)
    within = (pp is not None and abs(pp) <= TOLERANCE_PP) or (
        rel is not None and rel <= TOLERANCE_REL_PCT)
    return pp, rel, within


def run_to_run(first, second, unit):
    """ncu's own difference between its two runs of a workload: (absolute difference, text: pp
    for % metrics, % relative otherwise), or (None, None) when either run has no value."""
    if first is None or second is None:
        return None, None
    d = abs(second - first)
    if unit == '%':
        return d, '{} pp'.format(_fmt(d, 3))
    if first != 0:
        return d, '{} %'.format(_fmt(d / abs(first) * 100.0, 3))
    return d, '0 %' if d == 0 else '{} abs'.format(_fmt(d, 3))


def within_verdict(ours_value, ncu_value, unit, ncu_rtr=None, ours_spread=None):
    """The 'within' column: ('yes (2 pp)' | 'yes (2 %)' | 'yes (ncu noise)' | 'no', strict, noise).
    strict: within 2 pp (% metrics) or 2 % relative. noise: strict, or |ours - ncu| <= 1.5 x ncu's
    own run-to-run difference + the spread (max - min) of our runs; needs ncu's second run."""
    pp, rel, _ = compare(ours_value, ncu_value, unit)
    if pp is not None and abs(pp) <= TOLERANCE_PP:
        return 'yes ({:g} pp)'.format(TOLERANCE_PP), True, True
    if rel is not None and rel <= TOLERANCE_REL_PCT:
        return 'yes ({:g} %)'.format(TOLERANCE_REL_PCT), True, True
    if ncu_rtr is not None:
        bound = NOISE_FACTOR * ncu_rtr + (ours_spread or 0.0)
        if abs(ours_value - ncu_value) <= bound:
            return 'yes (ncu noise)', False, True
    return 'no', False, False


def _ncu_value(kernels, hw, label):
    """(value, note) of one metric from the kernels of one ncu log."""
    if len(kernels) != 1:
        # One launch per workload is the design; anything else is not comparable.
        return None, '{} profiled {} kernels, expected 1'.format(label, len(kernels))
    if hw not in kernels[0]['metrics']:
        return None, '{} did not report {}'.format(label, hw)
    unit, text_value = kernels[0]['metrics'][hw]
    value, why = to_base(parse_number(text_value), unit)
    if value is None:
        return None, '{}: {} ({!r} {!r})'.format(label, why, text_value, unit)
    return value, ''


def build_table(ours, ncu_logs, rerun_logs=None):
    """Rows (metric x workload) of ours against ncu. `ncu_logs` maps workload -> log text of
    ncu's run, `rerun_logs` the same for its second run of the same command (ncu's own noise)."""
    rerun_logs = rerun_logs or {}
    rows = []
    passes = []
    for w in ours['workloads']:
        text = ncu_logs.get(w['name'])
        retext = rerun_logs.get(w['name'])
        kernels = read_ncu_csv(text) if text is not None else []
        rekernels = read_ncu_csv(retext) if retext is not None else []
        passes.append({'workload': w['name'], 'ours': w.get('passes', []),
                       'ncu': [n for _, n in read_pass_counts(text or '')],
                       'ncu_rerun': [n for _, n in read_pass_counts(retext or '')],
                       'ncu_kernels': len(kernels),
                       'ncu_rerun_kernels': len(rekernels) if retext is not None else None})
        for m in ours['metrics']:
            hw = m['hw_name']
            row = {'metric': m['name'], 'hw_name': hw, 'unit': m['unit'], 'workload': w['name'],
                   'ours': None, 'ours_spread': None, 'ncu': None, 'ncu_rerun': None,
                   'diff_pp': None, 'diff_pct': None, 'ncu_run_to_run': None,
                   'ncu_run_to_run_text': None, 'within': False, 'within_noise': False,
                   'verdict': 'no', 'note': ''}
            notes = []
            mine = w.get('values', {}).get(hw)
            if mine is None:
                notes.append('ours: ' + w.get('error', 'no value'))
            else:
                row['ours'] = mine['median']
                if 'min' in mine and 'max' in mine:
                    row['ours_spread'] = mine['max'] - mine['min']
                if len(mine.get('samples', [])) > 1:
                    notes.append('ours {:.4g}..{:.4g} over {} runs'.format(
                        mine['min'], mine['max'], len(mine['samples'])))
            if text is None:
                notes.append('no ncu output for this workload')
            else:
                row['ncu'], why = _ncu_value(kernels, hw, 'ncu')
                if why:
                    notes.append(why)
            if retext is not None:
                row['ncu_rerun'], why = _ncu_value(rekernels, hw, 'ncu rerun')
                if why and row['ncu'] is not None:
                    notes.append(why)
            row['ncu_run_to_run'], row['ncu_run_to_run_text'] = run_to_run(
                row['ncu'], row['ncu_rerun'], m['unit'])
            if row['ours'] is not None and row['ncu'] is not None:
                row['diff_pp'], row['diff_pct'], _ = compare(row['ours'], row['ncu'], m['unit'])
                row['verdict'], row['within'], row['within_noise'] = within_verdict(
                    row['ours'], row['ncu'], m['unit'], row['ncu_run_to_run'], row['ours_spread'])
            row['note'] = '; '.join(notes)
            rows.append(row)
    return rows, passes


def _fmt(v, digits=4):
    if v is None:
        return '–'
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return str(v)
    return '{:.{}g}'.format(v, digits) if abs(v) < 1e6 else '{:.4e}'.format(v)


def table_markdown(ours, rows, passes, commands, version):
    strict = sum(1 for r in rows if r['within'])
    noise = sum(1 for r in rows if r['within_noise'])
    with_rerun = sum(1 for r in rows if r['ncu_run_to_run'] is not None)
    lines = [
        '# Cross-check: flashscope range profiler vs Nsight Compute',
        '',
        'Device: {} (sm_{}, {} SMs), chip {}; ncu {}.'.format(
            ours['device']['name'], ours['device']['cc'], ours['device']['sm_count'],
            ours.get('chip', '?'), version),
        'Ours: {} ({} pass(es) per profile, median of {} runs). ncu: one launch per workload, '
        '`--clock-control none`, default cache control (caches flushed before each pass), run '
        'twice (the second run gives ncu\'s own run-to-run difference).'.format(
            ours.get('replay', ''), ours.get('passes_needed', '?'), ours.get('repeat', '?')),
        '',
        '**Strict: {} of {} rows within {:g} pp or {:g} % relative.**'.format(
            strict, len(rows), TOLERANCE_PP, TOLERANCE_REL_PCT),
        '**Noise-aware: {} of {} rows within {:g} pp, {:g} %, or {:g} x ncu\'s run-to-run '
        'difference + the spread of our runs** (ncu ran twice for {} of the rows).'.format(
            noise, len(rows), TOLERANCE_PP, TOLERANCE_REL_PCT, NOISE_FACTOR, with_rerun),
        '',
        'Columns: diff pp = ours − ncu for % metrics; diff % = |ours − ncu| / ncu; ncu run-to-run '
        '= |ncu run 2 − ncu run 1| (pp for % metrics, else % of run 1); within = which rule held '
        'first: "2 pp", "2 %", "ncu noise" (|ours − ncu| ≤ {:g} × ncu run-to-run + max − min of '
        'our runs), or "no".'.format(NOISE_FACTOR),
        '',
        '| metric | workload | ours | ncu | diff pp | diff % | ncu run-to-run | within | note |',
        '|---|---|---:|---:|---:|---:|---:|---|---|',
    ]
    for r in rows:
        lines.append('| {} | {} | {} | {} | {} | {} | {} | {} | {} |'.format(
            r['metric'], r['workload'], _fmt(r['ours']), _fmt(r['ncu']), _fmt(r['diff_pp'], 3),
            _fmt(r['diff_pct'], 3), r['ncu_run_to_run_text'] or '–', r['verdict'], r['note']))
    lines += ['', '## Passes', '',
              '| workload | ours (per run) | ncu | ncu rerun | ncu kernels (run, rerun) |',
              '|---|---|---|---|---:|']
    for p in passes:
        lines.append('| {} | {} | {} | {} | {}, {} |'.format(
            p['workload'], ', '.join(map(str, p['ours'])) or '–',
            ', '.join(map(str, p['ncu'])) or '–', ', '.join(map(str, p['ncu_rerun'])) or '–',
            p['ncu_kernels'], '–' if p['ncu_rerun_kernels'] is None else p['ncu_rerun_kernels']))
    if passes and not any(p['ncu'] or p['ncu_rerun'] for p in passes):
        lines += ['', 'ncu printed no `==PROF== Profiling "…" … N passes` lines (it omits them '
                  'with `--csv`), so its pass counts are not known here; only the kernels it '
                  'profiled are counted, from the CSV rows.']
    lines += ['', '## Commands', '', '```sh', commands.strip(), '```', '']
    return '\n'.join(lines)


def _cases(report):
    return report.get('cases', []) if report else []


def _launched(case):
    # Cases that reached the verify-phase launch: the ones ncu's NVTX filter profiles.
    return case.get('status') in ('passed', 'failed')


def read_nvtx_probe(text):
    """The NVTX filter probe's results, one tab-separated line per ncu run the script made:
    filter, kernels profiled, ncu's exit code[, note]."""
    tried = []
    for line in text.splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        parts = line.split('\t')
        try:
            kernels = int(parts[1])
        except (IndexError, ValueError):
            kernels = 0
        tried.append({'filter': parts[0], 'kernels': kernels,
                      'rc': parts[2] if len(parts) > 2 else '',
                      'note': parts[3] if len(parts) > 3 else ''})
    return tried


def overhead(plain, ours, ncu_report, ncu_log, walls, nvtx_tried=None):
    """The issue's speed check, with our cost measured where it is spent:
    ours_extra = the sum of profile.wall_s over the cases we profiled (`--metrics basic`);
    ncu_extra = wall of the run under ncu (same metrics, the verify launch of each case) − wall
    of the plain run. ratio = ours_extra / ncu_extra, given only when ncu profiled at least one
    kernel and ncu_extra > 0; it must be <= 1/3. A timed-out ncu run only bounds ncu from below,
    so the ratio is then an upper bound. The whole-run wall difference (with − without
    --metrics) is kept as a secondary figure: at a few seconds it is within run-to-run noise."""
    nvtx_tried = nvtx_tried or []
    profiled = [c for c in _cases(ours) if (c.get('profile') or {}).get('available')]
    ours_passes = [c['profile'].get('passes', 0) for c in profiled]
    ours_extra = sum(c['profile'].get('wall_s', 0.0) for c in profiled)
    ncu_ran = walls.get('ncu_s') is not None
    ncu_extra = walls['ncu_s'] - walls['plain_s'] if ncu_ran else None
    log = ncu_log or ''
    prof = read_prof_kernels(log)
    ncu_kernels = count_profiled(log) if ncu_ran else 0
    ncu_passes = [k['passes'] for k in prof if k['passes'] is not None]
    timed_out = bool(walls.get('ncu_timed_out'))
    nvtx_filter = walls.get('nvtx_filter') or ''
    wall_extra = walls['ours_s'] - walls['plain_s']
    ratio = None
    if not ncu_ran:
        why = ('ncu was not run: none of the NVTX filters tried ({}) made ncu profile a kernel'
               .format(', '.join(t['filter'] for t in nvtx_tried if t['note'] != 'diagnostic')
                       or 'none') if nvtx_tried else 'ncu was not run')
    elif ncu_kernels == 0:
        why = ('ncu profiled no kernel (NVTX filter {}), so its wall time does not measure '
               'profiling'.format(nvtx_filter or 'none'))
    elif not profiled:
        why = 'we profiled no case (profile.available is false everywhere)'
    elif ncu_extra <= 0:
        why = 'ncu added no wall time over the plain run'
    else:
        why = ''
        ratio = ours_extra / ncu_extra
    if ratio is None:
        verdict = 'no ratio: ' + why
    elif ratio <= REQUIRED_RATIO:
        verdict = 'meets <= 1/3' + (' (the ratio is an upper bound: ncu was stopped at its time '
                                    'limit)' if timed_out else '')
    elif timed_out:
        verdict = ('unknown: ncu was stopped at its time limit, so the ratio is only an upper '
                   'bound, and it is above 1/3')
    else:
        verdict = 'fails: more than 1/3'
    return {
        'suite': walls.get('suite', 'smoke'),
        'kernels_filter': walls.get('kernels_filter', ''),
        'nvtx_filter': nvtx_filter,
        'nvtx_filters_tried': nvtx_tried,
        'cases_total': len(_cases(plain)),
        'cases_launched_plain': sum(1 for c in _cases(plain) if _launched(c)),
        'cases_launched_ncu_run': (sum(1 for c in _cases(ncu_report) if _launched(c))
                                   if ncu_report else None),
        'cases_profiled_ours': len(profiled),
        'wall_plain_s': walls['plain_s'],
        'wall_ours_s': walls['ours_s'],
        'wall_ncu_s': walls.get('ncu_s'),
        'ncu_ran': ncu_ran,
        'ncu_timed_out': timed_out,
        'ncu_exit_code': walls.get('ncu_rc'),
        'ours_extra_s': ours_extra,
        'ours_wall_difference_s': wall_extra,
        'ncu_extra_s': ncu_extra,
        'ours_passes_total': sum(ours_passes),
        'ours_passes_per_case': dict(sorted(collections.Counter(ours_passes).items())),
        'ncu_kernels_profiled': ncu_kernels,
        'ncu_kernels_with_pass_count': len(ncu_passes),
        'ncu_passes_total': sum(ncu_passes),
        'ncu_passes_per_kernel': dict(sorted(collections.Counter(ncu_passes).items())),
        'ratio': ratio,
        'ratio_wall_difference': (wall_extra / ncu_extra if ratio is not None else None),
        'required_ratio': REQUIRED_RATIO,
        'verdict': verdict,
        'ours_profile_wall_per_case_s': (statistics.median(
            [c['profile'].get('wall_s', 0.0) for c in profiled]) if profiled else None),
    }


def overhead_markdown(o, commands):
    ncu_cases = ('' if o['cases_launched_ncu_run'] is None
                 else ' ({} cases launched in that run)'.format(o['cases_launched_ncu_run']))
    lines = [
        '# Profiling overhead: `--metrics basic` in-process vs Nsight Compute',
        '',
        'Suite {}{}: {} cases, {} launched (plain run), **{} profiled by us; {}**{}{}.'.format(
            o['suite'], ' (--kernels ' + o['kernels_filter'] + ')' if o['kernels_filter'] else '',
            o['cases_total'], o['cases_launched_plain'], o['cases_profiled_ours'],
            'ncu profiled {} kernel{}'.format(o['ncu_kernels_profiled'],
                                             '' if o['ncu_kernels_profiled'] == 1 else 's')
            if o['ncu_ran'] else 'ncu was not run', ncu_cases,
            ' with `--nvtx-include "{}"`'.format(o['nvtx_filter']) if o['nvtx_filter'] else ''),
        '',
    ]
    if o['nvtx_filters_tried']:
        lines += ['NVTX filter probe (each candidate on a short `flashscope run smoke --kernels '
                  'gemm.g01_naive` under ncu; the first that profiles a kernel is used):', '',
                  '| --nvtx-include | kernels profiled | ncu exit | |', '|---|---:|---:|---|']
        for t in o['nvtx_filters_tried']:
            mark = t['note'] or ('chosen' if t['filter'] == o['nvtx_filter'] else '')
            lines.append('| `{}` | {} | {} | {} |'.format(t['filter'], t['kernels'], t['rc'],
                                                          mark))
        lines.append('')
        diag = [t for t in o['nvtx_filters_tried'] if t['note'] == 'diagnostic']
        if not o['nvtx_filter'] and diag:
            lines += ['ncu profiled nothing with any NVTX filter tried. ' + (
                'Without a filter (diagnostic run, not timed) it profiled {} kernel{}, so ncu does '
                'reach the worker processes: the filter expressions are what match nothing.'
                .format(diag[0]['kernels'], '' if diag[0]['kernels'] == 1 else 's')
                if diag[0]['kernels'] > 0 else
                'Even without a filter (diagnostic run, not timed) it profiled nothing: ncu does '
                'not reach the kernels of the worker processes (see ncu-probe/none.log in '
                'ncu-raw.tar.xz).'), '']
    lines += [
        '| | wall s | extra s | passes |',
        '|---|---:|---:|---:|',
        '| plain run | {} | – | – |'.format(_fmt(o['wall_plain_s'])),
        '| ours (`--metrics basic`) | {} | {} (sum of profile.wall_s) | {} |'.format(
            _fmt(o['wall_ours_s']), _fmt(o['ours_extra_s']), o['ours_passes_total']),
    ]
    if o['ncu_ran']:
        lines.append('| ncu (same metrics, verify launch) | {}{} | {} (ncu wall − plain wall) | '
                     '{} |'.format(_fmt(o['wall_ncu_s']), ' (stopped)' if o['ncu_timed_out']
                                   else '', _fmt(o['ncu_extra_s']), o['ncu_passes_total']))
    else:
        lines.append('| ncu | not run | – | – |')
    lines.append('')
    if o['ratio'] is None:
        lines.append('**No ratio: {}.** Required <= 1/3: not shown either way.'.format(
            o['verdict'][len('no ratio: '):]))
    else:
        lines.append('**ratio ours / ncu = {} / {} = {}{}; required <= 1/3: {}.**'.format(
            _fmt(o['ours_extra_s']), _fmt(o['ncu_extra_s']), _fmt(o['ratio'], 3),
            ' (upper bound)' if o['ncu_timed_out'] else '', o['verdict']))
        lines += ['', 'Secondary, not the headline: the whole-run wall difference with − without '
                  '`--metrics basic` is {} s, {} of ncu\'s extra; at this size it is within the '
                  'suite\'s run-to-run noise.'.format(_fmt(o['ours_wall_difference_s']),
                                                      _fmt(o['ratio_wall_difference'], 3))]
    lines += [
        '',
        'Passes per case, ours (profile.passes): {}. ncu, per profiled kernel (==PROF== lines, {} '
        'of {} with a pass count): {}.'.format(
            _histogram_from(o['ours_passes_per_case']), o['ncu_kernels_with_pass_count'],
            o['ncu_kernels_profiled'], _histogram_from(o['ncu_passes_per_kernel'])),
        '',
        '## Commands', '', '```sh', commands.strip(), '```', '',
    ]
    return '\n'.join(lines)


def _histogram_from(counts):
    """{passes: how many} (keys may be strings after a JSON round trip) as text."""
    if not counts:
        return '–'
    return ', '.join('{} pass{} x {}'.format(k, '' if int(k) == 1 else 'es', n)
                     for k, n in sorted(counts.items(), key=lambda kv: int(kv[0])))


def _read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


def _load_json(path):
    try:
        return json.loads(_read(path))
    except (OSError, ValueError) as e:
        print('ncu_crosscheck: cannot read {}: {}'.format(path, e), file=sys.stderr)
        return None


def _read_logs(directory, names):
    logs = {}
    for name in names:
        try:
            logs[name] = _read('{}/{}.csv'.format(directory, name))
        except OSError:
            pass
    return logs


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    t = sub.add_parser('table')
    t.add_argument('--ours', required=True)
    t.add_argument('--ncu-dir', required=True)
    t.add_argument('--ncu-rerun-dir', default='')
    t.add_argument('--out-md', required=True)
    t.add_argument('--out-json', required=True)
    t.add_argument('--commands', default='')
    t.add_argument('--ncu-version-file', default='')
    o = sub.add_parser('overhead')
    for name in ('--plain', '--ours', '--walls', '--out-md', '--out-json'):
        o.add_argument(name, required=True)
    o.add_argument('--ncu-log', default='')
    o.add_argument('--ncu-report', default='')
    o.add_argument('--nvtx-probe', default='')
    o.add_argument('--commands', default='')
    c = sub.add_parser('count', help='print how many kernels ncu profiled according to LOG(s)')
    c.add_argument('logs', nargs='+')
    args = ap.parse_args(argv)
    if args.cmd == 'count':
        text = ''
        for path in args.logs:
            try:
                text += _read(path) + '\n'
            except OSError:
                pass
        print(count_profiled(text))
        return 0
    commands = _read(args.commands) if args.commands else '(not recorded)'
    if args.cmd == 'table':
        ours = _load_json(args.ours)
        if ours is None:
            return 1
        names = [w['name'] for w in ours['workloads']]
        logs = _read_logs(args.ncu_dir, names)
        rerun = _read_logs(args.ncu_rerun_dir, names) if args.ncu_rerun_dir else {}
        version = ncu_version(_read(args.ncu_version_file)) if args.ncu_version_file else '?'
        rows, passes = build_table(ours, logs, rerun)
        with open(args.out_json, 'w') as f:
            json.dump({'rows': rows, 'passes': passes, 'ncu_version': version,
                       'device': ours['device'], 'tolerance_pp': TOLERANCE_PP,
                       'tolerance_rel_pct': TOLERANCE_REL_PCT, 'noise_factor': NOISE_FACTOR,
                       'within_strict': sum(1 for r in rows if r['within']),
                       'within_noise_aware': sum(1 for r in rows if r['within_noise'])},
                      f, indent=2)
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
    ncu_log = ''
    if args.ncu_log:
        try:
            ncu_log = _read(args.ncu_log)
        except OSError:
            ncu_log = ''
    tried = read_nvtx_probe(_read(args.nvtx_probe)) if args.nvtx_probe else []
    result = overhead(plain, ours, ncu_report, ncu_log, walls, tried)
    with open(args.out_json, 'w') as f:
        json.dump(result, f, indent=2)
    md = overhead_markdown(result, commands)
    with open(args.out_md, 'w') as f:
        f.write(md)
    print(md)
    return 0 if result['verdict'].startswith('meets') else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
