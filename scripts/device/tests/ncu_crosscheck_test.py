"""Tests of scripts/device/ncu_crosscheck.py on small synthetic inputs: the table's strict and
noise-aware verdicts against ncu logs written from Nsight Compute's documented CSV layouts
(ncu_test_logs.py), the overhead ratio's decisions, and the command line. The parsing of ncu's
output is tested in ncu_parse_test.py.
Run: python3 -m unittest -v ncu_crosscheck_test (from this folder; ctest does), or
python3 scripts/device/tests/ncu_crosscheck_test.py from the repository root."""

import contextlib
import functools
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ncu_crosscheck as nc  # noqa: E402
from ncu_test_logs import (DRAM_BYTES, FREQ, GPU_TIME, MMA, TENSOR, details_log,  # noqa: E402
                           raw_log)


def ours_json(workloads):
    return {
        'device': {'name': 'NVIDIA H200', 'cc': 90, 'sm_count': 132},
        'chip': 'GH100', 'passes_needed': 9, 'repeat': 3, 'replay': 'user replay',
        'metrics': [{'name': 'tensor_pipe_pct', 'hw_name': TENSOR, 'unit': '%'},
                    {'name': 'dram_bytes', 'hw_name': DRAM_BYTES, 'unit': 'bytes'},
                    {'name': 'gpu_time', 'hw_name': GPU_TIME, 'unit': 'ns'},
                    {'name': 'sm_frequency', 'hw_name': FREQ, 'unit': 'Hz'}],
        'workloads': workloads,
    }


def ours_workload(name, values):
    return {'name': name, 'passes': [9, 9, 9], 'wall_s': [0.1, 0.1, 0.1],
            'values': {hw: {'median': v, 'min': v, 'max': v, 'samples': [v, v, v]}
                       for hw, v in values.items()}}


def assert_shows_all(test, text, fragments):
    """Every fragment stands in `text`; a failure names all the missing ones, not only the first."""
    missing = [f for f in fragments if f not in text]
    test.assertEqual(missing, [], f'not in:\n{text}')


