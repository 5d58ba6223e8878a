#include "tools/flag_parser.h"

#include <algorithm>
#include <map>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/internal/registry.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace graphprof::cli {

absl::StatusOr<CommandLine> ParseFlags(int argc, char** argv) {
  CommandLine result;
  std::map<std::string, std::string> repeated;  // list flags given more than once
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      result.positional.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help" || arg == "-help" || arg == "--helpfull") {
      result.help = true;
      continue;
    }
    absl::string_view body = absl::StripPrefix(absl::StripPrefix(arg, "-"), "-");
    const size_t eq = body.find('=');
    std::string name(body.substr(0, eq));
    const bool has_value = eq != absl::string_view::npos;
    std::string value = has_value ? std::string(body.substr(eq + 1)) : "";
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && !has_value && absl::StartsWith(name, "no")) {
      // --noverify for a bool flag named verify.
      absl::CommandLineFlag* negated = absl::FindCommandLineFlag(name.substr(2));
      if (negated != nullptr && negated->IsOfType<bool>()) {
        flag = negated;
        value = "false";
        name = name.substr(2);
        std::string error;
        if (!flag->ParseFrom(value, &error)) return absl::InvalidArgumentError(absl::StrCat("--", name, ": ", error));
        result.given.push_back(name);
        continue;
      }
    }
    if (flag == nullptr || flag->IsRetired()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", arg.substr(0, arg.find('=')),
                                                     " (profile_graph --help lists the flags)"));
    }
    if (!has_value) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
    }
    // Repeatable flags (a list): each use adds to the list.
    if (name == "load_library" && !value.empty()) {
      std::string& so_far = repeated[name];
      so_far = so_far.empty() ? value : absl::StrCat(so_far, ",", value);
      value = so_far;
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, "=", value, ": ", error));
    }
    if (value.empty()) result.empty_values.push_back(name);
    result.given.push_back(name);
  }
  return result;
}

std::string DescribeFlags(absl::string_view defined_in) {
  std::vector<absl::CommandLineFlag*> flags;
  // Not absl::GetAllFlags(): it returns an absl::flat_hash_map made inside
  // the system's Abseil, and destroyed here; with Debian 13's Abseil
  // (20240722, built without sanitizers) and this file built with ASan, the
  // inlined destructor unpoisons memory the library never poisoned and ASan
  // aborts (CHECK failed: asan_mapping.h "AddrIsInMem(p)"): --help exited 1
  // in CI's 2.6 step. The registry's visitor hands out the flags only.
  absl::flags_internal::ForEachFlag([&](absl::CommandLineFlag& flag) {
    if (absl::EndsWith(flag.Filename(), defined_in)) flags.push_back(&flag);
  });
  std::sort(flags.begin(), flags.end(),
            [](const absl::CommandLineFlag* a, const absl::CommandLineFlag* b) { return a->Name() < b->Name(); });
  std::string out;
  for (const absl::CommandLineFlag* flag : flags) {
    const std::string value = flag->DefaultValue();
    absl::StrAppend(&out, "  --", flag->Name(), value.empty() ? "" : absl::StrCat(" (default ", value, ")"), "\n      ",
                    flag->Help(), "\n");
  }
  return out;
}

}  // namespace graphprof::cli
