#!/usr/bin/env python3
"""The caller's terminal, played by a pseudo-terminal this script makes.

    pty_caller.py DIR [--size ROWSxCOLS] [--resize-on TEXT ROWSxCOLS]
                  [--signal-on TEXT SIG] [--timeout S] -- CMD [ARGS...]

runs CMD in a session of its own whose controlling terminal, stdin, stdout
and stderr are the slave of a new pty (CMD is in the terminal's foreground
process group, as a shell's job is), relays nothing in (CMD's input is
only what is typed below), and writes into DIR:

    before   `stty -a` of that terminal before CMD starts
    after    `stty -a` of it once CMD has exited and its output is read
    out      everything CMD wrote on the terminal (the master's side)
    status   CMD's exit status (128+N when killed by signal N; "timeout"
             when it had to be killed after S seconds)
    flow     "flowing" when a line written to the terminal after CMD's
             end comes out of the master within 3 s, "stopped" otherwise
             (a TCOOFF on the terminal stops it until a TCOON)

--resize-on TEXT ROWSxCOLS: once TEXT has appeared in the output, the
terminal's size changes (TIOCSWINSZ, which sends SIGWINCH to its
foreground process group, as a terminal emulator does).
--signal-on TEXT SIG: once TEXT has appeared, CMD gets signal SIG.
--type-on TEXT LINE: once TEXT has appeared, LINE and a newline are typed.
Each --*-on happens once, in the order given.
"""

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time


def set_size(fd, size):
    rows, cols = (int(x) for x in size.split("x"))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def stty(fd):
    return subprocess.run(["stty", "-a"], stdin=fd, capture_output=True,
                          text=True, check=True).stdout


def parse(argv):
    if len(argv) < 3 or "--" not in argv:
        sys.exit(__doc__)
    dash = argv.index("--")
    opts, cmd = argv[2:dash], argv[dash + 1:]
    o = {"dir": argv[1], "size": "24x80", "events": [], "timeout": 30.0,
         "cmd": cmd}
    i = 0
    while i < len(opts):
        if opts[i] == "--size":
            o["size"] = opts[i + 1]
            i += 2
        elif opts[i] == "--timeout":
            o["timeout"] = float(opts[i + 1])
            i += 2
        elif opts[i] in ("--resize-on", "--signal-on", "--type-on"):
            o["events"].append((opts[i], opts[i + 1].encode(), opts[i + 2]))
            i += 3
        else:
            sys.exit(__doc__)
    return o


def fire(event, master, child):
    kind, _, arg = event
    if kind == "--resize-on":
        set_size(master, arg)
    elif kind == "--signal-on":
        child.send_signal(getattr(signal, "SIG" + arg.removeprefix("SIG")))
    else:
        os.write(master, arg.encode() + b"\n")


def drain(master, out, until):
    """Read the master until nothing comes for a moment (or EIO: no slave
    is open any more)."""
    while time.monotonic() < until:
        r, _, _ = select.select([master], [], [], 0.2)
        if not r:
            return
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        if not data:
            return
        out += data


def probe_flow(master, slave):
    """Whether a line written to the terminal comes out of the master: a
    write to a stopped terminal waits, so it is made by a thread."""
    done = threading.Event()

    def write():
        os.write(slave, b"flow-probe\n")
        done.set()

    t = threading.Thread(target=write, daemon=True)
    t.start()
    got = bytearray()
    end = time.monotonic() + 3
    while time.monotonic() < end and b"flow-probe" not in got:
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            got += os.read(master, 65536)
    flowing = b"flow-probe" in got and done.wait(1)
    # let the writer go, whatever state the terminal was left in
    termios.tcflow(slave, termios.TCOON)
    t.join(3)
    return "flowing" if flowing else "stopped"


def main():
    o = parse(sys.argv)
    master, slave = os.openpty()
    set_size(master, o["size"])
    with open(os.path.join(o["dir"], "before"), "w") as f:
        f.write(stty(slave))

    def ctty():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    child = subprocess.Popen(o["cmd"], stdin=slave, stdout=slave,
                             stderr=slave, start_new_session=True,
                             preexec_fn=ctty, close_fds=True)
    out = bytearray()
    events = list(o["events"])
    deadline = time.monotonic() + o["timeout"]
    status = None
    while status is None:
        if time.monotonic() > deadline:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            status = "timeout"
            break
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                out += os.read(master, 65536)
            except OSError:
                pass
        while events and events[0][1] in out:
            fire(events.pop(0), master, child)
        code = child.poll()
        if code is not None:
            status = str(code if code >= 0 else 128 - code)
    drain(master, out, time.monotonic() + 3)
    with open(os.path.join(o["dir"], "out"), "wb") as f:
        f.write(out)
    with open(os.path.join(o["dir"], "status"), "w") as f:
        f.write(status + "\n")
    with open(os.path.join(o["dir"], "after"), "w") as f:
        f.write(stty(slave))
    with open(os.path.join(o["dir"], "flow"), "w") as f:
        f.write(probe_flow(master, slave) + "\n")


if __name__ == "__main__":
    main()