class TableTest(unittest.TestCase):
    def test_rule_is_2pp_or_2pct(self):
        self.assertTrue(nc.compare(51.9, 50.0, '%')[2])    # 1.9 pp
        self.assertFalse(nc.compare(52.5, 50.0, '%')[2])   # 2.5 pp, 5 %
        self.assertTrue(nc.compare(0.4, 0.0, '%')[2])      # near zero: the pp rule holds
        self.assertTrue(nc.compare(1010.0, 1000.0, 'bytes')[2])   # 1 %
        self.assertFalse(nc.compare(1030.0, 1000.0, 'bytes')[2])  # 3 %
        self.assertFalse(nc.compare(4.0, 0.0, 'conflicts')[2])    # no relative rule at zero
        self.assertTrue(nc.compare(0.0, 0.0, 'conflicts')[2])
        pp, rel, _ = nc.compare(49.0, 50.0, '%')
        self.assertAlmostEqual(pp, -1.0)
        self.assertAlmostEqual(rel, 2.0)

    def test_rows(self):
        ours = ours_json([
            ours_workload('calib.mma_loop', {TENSOR: 95.0, DRAM_BYTES: 1030000.0,
                                             GPU_TIME: 515000.0, FREQ: 1.97e9}),
            ours_workload('attn.a10_fa2', {TENSOR: 50.0, DRAM_BYTES: 1.0, GPU_TIME: 1.0,
                                           FREQ: 1.0}),
            ours_workload('calib.exp_loop', {TENSOR: 0.0, DRAM_BYTES: 0.0, GPU_TIME: 1.0,
                                             FREQ: 1.0}),
        ])
        two = dict(MMA, id=1)
        rows, passes = nc.build_table(ours, {'calib.mma_loop': details_log([MMA]),
                                             'attn.a10_fa2': details_log([MMA, two])})
        by = {(r['workload'], r['metric']): r for r in rows}
        self.assertEqual(len(rows), 12)
        t = by[('calib.mma_loop', 'tensor_pipe_pct')]
        self.assertAlmostEqual(t['ncu'], 96.1)
        self.assertAlmostEqual(t['diff_pp'], -1.1)
        self.assertTrue(t['within'])
        d = by[('calib.mma_loop', 'dram_bytes')]
        self.assertAlmostEqual(d['ncu'], 1024500.0)  # Kbyte is 1000 bytes
        self.assertIsNone(d['diff_pp'])
        self.assertTrue(d['within'])  # 0.54 %
        self.assertAlmostEqual(by[('calib.mma_loop', 'gpu_time')]['ncu'], 512250.0)
        self.assertAlmostEqual(by[('calib.mma_loop', 'sm_frequency')]['ncu'], 1.98e9)
        self.assertIn('2 kernels', by[('attn.a10_fa2', 'tensor_pipe_pct')]['note'])
        self.assertFalse(by[('attn.a10_fa2', 'tensor_pipe_pct')]['within'])
        self.assertIn('no ncu output', by[('calib.exp_loop', 'gpu_time')]['note'])
        self.assertEqual(passes[0], {'workload': 'calib.mma_loop', 'ours': [9, 9, 9],
                                     'ncu': [9], 'ncu_rerun': [], 'ncu_kernels': 1,
                                     'ncu_rerun_kernels': None})
        md = nc.table_markdown(ours, rows, passes, 'ncu --metrics x probe', '2025.3.1.0')
        assert_shows_all(self, md, [
            '**Strict: 4 of 12 rows within 2 pp or 2 % relative.**',
            '**Noise-aware: 4 of 12 rows',
            '| tensor_pipe_pct | calib.mma_loop | 95 | 96.1 | -1.1 |',
            '| yes (2 pp) |',
            'ncu --metrics x probe',
        ])

    def test_ns_from_print_units_base_is_compared(self):
        base = dict(MMA, metrics={GPU_TIME: ('ns', '546,528')})
        ours = ours_json([ours_workload('calib.copy', {GPU_TIME: 550000.0})])
        rows, _ = nc.build_table(ours, {'calib.copy': details_log([base])})
        t = [r for r in rows if r['metric'] == 'gpu_time'][0]
        self.assertAlmostEqual(t['ncu'], 546528.0)
        self.assertEqual(t['verdict'], 'yes (2 %)')
        self.assertNotIn('unknown unit', t['note'])

    def test_within_verdicts(self):
        self.assertEqual(nc.within_verdict(51.9, 50.0, '%'), ('yes (2 pp)', True, True))
        # ncu 0, ours a tiny nonzero %: within 2 pp (the 0.0082 % vs 0 rows of the H200 run).
        self.assertEqual(nc.within_verdict(0.0082, 0.0, '%'), ('yes (2 pp)', True, True))
        self.assertEqual(nc.within_verdict(1010.0, 1000.0, 'bytes'), ('yes (2 %)', True, True))
        # 5 pp apart; ncu moved 3 pp between its runs, ours spread 1 pp: 1.5 x 3 + 1 = 5.5 >= 5.
        self.assertEqual(nc.within_verdict(55.0, 50.0, '%', 3.0, 1.0),
                         ('yes (ncu noise)', False, True))
        self.assertEqual(nc.within_verdict(55.0, 50.0, '%', 2.0, 1.0), ('no', False, False))
        # Without ncu's second run there is no noise rule, whatever our spread.
        self.assertEqual(nc.within_verdict(55.0, 50.0, '%', None, 10.0), ('no', False, False))
        # Counts: 1.45e5 vs 1.39e5 (4.3 %), ncu 1.35e5 on its rerun (4e3), ours spread 6e3.
        self.assertEqual(nc.within_verdict(1.45e5, 1.39e5, 'conflicts', 4e3, 6e3)[0],
                         'yes (ncu noise)')
        self.assertEqual(nc.within_verdict(4.0, 0.0, 'conflicts', 0.0, 0.0)[0], 'no')

    def test_run_to_run(self):
        self.assertEqual(nc.run_to_run(50.0, 50.5, '%'), (0.5, '0.5 pp'))
        d, text = nc.run_to_run(1000.0, 990.0, 'bytes')
        self.assertEqual((d, text), (10.0, '1 %'))
        self.assertEqual(nc.run_to_run(0.0, 0.0, 'conflicts'), (0.0, '0 %'))
        self.assertEqual(nc.run_to_run(0.0, 3.0, 'conflicts'), (3.0, '3 abs'))
        self.assertEqual(nc.run_to_run(None, 3.0, '%'), (None, None))

    def test_rerun_column_and_both_counts(self):
        w = ours_workload('attn.a10_fa2', {TENSOR: 55.0, DRAM_BYTES: 1.0e6, GPU_TIME: 5.0e5,
                                           FREQ: 1.98e9})
        w['values'][TENSOR].update(min=54.5, max=55.5)
        ours = ours_json([w])
        first = dict(MMA, metrics={TENSOR: ('%', '50.0'), DRAM_BYTES: ('byte', '1,000,000'),
                                   GPU_TIME: ('ns', '500,000'), FREQ: ('Hz', '1.5e9')})
        second = dict(first, metrics=dict(first['metrics'], **{TENSOR: ('%', '53.0'),
                                                                FREQ: ('Hz', '1.5e9')}))
        rows, passes = nc.build_table(ours, {'attn.a10_fa2': details_log([first])},
                                      {'attn.a10_fa2': details_log([second])})
        by = {r['metric']: r for r in rows}
        t = by['tensor_pipe_pct']
        self.assertAlmostEqual(t['ncu_rerun'], 53.0)
        self.assertEqual(t['ncu_run_to_run_text'], '3 pp')
        self.assertAlmostEqual(t['ours_spread'], 1.0)
        self.assertEqual(t['verdict'], 'yes (ncu noise)')  # 5 <= 1.5 x 3 + 1
        self.assertFalse(t['within'])
        self.assertTrue(t['within_noise'])
        self.assertEqual(by['dram_bytes']['verdict'], 'yes (2 %)')
        self.assertEqual(by['sm_frequency']['verdict'], 'no')  # 32 %, ncu steady
        self.assertEqual(by['sm_frequency']['ncu_run_to_run_text'], '0 %')
        self.assertEqual(passes[0]['ncu_rerun'], [9])
        self.assertEqual(passes[0]['ncu_rerun_kernels'], 1)
        md = nc.table_markdown(ours, rows, passes, 'cmd', '2025.3.1.0')
        assert_shows_all(self, md, [
            '**Strict: 2 of 4 rows within 2 pp or 2 % relative.**',
            '**Noise-aware: 3 of 4 rows within 2 pp, 2 %, or 1.5 x',
            '| ncu run-to-run | within |',
            '| 3 pp | yes (ncu noise) |',
        ])

    def test_rerun_with_two_kernels_gives_no_noise(self):
        ours = ours_json([ours_workload('calib.mma_loop', {TENSOR: 90.0, DRAM_BYTES: 1.0,
                                                           GPU_TIME: 1.0, FREQ: 1.0})])
        rows, _ = nc.build_table(ours, {'calib.mma_loop': details_log([MMA])},
                                 {'calib.mma_loop': details_log([MMA, dict(MMA, id=1)])})
        t = rows[0]
        self.assertIsNone(t['ncu_rerun'])
        self.assertIsNone(t['ncu_run_to_run'])
        self.assertIn('ncu rerun profiled 2 kernels', t['note'])
        self.assertEqual(t['verdict'], 'no')


