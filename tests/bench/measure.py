"""The measuring half of tests/bench/run: statistics, the runtimes driven
through their CLI, and one function per measurement.  run sets up the
bundles and the state roots, calls these and prints the report."""


import math
import os
import select
import shutil
import signal
import statistics
import subprocess
import time

from host import Interrupted

GNU_TIME = "/usr/bin/time"
# podman's default rlimits (nofile/nproc 1048576) are above this host's hard
# limits, and without CAP_SYS_RESOURCE runc and crun then fail to start the
# container; the same explicit values go to every runtime.
PODMAN_ULIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]


# ---------------------------------------------------------------- statistics

def median(xs):
    return statistics.median(xs) if xs else None


def p95(xs):
    if not xs:
        return None
    s = sorted(xs)
    return s[max(0, math.ceil(0.95 * len(s)) - 1)]


def ms(ns):
    return "n/a" if ns is None else f"{ns / 1e6:.2f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def kib(v):
    return "n/a" if v is None else f"{v:.0f}"


def fmt_ratio(r):
    return "n/a" if r is None else f"{r:.2f}x"


# ------------------------------------------------------------------ runtimes

class Runtime:
    """One runtime as the bench calls it: a binary, its global options, its
    own state root, and the default root it uses under podman."""

    def __init__(self, tag, label, binary, extra, tmp, state, default_root):
        self.tag = tag              # short, used in container IDs
        self.label = label
        self.binary = binary
        self.extra = extra          # global options (corral's --policy)
        self.root = os.path.join(state, "root-" + tag)
        self.default_root = default_root
        # swept at cleanup only when the bench mounted a tmpfs of its own there
        self.sweep_default = False
        os.makedirs(self.root)
        self.logpath = os.path.join(tmp, "log-" + tag)
        self.log = open(self.logpath, "ab")
        self.errors = []            # first few error messages
        self.spawn_kw = {}          # spawn()'s creds and env, when not the bench's

    def argv(self, *args):
        return [self.binary, "--root", self.root] + self.extra + list(args)

    def note_error(self, what, offset):
        self.log.flush()
        with open(self.logpath, "rb") as f:
            f.seek(offset)
            msg = f.read().decode(errors="replace").strip().replace("\n", " | ")
        if len(self.errors) < 3:
            self.errors.append(f"{what}: {msg[:300] or '(no message)'}")

    def leftovers(self, root=None):
        """Container state left in a root; corral's .seccomp cache of
        compiled filters is no container's."""
        try:
            return sorted(e for e in os.listdir(root or self.root)
                          if e != ".seccomp")
        except OSError:
            return []

    def force_delete(self, cid, root=None):
        subprocess.call([self.binary, "--root", root or self.root, "delete", "--force", cid],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)

    def cleanup(self):
        for root in (self.root,) + ((self.default_root,) if self.sweep_default else ()):
            for cid in self.leftovers(root):
                self.force_delete(cid, root)
                p = os.path.join(root, cid)
                if os.path.isdir(p):    # a runtime that could not delete it
                    shutil.rmtree(p, ignore_errors=True)


def spawn(argv, out_f, creds=None, env=None):
    """Start a runtime command in its own session: Ctrl-C reaches only the
    bench, which lets a command it started finish (see finish) instead of
    leaving a half-made container behind.  CREDS (uid, gid): the child
    takes those ids and no supplementary group before its exec (Python
    then forks instead of using vfork, so compare such commands with each
    other); ENV: its environment instead of the bench's."""
    kw = {}
    if creds is not None:
        kw = {"user": creds[0], "group": creds[1], "extra_groups": []}
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out_f, stderr=out_f,
                            start_new_session=True, env=env, **kw)


def finish(procs):
    """Wait for the commands PROCS; on an interrupt, still give them up to
    60 s to end on their own before killing them, then re-raise."""
    try:
        return [p.wait() for p in procs]
    except Interrupted:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        deadline = time.monotonic() + 60
        for p in procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        raise


def timed_call(rt, argv):
    """(rc, nanoseconds) of one command; its output goes to the runtime's log."""
    rt.log.flush()
    off = rt.log.tell()
    t0 = time.perf_counter_ns()
    p = spawn(argv, rt.log, **getattr(rt, "spawn_kw", {}))
    rc = finish([p])[0]
    t1 = time.perf_counter_ns()
    if rc != 0:
        verb = next((a for a in argv if a in ("run", "create", "start", "delete")), "?")
        rt.note_error(f"{os.path.basename(argv[0])} ... {verb} ... {argv[-1]} (exit {rc})", off)
    return rc, t1 - t0


