"""Command line: ``python -m bpe_core train FILE|- [options]``.

Prints the merge table with counts and ties (for handouts and scripts), or the
same as JSON with ``--json``. The input is read and counted a chunk at a time
(:func:`bpe_core.count_utf8`, :func:`bpe_core.text.word_count_file.read_word_counts`)
under a memory budget (``--max-memory``, default :data:`DEFAULT_MAX_MEMORY` MB)
that counting and training check before they allocate. Every failure (bad
arguments, an unreadable or malformed file, a corpus too large for the budget,
running out of memory, Ctrl-C) prints a one-line error and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import BinaryIO

from .errors import BPEError
from .memory import MB, MemoryBudget
from .registry.options import OPTIONS
from .text.text_stream import count_utf8
from .text.word_count_file import read_word_counts
from .training.result import TrainResult
from .training.trainer import train

MAX_TIED = 10
"""How many tied pairs each merge lists (``num_tied`` counts them all)."""

DEFAULT_MAX_MEMORY = 1024
"""The default memory budget in MB (``--max-memory``): counting and training refuse, with a one-line error,
before they would allocate more (see :mod:`bpe_core.memory`)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _help(name: str, *, default: bool = True) -> str:
    """An option's help for ``--help``: its summary, source, range and default (argparse's % escaped)."""
    option = OPTIONS[name]
    text = f"{option.summary} ({option.source})"
    if option.maximum is not None:
        text += f"; {option.minimum:,} to {option.maximum:,}"
    if option.choices:
        text += "; " + "; ".join(f"{value}: {what}" for value, what in option.choices.items())
    if default and option.default not in (None, ()):
        text += f" (default: {option.default})"
    return text.replace("%", "%%")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m bpe_core", description="Learn a BPE merge table and print it.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    t = sub.add_parser("train", help="learn merges from a UTF-8 text file ('-' reads standard input)")
    t.add_argument("file", nargs="?", help="a UTF-8 text file, or - for standard input")
    budget = t.add_mutually_exclusive_group(required=True)
    for name in ("num_merges", "vocab_size"):
        budget.add_argument(OPTIONS[name].cli, type=int, metavar="N", help=_help(name, default=False))
    for name in ("pretokenizer", "unit", "end_of_word", "tie_break"):
        option = OPTIONS[name]
        t.add_argument(option.cli, choices=list(option.choices), default=option.default, help=_help(name))
    t.add_argument("--min-frequency", type=int, default=OPTIONS["min_frequency"].default, help=_help("min_frequency"))
    t.add_argument(
        "--special", action="append", default=[], help="a special token (repeatable). " + _help("special_tokens")
    )
    t.add_argument("--json", action="store_true", help="print JSON instead of a table")
    t.add_argument(
        "--max-memory",
        type=int,
        default=DEFAULT_MAX_MEMORY,
        metavar="MB",
        help="memory budget in MB for reading, counting and training: a corpus that would need more stops with a "
        f"one-line error before the memory is taken (default: {DEFAULT_MAX_MEMORY})",
    )
    t.add_argument(
        "--word-counts",
        metavar="FILE",
        help="train on counted words instead of text: 'word<TAB>count', 'word count' or 'count word' (uniq -c) "
        "per line, a header line allowed; each word is one pre-token",
    )
    return parser


def _open(path: str) -> BinaryIO:
    """The binary stream to read: standard input for ``-``, else the file (the caller closes it)."""
    return sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115


