"""The text of an open document, kept in chunks so that an edit costs the edit, not the document.

An editor sends every keystroke as a range replaced. Kept as one string, each edit would copy the whole document
and find its line starts again: 2,000 edits to a 4 MB document copy 8 GB, and the server stops answering. Here
the text is a list of blocks of chunks, each chunk at most ``MAX_CHUNK`` characters, with the number of line
breaks in each; an edit rebuilds only the chunks it touches (at most a few chunks and the inserted text are
copied) and the blocks around them, and a position is found by bisection over running totals of characters and
line breaks per block, then a walk over one block's chunks (never over the characters). The whole text is joined
only when it is read (to lint it), once per version.

Line breaks are counted as the protocol counts them: ``\\r\\n``, ``\\r`` and ``\\n``; a ``\\r\\n`` is never split
between two chunks.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import accumulate, chain

from relialint.base import lazyre

MAX_CHUNK = 2048
"""The longest chunk; an edit that makes one longer splits it into chunks of ``MAX_CHUNK // 2``."""

BLOCK = 64
"""Chunks to a block: positions are found by bisection over one running total per block, then a walk over at
most ``BLOCK`` chunks (a 4 MB document is about 60 blocks)."""

_BREAK = lazyre.compile(r"\r\n|\r|\n")


def breaks(text: str) -> int:
    """The line breaks in ``text`` (``\\r\\n`` counted once)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


class Rope:
    """A text as chunks in blocks of chunks. ``copied`` counts the characters edits have copied (what an edit
    costs)."""

    def __init__(self, text: str = "") -> None:
        self.copied = 0
        self._blocks: list[list[str]] = []
        self._breaks: list[list[int]] = []
        self._block_chars: list[int] = []
        self._block_lines: list[int] = []
        self._text: str | None = text
        self._char_totals: list[int] | None = None
        self._line_totals: list[int] | None = None
        chunks = _split(text)
        self._reblock(0, 0, chunks, [breaks(c) for c in chunks])

    # -- reading ----------------------------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The whole text, joined once per version."""
        if self._text is None:
            self._text = "".join(chain.from_iterable(self._blocks))
        return self._text

    @property
    def chunks(self) -> list[str]:
        """Every chunk in order (for tests: a new list)."""
        return list(chain.from_iterable(self._blocks))

    def __len__(self) -> int:
        return self._chars()[-1]

    def line_count(self) -> int:
        """The number of lines (one more than the line breaks)."""
        return self._lines()[-1] + 1

    def line_start(self, line: int) -> int:
        """The offset where 0-based ``line`` starts; past the last line, the end of the text."""
        if line <= 0:
            return 0
        lines = self._lines()
        if line > lines[-1]:
            return len(self)
        block = bisect_left(lines, line) - 1  # the block holding the line's break: breaks before it < line
        chunks = self._blocks[block]
        seen = list(accumulate(self._breaks[block], initial=lines[block]))
        index = bisect_left(seen, line) - 1  # the chunk holding it, likewise
        offset = self._chars()[block] + sum(map(len, chunks[:index]))
        for number, match in enumerate(_BREAK.finditer(chunks[index]), start=seen[index] + 1):
            if number == line:
                return offset + match.end()
        raise AssertionError("line totals out of step with the chunks")  # pragma: no cover

    def line_end(self, line: int) -> int:
        """The offset where 0-based ``line`` ends, before its line break."""
        if line + 1 >= self.line_count():
            return len(self)
        start = self.line_start(line + 1)
        return start - (2 if self.slice(max(start - 2, 0), start) == "\r\n" else 1)

    def slice(self, start: int, end: int) -> str:
        """The text from ``start`` to ``end`` (copies only that)."""
        return "".join(piece for _, piece in self.pieces(start, end))

    def pieces(self, start: int, end: int) -> Iterator[tuple[int, str]]:
        """The text from ``start`` to ``end`` as ``(offset, piece)``: whole chunks as they are, only the first and
        last cut (a walk along a long line copies at most two chunks, and stops where the caller stops)."""
        if end <= start or not self._blocks:
            return
        block, index, offset = self._find(start)
        while block < len(self._blocks) and offset < end:
            chunks = self._blocks[block]
            while index < len(chunks) and offset < end:
                chunk = chunks[index]
                lo, hi = max(start - offset, 0), min(end - offset, len(chunk))
                yield offset + lo, (chunk if (lo, hi) == (0, len(chunk)) else chunk[lo:hi])
                offset += len(chunk)
                index += 1
            block, index = block + 1, 0

    # -- editing ----------------------------------------------------------------------------------------------------
    def replace(self, start: int, end: int, new: str) -> None:
        """Replace the text from ``start`` to ``end`` with ``new``: the blocks around the edit are taken apart and
        made again, the rest of the text is not looked at."""
        total = len(self)
        start, end = min(max(start, 0), total), min(max(end, 0), total)
        self._text = None
        if not self._blocks:
            chunks = _split(new)
            self.copied += len(new)
            self._reblock(0, 0, chunks, [breaks(c) for c in chunks])
            return
        first_block = self._find(start)[0]
        last_block = self._find(end)[0]
        # the blocks of the edit and one on each side: the chunks beside the edit come along, so that a `\r\n`
        # is never split and small chunks merge
        lo_block, hi_block = max(first_block - 1, 0), min(last_block + 1, len(self._blocks) - 1)
        chunks = list(chain.from_iterable(self._blocks[lo_block : hi_block + 1]))
        counts = list(chain.from_iterable(self._breaks[lo_block : hi_block + 1]))
        offset = self._chars()[lo_block]
        starts = list(accumulate(map(len, chunks), initial=offset))
        first = min(bisect_right(starts, start) - 1, len(chunks) - 1)
        last = min(bisect_right(starts, end) - 1, len(chunks) - 1)
        lo, hi = max(first - 1, 0), min(last + 1, len(chunks) - 1)
        joined = ("".join(chunks[lo:first]) + chunks[first][: start - starts[first]] + new
                  + chunks[last][end - starts[last]:] + "".join(chunks[last + 1 : hi + 1]))
        self.copied += len(joined)
        fresh = _split(joined)
        chunks[lo : hi + 1] = fresh
        counts[lo : hi + 1] = [breaks(c) for c in fresh]
        self._reblock(lo_block, hi_block + 1, chunks, counts)

    def _reblock(self, lo: int, hi: int, chunks: list[str], counts: list[int]) -> None:
        """Blocks ``lo`` to ``hi`` (excluded) made again of ``chunks``, ``BLOCK`` chunks to a block."""
        size = BLOCK
        blocks = [chunks[i : i + size] for i in range(0, len(chunks), size)]
        tallies = [counts[i : i + size] for i in range(0, len(counts), size)]
        self._blocks[lo:hi] = blocks
        self._breaks[lo:hi] = tallies
        self._block_chars[lo:hi] = [sum(map(len, b)) for b in blocks]
        self._block_lines[lo:hi] = [sum(t) for t in tallies]
        self._char_totals = self._line_totals = None

    # -- finding offsets --------------------------------------------------------------------------------------------
    def _find(self, offset: int) -> tuple[int, int, int]:
        """The block, the chunk in it and the chunk's first offset holding ``offset`` (the end: the last chunk)."""
        chars = self._chars()
        block = min(bisect_right(chars, offset) - 1, len(self._blocks) - 1)
        chunks = self._blocks[block]
        starts = list(accumulate(map(len, chunks), initial=chars[block]))
        index = min(bisect_right(starts, offset) - 1, len(chunks) - 1)
        return block, index, starts[index]

    def _chars(self) -> list[int]:
        """Characters before each block, and the total at the end (one integer per block of chunks)."""
        if self._char_totals is None:
            self._char_totals = [0, *accumulate(self._block_chars)]
        return self._char_totals

    def _lines(self) -> list[int]:
        """Line breaks before each block, and the total at the end."""
        if self._line_totals is None:
            self._line_totals = [0, *accumulate(self._block_lines)]
        return self._line_totals


def _split(text: str) -> list[str]:
    """``text`` as chunks of at most ``MAX_CHUNK`` characters (half that where it is cut), never cutting a
    ``\\r\\n``."""
    if len(text) <= MAX_CHUNK:
        return [text] if text else []
    size = MAX_CHUNK // 2
    out: list[str] = []
    start = 0
    while start < len(text):
        cut = min(start + size, len(text))
        if cut < len(text) and text[cut - 1] == "\r" and text[cut] == "\n":
            cut += 1
        out.append(text[start:cut])
        start = cut
    return out