def wait_exit(pid, timeout_s=10.0):
    """Block until process PID has exited (a zombie counts); True if it did."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        p = select.poll()
        p.register(fd, select.POLLIN)
        return bool(p.poll(timeout_s * 1000))
    finally:
        os.close(fd)


def read_pid(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


# -------------------------------------------------------------- measurements

def measure_run(rts, bundle, n):
    res = {rt.tag: {"t": [], "fail": 0} for rt in rts}
    for i in range(-2, n):          # two warm-up rounds, not counted
        for rt in rts:
            cid = f"cb{os.getpid()}-{rt.tag}-r{i + 2}"
            t0 = time.perf_counter_ns()
            rc, _ = timed_call(rt, rt.argv("run", "--bundle", bundle, cid))
            if os.path.exists(os.path.join(rt.root, cid)):
                rc2, _ = timed_call(rt, rt.argv("delete", cid))
                rc = rc or rc2
            t = time.perf_counter_ns() - t0
            if i < 0:
                continue
            if rc == 0:
                res[rt.tag]["t"].append(t)
            else:
                res[rt.tag]["fail"] += 1
                rt.cleanup()
    return res


STEPS = ["create", "start", "exit", "delete"]


def measure_steps(rts, bundle, n, state):
    res = {rt.tag: {**{s: [] for s in STEPS}, "fail": 0} for rt in rts}
    pidfile = os.path.join(state, "pid")
    for i in range(-2, n):
        for rt in rts:
            cid = f"cb{os.getpid()}-{rt.tag}-s{i + 2}"
            if os.path.exists(pidfile):
                os.unlink(pidfile)
            rt.log.flush()
            off0 = rt.log.tell()
            rc, tc = timed_call(rt, rt.argv("create", "--bundle", bundle,
                                            "--pid-file", pidfile, cid))
            pid = read_pid(pidfile) if rc == 0 else None
            ok = rc == 0 and pid is not None
            if ok:
                rc, ts = timed_call(rt, rt.argv("start", cid))
                ok = rc == 0
            if ok:
                t0 = time.perf_counter_ns()
                ok = wait_exit(pid)
                te = time.perf_counter_ns() - t0
                if not ok:
                    rt.errors.append(f"{cid}: did not exit within 10 s of start")
            if ok:
                rc, td = timed_call(rt, rt.argv("delete", cid))
                ok = rc == 0 and not os.path.exists(os.path.join(rt.root, cid))
            # The container's stdio is the runtime's log: /bin/true prints
            # nothing, so any output here means the workload failed (a
            # failed exec after start is not seen by any command's status).
            rt.log.flush()
            if ok and rt.log.tell() != off0:
                rt.note_error(f"{cid}: output during the lifecycle", off0)
                ok = False
            if not ok:
                rt.cleanup()
            if i < 0:
                continue
            if ok:
                for s, t in zip(STEPS, (tc, ts, te, td)):
                    res[rt.tag][s].append(t)
            else:
                res[rt.tag]["fail"] += 1
    return res


def measure_rss(rts, bundle, n, tmp, state):
    """Peak RSS (KiB) of the runtime process during create, from GNU time's
    %M (wait4's ru_maxrss); plus the high-water RSS of the container's init
    process while it waits for start (VmHWM)."""
    res = {rt.tag: {"rss": [], "init": [], "fail": 0} for rt in rts}
    pidfile = os.path.join(state, "pid")
    mfile = os.path.join(tmp, "maxrss")
    for i in range(n):
        for rt in rts:
            cid = f"cb{os.getpid()}-{rt.tag}-m{i}"
            for f in (pidfile, mfile):
                if os.path.exists(f):
                    os.unlink(f)
            rc, _ = timed_call(rt, [GNU_TIME, "-f", "%M", "-o", mfile] +
                               rt.argv("create", "--bundle", bundle, "--pid-file", pidfile, cid))
            kib = None
            try:
                with open(mfile) as f:
                    kib = int(f.read().strip().splitlines()[-1])
            except (OSError, ValueError, IndexError):
                pass
            init = None
            pid = read_pid(pidfile)
            if pid is not None:
                try:
                    with open(f"/proc/{pid}/status") as f:
                        for line in f:
                            if line.startswith("VmHWM:"):
                                init = int(line.split()[1])
                except OSError:
                    pass
            rt.force_delete(cid)
            if rc == 0 and kib is not None:
                res[rt.tag]["rss"].append(kib)
                if init is not None:
                    res[rt.tag]["init"].append(init)
            else:
                res[rt.tag]["fail"] += 1
            rt.cleanup()
    return res


def measure_parallel(rts, bundle, par, rounds, tmp):
    res = {rt.tag: {"wall": [], "fail": 0, "left": 0, "runs": 0} for rt in rts}
    logdir = os.path.join(tmp, "par-logs")
    os.makedirs(logdir, exist_ok=True)
    for r in range(rounds):
        for rt in rts:
            procs = []
            logs = []
            t0 = time.perf_counter_ns()
            for k in range(par):
                cid = f"cb{os.getpid()}-{rt.tag}-p{r}-{k}"
                lf = open(os.path.join(logdir, cid), "wb")
                logs.append(lf)
                procs.append((cid, spawn(rt.argv("run", "--bundle", bundle, cid), lf)))
            rcs = list(zip([c for c, _ in procs], finish([p for _, p in procs])))
            wall = time.perf_counter_ns() - t0
            for lf in logs:
                lf.close()
            left = [c for c in rt.leftovers() if f"-p{r}-" in c]
            for c in left:   # run leaves nothing for any of the three; delete is not timed
                rc = finish([spawn(rt.argv("delete", c), subprocess.DEVNULL)])[0]
                if rc != 0:
                    res[rt.tag]["left"] += 1
            failed = [(c, rc) for c, rc in rcs if rc != 0]
            res[rt.tag]["wall"].append(wall)
            res[rt.tag]["fail"] += len(failed)
            res[rt.tag]["runs"] += par
            for c, rc in failed[:2]:
                if len(rt.errors) < 3:
                    with open(os.path.join(logdir, c), "rb") as f:
                        msg = f.read().decode(errors="replace").strip().replace("\n", " | ")
                    rt.errors.append(f"parallel run {c} (exit {rc}): {msg[:300]}")
            rt.cleanup()
    return res


class Podman:
    """podman with a store of its own: --root on disk in the temp dir,
    --runroot and --tmpdir (/run/... by default) on the state filesystem."""

    def __init__(self, podman, tmp, state):
        self.store = os.path.join(tmp, "podman")
        self.base = [podman, "--root", self.store,
                     "--runroot", os.path.join(state, "podman-runroot"),
                     "--tmpdir", os.path.join(state, "podman-tmp"),
                     "--storage-driver", "vfs"]
        self.prefix = f"cb{os.getpid()}-"

    def cleanup(self):
        if not os.path.isdir(self.store):
            return
        r = subprocess.run(self.base + ["ps", "-a", "--format", "{{.Names}}"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        names = [n for n in r.stdout.split() if n.startswith(self.prefix)]
        if names:
            subprocess.call(self.base + ["rm", "-f"] + names, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def measure_podman(pm, rts, rootfs, n):
    res = {rt.tag: {"t": [], "fail": 0, "left": 0} for rt in rts}
    for i in range(-2, n):
        for rt in rts:
            name = f"{pm.prefix}{rt.tag}-{i + 2}"
            # podman passes --runtime-flag=K=V to the runtime as --K=V.  Not
            # --root: podman 4.3 drops the runtime flags on delete, so the
            # state would stay behind and delete would not be timed.
            flags = [f"--runtime-flag={rt.extra[j].lstrip('-')}={rt.extra[j + 1]}"
                     for j in range(0, len(rt.extra), 2)]
            argv = pm.base + ["--runtime", rt.binary] + flags + [
                "run", "--rm", "--name", name, "--network", "none"] + PODMAN_ULIMITS + [
                "--rootfs", rootfs, "/bin/true"]
            rc, t = timed_call(rt, argv)
            # with a root of our own, anything in it now is left behind
            left = rt.leftovers(rt.default_root) if rt.sweep_default else []
            if left:
                rt.errors.append(f"{name}: state left in {rt.default_root}: {' '.join(left)}")
                rt.cleanup()
            if i < 0:
                continue
            res[rt.tag]["left"] += len(left)
            if rc == 0:
                res[rt.tag]["t"].append(t)
            else:
                res[rt.tag]["fail"] += 1
                pm.cleanup()
    return res
