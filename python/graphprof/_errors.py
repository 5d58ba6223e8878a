"""graphprof's exceptions.

Every failure of the C++ engine arrives as a GraphprofError whose message is
the one line profile_graph prints after "profile_graph: ", and whose `code`
is the absl status code name ("INVALID_ARGUMENT", ...).
"""


class GraphprofError(RuntimeError):
    """A failure reported by graphprof's C++ engine."""

    code = "UNKNOWN"


class InvalidArgumentError(GraphprofError, ValueError):
    """Bad inputs or options, or a node of the model failed on these inputs."""


class FailedPreconditionError(GraphprofError):
    """The module is not in a state the operation needs (e.g. freeze needs eval mode)."""


class UnsupportedGraphError(GraphprofError):
    """The graph holds a node kind graphprof cannot run (found when it is planned)."""


class FileError(GraphprofError, OSError):
    """A file could not be written or read whole (permission, full disk, short read)."""


class VerificationError(GraphprofError):
    """verify=True found that graphprof's output differs from the native run.

    The profile is still complete: it is in `.report` (`.result` for ab()).
    """

    code = "VERIFICATION_FAILED"

    def __init__(self, message, report=None, result=None):
        super().__init__(message)
        self.report = report
        self.result = result
