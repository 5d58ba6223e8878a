"""python -m graphprof ARGS: the same command line as `graphprof ARGS` and
profile_graph ARGS (graphprof/_cli.py)."""

import sys

from graphprof._cli import main

if __name__ == "__main__":
    sys.exit(main())
