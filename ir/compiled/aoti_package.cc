#include "ir/compiled/aoti_package.h"

#include <nlohmann/json.hpp>

#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace graphprof {
namespace {

using nlohmann::json;

absl::Status Refuse(const std::string& path, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
}

// The model folders under data/aotinductor/ ("model"), in name order.
std::set<std::string> ModelNames(const ZipArchive& archive) {
  std::set<std::string> models;
  for (const ZipArchive::Entry& entry : archive.entries()) {
    if (!absl::StartsWith(entry.name, kAotiModelsFolder)) continue;
    const std::string rest = entry.name.substr(sizeof(kAotiModelsFolder) - 1);
    const size_t slash = rest.find('/');
    if (slash != std::string::npos && slash > 0) models.insert(rest.substr(0, slash));
  }
  return models;
}

// The one entry of `files` ending in `suffix`, or why not.
absl::StatusOr<std::string> OneEntry(const std::string& path, const std::string& model,
                                     const std::vector<std::string>& files, absl::string_view suffix,
                                     absl::string_view what, absl::string_view plural) {
  std::vector<std::string> found;
  for (const std::string& file : files) {
    if (absl::EndsWith(file, suffix)) found.push_back(file);
  }
  if (found.empty()) {
    return Refuse(path, absl::StrCat("compiled model '", model, "' has no ", what, " (no *", suffix,
                                     " under ", kAotiModelsFolder, model, "/): not a complete AOTInductor package"));
  }
  if (found.size() > 1) {
    return Refuse(path, absl::StrCat("compiled model '", model, "' has ", found.size(), " ", plural, " (",
                                     absl::StrJoin(found, ", "), "); an AOTInductor package has one"));
  }
  return found[0];
}

absl::Status ReadMetadata(AotiPackage& package, const std::string& entry) {
  absl::StatusOr<std::string> text = package.archive.ReadEntry(entry, 1 << 20);
  if (!text.ok()) return Refuse(package.path, text.status().message());
  const json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Refuse(package.path, absl::StrCat(entry, " is not a JSON object"));
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string()) {
      return Refuse(package.path, absl::StrCat(entry, ": '", it.key(), "' is not a string"));
    }
    package.metadata[it.key()] = it.value().get<std::string>();
  }
  if (auto device = package.metadata.find(kAotiDeviceKey); device != package.metadata.end()) {
    package.device = device->second;
  }
  if (package.device != "cpu") {
    return Refuse(package.path, absl::StrCat("compiled for device '", package.device,
                                             "'; graphprof profiles AOTInductor packages compiled for the CPU"));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsAotiPackageFile(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const ByteSource>> source = OpenFileSource(path);
  if (!source.ok()) return false;
  absl::StatusOr<ZipArchive> archive = ZipArchive::Open(*source);
  if (!archive.ok()) return false;
  for (const ZipArchive::Entry& entry : archive->entries()) {
    if (absl::StartsWith(entry.name, kAotiModelsFolder)) return true;
  }
  return false;
}

absl::StatusOr<AotiPackage> ReadAotiPackage(const std::string& path) {
  absl::StatusOr<std::shared_ptr<const ByteSource>> source = OpenFileSource(path);
  if (!source.ok()) return source.status();
  return ReadAotiPackage(*std::move(source), path);
}

absl::StatusOr<AotiPackage> ReadAotiPackage(std::shared_ptr<const ByteSource> source, const std::string& path) {
  absl::StatusOr<ZipArchive> archive = ZipArchive::Open(std::move(source));
  if (!archive.ok()) return Refuse(path, archive.status().message());
  AotiPackage package{path};
  package.archive = *std::move(archive);
  const std::set<std::string> models = ModelNames(package.archive);
  if (models.empty()) {
    return Refuse(path, absl::StrCat("not an AOTInductor package (no compiled model under ", kAotiModelsFolder, ")"));
  }
  if (models.size() > 1) {
    return Refuse(path, absl::StrCat("holds ", models.size(), " compiled models (", absl::StrJoin(models, ", "),
                                     "); graphprof profiles packages of one model"));
  }
  package.model = *models.begin();
  package.folder = absl::StrCat(kAotiModelsFolder, package.model, "/");
  for (const ZipArchive::Entry& entry : package.archive.entries()) {
    if (absl::StartsWith(entry.name, package.folder) && entry.name.size() > package.folder.size()) {
      package.files.push_back(entry.name);
    }
  }
  absl::StatusOr<std::string> wrapper =
      OneEntry(path, package.model, package.files, kAotiWrapperSuffix, "wrapper source", "wrapper sources");
  if (!wrapper.ok()) return wrapper.status();
  absl::StatusOr<std::string> library =
      OneEntry(path, package.model, package.files, kAotiLibrarySuffix, "compiled library", "compiled libraries");
  if (!library.ok()) return library.status();
  package.wrapper = *wrapper;
  package.library = *library;
  for (const std::string& file : package.files) {
    if (!absl::EndsWith(file, kAotiMetadataSuffix)) continue;
    if (absl::Status read = ReadMetadata(package, file); !read.ok()) return read;
  }
  package.has_program = package.archive.Find(kAotiProgramEntry) != nullptr;
  return package;
}

}  // namespace graphprof
