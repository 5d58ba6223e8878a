#!python
"""graphprof ARGS: profile_graph's command line, from the installed graphprof
package (its graphprof/bin/profile_graph). Started without importing torch:
graphprof/_cli.py is loaded by its path, not as part of the package."""
import importlib.util
import os
import sys

spec = importlib.util.find_spec("graphprof")  # finds the package without running its __init__
if spec is None or not spec.submodule_search_locations:
    sys.stderr.write("graphprof: the graphprof package is not importable by %s\n" % sys.executable)
    sys.exit(1)
cli_file = os.path.join(list(spec.submodule_search_locations)[0], "_cli.py")
cli_spec = importlib.util.spec_from_file_location("_graphprof_cli", cli_file)
cli = importlib.util.module_from_spec(cli_spec)
cli_spec.loader.exec_module(cli)
sys.exit(cli.main())
