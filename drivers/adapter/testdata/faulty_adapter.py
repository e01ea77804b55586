#!/usr/bin/env python3
"""The reference SQLite adapter with one fault, for the driver's tests.

FAULT names it:
  sleep_once   the first call (of a statement holding FAULT_SQL, when set)
               of the first adapter (marker file FAULT_MARK) sleeps an
               hour: the engine must cut it and start a fresh one
  exit_after   after FAULT_N calls, says so on stderr and exits 3
  garbage_after after FAULT_N calls, says so on stderr and writes a line
               that is not a reply
  wrong_row    every value of an answer's first row is altered
  version      says protocol 2.0 at hello
  hang_hello   never answers hello
  cancel       declares cancel; a call of SQL holding "sleep" sleeps until
               interrupted and answers "interrupted"
  no_tx        declares no transactions
  writers      declares FAULT_N writing sessions at hello
  no_store_time declares no store time and sends none
  refuse_role  refuses to open a session of the role FAULT_ROLE

OPEN_LOG, with any FAULT or none, names a file each open appends its
role and its parent process id to, one open a line: the roles the
engine opened sessions in, and which process started each adapter.
"""

import importlib.util
import os
import signal
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
ref = os.path.join(here, "..", "..", "..", "examples", "adapters", "sqlite_adapter.py")
spec = importlib.util.spec_from_file_location("sqlite_adapter", ref)
sa = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sa)

FAULT = os.environ.get("FAULT", "")
N = int(os.environ.get("FAULT_N", "0"))


def wrong(v):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v + 1
    return "wrong " + str(v)


class Faulty(sa.Adapter):
    calls = 0

    def hello(self, req):
        if FAULT == "hang_hello":
            print("faulty: not answering hello", file=sys.stderr, flush=True)
            time.sleep(3600)
        rep = super().hello(req)
        if FAULT == "version":
            rep["protocol"] = "2.0"
        if FAULT == "cancel":
            rep["capabilities"]["cancel"] = True
        if FAULT == "no_tx":
            rep["capabilities"]["transactions"] = False
        if FAULT == "writers":
            rep["capabilities"]["writers"] = N
        if FAULT == "no_store_time":
            rep["capabilities"]["store_time"] = False
        return rep

    def open(self, req):
        log = os.environ.get("OPEN_LOG")
        if log:
            with open(log, "a") as f:
                f.write("%s %d\n" % (req.get("role", ""), os.getppid()))
        if FAULT == "refuse_role" and req.get("role", "") == os.environ.get("FAULT_ROLE", ""):
            raise sa.Failure("other", "faulty: no session of role %s" % req["role"])
        return super().open(req)

    def call(self, req):
        Faulty.calls += 1
        if FAULT == "sleep_once" and os.environ.get("FAULT_SQL", "") in self.stmts.get(req["name"], ""):
            mark = os.environ["FAULT_MARK"]
            if not os.path.exists(mark):
                open(mark, "w").close()
                print("faulty: sleeping past the deadline", file=sys.stderr, flush=True)
                time.sleep(3600)
        if FAULT == "exit_after" and Faulty.calls > N:
            print("faulty: giving up after %d calls" % N, file=sys.stderr, flush=True)
            os._exit(3)
        if FAULT == "garbage_after" and Faulty.calls > N:
            print("faulty: about to write garbage", file=sys.stderr, flush=True)
            sys.stdout.write("this is not a reply\n")
            sys.stdout.flush()
            return {"ok": True, "n": 0}
        if FAULT == "cancel" and "sleep" in self.stmts.get(req["name"], ""):
            try:
                time.sleep(3600)
            except Interrupted:
                print("faulty: interrupted", file=sys.stderr, flush=True)
                return {"ok": False, "error": {"class": "interrupted", "message": "interrupted"}}
        rep = super().call(req)
        if FAULT == "no_store_time":
            rep.pop("store_us", None)
        if FAULT == "wrong_row" and rep.get("rows"):
            rep["rows"][0] = [wrong(v) for v in rep["rows"][0]]
        return rep


class Interrupted(Exception):
    pass


def on_interrupt(signum, frame):
    raise Interrupted()


sa.Adapter = Faulty
if FAULT == "cancel":
    # main() sets SIGINT to end the process; this one answers instead.
    real_signal = signal.signal
    signal.signal = lambda sig, h: real_signal(sig, on_interrupt if sig == signal.SIGINT else h)
sa.main()
