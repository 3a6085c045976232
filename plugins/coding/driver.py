# coding_env driver: the in-sandbox half of a coding_env session.
#
# The plugin starts this as `python3 -I -c <this file> <settings JSON>` inside
# the session's sandbox (usually as PID 1 of its PID namespace). fd 3 carries
# requests from the plugin, fd 4 carries replies; each frame is a 4-byte
# big-endian length followed by UTF-8 JSON.
#
#   hello (sent once at start):  {"ready": true, "pid": <pid>}
#   request:  {"op": "exec", "code": "<python source>"}
#   reply:    {"stdout": str, "stderr": str, "exit_code": int, "syntax_ok": bool}
#   request:  {"op": "check", "code": "<python source>"}   (parse only, never run)
#   reply:    {"syntax_ok": bool}
#
# User code runs in this same interpreter, so nothing here is a security
# boundary; the sandbox around the process is. What this file guarantees is
# fidelity (real CPython semantics, persistent globals) and hygiene: output is
# captured at the file-descriptor level and capped, processes started by a
# step do not outlive it, and forked copies of this process never speak the
# protocol.


def _main():
    import ast
    import builtins
    import io
    import json
    import linecache
    import os
    import resource
    import signal
    import sys
    import traceback

    REQ, REP = 3, 4
    settings = json.loads(sys.argv[1])
    sys.argv = [""]
    cap = int(settings["output_limit"])
    cpu_s = float(settings["cpu_s"])
    allowed = settings.get("allowed_modules")
    my_pid = os.getpid()
    is_init = my_pid == 1  # PID 1 of our own namespace: may kill(-1) safely

    # Private references: user code shares this interpreter and may replace
    # builtins or module attributes; the driver should keep working.
    _compile, _exec, _eval, _repr, _isinstance = compile, exec, eval, repr, isinstance
    _write, _read, _getpid, _exit = os.write, os.read, os.getpid, os._exit
    _dumps, _loads = json.dumps, json.loads
    ONLY_AST = ast.PyCF_ONLY_AST
    Expr, Expression = ast.Expr, ast.Expression
    # Like python -c: the working directory (the scratch dir) is importable.
    sys.path.insert(0, "")

    def write_all(fd, data):
        while data:
            data = data[_write(fd, data):]

    def read_exact(n):
        buf = b""
        while len(buf) < n:
            chunk = _read(REQ, n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    def send(obj):
        if _getpid() != my_pid:  # a forked copy of the driver: stay silent
            _exit(0)
        data = _dumps(obj, ensure_ascii=True).encode("ascii")
        write_all(REP, len(data).to_bytes(4, "big") + data)

    def forked_child():
        # A fork made by user code must not hold the protocol pipes.
        for fd in (REQ, REP):
            try:
                os.close(fd)
            except OSError:
                pass

    os.register_at_fork(after_in_child=forked_child)

    # ---- output capture ---------------------------------------------------
    # stdout/stderr are memfds dup'ed onto fds 1 and 2, so prints, C-level
    # writes and subprocess output all land in one ordered, capped stream.
    class Stream(io.TextIOBase):
        def __init__(self, fd, name):
            self._fd, self._name, self.count, self.truncated = fd, name, 0, False
            self.buffer = BinaryView(self)

        @property
        def encoding(self):
            return "utf-8"

        @property
        def errors(self):
            return "replace"

        @property
        def name(self):
            return self._name

        def writable(self):
            return True

        def isatty(self):
            return False

        def fileno(self):
            return self._fd

        def flush(self):
            pass

        def write(self, s):
            if not _isinstance(s, str):
                raise TypeError("write() argument must be str, not " + type(s).__name__)
            self.write_bytes(s.encode("utf-8", "replace"))
            return len(s)

        def write_bytes(self, b):
            # One byte past the cap marks the stream as truncated even for a
            # reader that only sees the file (the plugin after a timeout).
            room = cap + 1 - self.count
            if len(b) > room:
                b = b[:max(room, 0)]
                self.truncated = True
            self.count += len(b)
            try:
                write_all(self._fd, b)
            except OSError:  # e.g. EFBIG from RLIMIT_FSIZE
                self.truncated = True

    class BinaryView:
        def __init__(self, stream):
            self._s = stream

        def write(self, b):
            b = bytes(b)
            self._s.write_bytes(b)
            return len(b)

        def flush(self):
            pass

    class Capture:
        def __init__(self, target, name):
            self.target, self.name, self.fd = target, name, -1

        def begin(self):
            try:
                os.dup2(self.fd, self.target)
            except OSError:  # user code closed our memfd: make a new one
                self.fd = os.memfd_create("envhost-" + self.name, os.MFD_CLOEXEC)
                os.dup2(self.fd, self.target)
            os.ftruncate(self.fd, 0)
            os.lseek(self.fd, 0, os.SEEK_SET)
            self.stream = Stream(self.target, "<" + self.name + ">")
            return self.stream

        def end(self):
            try:
                size = os.fstat(self.fd).st_size
                data = os.pread(self.fd, min(size, cap), 0) if size else b""
                os.ftruncate(self.fd, 0)
            except OSError:
                size, data = 0, b""
            truncated = size > cap or self.stream.truncated
            text = data.decode("utf-8", "replace")
            if truncated:
                text += "\n[envhost: %s truncated: output exceeded %d bytes]\n" % (self.name, cap)
            return text

    out, err = Capture(1, "stdout"), Capture(2, "stderr")

    def cut(text):
        b = text.encode("utf-8", "replace")
        if len(b) <= cap:
            return text
        return b[:cap].decode("utf-8", "ignore") + "\n[envhost: value truncated: exceeded %d bytes]\n" % cap

    # ---- limits -------------------------------------------------------------
    running = [False]

    class CPUTimeExceeded(Exception):
        pass

    def on_xcpu(signum, frame):
        if running[0] and _getpid() == my_pid:
            raise CPUTimeExceeded("CPU time limit of %g s per step exceeded" % cpu_s)
        _exit(152)  # burning CPU outside a step (a leftover thread): give up the interpreter

    signal.signal(signal.SIGXCPU, on_xcpu)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def arm_cpu_limit():
        ru = resource.getrusage(resource.RUSAGE_SELF)
        soft = int(ru.ru_utime + ru.ru_stime + cpu_s) + 1
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))

    def end_children():
        # Processes started by a step do not outlive it. kill(-1) from PID 1
        # reaches exactly the rest of our namespace; without a namespace we
        # only reap, never kill(-1).
        if is_init:
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                pid, _ = os.waitpid(-1, 0 if is_init else os.WNOHANG)
            except ChildProcessError:
                return
            except InterruptedError:
                continue
            if pid == 0:
                return

    # ---- execution ----------------------------------------------------------
    G = {"__name__": "__main__", "__doc__": None, "__builtins__": builtins}

    if allowed is not None:
        allowed_set = frozenset(allowed)
        real_import = builtins.__import__

        def checked_import(name, globals=None, locals=None, fromlist=(), level=0):
            # Only imports written in user code are checked (library internals
            # import what they need), as in the reference's restricted mode.
            if globals is G and level == 0 and name.partition(".")[0] not in allowed_set:
                raise ImportError("Import of %s is not allowed. Authorized imports are: %s"
                                  % (name, sorted(allowed_set)))
            return real_import(name, globals, locals, fromlist, level)

        builtins.__import__ = checked_import

    def format_error(e):
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != "<code>":
            tb = tb.tb_next  # hide the driver's own frames
        try:
            return "".join(traceback.format_exception(type(e), e, tb))
        except BaseException:
            return "%s: %s\n" % (type(e).__name__, e)

    def run(code):
        stdout_s, stderr_s = out.begin(), err.begin()
        sys.stdout, sys.stderr = stdout_s, stderr_s
        exit_code, syntax_ok, rendered, error_text = 0, True, None, ""
        try:
            try:
                tree = _compile(code, "<code>", "exec", ONLY_AST)  # what ast.parse does
            except BaseException:
                syntax_ok = False
                raise
            linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
            last = None
            if tree.body and _isinstance(tree.body[-1], Expr):
                last = Expression(tree.body.pop().value)
            arm_cpu_limit()
            running[0] = True
            try:
                _exec(_compile(tree, "<code>", "exec"), G)
                value = _eval(_compile(last, "<code>", "eval"), G) if last is not None else None
            finally:
                running[0] = False
            if value is not None:
                try:
                    rendered = _dumps(value)
                except BaseException:
                    rendered = _repr(value)
        except SystemExit as e:
            c = e.code
            exit_code = 0 if c is None else int(c) if _isinstance(c, int) else 1
            if c is not None and not _isinstance(c, int):
                error_text = "%s\n" % (c,)
        except BaseException as e:
            exit_code = 1
            error_text = format_error(e)
            e = None
        finally:
            running[0] = False
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        end_children()
        printed, errors = out.end(), err.end()
        parts = [printed] if printed else []
        if rendered is not None:
            parts.append(cut(rendered))
        if error_text:
            errors += cut(error_text)
        return {"stdout": "\n".join(parts), "stderr": errors,
                "exit_code": exit_code if -2**31 <= exit_code < 2**31 else 1, "syntax_ok": syntax_ok}

    send({"ready": True, "pid": my_pid})
    while True:
        header = read_exact(4)
        if header is None:
            _exit(0)  # the plugin closed the session
        body = read_exact(int.from_bytes(header, "big"))
        if body is None:
            _exit(0)
        req = _loads(body)
        if req.get("op") == "exec":
            send(run(req["code"]))
        elif req.get("op") == "check":
            try:
                _compile(req["code"], "<code>", "exec", ONLY_AST)
                send({"syntax_ok": True})
            except BaseException:
                send({"syntax_ok": False})
        else:
            send({"ok": True})


_main()
