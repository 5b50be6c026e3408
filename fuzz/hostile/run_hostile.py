#!/usr/bin/env python3
"""Runs the built `flashscope` against every hostile input of fuzz/hostile/cases/ (issue 23).

Each case is one small text file, NAME.case, of `key: value` lines (`#` starts a comment):

    # what the case is and why it is hostile
    run: "$FS" render "$H/report/inf_throughput.json" --format html --out "$T/out.html"
    exit: 0                       # the exit code it must give
    expect: note: 1 point         # a substring of stdout+stderr (repeatable; all must appear)
    reject: GATE PASSED           # a substring that must NOT appear (repeatable)
    setup: cp "$H/report/ok.json" "$T/r.json"; chmod 0444 "$T/r.json"   # optional, before `run`
    changes: out.html             # files of $T the command may rewrite or remove (repeatable)
    check: test "$(stat -c %a "$T/out.md")" = 600        # optional, must exit 0 afterwards
    timeout: 20                   # seconds (default 20)
    pending: vread (issue 23 readers)   # optional: known to fail until that work lands

`run`, `setup` and `check` are bash; they see FS (the flashscope binary), H (fuzz/hostile/files),
C (fuzz/hostile: check_text.py is there) and T (a fresh empty folder, also the working
directory). A process that `setup` leaves running (e.g. one holding a lock; it must redirect its
output) lives until the case ends. Every command runs with a memory limit
(RLIMIT_AS, default 2 GiB) and the time limit, stdin from /dev/null.

A case fails when the command is killed by a signal (abort, crash, SIGXFSZ), hangs past its time,
exits with another code, prints "terminate called" or "AddressSanitizer", misses an `expect`, shows
a `reject`, fails its `check`, or when a file of $T that existed before `run` was removed,
changed, had its link count changed (a hard link split) unless listed in `changes`, or had its
mode widened (a listed file may change its content or links or go, never widen its mode). The hostile files themselves must come out byte
for byte. A `pending` case is run and reported but does not fail the corpus; one that passes is
reported so that its `pending` line is removed.
"""
import argparse
import hashlib
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPEATABLE = {"expect", "reject", "changes"}
KNOWN = REPEATABLE | {"run", "exit", "setup", "check", "timeout", "pending"}
CRASH_MARKERS = ("terminate called", "AddressSanitizer", "runtime error:", "Segmentation fault")


def parse_case(path):
    case = {k: [] for k in REPEATABLE}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, sep, value = line.partition(":")
            key = key.strip()
            if not sep or key not in KNOWN:
                raise ValueError(f"{path}:{number}: expected 'key: value' with key one of "
                                 f"{sorted(KNOWN)}, got {line!r}")
            value = value.strip()
            if key in REPEATABLE:
                case[key].append(value)
            elif key in case:
                raise ValueError(f"{path}:{number}: '{key}' given twice")
            else:
                case[key] = value
    for required in ("run", "exit"):
        if required not in case:
            raise ValueError(f"{path}: no '{required}:' line")
    case["exit"] = int(case["exit"])
    case["timeout"] = float(case.get("timeout", 20))
    return case


def snapshot(folder):
    """Every entry under `folder`: its kind, mode, link count and content hash."""
    entries = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            st = os.lstat(p)
            digest = None
            if stat.S_ISREG(st.st_mode) and st.st_size > (16 << 20):
                digest = (st.st_size, st.st_mtime_ns)  # a big (often sparse) input: not read
            elif stat.S_ISREG(st.st_mode) and os.access(p, os.R_OK):
                h = hashlib.sha256()
                with open(p, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
                digest = h.hexdigest()
            entries[os.path.relpath(p, folder)] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
                                                   st.st_nlink, digest)
    return entries


def file_damage(before, after, may_change):
    problems = []
    for name, (kind, mode, links, digest) in before.items():
        if name not in after:
            if name not in may_change:
                problems.append(f"{name} was removed")
            continue
        kind2, mode2, links2, digest2 = after[name]
        if kind2 != kind:
            problems.append(f"{name} changed kind ({oct(kind)} -> {oct(kind2)})")
        if mode2 & ~mode:
            problems.append(f"{name} mode widened {oct(mode)} -> {oct(mode2)}")
        if links2 != links and name not in may_change:
            problems.append(f"{name} link count {links} -> {links2} (a hard link split)")
        if name not in may_change and (mode2 != mode or digest2 != digest):
            problems.append(f"{name} was changed (not listed in 'changes:')")
    return problems


def limits(memory_bytes):
    def apply():
        os.setsid()  # its own process group, so that a hang is killed whole
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # as a shell would start it
    return apply