def _report(n_cases, profile=None):
    cases = []
    for i in range(n_cases):
        c = {'status': 'passed' if i else 'skipped'}
        if profile and i:
            c['profile'] = dict(profile)
        cases.append(c)
    return {'cases': cases}


class OverheadTest(unittest.TestCase):
    def setUp(self):
        self.plain = _report(11)
        self.ours = _report(11, {'available': True, 'passes': 1, 'wall_s': 0.05})
        self.log = ''.join('==PROF== Profiling "k{}" - {}: 0%....50%....100% - 2 passes\n'
                           .format(i, i) for i in range(10))
        self.walls = {'plain_s': 10.0, 'ours_s': 11.0, 'ncu_s': 20.0,
                      'nvtx_filter': 'flashscope@*/verify/'}

    def test_headline_is_profile_wall_sum_over_ncu_extra(self):
        o = nc.overhead(self.plain, self.ours, self.plain, self.log, self.walls)
        self.assertAlmostEqual(o['ours_extra_s'], 0.5)  # 10 cases x 0.05 s
        self.assertAlmostEqual(o['ncu_extra_s'], 10.0)
        self.assertAlmostEqual(o['ratio'], 0.05)
        self.assertAlmostEqual(o['ratio_wall_difference'], 0.1)  # secondary only
        self.assertEqual(o['cases_launched_plain'], 10)
        self.assertEqual(o['cases_launched_ncu_run'], 10)
        self.assertEqual(o['cases_profiled_ours'], 10)
        self.assertEqual(o['ours_passes_total'], 10)
        self.assertEqual(o['ours_passes_per_case'], {1: 10})
        self.assertEqual(o['ncu_kernels_profiled'], 10)
        self.assertEqual(o['ncu_passes_total'], 20)
        self.assertEqual(o['ncu_passes_per_kernel'], {2: 10})
        self.assertTrue(o['verdict'].startswith('meets'))
        md = nc.overhead_markdown(o, 'cmd')
        assert_shows_all(self, md, [
            '**ratio ours / ncu = 0.5 / 10 = 0.05; required <= 1/3: meets',
            '10 profiled by us; ncu profiled 10 kernels** (10 cases launched',
            '`--nvtx-include "flashscope@*/verify/"`',
            'Secondary, not the headline',
            'ours (profile.passes): 1 pass x 10',
            '2 passes x 10',
        ])

    def test_negative_wall_difference_never_makes_the_headline(self):
        # The H200 run: --metrics basic took 12.3 s, plain 13.4 s; the headline was -0.0297.
        walls = dict(self.walls, plain_s=13.4, ours_s=12.3, ncu_s=50.7)
        o = nc.overhead(self.plain, self.ours, None, self.log, walls)
        self.assertGreater(o['ratio'], 0)
        self.assertAlmostEqual(o['ratio'], 0.5 / (50.7 - 13.4))
        self.assertLess(o['ratio_wall_difference'], 0)
        md = nc.overhead_markdown(o, 'cmd')
        self.assertIn('ratio ours / ncu = 0.5 / 37.3 = 0.0134', md)

    def test_no_ratio_when_ncu_profiled_nothing(self):
        log = '==PROF== Connected to process 1\n==PROF== Disconnected from process 1\n'
        walls = dict(self.walls, ncu_s=50.7, nvtx_filter='flashscope@verify]')
        o = nc.overhead(self.plain, self.ours, self.plain, log, walls)
        self.assertIsNone(o['ratio'])
        self.assertIsNone(o['ratio_wall_difference'])
        self.assertEqual(o['ncu_kernels_profiled'], 0)
        self.assertTrue(o['verdict'].startswith('no ratio: ncu profiled no kernel'))
        md = nc.overhead_markdown(o, 'cmd')
        self.assertIn('**No ratio: ncu profiled no kernel (NVTX filter flashscope@verify])', md)
        self.assertNotIn('ratio ours / ncu', md)
        self.assertNotIn('Secondary', md)

    def test_no_ratio_when_no_filter_worked_and_ncu_was_not_run(self):
        tried = nc.read_nvtx_probe('flashscope@verify]\t0\t0\n'
                                   'flashscope@*/verify/\t0\t0\n'
                                   '(none) --launch-count 5\t5\t0\tdiagnostic\n')
        walls = {'plain_s': 10.0, 'ours_s': 11.0, 'ncu_s': None, 'nvtx_filter': ''}
        o = nc.overhead(self.plain, self.ours, None, '', walls, tried)
        self.assertIsNone(o['ratio'])
        self.assertFalse(o['ncu_ran'])
        self.assertIn('none of the NVTX filters tried (flashscope@verify], flashscope@*/verify/)',
                      o['verdict'])
        md = nc.overhead_markdown(o, 'cmd')
        assert_shows_all(self, md, [
            '**No ratio: ncu was not run',
            '| ncu | not run |',
            '| `(none) --launch-count 5` | 5 | 0 | diagnostic |',
            'ncu was not run**',
            'Without a filter (diagnostic run, not timed) it profiled 5 kernels, so ncu '
            'does reach the worker processes',
        ])
        self.assertNotIn('ratio ours / ncu', md)

    def test_no_ratio_when_ncu_added_no_time(self):
        o = nc.overhead(self.plain, self.ours, None, self.log, dict(self.walls, ncu_s=9.5))
        self.assertIsNone(o['ratio'])
        self.assertIn('ncu added no wall time', o['verdict'])

    def test_no_ratio_when_we_profiled_nothing(self):
        o = nc.overhead(self.plain, _report(11), None, self.log, self.walls)
        self.assertIsNone(o['ratio'])
        self.assertIn('we profiled no case', o['verdict'])

    def test_fails(self):
        ours = _report(11, {'available': True, 'passes': 1, 'wall_s': 0.5})
        o = nc.overhead(self.plain, ours, None, self.log, self.walls)
        self.assertAlmostEqual(o['ratio'], 0.5)
        self.assertTrue(o['verdict'].startswith('fails'))

    def test_timed_out_ncu_bounds_the_ratio(self):
        walls = dict(self.walls, ncu_timed_out=True, ncu_rc=124)
        o = nc.overhead(self.plain, self.ours, None, self.log, walls)
        self.assertIn('upper bound', o['verdict'])
        self.assertTrue(o['verdict'].startswith('meets'))
        self.assertIn('= 0.05 (upper bound); required', nc.overhead_markdown(o, 'cmd'))
        ours = _report(11, {'available': True, 'passes': 1, 'wall_s': 0.5})
        o = nc.overhead(self.plain, ours, None, self.log, walls)
        self.assertTrue(o['verdict'].startswith('unknown'))
        self.assertIn('upper bound', o['verdict'])

    def test_kernels_counted_from_csv_when_no_prof_lines(self):
        csv_only = '\n'.join(ln for ln in details_log([MMA, dict(MMA, id=1)]).splitlines()
                             if not ln.startswith('==PROF== Profiling'))
        o = nc.overhead(self.plain, self.ours, None, csv_only, self.walls)
        self.assertEqual(o['ncu_kernels_profiled'], 2)
        self.assertEqual(o['ncu_kernels_with_pass_count'], 0)
        self.assertIsNotNone(o['ratio'])


