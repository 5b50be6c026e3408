"""Nsight Compute logs for the tests of scripts/device/ncu_parse.py and ncu_crosscheck.py, written
from ncu's documented CSV layouts: `--page details --csv` (one row per metric, after the
'==PROF== Profiling ... - N passes' progress lines and the application's own output) and
`--page raw --csv` (one row per kernel after a units row). Not a test itself."""

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
