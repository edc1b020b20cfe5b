"""The host side the bench scripts share: the private mount namespace
(and, on a hybrid cgroup host, the cgroup2 unmounted there), the busybox
bundle, the header with the load average, tables, and the last-resort
cleanup by pid.  tests/bench/run, tests/bench/bwrap,
tests/bench/density and tests/bench/ab use it; tests/bench/README.md says what each
measures."""

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time

UNIFIED = "/sys/fs/cgroup/unified"
NS_MARK = "CORRAL_BENCH_IN_NS"
APPLETS = ["sh", "true", "false", "echo", "cat", "sleep"]


class Interrupted(Exception):
    """Ctrl-C, SIGTERM or SIGHUP while the bench runs: it stops measuring
    and cleans up."""


def on_signal(signum, frame):
    raise Interrupted(signal.Signals(signum).name)


def catch_signals():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)


def ignore_signals():
    """While cleaning up: a second Ctrl-C must not leave half of it."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)


def out(line=""):
    print(line, flush=True)


def env_int(name, default, least=1):
    try:
        v = int(os.environ.get(name, default))
    except ValueError:
        sys.exit(f"bench: {name} must be an integer")
    if v < least:
        sys.exit(f"bench: {name} must be at least {least}")
    return v


def env_ints(name, default):
    """A comma-separated list of positive integers (BENCH_DENSITY_N)."""
    try:
        v = [int(x) for x in os.environ.get(name, default).split(",") if x.strip()]
    except ValueError:
        sys.exit(f"bench: {name} must be a comma-separated list of integers")
    if not v or min(v) < 1:
        sys.exit(f"bench: {name} must list integers of at least 1")
    return v


def first_line(argv):
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=20)
        s = (r.stdout or r.stderr).strip().splitlines()
        return s[0] if s else "?"
    except (OSError, subprocess.SubprocessError):
        return "not available"


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def header(title, repo, binaries):
    """The date, kernel, CPU, the load average and each binary's version
    (BINARIES: (label, path) pairs; corral's with its git commit)."""
    out(title)
    out(f"  date      {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    out(f"  kernel    {os.uname().release}")
    model = "?"
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    out(f"  cpu       {model}")
    out(f"  nproc     {os.cpu_count()} (usable: {len(os.sched_getaffinity(0))})")
    out(f"  loadavg   {loadavg()} (at start)")
    for label, path in binaries:
        extra = ""
        if label == "corral":
            extra = f", git {first_line(['git', '-C', repo, 'describe', '--always', '--dirty'])}"
        out(f"  {label:<9} {first_line([path, '--version'])} ({path}{extra})")


def reexec_in_private_ns(script):
    """Run SCRIPT again under `unshare -m --propagation private` and wait
    for it; the child handles Ctrl-C and cleans up, this process only
    passes SIGTERM and SIGHUP on.  Returns when already in it."""
    if os.environ.get(NS_MARK) == "1":
        return
    env = dict(os.environ, **{NS_MARK: "1"})
    p = subprocess.Popen(["unshare", "-m", "--propagation", "private", "--",
                          sys.executable, os.path.abspath(script)], env=env)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, lambda signum, frame: p.send_signal(signum)
                      if signum != signal.SIGINT else None)
    sys.exit(p.wait())


def cgroup_v1_only():
    """In the bench's own mount namespace, unmount a hybrid host's cgroup2
    (crun 1.8 refuses hybrid hosts), and say what the runtimes see."""
    if os.path.ismount(UNIFIED):
        r = subprocess.run(["umount", UNIFIED], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"bench: umount {UNIFIED}: {r.stderr.strip()}")
        out(f"  cgroups   hybrid host: {UNIFIED} unmounted in a private mount namespace "
            "(crun 1.8 refuses hybrid hosts); all runtimes see cgroup v1 only")
    else:
        with open("/proc/self/mountinfo") as f:
            v2 = any(line.split()[4] == "/sys/fs/cgroup" and " - cgroup2 " in line for line in f)
        out(f"  cgroups   {'v2' if v2 else 'v1'}; nothing unmounted (private mount namespace)")


# -------------------------------------------------------------- the bundle

def make_rootfs(path, busybox, runtime_dirs=True, applets=APPLETS):
    os.makedirs(os.path.join(path, "bin"))
    if runtime_dirs:
        for d in ("proc", "sys", "dev", "tmp", "etc", "root"):
            os.makedirs(os.path.join(path, d), exist_ok=True)
        with open(os.path.join(path, "etc/passwd"), "w") as f:
            f.write("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n")
        with open(os.path.join(path, "etc/group"), "w") as f:
            f.write("root:x:0:\nnogroup:x:65534:\n")
    shutil.copy2(busybox, os.path.join(path, "bin/busybox"))
    for a in applets:
        os.symlink("busybox", os.path.join(path, "bin", a))


def make_bundle(bundle, runc, busybox, args=("/bin/true",)):
    """A busybox rootfs and `runc spec`'s config.json, changed to run ARGS
    without a terminal: the same file for every runtime."""
    make_rootfs(os.path.join(bundle, "rootfs"), busybox)
    subprocess.run([runc, "spec", "--bundle", bundle], check=True)
    path = os.path.join(bundle, "config.json")
    with open(path) as f:
        cfg = json.load(f)
    cfg["process"]["terminal"] = False
    cfg["process"]["args"] = list(args)
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2)


