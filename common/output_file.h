// Writing output files so that readers never see a partial file and a
// failed run changes nothing.
//
// OutputFiles collects every output of a run, then commits them together:
// each regular file is written to a temporary file next to its target
// (created exclusively, with the target's permissions when it exists) and
// only when all are written are they renamed over their targets. If writing
// any of them fails, no target is touched and no temporary file is left;
// a terminating signal meanwhile removes the temporaries where the program
// installed common/interrupt.h's handlers (profile_graph does; the Python
// extension installs none: signals belong to the user's program).
// A symlink is followed (the file it points to is replaced, the link
// stays); a target that exists and is not a regular file (/dev/null, a FIFO)
// is written in place, after the temporary files and before any rename, so
// that its failure too leaves every target as it was (a pipe whose reader
// has gone is a failed write, EPIPE, not a SIGPIPE). AddNew outputs never
// replace anything. Renderings run two at a time, on two threads: a render
// function must not touch shared mutable state. A streamed output (a
// function of a TextSink) goes into its file a chunk at a time as it is
// made, so no rendering is ever whole in memory.
#ifndef GRAPHPROF_COMMON_OUTPUT_FILE_H_
#define GRAPHPROF_COMMON_OUTPUT_FILE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/text_sink.h"

namespace graphprof {

class OutputFiles {
 public:
  void Add(std::string path, std::string contents);
  // The contents are made when the file is written, one file at a time, so
  // big outputs are not all in memory at once.
  void Add(std::string path, std::function<std::string()> render);
  // The contents are streamed into the file as they are made (a chunk at a
  // time: a 100 MB rendering never sits whole in memory).
  void Add(std::string path, std::function<void(TextSink&)> stream);
  // A file that must not replace anything: if `path` names a file when it
  // is committed, the first free NumberedPath (path_pattern.h: "x-1.json",
  // "x-2.json", ...) is written instead, atomically (no other writer can
  // have taken the name in between). written_path() tells which.
  void AddNew(std::string path, std::function<std::string()> render);
  void AddNew(std::string path, std::function<void(TextSink&)> stream);
  // Writes everything, or nothing; the message names the path that failed.
  // New files are placed before any existing file is replaced.
  absl::Status Commit();
  // After Commit: where the output added as `path` went ("" if not written).
  std::string written_path(const std::string& path) const;

 private:
  struct Output {
    std::string path;
    std::function<void(TextSink&)> stream;
    bool is_new = false;
    std::string written;
  };
  std::vector<Output> outputs_;
};

// One file, the same way.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// Fails early, without creating anything, if `path` could not be written:
// its directory does not exist or is not writable, or it is a directory.
absl::Status CheckWritable(const std::string& path);

// True when the two paths name the same file: the same inode when it
// exists (symlinks followed), else the same resolved location.
bool SameFile(const std::string& a, const std::string& b);

}  // namespace graphprof

#endif  // GRAPHPROF_COMMON_OUTPUT_FILE_H_
