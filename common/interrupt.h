// What must happen when the user interrupts (SIGINT) or the process is
// terminated (SIGTERM) at any moment: temporary output files disappear and a
// progress line on the terminal is cleared. Everything here is
// async-signal-safe: a fixed table of paths and a flag, read by the handler.
#ifndef GRAPHPROF_COMMON_INTERRUPT_H_
#define GRAPHPROF_COMMON_INTERRUPT_H_

namespace graphprof {

// Installs the SIGINT/SIGTERM handler (idempotent). It unlinks the
// registered temporary files, clears the progress line, then lets the signal
// end the process as it would have.
void InstallInterruptHandlers();

// Registers a temporary file to remove on interruption; returns a slot for
// UnregisterTempFile, or -1 when the table is full (the file is then not
// removed on interruption). `path` is copied.
int RegisterTempFile(const char* path);
void UnregisterTempFile(int slot);

// Whether a progress line (ending without a newline) is on stderr now.
void SetProgressLineShown(bool shown);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_INTERRUPT_H_