# ----------------------------------------------------------------- mounts

def mountpoints():
    """The mount points of this namespace, in mountinfo's order."""
    with open("/proc/self/mountinfo") as f:
        return [line.split()[4].replace("\\040", " ") for line in f]


def unmount_under(path):
    """Unmount whatever is mounted at or below PATH in this namespace."""
    try:
        mps = [mp for mp in mountpoints() if mp == path or mp.startswith(path + "/")]
    except OSError:
        return
    for mp in reversed(mps):
        subprocess.call(["umount", "-l", mp], stderr=subprocess.DEVNULL)


def fstype(path):
    """The filesystem type PATH is on, from this namespace's mountinfo."""
    path = os.path.realpath(path)
    best, kind = "", "?"
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            mp = fields[4].replace("\\040", " ")
            fs = fields[fields.index("-") + 1]
            if (path == mp or path.startswith(mp.rstrip("/") + "/")) and len(mp) >= len(best):
                best, kind = mp, fs
    return kind


# ----------------------------------------------------------------- cgroups

CGROUP_ROOT = "/sys/fs/cgroup"


def cgroup_dirs(marker):
    """Directories under /sys/fs/cgroup (any hierarchy, up to 4 levels
    down) whose name holds MARKER, deepest first."""
    found = []

    def walk(path, depth):
        try:
            with os.scandir(path) as it:
                for e in it:
                    if e.is_dir(follow_symlinks=False):
                        if marker in e.name:
                            found.append(e.path)
                        if depth < 4:
                            walk(e.path, depth + 1)
        except OSError:
            pass

    walk(CGROUP_ROOT, 0)
    return sorted(found, key=lambda p: -p.count("/"))


def remove_plain_dirs(marker):
    """crun on a hybrid host whose cgroup2 the bench unmounted still makes
    /sys/fs/cgroup/unified/ID, here a plain directory of the tmpfs at
    /sys/fs/cgroup (under the host's cgroup2 mount, out of its sight),
    writes a file cgroup.procs in it, and leaves both.  Such directories
    named for the bench's containers go: only those on no cgroup
    filesystem, and only their regular files.  The number removed."""
    n = 0
    for d in cgroup_dirs(marker):
        if fstype(d).startswith("cgroup"):
            continue
        try:
            for e in os.scandir(d):
                if e.is_file(follow_symlinks=False):
                    os.unlink(e.path)
            os.rmdir(d)
            n += 1
        except OSError:
            pass
    return n


def plain_dirs_in(path):
    """The plain (not cgroup) directories in PATH, as a set of names."""
    if fstype(path).startswith("cgroup"):
        return set()
    try:
        return {e.name for e in os.scandir(path) if e.is_dir(follow_symlinks=False)}
    except OSError:
        return set()


def remove_plain_dir(path):
    """One such directory and the regular files in it (see above)."""
    if fstype(path).startswith("cgroup"):
        return
    try:
        for e in os.scandir(path):
            if e.is_file(follow_symlinks=False):
                os.unlink(e.path)
        os.rmdir(path)
    except OSError:
        pass


# ---------------------------------------------------------------- processes

def pids_with(marker):
    """Pids of processes (not this one or its parent) whose command line
    holds MARKER, the bench's temp dir."""
    me = {os.getpid(), os.getppid()}
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in me:
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker.encode() in cmd:
            found.append(int(d))
    return found