def sh(command, env, cwd, timeout, memory_bytes, keep_group=False):
    """Runs bash -c COMMAND; returns (exit code or -signal, output, timed out, process group). Its
    process group
    is killed afterwards unless `keep_group` (a setup that leaves a process running for `run`,
    e.g. one holding a lock; it must redirect its output, or this waits for it)."""
    p = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         preexec_fn=limits(memory_bytes))
    try:
        out, _ = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        kill_group(p.pid)
        out, _ = p.communicate()
        timed_out = True
    if not keep_group:
        kill_group(p.pid)
    return p.returncode, out.decode("utf-8", "replace"), timed_out, p.pid


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_case(case, env, scratch, memory_bytes):
    """The reasons this case fails (empty when it holds)."""
    setup_group = None
    if case.get("setup"):
        rc, out, _, setup_group = sh(case["setup"], env, scratch, 60, memory_bytes,
                                     keep_group=True)
        if rc != 0:
            kill_group(setup_group)
            return [f"setup failed ({rc}): {out[-2000:]}"]
    try:
        return check_run(case, env, scratch, memory_bytes)
    finally:
        if setup_group is not None:
            kill_group(setup_group)


def check_run(case, env, scratch, memory_bytes):
    before = snapshot(scratch)
    rc, out, timed_out, _ = sh(case["run"], env, scratch, case["timeout"], memory_bytes)
    problems = []
    if timed_out:
        problems.append(f"hung: still running after {case['timeout']:g} s (killed)")
    elif rc < 0 or rc >= 128:
        sig = -rc if rc < 0 else rc - 128
        problems.append(f"killed by signal {sig} ({signal.Signals(sig).name})"
                        if 0 < sig < 65 else f"exit {rc}")
    elif rc != case["exit"]:
        problems.append(f"exit {rc}, expected {case['exit']}")
    problems += [f"output has '{m}' (an abort or a sanitizer finding)" for m in CRASH_MARKERS
                 if m in out]
    problems += [f"output lacks '{e}'" for e in case["expect"] if e not in out]
    problems += [f"output has '{r}', which it must not" for r in case["reject"] if r in out]
    problems += file_damage(before, snapshot(scratch), set(case["changes"]))
    if case.get("check") and not timed_out:
        crc, cout, _, _ = sh(case["check"], env, scratch, 60, memory_bytes)
        if crc != 0:
            problems.append(f"check failed ({crc}): {case['check']} {cout[-500:]}")
    if problems:
        problems.append("output (last 1500 characters):\n" + out[-1500:])
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flashscope", required=True, help="the built flashscope binary")
    ap.add_argument("--cases", default=os.path.join(HERE, "cases"))
    ap.add_argument("--files", default=os.path.join(HERE, "files"))
    ap.add_argument("--memory_mb", type=int, default=2048)
    ap.add_argument("only", nargs="*", help="case names to run (default: all)")
    args = ap.parse_args()

    names = sorted(n[:-5] for n in os.listdir(args.cases) if n.endswith(".case"))
    if args.only:
        unknown = set(args.only) - set(names)
        if unknown:
            sys.exit(f"run_hostile: no case {sorted(unknown)} in {args.cases}")
        names = [n for n in names if n in args.only]
    if not names:
        sys.exit(f"run_hostile: no *.case files in {args.cases}")
    files_before = snapshot(args.files)
    env = dict(os.environ, FS=os.path.abspath(args.flashscope), H=os.path.abspath(args.files),
               C=HERE, NO_COLOR="1", LC_ALL="C.UTF-8")
    failed, pending_failed, pending_passed = [], [], []
    for name in names:
        try:
            case = parse_case(os.path.join(args.cases, name + ".case"))
        except ValueError as e:
            failed.append(name)
            print(f"FAIL {name}: {e}")
            continue
        scratch = tempfile.mkdtemp(prefix=f"hostile_{name}_")
        try:
            problems = run_case(case, dict(env, T=scratch), scratch, args.memory_mb << 20)
        finally:
            subprocess.run(["chmod", "-R", "u+rwX", scratch], check=False)
            shutil.rmtree(scratch, ignore_errors=True)
        pending = case.get("pending")
        if problems and pending:
            pending_failed.append(name)
            print(f"PENDING {name} (waits for {pending}): {problems[0]}")
        elif problems:
            failed.append(name)
            print(f"FAIL {name}: " + "\n  ".join(problems))
        elif pending:
            pending_passed.append(name)
            print(f"ok   {name} (marked pending for {pending}, but it holds: remove 'pending:')")
        else:
            print(f"ok   {name}")
    damage = file_damage(files_before, snapshot(args.files), set())
    for d in damage:
        print(f"FAIL hostile files: {d}")
    print(f"run_hostile: {len(names)} cases, {len(failed)} failed, {len(pending_failed)} pending "
          f"({', '.join(pending_failed) or 'none'}), {len(pending_passed)} pending that hold")
    return 1 if failed or damage else 0


if __name__ == "__main__":
    sys.exit(main())
