#!/usr/bin/env python3
"""Reference adapter: SQLite through Python's standard library sqlite3.

It speaks the adapter protocol (docs/adapter-protocol.md, version 1.0):
one JSON request a line on stdin, one JSON reply a line on stdout. The
engine starts one of these per session (each client, writer, loader and
checker), as the seed's bench.py ran sqlite3 in a host process. Anything
it has to say to a person goes to stderr: the engine quotes the last
lines when the adapter fails.

Try it by hand:
  printf '%s\n' '{"op":"hello","protocol":"1.1"}' \
    '{"op":"open","path":"/tmp/x.sqlite","role":"client"}' \
    '{"op":"prepare","name":"s1","sql":"SELECT ? + 1"}' \
    '{"op":"call","name":"s1","params":[41],"types":["int"],"rows":true}' \
    | python3 examples/adapters/sqlite_adapter.py
"""

import base64
import json
import os
import signal
import sqlite3
import sys
import time

PROTOCOL = "1.1"

# Pragmas applied to every connection unless the backend's settings name
# them, as the engine's own SQLite driver does.
DEFAULT_SETTINGS = {"busy_timeout": "10000"}


class Failure(Exception):
    def __init__(self, cls, message):
        super().__init__(message)
        self.cls = cls


def classify(err):
    """The protocol's error class of a sqlite3 exception."""
    msg = str(err)
    if isinstance(err, sqlite3.IntegrityError):
        return "constraint"
    if "locked" in msg or "busy" in msg:
        return "busy"
    if "interrupted" in msg:
        return "interrupted"
    if "syntax error" in msg or "no such" in msg:
        return "syntax"
    return "other"


def param(value, typ):
    if typ == "bytes":
        return base64.b64decode(value["bytes"])
    if typ == "real" and value is not None:
        return float(value)
    return value  # int, text, bool, time (RFC 3339 text), null


def out(value):
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode()}
    return value


class Adapter:
    def __init__(self):
        self.db = None
        self.stmts = {}

    def hello(self, req):
        major = str(req.get("protocol", "")).split(".")[0]
        if major != PROTOCOL.split(".")[0]:
            print("engine speaks protocol %s, this adapter %s" % (req.get("protocol"), PROTOCOL), file=sys.stderr)
        return {
            "ok": True,
            "protocol": PROTOCOL,
            "name": "sqlite-python",
            "version": "1.0",
            "placeholder": "?",
            "capabilities": {"transactions": True, "writers": 1, "cancel": False, "store_time": True, "load": True},
            "info": {"sqlite": sqlite3.sqlite_version, "python": sys.version.split()[0]},
        }

    def open(self, req):
        path = req.get("path") or ""
        if not path:
            raise Failure("other", "open: the backend sets no path")
        created = not os.path.exists(path)
        if created and os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        # isolation_level=None: the engine's begin/commit are the only
        # transactions, and a load's flush commits what it loaded.
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        settings = dict(DEFAULT_SETTINGS)
        settings.update(req.get("settings") or {})
        first = [k for k in ("busy_timeout", "page_size", "auto_vacuum") if k in settings]
        for k in first + sorted(k for k in settings if k not in first):
            self.db.execute("PRAGMA %s = %s" % (k, settings[k]))
        return {"ok": True, "created": created}

    def exec(self, req):
        sql = req["sql"]
        try:
            self.db.execute(sql).fetchall()
        except sqlite3.ProgrammingError as e:
            if "one statement at a time" not in str(e):
                raise
            self.db.executescript(sql)
        return {"ok": True}

    def begin(self, req):
        self.db.execute("BEGIN IMMEDIATE")
        return {"ok": True}

    def commit(self, req):
        self.db.execute("COMMIT")
        return {"ok": True}

    def rollback(self, req):
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
        return {"ok": True}

    def prepare(self, req):
        # sqlite3 compiles a statement at its first execute and caches it
        # by text; an unfinished one (an unclosed quote or comment) is
        # refused here already. The newline ends a trailing comment.
        sql = req["sql"]
        if not sqlite3.complete_statement(sql + "\n;"):
            raise Failure("syntax", "incomplete statement")
        self.stmts[req["name"]] = sql
        return {"ok": True}

    def close_stmt(self, req):
        self.stmts.pop(req.get("name"), None)
        return {"ok": True}

    def call(self, req):
        sql = self.stmts.get(req["name"])
        if sql is None:
            raise Failure("other", "no prepared statement %r" % req["name"])
        types = req.get("types") or []
        params = [param(v, t) for v, t in zip(req.get("params") or [], types)]
        t0 = time.perf_counter_ns()
        cur = self.db.execute(sql, params)
        if req.get("rows"):
            rows = [[out(v) for v in r] for r in cur]
            store_us = (time.perf_counter_ns() - t0) / 1000
            cols = [d[0] for d in cur.description or []]
            return {"ok": True, "columns": cols, "rows": rows, "store_us": store_us}
        n = 0
        for _ in cur:
            n += 1
        store_us = (time.perf_counter_ns() - t0) / 1000
        return {"ok": True, "n": n, "store_us": store_us}

    def load(self, req):
        if not self.db.in_transaction:
            self.db.execute("BEGIN")
        cols = req["columns"]
        sql = "INSERT INTO %s (%s) VALUES (%s)" % (req["table"], ", ".join(cols), ", ".join("?" * len(cols)))
        self.db.executemany(sql, [[out_param(v) for v in r] for r in req["data"]])
        return {"ok": True}

    def flush(self, req):
        if self.db.in_transaction:
            self.db.execute("COMMIT")
        return {"ok": True}


def out_param(v):
    if isinstance(v, dict) and "bytes" in v:
        return base64.b64decode(v["bytes"])
    return v


def main():
    # The engine interrupts a call past probe_s and kills the adapter if
    # it does not answer; this one cannot cut a running statement (its
    # capabilities say cancel: false), so an interrupt simply ends it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    a = Adapter()
    write = sys.stdout.write
    flush = sys.stdout.flush
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get("op")
        if op == "close":
            break
        fn = getattr(a, op, None) if op and not op.startswith("_") else None
        try:
            if fn is None:
                raise Failure("unsupported", "op %r" % op)
            rep = fn(req)
        except Failure as e:
            rep = {"ok": False, "error": {"class": e.cls, "message": str(e)}}
        except sqlite3.Error as e:
            rep = {"ok": False, "error": {"class": classify(e), "message": str(e)}}
        write(json.dumps(rep, separators=(",", ":")) + "\n")
        flush()
    if a.db is not None:
        a.db.close()


if __name__ == "__main__":
    main()
