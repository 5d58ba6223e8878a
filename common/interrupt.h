// What must happen when the user interrupts (SIGINT) or the process is
// ended by any other terminating signal (SIGTERM, SIGHUP, SIGALRM, SIGUSR1,
// SIGUSR2, SIGPIPE outside the writes that handle EPIPE) at any moment: a
// running worker process gets the same signal, temporary output files
// disappear, a progress line on the terminal is cleared, and one line
// "profile_graph: stopped by SIGHUP" says why. SIGXFSZ is ignored, so that
// a file-size limit (ulimit -f) is a failed write (EFBIG) reported as one.
// Everything here is async-signal-safe: a fixed table of paths, a pid and a
// flag, read by the handler.
#ifndef GRAPHPROF_COMMON_INTERRUPT_H_
#define GRAPHPROF_COMMON_INTERRUPT_H_

namespace graphprof {

// Installs the handler (idempotent). It forwards the signal to the child
// (SetChildProcess), unlinks the registered temporary files, clears the
// progress line, prints its line, then lets the signal end the process as it
// would have.
void InstallInterruptHandlers();

// The worker process running now (0: none): it receives the signals that end
// this one.
void SetChildProcess(int pid);

// Registers a temporary file to remove on interruption; returns a slot for
// UnregisterTempFile, or -1 when the table is full (the file is then not
// removed on interruption). `path` is copied.
int RegisterTempFile(const char* path);
void UnregisterTempFile(int slot);

// Whether a progress line (ending without a newline) is on stderr now.
void SetProgressLineShown(bool shown);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_INTERRUPT_H_
