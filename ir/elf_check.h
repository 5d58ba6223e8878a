// A look at a file's ELF headers before dlopen: the loader maps a shared
// object's segments as its program headers say, and one that reaches past
// the end of a truncated file kills the process with SIGBUS when touched
// (inside dlopen, no message). CheckLoadableSharedObject reads the headers
// with read(), never mapping the file, so a bad file is refused in one line.
#ifndef GRAPHPROF_IR_ELF_CHECK_H_
#define GRAPHPROF_IR_ELF_CHECK_H_

#include <string>

#include "absl/status/status.h"

namespace graphprof {

// OK when `path` is an ELF shared object (type ET_DYN) of this process's
// class (64-bit on a 64-bit process), byte order and machine (e_machine of
// /proc/self/exe), whose program header table, every PT_LOAD segment's bytes
// [p_offset, p_offset + p_filesz) and section header table (when it has one)
// lie inside the file. Otherwise InvalidArgument in one line naming the path
// and what is wrong, e.g. "<path>: truncated (a PT_LOAD segment ends at byte
// 57648 of a 4096-byte file)", "<path>: an ELF object for another machine
// (aarch64; this process is x86-64)", "<path>: not a shared library (ELF
// type EXEC)"; NotFound when it cannot be opened for lack of the file.
// Checks only what the loader would trust blindly: a file that passes may
// still fail dlopen with the loader's own message. (A file changed between
// this check and dlopen is not covered.)
absl::Status CheckLoadableSharedObject(const std::string& path);

// A name for ELF machine number `machine` ("x86-64", "aarch64", ...), or
// "e_machine <n>" for one not in graphprof's short list.
std::string ElfMachineName(int machine);

// e_machine of the running executable (/proc/self/exe), or of the machine
// graphprof was compiled for when that cannot be read.
int HostElfMachine();

}  // namespace graphprof

#endif  // GRAPHPROF_IR_ELF_CHECK_H_