def _count(args: argparse.Namespace, budget: MemoryBudget) -> dict[str, int]:
    """The corpus as word counts, read a chunk at a time: the text's pre-tokens, or a word-count file's rows.

    Raises:
        OSError, BPEError: the file cannot be read, is not UTF-8, or is malformed; MemoryBudgetError.
    """
    path = args.file if args.word_counts is None else args.word_counts
    source = "standard input" if path == "-" else path
    stream = _open(path)
    try:
        if args.word_counts is not None:
            return read_word_counts(stream, source, budget=budget)
        return count_utf8(stream, args.pretokenizer, args.special, source=source, budget=budget)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 anything else).

    Every failure (bad arguments, an unreadable or malformed file, a corpus that
    would pass the memory budget, running out of memory, an interruption, a
    closed output pipe) prints one line on standard error and returns 2; no
    traceback.

    Args:
        argv: the arguments after the program name (``sys.argv[1:]`` by default).
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    if (args.file is None) == (args.word_counts is None):
        parser.error("give a text FILE or --word-counts FILE (one of the two)")
    if args.max_memory < 1:
        parser.error(f"argument --max-memory: must be at least 1 (MB), got {args.max_memory}")
    try:
        return _run(args)
    except BrokenPipeError:
        _silence_stdout()  # the reader left (| head): say nothing more on standard output
        return _fail("the output was closed before it was all written")
    except (OSError, BPEError, TypeError) as exc:
        return _fail(str(exc))
    except MemoryError:
        return _fail(
            f"out of memory: this machine (or its limit on this process) gives less than the budget of "
            f"{args.max_memory:,} MB; give a smaller --max-memory, or a smaller corpus"
        )
    except KeyboardInterrupt:
        return _fail("interrupted")
    except Exception as exc:  # a bug: still one line, naming it
        return _fail(f"internal error {type(exc).__name__}: {str(exc)[:300]} (please report it)")


def _run(args: argparse.Namespace) -> int:
    """Count, train and print (the body of :func:`main`); exceptions are :func:`main`'s to report."""
    budget = MemoryBudget(args.max_memory * MB, "--max-memory")
    corpus = _count(args, budget)
    result = train(
        corpus,
        num_merges=args.merges,
        vocab_size=args.vocab_size,
        pretokenizer=args.pretokenizer,
        unit=args.unit,
        end_of_word=args.end_of_word,
        tie_break=args.tie_break,
        min_frequency=args.min_frequency,
        special_tokens=args.special,
        max_tied=MAX_TIED,
        max_memory=budget,
    )
    del corpus
    if args.json:
        print(json.dumps(_as_json(result), ensure_ascii=False, indent=1))
        return 0
    print(f"# {len(result.merges)} merges, tie rule {args.tie_break}, vocabulary {len(result.vocab)}")
    print(f"{'rank':>5}  {'left':<14} {'right':<14} {'token':<18} {'count':>8} {'replaced':>9}  ties")
    for s, tied in zip(result.summaries, result.views.tied_lists(MAX_TIED)):
        ties = "" if s.num_tied == 1 else f"{s.num_tied} tied: " + ", ".join(f"{a}+{b}" for a, b in tied[1:4])
        if s.num_tied > 4:
            ties += ", ..."
        print(f"{s.rank:>5}  {s.pair[0]:<14} {s.pair[1]:<14} {s.token:<18} {s.count:>8} {s.replacements:>9}  {ties}")
    if result.stop_reason:
        print(f"# {result.stop_reason}")
    return 0


def _fail(message: str) -> int:
    """Print one line on standard error (newlines in the message flattened); return the exit status 2."""
    print(f"python -m bpe_core: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _silence_stdout() -> None:
    """Point standard output at the null device, so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _as_json(result: TrainResult) -> dict:
    """The run as JSON, listed from ``summaries`` and ``tied_lists`` (cheap) rather than every full step."""
    return {
        "merges": [
            {
                "rank": s.rank,
                "pair": list(s.pair),
                "token": s.token,
                "id": s.token_id,
                "count": s.count,
                "replacements": s.replacements,
                "num_tied": s.num_tied,
                "tied": [list(p) for p in tied],
            }
            for s, tied in zip(result.summaries, result.views.tied_lists(MAX_TIED))
        ],
        "vocab_size": len(result.tokenizer),
        "stop_reason": result.stop_reason,
    }


if __name__ == "__main__":
    sys.exit(main())
