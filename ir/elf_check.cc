// ELF checks before dlopen (elf_check.h).
#include "ir/elf_check.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>  // ElfW: this process's ELF class
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

using Header = ElfW(Ehdr);
using ProgramHeader = ElfW(Phdr);

#if defined(__LP64__)
constexpr int kHostClass = ELFCLASS64;
#else
constexpr int kHostClass = ELFCLASS32;
#endif
constexpr int kHostByteOrder = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

// The machine graphprof was compiled for (HostElfMachine's fallback).
constexpr int CompiledElfMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__i386__)
  return EM_386;
#elif defined(__arm__)
  return EM_ARM;
#elif defined(__riscv)
  return EM_RISCV;
#elif defined(__powerpc64__)
  return EM_PPC64;
#elif defined(__s390x__)
  return EM_S390;
#else
  return EM_NONE;
#endif
}

// Up to `size` bytes at `offset` (fewer at the end of the file); -1 on an error.
ssize_t ReadAt(int fd, uint64_t offset, void* buffer, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pread(fd, static_cast<char*>(buffer) + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

// Closes a descriptor on every return.
struct ScopedFd {
  int fd;
  ~ScopedFd() {
    if (fd >= 0) close(fd);
  }
};

absl::Status Refuse(const std::string& path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

std::string TypeName(int type) {
  switch (type) {
    case ET_NONE: return "NONE";
    case ET_REL: return "REL, an object file: link it with -shared";
    case ET_EXEC: return "EXEC";
    case ET_CORE: return "CORE";
    default: return absl::StrCat(type);
  }
}

// offset + count * entry_size in `end`; false when that overflows.
bool TableEnd(uint64_t offset, uint64_t count, uint64_t entry_size, uint64_t* end) {
  uint64_t bytes = 0;
  return !__builtin_mul_overflow(count, entry_size, &bytes) && !__builtin_add_overflow(offset, bytes, end);
}

// The ELF header's identity: magic, class, byte order, version, machine, type.
absl::Status CheckHeader(const std::string& path, const Header& header, ssize_t read) {
  if (read < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return Refuse(path, "not an ELF file (a shared library starts with \\x7fELF)");
  }
  const std::string short_header =
      absl::StrCat("truncated (the ELF header needs ", sizeof(Header), " bytes, the file has ", read, ")");
  if (read < static_cast<ssize_t>(EI_NIDENT)) return Refuse(path, short_header);
  const int elf_class = header.e_ident[EI_CLASS];
  if (elf_class != kHostClass) {
    const std::string bits = elf_class == ELFCLASS32 ? "32-bit" : elf_class == ELFCLASS64 ? "64-bit" : "unknown-class";
    return Refuse(path, absl::StrCat("a ", bits, " ELF object; this process is ", kHostClass == ELFCLASS64 ? 64 : 32,
                                     "-bit"));
  }
  if (header.e_ident[EI_DATA] != kHostByteOrder) {
    return Refuse(path, absl::StrCat("an ELF object of another byte order (EI_DATA ",
                                     static_cast<int>(header.e_ident[EI_DATA]), "; this machine is ",
                                     kHostByteOrder == ELFDATA2LSB ? "little" : "big", "-endian)"));
  }
  if (header.e_ident[EI_VERSION] != EV_CURRENT) {
    return Refuse(path, absl::StrCat("an unknown ELF version (", static_cast<int>(header.e_ident[EI_VERSION]), ")"));
  }
  if (read < static_cast<ssize_t>(sizeof(Header))) return Refuse(path, short_header);
  if (header.e_machine != HostElfMachine()) {
    return Refuse(path, absl::StrCat("an ELF object for another machine (", ElfMachineName(header.e_machine),
                                     "; this process is ", ElfMachineName(HostElfMachine()), ")"));
  }
  if (header.e_type != ET_DYN) {
    return Refuse(path, absl::StrCat("not a shared library (ELF type ", TypeName(header.e_type), ")"));
  }
  return absl::OkStatus();
}

// The program header table, each PT_LOAD segment's file bytes and the
// section header table lie inside the file of `file_size` bytes.
absl::Status CheckExtents(const std::string& path, int fd, const Header& header, uint64_t file_size) {
  const std::string of_file = absl::StrCat(" of a ", file_size, "-byte file)");
  if (header.e_phnum == 0) return Refuse(path, "no program headers (nothing to load)");
  if (header.e_phentsize != sizeof(ProgramHeader)) {
    return Refuse(path, absl::StrCat("program headers of ", header.e_phentsize, " bytes (", sizeof(ProgramHeader),
                                     " expected)"));
  }
  uint64_t end = 0;
  if (!TableEnd(header.e_phoff, header.e_phnum, header.e_phentsize, &end)) {
    return Refuse(path, "the program header table's offset and size overflow");
  }
  if (end > file_size) {
    return Refuse(path, absl::StrCat("truncated (the program header table ends at byte ", end, of_file));
  }
  std::vector<ProgramHeader> segments(header.e_phnum);
  const size_t table_bytes = segments.size() * sizeof(ProgramHeader);
  if (ReadAt(fd, header.e_phoff, segments.data(), table_bytes) != static_cast<ssize_t>(table_bytes)) {
    return Refuse(path, absl::StrCat("cannot read its program headers (", std::strerror(errno), ")"));
  }
  for (const ProgramHeader& segment : segments) {
    if (segment.p_type != PT_LOAD) continue;
    if (!TableEnd(segment.p_offset, 1, segment.p_filesz, &end)) {
      return Refuse(path, "a PT_LOAD segment's offset and size overflow");
    }
    if (end > file_size) {
      return Refuse(path, absl::StrCat("truncated (a PT_LOAD segment ends at byte ", end, of_file));
    }
  }
  if (header.e_shoff != 0) {
    // e_shnum 0 with a table: the count is in section 0 (at least one entry).
    const uint64_t sections = header.e_shnum != 0 ? header.e_shnum : 1;
    if (!TableEnd(header.e_shoff, sections, header.e_shentsize, &end)) {
      return Refuse(path, "the section header table's offset and size overflow");
    }
    if (end > file_size) {
      return Refuse(path, absl::StrCat("truncated (the section header table ends at byte ", end, of_file));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string ElfMachineName(int machine) {
  switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    case EM_MIPS: return "mips";
    case EM_SPARCV9: return "sparcv9";
    case 258: return "loongarch";  // EM_LOONGARCH, newer than some elf.h
    default: return absl::StrCat("e_machine ", machine);
  }
}

int HostElfMachine() {
  static const int machine = [] {
    ScopedFd exe{open("/proc/self/exe", O_RDONLY | O_CLOEXEC)};
    Header header{};
    if (exe.fd >= 0 && ReadAt(exe.fd, 0, &header, sizeof(header)) == static_cast<ssize_t>(sizeof(header)) &&
        std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0) {
      return static_cast<int>(header.e_machine);
    }
    return CompiledElfMachine();
  }();
  return machine;
}

absl::Status CheckLoadableSharedObject(const std::string& path) {
  ScopedFd file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    const int error = errno;
    if (error == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return Refuse(path, absl::StrCat("cannot open (", std::strerror(error), ")"));
  }
  struct stat st;
  if (fstat(file.fd, &st) != 0) return Refuse(path, absl::StrCat("cannot stat (", std::strerror(errno), ")"));
  if (!S_ISREG(st.st_mode)) return Refuse(path, "not a file");
  Header header{};
  const ssize_t read = ReadAt(file.fd, 0, &header, sizeof(header));
  if (read < 0) return Refuse(path, absl::StrCat("cannot read (", std::strerror(errno), ")"));
  if (absl::Status identity = CheckHeader(path, header, read); !identity.ok()) return identity;
  return CheckExtents(path, file.fd, header, static_cast<uint64_t>(st.st_size));
}

}  // namespace graphprof
