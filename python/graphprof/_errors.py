"""graphprof's exceptions.

Every failure of the C++ engine arrives as a GraphprofError whose message is
the one line profile_graph prints after "profile_graph: ", and whose `code`
is the absl status code name ("INVALID_ARGUMENT", ...): each class's own
code when the error is raised in Python, the engine's status when it
comes from C++.
"""


class GraphprofError(RuntimeError):
    """A failure reported by graphprof's C++ engine."""

    code = "UNKNOWN"


class InvalidArgumentError(GraphprofError, ValueError):
    """Bad inputs or options, or a node of the model failed on these inputs."""

    code = "INVALID_ARGUMENT"


class FailedPreconditionError(GraphprofError):
    """The module is not in a state the operation needs (e.g. freeze needs eval mode)."""

    code = "FAILED_PRECONDITION"


class UnsupportedGraphError(GraphprofError):
    """The graph holds a node kind graphprof cannot run (found when it is planned)."""

    code = "UNIMPLEMENTED"


class FileError(GraphprofError, OSError):
    """A file could not be written or read whole (permission, full disk, short read)."""

    code = "DATA_LOSS"  # the engine sets PERMISSION_DENIED where that is what happened


class VerificationError(GraphprofError):
    """verify=True found that graphprof's output differs from the native run.

    The profile is still complete: it is in `.report` (`.result` for ab()).
    """

    code = "VERIFICATION_FAILED"

    def __init__(self, message, report=None, result=None):
        super().__init__(message)
        self.report = report
        self.result = result
