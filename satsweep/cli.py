"""The `satsweep` command line."""

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `satsweep` command."""
    parser = argparse.ArgumentParser(prog="satsweep", description=__doc__)
    parser.add_subparsers(dest="command", required=True)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
