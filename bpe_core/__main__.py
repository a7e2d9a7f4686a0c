"""Command line: ``python -m bpe_core train FILE|- [options]``.

Prints the merge table with counts and ties (for handouts and scripts), or the
same as JSON with ``--json``. Bad arguments or unreadable files print a
one-line error and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .errors import BPEError
from .options import OPTIONS
from .result import TrainResult
from .trainer import train
from .word_count_file import parse_word_counts

MAX_TIED = 10
"""How many tied pairs each merge lists (``num_tied`` counts them all)."""


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
        "--word-counts",
        metavar="FILE",
        help="train on counted words instead of text: 'word<TAB>count', 'word count' or 'count word' (uniq -c) "
        "per line, a header line allowed; each word is one pre-token",
    )
    return parser


def _read(path: str) -> str:
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as fh:
            data = fh.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BPEError(f"{path} is not UTF-8 text (byte {exc.start} is {data[exc.start]:#04x})") from None


def _read_counts(path: str) -> dict[str, int]:
    if path == "-":
        return parse_word_counts(sys.stdin.buffer.read(), "standard input")
    with open(path, "rb") as fh:
        return parse_word_counts(fh.read(), path)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad input).

    Args:
        argv: the arguments after the program name (``sys.argv[1:]`` by default).
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    if (args.file is None) == (args.word_counts is None):
        parser.error("give a text FILE or --word-counts FILE (one of the two)")
    try:
        corpus = _read(args.file) if args.word_counts is None else _read_counts(args.word_counts)
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
        )
    except (OSError, BPEError, TypeError) as exc:
        print(f"python -m bpe_core: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(_as_json(result), ensure_ascii=False, indent=1))
        return 0
    print(f"# {len(result.merges)} merges, tie rule {args.tie_break}, vocabulary {len(result.vocab)}")
    print(f"{'rank':>5}  {'left':<14} {'right':<14} {'token':<18} {'count':>8} {'replaced':>9}  ties")
    for s, tied in zip(result.summaries, result.tied_lists(MAX_TIED)):
        ties = "" if s.num_tied == 1 else f"{s.num_tied} tied: " + ", ".join(f"{a}+{b}" for a, b in tied[1:4])
        if s.num_tied > 4:
            ties += ", ..."
        print(f"{s.rank:>5}  {s.pair[0]:<14} {s.pair[1]:<14} {s.token:<18} {s.count:>8} {s.replacements:>9}  {ties}")
    if result.stop_reason:
        print(f"# {result.stop_reason}")
    return 0


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
            for s, tied in zip(result.summaries, result.tied_lists(MAX_TIED))
        ],
        "vocab_size": len(result.tokenizer),
        "stop_reason": result.stop_reason,
    }


if __name__ == "__main__":
    sys.exit(main())