def kill_strays(tmp):
    """Last resort after an interrupt: a process of ours still running from
    the temp dir (a runtime command or conmon that did not end) is killed,
    by pid."""
    for pid in pids_with(tmp):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


# -------------------------------------------------------------------- users

class BenchUser:
    """An ordinary user the bench made (no home, no login shell, group
    users): its name, uid, gid, and the subordinate range it was given
    (first id, or None).  remove_user() undoes make_user()."""

    def __init__(self, name, subids):
        self.name, self.sub, self.uid, self.gid = name, None, None, None
        self.want_subids = subids


SUBID_COUNT = 65536


def subid_ranges():
    """The (first, count) ranges /etc/subuid and /etc/subgid give anyone."""
    found = []
    for path in ("/etc/subuid", "/etc/subgid"):
        try:
            with open(path) as f:
                for line in f:
                    parts = line.strip().split(":")
                    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
                        found.append((int(parts[1]), int(parts[2])))
        except OSError:
            pass
    return found


def free_subid_base():
    """A range of 65536 ids from 3.5e9 up, by this process's pid, that no
    line of /etc/subuid or /etc/subgid overlaps."""
    taken = subid_ranges()
    for k in range(64):
        base = 3500000000 + ((os.getpid() + k) % 1000) * SUBID_COUNT
        if all(base + SUBID_COUNT <= a or a + n <= base for a, n in taken):
            return base
    sys.exit("bench: no free subordinate id range from 3500000000")


def make_user(u):
    """useradd U (and, when asked, subordinate uids and gids through
    usermod, which locks the files as any other tool editing them does).
    Raises on failure; remove_user() cleans up whatever was made."""
    subprocess.run(["useradd", "-M", "-N", "-s", "/usr/sbin/nologin", "-d", "/nonexistent",
                    "-K", "SUB_UID_COUNT=0", "-K", "SUB_GID_COUNT=0", u.name],
                   check=True, stdin=subprocess.DEVNULL)
    pw = pwd.getpwnam(u.name)
    u.uid, u.gid = pw.pw_uid, pw.pw_gid
    if u.want_subids:
        base = free_subid_base()
        rng = f"{base}-{base + SUBID_COUNT - 1}"
        subprocess.run(["usermod", "--add-subuids", rng, "--add-subgids", rng, u.name],
                       check=True, stdin=subprocess.DEVNULL)
        u.sub = base


def pids_of_uid(uid):
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/status") as f:
                for line in f:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            found.append(int(d))
                        break
        except (OSError, ValueError):
            pass
    return found


def remove_user(u):
    """Kill what U still runs (by pid), remove its subordinate ranges and
    U itself, and its /tmp/corral-UID if corral made one.  Returns what
    could not be removed (an empty list when all is gone)."""
    left = []
    if u.uid is not None:
        for pid in pids_of_uid(u.uid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(f"/tmp/corral-{u.uid}", ignore_errors=True)
    if u.sub is not None:
        rng = f"{u.sub}-{u.sub + SUBID_COUNT - 1}"
        subprocess.call(["usermod", "--del-subuids", rng, "--del-subgids", rng, u.name],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
    if u.uid is not None or user_exists(u.name):
        for _ in range(50):     # userdel refuses while a killed process lingers
            if subprocess.call(["userdel", u.name], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) in (0, 6):
                break
            time.sleep(0.1)
    if user_exists(u.name):
        left.append(f"user {u.name}")
    for path in ("/etc/subuid", "/etc/subgid"):
        try:
            with open(path) as f:
                if any(line.startswith(u.name + ":") for line in f):
                    left.append(f"{path} line of {u.name}")
        except OSError:
            pass
    return left


def user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


# ------------------------------------------------------------------- report

def table(header_row, rows, widths):
    out("  " + "".join(h.rjust(w) if i else h.ljust(w)
                       for i, (h, w) in enumerate(zip(header_row, widths))))
    out("  " + "-" * (sum(widths)))
    for r in rows:
        out("  " + "".join(str(c).rjust(w) if i else str(c).ljust(w)
                           for i, (c, w) in enumerate(zip(r, widths))))


def report_errors(rts):
    for rt in rts:
        for e in rt.errors:
            out(f"  ! {rt.label}: {e}")
        rt.errors.clear()


def target_row(rows, what, measured, target, ok):
    rows.append([what, measured, target,
                 "n/a" if ok is None else ("MET" if ok else "NOT MET")])
