"""JSON-RPC for the language server: messages out on stdout, the LSP life cycle (``initialize``, ``shutdown``,
``exit``), dispatch of requests and notifications to handlers, and the loop that reads messages and runs what is
due (debounced lints) between them.

Written for this server alone, with the standard library: an LSP framework and its protocol types take longer to
import than the first lint takes to run, and an editor waits for both.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, BinaryIO

from relialint.lsp.frame import Frames
from relialint.lsp.text import InvalidParams

INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002

Handler = Callable[[Any], Any]


def log(message: str) -> None:
    """A line on stderr (the editor's log of the server)."""
    print(f"relialint lsp: {message}", file=sys.stderr, flush=True)


class Output:
    """Messages to the client, framed, on one binary stream."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass")
        with self.lock:
            self.stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.stream.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def respond(self, request_id: int | str, result: Any) -> None:
        self.send({"id": request_id, "result": result})

    def error(self, request_id: int | str | None, code: int, message: str) -> None:
        self.send({"id": request_id, "error": {"code": code, "message": message}})


def log_failure(what: str) -> None:
    """``what`` failed: the exception being handled, with its traceback, on stderr."""
    import traceback

    log(f"{what} failed:\n{traceback.format_exc()}")


def _request_id(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


class Server:
    """The life cycle and dispatch; a subclass fills ``requests`` and ``notifications`` and may lint between
    messages through ``next_due`` and ``run_due``."""

    def __init__(self, out: Output) -> None:
        self.out = out
        self.requests: dict[str, Handler] = {}
        self.notifications: dict[str, Handler] = {}
        self.initialized = False
        self.shut_down = False
        self.exit_code: int | None = None

    def initialize(self, params: Any) -> Any:
        """The ``initialize`` result."""
        raise NotImplementedError

    def next_due(self) -> float | None:
        """When ``run_due`` has work next (``time.monotonic`` time), or ``None``."""
        return None

    def run_due(self, now: float) -> None:
        """Do one step of what is due at ``now`` (the loop calls again while something is due)."""

    def handle(self, message: Any) -> None:
        if not isinstance(message, dict):
            log("a batch of messages is not part of the language server protocol; ignored")
            return
        method = message.get("method")
        has_id = _request_id(message.get("id"))
        if not isinstance(method, str):
            if has_id and "result" not in message and "error" not in message:
                self.out.error(message["id"], INVALID_REQUEST, "a request needs a `method`")
            return  # a response: this server sends no requests
        params = message.get("params")
        if has_id:
            self._request(message["id"], method, params)
        else:
            self._notification(method, params)

    def _request(self, request_id: int | str, method: str, params: Any) -> None:
        if method == "initialize":
            if self.initialized:
                self.out.error(request_id, INVALID_REQUEST, "initialize was sent twice")
                return
            handler: Handler = self.initialize
        elif not self.initialized:
            self.out.error(request_id, SERVER_NOT_INITIALIZED, f"{method} before initialize")
            return
        elif self.shut_down:
            self.out.error(request_id, INVALID_REQUEST, f"{method} after shutdown")
            return
        elif method == "shutdown":
            self.shut_down = True
            self.out.respond(request_id, None)
            return
        elif method in self.requests:
            handler = self.requests[method]
        else:
            self.out.error(request_id, METHOD_NOT_FOUND, f"Method Not Found: {method}")
            return
        try:
            result = handler(params)
        except InvalidParams as exc:
            self.out.error(request_id, INVALID_PARAMS, f"malformed {method} request: Invalid Params: {exc}")
            return
        except Exception as exc:  # a bug answers this request with an error; the server goes on
            log_failure(method)
            self.out.error(request_id, INTERNAL_ERROR, f"relialint: internal error in {method}: {exc!r}")
            return
        if method == "initialize":
            self.initialized = True
        self.out.respond(request_id, result)

    def _notification(self, method: str, params: Any) -> None:
        if method == "exit":
            self.exit_code = 0 if self.shut_down else 1
            return
        handler = self.notifications.get(method)
        if handler is None or not self.initialized:
            return  # `$/cancelRequest`, `$/setTrace` and the like: nothing to do
        try:
            handler(params)
        except InvalidParams as exc:
            log(f"malformed {method} notification: {exc}; ignored")
        except Exception:
            log_failure(method)


_NOTHING = object()


def serve(server: Server, frames: Frames, clock: Callable[[], float] = time.monotonic) -> int:
    """Read messages on a thread, so that the stream is read while a lint runs, and ``process`` them."""
    incoming: queue.Queue[Any] = queue.Queue()

    def read() -> None:
        try:
            while (message := frames.read_message()) is not None:
                incoming.put(message)
        except Exception:  # stdin unreadable: the end of the stream, said in the log, never a server left waiting
            log_failure("reading the client's messages")
        incoming.put(None)

    threading.Thread(target=read, name="relialint-lsp-reader", daemon=True).start()
    return process(server, incoming, clock)


def process(server: Server, incoming: queue.Queue[Any], clock: Callable[[], float] = time.monotonic) -> int:
    """Handle the messages of ``incoming`` (``None``: the end of the stream) and, once every message already
    received is handled, run one step of what is due (then look for messages again). The exit code: 0 after
    ``shutdown`` and ``exit`` or at the end of the stream, 1 after ``exit`` without ``shutdown``."""
    while True:
        due = server.next_due()
        try:
            message = incoming.get(timeout=None if due is None else max(due - clock(), 0.0))
        except queue.Empty:
            message = _NOTHING
        while message is not _NOTHING:
            if message is None:
                return 0
            server.handle(message)
            if server.exit_code is not None:
                return server.exit_code
            try:
                message = incoming.get_nowait()
            except queue.Empty:
                message = _NOTHING
        server.run_due(clock())
