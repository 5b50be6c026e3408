"""Tests of scripts/device/ncu_crosscheck.py on ncu output written from Nsight Compute's
documented CSV layouts (`--page details --csv`: one row per metric; `--page raw --csv`: one row
per kernel after a units row) and its '==PROF== Profiling ... - N passes' progress lines.
Run: python3 -m unittest -v ncu_crosscheck_test (from this folder; ctest does)."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import ncu_crosscheck as nc  # noqa: E402

TENSOR = 'sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active'
DRAM_BYTES = 'dram__bytes.sum'
GPU_TIME = 'gpu__time_duration.sum'
FREQ = 'smsp__cycles_elapsed.avg.per_second'

_HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
         '"Block Size","Grid Size","Device","CC"')
_KERNEL = ('"{id}","4242","flashscope-metric-probe","127.0.0.1","{name}","1","13",'
           '"(128, 1, 1)","(528, 1, 1)","0","9.0"')


def details_log(kernels):
    """A `--page details --csv` log: ncu's progress lines, the probe's own line, then rows."""
    lines = ['==PROF== Connected to process 4242 (/work/main/build/flashscope-metric-probe)']
    for k in kernels:
        lines.append('==PROF== Profiling "{}" - {}: 0%....50%....100% - {} passes'.format(
            k['name'], k['id'], k['passes']))
    lines.append('flashscope-metric-probe: wrote /tmp/plain.json')
    lines.append('==PROF== Disconnected from process 4242')
    lines.append(_HEAD + ',"Section Name","Metric Name","Metric Unit","Metric Value"')
    for k in kernels:
        for name, (unit, value) in k['metrics'].items():
            lines.append(_KERNEL.format(**k) + ',"Command line profiler metrics","{}","{}","{}"'
                         .format(name, unit, value))
    return '\n'.join(lines) + '\n'


def raw_log(kernels):
    names = list(kernels[0]['metrics'])
    lines = [_HEAD + ''.join(',"{}"'.format(n) for n in names),
             ','.join(['""'] * 11) + ''.join(',"{}"'.format(kernels[0]['metrics'][n][0])
                                             for n in names)]
    for k in kernels:
        lines.append(_KERNEL.format(**k) + ''.join(',"{}"'.format(k['metrics'][n][1])
                                                   for n in names))
    return '\n'.join(lines) + '\n'


MMA = {'id': 0, 'name': 'MmaLoopKernel(float *, int)', 'passes': 9,
       'metrics': {TENSOR: ('%', '96.10'), DRAM_BYTES: ('Kbyte', '1,024.5'),
                   GPU_TIME: ('usecond', '512.25'), FREQ: ('cycle/nsecond', '1.98')}}


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


class ParsingTest(unittest.TestCase):
    def test_numbers(self):
        self.assertEqual(nc.parse_number('1,234,567.5'), 1234567.5)
        self.assertEqual(nc.parse_number(' 0 '), 0.0)
        self.assertIsNone(nc.parse_number('n/a'))
        self.assertIsNone(nc.parse_number(''))

    def test_units_become_ours(self):
        self.assertEqual(nc.to_base(1.5, 'Kbyte'), (1500.0, 'byte'))
        self.assertEqual(nc.to_base(7.0, 'byte'), (7.0, 'byte'))
        self.assertEqual(nc.to_base(2.0, 'usecond'), (2000.0, 'ns'))
        self.assertEqual(nc.to_base(3.0, 'msecond'), (3e6, 'ns'))
        v, u = nc.to_base(1.98, 'cycle/nsecond')
        self.assertAlmostEqual(v, 1.98e9)
        self.assertEqual(u, 'Hz')
        self.assertEqual(nc.to_base(1.98e9, 'cycle/second'), (1.98e9, 'Hz'))
        self.assertEqual(nc.to_base(42.0, '%'), (42.0, '%'))
        self.assertEqual(nc.to_base(1.98, 'GHz'), (1.98e9, 'Hz'))
        self.assertEqual(nc.to_base(1.98e9, '1/second'), (1.98e9, 'Hz'))
        self.assertEqual(nc.to_base(5.0, 'Minst'), (5e6, 'inst'))
        self.assertEqual(nc.to_base(4.0, ''), (4.0, ''))
        self.assertIsNone(nc.to_base(1.0, 'furlong')[0])
        self.assertIsNone(nc.to_base(None, '%')[0])

    def test_details_and_raw_pages_agree(self):
        second = dict(MMA, id=1, name='ExpLoopKernel(float *, int)', passes=1)
        for text in (details_log([MMA, second]), raw_log([MMA, second])):
            kernels = nc.read_ncu_csv(text)
            self.assertEqual([k['kernel'] for k in kernels],
                             ['MmaLoopKernel(float *, int)', 'ExpLoopKernel(float *, int)'])
            self.assertEqual(kernels[0]['metrics'][DRAM_BYTES], ('Kbyte', '1,024.5'))
            self.assertEqual(kernels[1]['metrics'][TENSOR], ('%', '96.10'))

    def test_noise_lines_are_not_rows(self):
        self.assertEqual(nc.read_ncu_csv('==PROF== nothing profiled\nhello\n'), [])

    def test_pass_counts(self):
        text = details_log([MMA]) + '==PROF== Profiling "Copy" - 1: 0%....50%....100% - 1 pass\n'
        self.assertEqual(nc.read_pass_counts(text),
                         [('MmaLoopKernel(float *, int)', 9), ('Copy', 1)])

    def test_version(self):
        self.assertEqual(nc.ncu_version('NVIDIA (R) Nsight Compute Command Line Profiler\n'
                                        'Copyright (c) 2018-2025 NVIDIA Corporation\n'
                                        'Version 2025.3.1.0 (build 36398880) (public-release)\n'),
                         '2025.3.1.0')


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
                                     'ncu': [9], 'ncu_kernels': 1})
        md = nc.table_markdown(ours, rows, passes, 'ncu --metrics x probe', '2025.3.1.0')
        self.assertIn('**4 of 12 rows within 2 pp or 2 % relative.**', md)
        self.assertIn('| tensor_pipe_pct | calib.mma_loop | 95 | 96.1 | -1.1 |', md)
        self.assertIn('ncu --metrics x probe', md)


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

    def test_meets(self):
        o = nc.overhead(self.plain, self.ours, self.plain, self.log,
                        {'plain_s': 10.0, 'ours_s': 11.0, 'ncu_s': 20.0})
        self.assertAlmostEqual(o['ratio'], 0.1)
        self.assertAlmostEqual(o['ratio_profile_wall_sum'], 0.05)
        self.assertEqual(o['cases_launched_plain'], 10)
        self.assertEqual(o['cases_profiled_ours'], 10)
        self.assertEqual(o['ours_passes_total'], 10)
        self.assertEqual(o['ncu_kernels_profiled'], 10)
        self.assertEqual(o['ncu_passes_total'], 20)
        self.assertTrue(o['verdict'].startswith('meets'))
        self.assertIn('ratio ours / ncu = 0.1 ', nc.overhead_markdown(o, 'cmd'))

    def test_fails(self):
        o = nc.overhead(self.plain, self.ours, None, self.log,
                        {'plain_s': 10.0, 'ours_s': 15.0, 'ncu_s': 20.0})
        self.assertAlmostEqual(o['ratio'], 0.5)
        self.assertTrue(o['verdict'].startswith('fails'))

    def test_timed_out_ncu_bounds_the_ratio(self):
        walls = {'plain_s': 10.0, 'ours_s': 11.0, 'ncu_s': 20.0, 'ncu_timed_out': True}
        o = nc.overhead(self.plain, self.ours, None, self.log, walls)
        self.assertIn('upper bound', o['verdict'])
        walls['ours_s'] = 19.0
        o = nc.overhead(self.plain, self.ours, None, self.log, walls)
        self.assertTrue(o['verdict'].startswith('unknown'))


class CommandLineTest(unittest.TestCase):
    def test_table_and_overhead_files(self):
        with tempfile.TemporaryDirectory() as d:
            ours = ours_json([ours_workload('calib.mma_loop', {
                TENSOR: 96.0, DRAM_BYTES: 1024500.0, GPU_TIME: 512000.0, FREQ: 1.98e9})])
            with open(os.path.join(d, 'ours.json'), 'w') as f:
                json.dump(ours, f)
            os.mkdir(os.path.join(d, 'ncu'))
            with open(os.path.join(d, 'ncu', 'calib.mma_loop.csv'), 'w') as f:
                f.write(raw_log([MMA]))
            with contextlib.redirect_stdout(io.StringIO()):
                rc = nc.main(['table', '--ours', os.path.join(d, 'ours.json'), '--ncu-dir',
                              os.path.join(d, 'ncu'), '--out-md', os.path.join(d, 't.md'),
                              '--out-json', os.path.join(d, 't.json')])
            self.assertEqual(rc, 0)
            with open(os.path.join(d, 't.json')) as f:
                self.assertEqual(len(json.load(f)['rows']), 4)
            for name, obj in (('plain', _report(3)), ('ours_r', _report(3, {
                    'available': True, 'passes': 1, 'wall_s': 0.1})),
                              ('walls', {'plain_s': 5.0, 'ours_s': 5.5, 'ncu_s': 9.0})):
                with open(os.path.join(d, name + '.json'), 'w') as f:
                    json.dump(obj, f)
            with open(os.path.join(d, 'ncu.log'), 'w') as f:
                f.write('==PROF== Profiling "k" - 0: 0%....50%....100% - 1 pass\n')
            with contextlib.redirect_stdout(io.StringIO()):
                rc = nc.main(['overhead', '--plain', os.path.join(d, 'plain.json'),
                              '--ours', os.path.join(d, 'ours_r.json'),
                              '--ncu-log', os.path.join(d, 'ncu.log'),
                              '--walls', os.path.join(d, 'walls.json'),
                              '--out-md', os.path.join(d, 'o.md'),
                              '--out-json', os.path.join(d, 'o.json')])
            self.assertEqual(rc, 0)  # 0.5 / 4.0 = 0.125
            with open(os.path.join(d, 'o.json')) as f:
                self.assertAlmostEqual(json.load(f)['ratio'], 0.125)


if __name__ == '__main__':
    unittest.main()
