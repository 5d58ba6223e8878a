"""graphprof.Interpreter: torch.fx's Interpreter idea over a TorchScript graph.

    class Shapes(graphprof.Interpreter):
        def run_node(self, node):
            super().run_node(node)            # runs it (C++)
            print(node.name, [getattr(o, "shape", o) for o in node.outputs])

    Shapes(torch.jit.script(model)).run(x)    # == model(x)

The graph is the one graphprof profiles (calls inlined, module paths
resolved), run by the C++ Interpreter. When a subclass overrides run_node,
every node (nested If/Loop bodies included) calls into Python, and inputs
and outputs are converted to Python objects when read: use it to debug or
explore a graph, not to measure it (graphprof.profile and the C++
Interpreter class are the fast path; without an override run() runs at
C++ speed).

In run_node(node):
  node.id, .name, .kind, .module, .source, .schema, .depth, .parent, .family
  node.inputs     the input values (before super().run_node(node); after it
                  only with keep_arguments=True, since inputs are moved into
                  the node that uses them last)
  super().run_node(node)   runs the node with the default handler
  node.outputs    the output values (after it ran)
  node.set_output(i, value)   replace an output, or provide it instead of
                  running the node (then do not call super().run_node)
An exception raised in run_node stops the run and propagates unchanged.
"""

from . import _graphprof

Node = _graphprof.Node


class Interpreter(_graphprof._Interpreter):
    """Runs a TorchScript module (or function) node by node; subclass and
    override run_node(node) to observe or change execution."""

    def __init__(self, module, *example_inputs, method="forward", passes=None, keep_arguments=False, trace=False):
        from . import _passes_text, _target  # the package's conversions

        target = _target(module, example_inputs, trace, method)
        super().__init__(target, method, _passes_text(passes), bool(keep_arguments))

    def run(self, *inputs):
        """Runs the graph on `inputs`; returns what module.<method>(*inputs) returns."""
        return self._run(tuple(inputs))

    __call__ = run