def _write(path, content):
    """A new file at `path` holding `content`: text as it is, anything else as JSON."""
    with open(path, 'w') as f:
        if isinstance(content, str):
            f.write(content)
        else:
            json.dump(content, f)


def _read(path):
    with open(path) as f:
        return f.read()


def _main_quietly(argv):
    """ncu_crosscheck's exit code for `argv`, with what it prints swallowed."""
    with contextlib.redirect_stdout(io.StringIO()):
        return nc.main(argv)


MMA_OURS = ours_json([ours_workload('calib.mma_loop', {
    TENSOR: 96.0, DRAM_BYTES: 1024500.0, GPU_TIME: 512000.0, FREQ: 1.98e9})])


class CommandLineTest(unittest.TestCase):
    def test_table_and_overhead_files(self):
        with tempfile.TemporaryDirectory() as d:
            at = functools.partial(os.path.join, d)
            _write(at('ours.json'), MMA_OURS)
            os.mkdir(at('ncu'))
            _write(os.path.join(d, 'ncu', 'calib.mma_loop.csv'), raw_log([MMA]))
            rc = _main_quietly(['table', '--ours', at('ours.json'), '--ncu-dir', at('ncu'),
                                '--out-md', at('t.md'), '--out-json', at('t.json')])
            self.assertEqual(rc, 0)
            self.assertEqual(len(json.loads(_read(at('t.json')))['rows']), 4)
            _write(at('plain.json'), _report(3))
            _write(at('ours_r.json'), _report(3, {'available': True, 'passes': 1, 'wall_s': 0.1}))
            _write(at('walls.json'), {'plain_s': 5.0, 'ours_s': 5.5, 'ncu_s': 9.0,
                                      'nvtx_filter': 'flashscope@verify]'})
            _write(at('ncu.log'), '==PROF== Profiling "k" - 0: 0%....50%....100% - 1 pass\n')
            overhead = ['overhead', '--plain', at('plain.json'), '--ours', at('ours_r.json'),
                        '--walls', at('walls.json'), '--out-md', at('o.md'),
                        '--out-json', at('o.json')]
            rc = _main_quietly(overhead + ['--ncu-log', at('ncu.log')])
            self.assertEqual(rc, 0)  # profile.wall_s sum 2 x 0.1 / (9 - 5) = 0.05
            self.assertAlmostEqual(json.loads(_read(at('o.json')))['ratio'], 0.05)
            _write(at('probe.tsv'), 'flashscope@verify]\t0\t0\nflashscope@*/verify/\t0\t0\n')
            _write(at('walls.json'), {'plain_s': 5.0, 'ours_s': 5.5, 'ncu_s': None})
            rc = _main_quietly(overhead + ['--nvtx-probe', at('probe.tsv')])
            self.assertEqual(rc, 1)
            self.assertIn('**No ratio: ncu was not run', _read(at('o.md')))

    def test_count_and_rerun_dir(self):
        with tempfile.TemporaryDirectory() as d:
            at = functools.partial(os.path.join, d)
            _write(at('probe.log'), '==PROF== Profiling "k" - 0: 0%....100% - 1 pass\n'
                                    '==PROF== Profiling "k" - 1: 0%....100% - 1 pass\n')
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(nc.main(['count', at('probe.log'), at('missing.log')]), 0)
            self.assertEqual(out.getvalue().strip(), '2')
            _write(at('ours.json'), MMA_OURS)
            for sub, tensor in (('ncu', '96.10'), ('ncu-rerun', '96.30')):
                os.mkdir(at(sub))
                run = dict(MMA, metrics=dict(MMA['metrics'], **{TENSOR: ('%', tensor)}))
                _write(os.path.join(d, sub, 'calib.mma_loop.csv'), details_log([run]))
            rc = _main_quietly(['table', '--ours', at('ours.json'), '--ncu-dir', at('ncu'),
                                '--ncu-rerun-dir', at('ncu-rerun'), '--out-md', at('t.md'),
                                '--out-json', at('t.json')])
            self.assertEqual(rc, 0)
            table = json.loads(_read(at('t.json')))
            self.assertEqual(table['within_strict'], 4)
            self.assertEqual(table['within_noise_aware'], 4)
            self.assertEqual(table['rows'][0]['ncu_run_to_run_text'], '0.2 pp')


if __name__ == '__main__':
    unittest.main()
