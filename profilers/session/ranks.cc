#include "profilers/session/ranks.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <c10/util/Logging.h>
#include <dlfcn.h>
#include <torch/version.h>

// The gloo process group: LibTorch 2.x (functional collectives) and gloo's
// headers (CMake defines GRAPHPROF_HAS_C10D_GLOO where it found them).
#if defined(GRAPHPROF_HAS_C10D_GLOO) && TORCH_VERSION_MAJOR >= 2
#define GRAPHPROF_COLLECTIVES 1
#include <torch/csrc/distributed/c10d/GroupRegistry.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#else
#define GRAPHPROF_COLLECTIVES 0
#endif

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace graphprof {
namespace {

constexpr char kKeyPrefix[] = "graphprof";
constexpr char kFailedKey[] = "failed";

// The first line of a c10::Error (its message, without the C++ backtrace).
std::string FirstLine(const std::exception& e) {
  std::string what = e.what();
  if (const c10::Error* error = dynamic_cast<const c10::Error*>(&e)) what = error->what_without_backtrace();
  return what.substr(0, what.find('\n'));
}

std::vector<uint8_t> Bytes(const std::string& text) { return std::vector<uint8_t>(text.begin(), text.end()); }

absl::StatusOr<int> IntVariable(const std::function<const char*(const char*)>& getenv, const char* name, int low,
                                int high) {
  const char* value = getenv(name);
  int parsed = 0;
  if (value == nullptr || !absl::SimpleAtoi(value, &parsed) || parsed < low || parsed > high) {
    return absl::InvalidArgumentError(absl::StrCat(name, "=", value == nullptr ? "(unset)" : value,
                                                   ": as torchrun sets it, a whole number from ", low, " to ", high));
  }
  return parsed;
}

// c10d's own log lines (a socket's timeout, a peer's reset with a C++
// backtrace, on stderr) are not printed: every failure of the group is one
// line of graphprof's, which says what happened. c10's logging, for the
// process: glog's threshold where LibTorch logs through glog (Debian's
// 1.13), c10's own otherwise (2.6).
void QuietC10Logging() {
#ifdef C10_USE_GLOG
  // glog's flag, found in the process (libc10 loaded libglog) rather than
  // linked: graphprof's build need not link glog for one integer.
  if (void* flag = dlsym(RTLD_DEFAULT, "_ZN3fLI17FLAGS_minloglevelE"); flag != nullptr) {
    *static_cast<int32_t*>(flag) = 3;
  }
#else
  FLAGS_caffe2_log_level = 3;
#endif
}

}  // namespace

absl::StatusOr<std::optional<RankEnvironment>> ReadRankEnvironment(
    const std::function<const char*(const char*)>& given) {
  const std::function<const char*(const char*)> getenv =
      given ? given : [](const char* name) -> const char* { return std::getenv(name); };
  const char* world = getenv("WORLD_SIZE");
  if (world == nullptr) {
    if (getenv("RANK") != nullptr) return absl::InvalidArgumentError("RANK is set but WORLD_SIZE is not: set both");
    return std::optional<RankEnvironment>();
  }
  RankEnvironment env;
  absl::StatusOr<int> world_size = IntVariable(getenv, "WORLD_SIZE", 1, 1 << 16);
  if (!world_size.ok()) return world_size.status();
  env.world_size = *world_size;
  if (getenv("RANK") == nullptr) return absl::InvalidArgumentError("WORLD_SIZE is set but RANK is not: set both");
  absl::StatusOr<int> rank = IntVariable(getenv, "RANK", 0, env.world_size - 1);
  if (!rank.ok()) return rank.status();
  env.rank = *rank;
  const char* addr = getenv("MASTER_ADDR");
  if (addr == nullptr || *addr == '\0') {
    if (env.world_size > 1) return absl::InvalidArgumentError("MASTER_ADDR is unset: the address of rank 0's store");
    addr = "127.0.0.1";
  }
  env.master_addr = addr;
  if (getenv("MASTER_PORT") == nullptr && env.world_size == 1) {
    env.master_port = 0;  // a store of one rank: any free port
  } else {
    absl::StatusOr<int> port = IntVariable(getenv, "MASTER_PORT", 1, 65535);
    if (!port.ok()) return port.status();
    env.master_port = *port;
  }
  const char* agent = getenv("TORCHELASTIC_USE_AGENT_STORE");
  env.agent_store = agent != nullptr && std::string(agent) == "True";
  if (env.agent_store) {
    const char* attempt = getenv("TORCHELASTIC_RESTART_COUNT");
    env.store_prefix = absl::StrCat("/worker/attempt_", attempt == nullptr ? "0" : attempt);
  }
  return std::optional<RankEnvironment>(std::move(env));
}

struct RankGroup::Stores {
  c10::intrusive_ptr<c10d::Store> tcp;    // the connection (or the host)
  c10::intrusive_ptr<c10d::Store> store;  // graphprof's keys
#if GRAPHPROF_COLLECTIVES
  // Held here: the registry holds process groups weakly (2.6), and a group
  // no one holds is "already destroyed" when a collective resolves it.
  c10::intrusive_ptr<c10d::ProcessGroup> process_group;
#endif
};

RankGroup::RankGroup(RankEnvironment env, std::chrono::milliseconds timeout)
    : env_(std::move(env)), timeout_(timeout), stores_(std::make_unique<Stores>()) {}

RankGroup::~RankGroup() = default;

absl::StatusOr<std::unique_ptr<RankGroup>> RankGroup::Join(const RankEnvironment& env,
                                                           std::chrono::milliseconds timeout) {
  std::unique_ptr<RankGroup> group(new RankGroup(env, timeout));
  QuietC10Logging();
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(env.master_port);
  options.isServer = env.rank == 0 && !env.agent_store;
  options.numWorkers = env.world_size;
  options.waitWorkers = false;  // the first barrier waits, and says for whom
  options.timeout = timeout;
#if TORCH_VERSION_MAJOR >= 2
  // Debian's LibTorch 2.6 has no libuv; the classic backend speaks the same
  // protocol to a libuv host (torchrun's agent in PyTorch's own wheels).
  options.useLibUV = false;
#endif
  try {
    group->stores_->tcp = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
    c10::intrusive_ptr<c10d::Store> base = group->stores_->tcp;
    if (!env.store_prefix.empty()) base = c10::make_intrusive<c10d::PrefixStore>(env.store_prefix, base);
    group->stores_->store = c10::make_intrusive<c10d::PrefixStore>(kKeyPrefix, base);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("rank ", env.rank, " of ", env.world_size, ": ",
                                               options.isServer ? "could not host" : "could not reach",
                                               " the ranks' store at ", env.master_addr, ":", env.master_port,
                                               " (MASTER_ADDR, MASTER_PORT): ", FirstLine(e)));
  }
  return group;
}

absl::Status RankGroup::LostStore(const std::string& when, const std::exception& e) const {
  return absl::UnavailableError(absl::StrCat("rank ", env_.rank, " of ", env_.world_size,
                                             ": lost the ranks' store (rank 0 ended?) ", when, ": ", FirstLine(e)));
}

absl::Status RankGroup::WaitFor(const std::string& key, const std::string& what) {
  // A blocking wait, not a poll: a waiting rank sleeps until the store's
  // host tells it the key is set, and takes no CPU from ranks still running
  // (they may share cores: measured, a rank that polled every few ms slowed
  // the nodes other ranks ran after a long one). A rank that fails sets the
  // keys the others may be waiting for (Fail), so they wake and find its line.
  const auto start = std::chrono::steady_clock::now();
  try {
    stores_->store->wait({key}, timeout_);
  } catch (const std::exception& e) {
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited < timeout_ * 9 / 10) return LostStore(absl::StrCat("while waiting for ", what), e);
    return absl::DeadlineExceededError(
        absl::StrCat("rank ", env_.rank, " of ", env_.world_size, ": waited ",
                     std::chrono::duration_cast<std::chrono::seconds>(timeout_).count(), " s for ", what,
                     ": a rank ended or hangs"));
  }
  try {
    if (stores_->store->check({kFailedKey})) {
      const std::vector<uint8_t> line = stores_->store->get(kFailedKey);
      return absl::UnavailableError(std::string(line.begin(), line.end()));
    }
  } catch (const std::exception& e) {
    return LostStore(absl::StrCat("after ", what), e);
  }
  return absl::OkStatus();
}

std::string RankGroup::BarrierKey(int n) const { return absl::StrCat("barrier/", n); }

absl::Status RankGroup::Barrier(const std::string& name) {
  const std::string key = BarrierKey(barriers_++);
  try {
    stores_->store->set(absl::StrCat(key, "/", env_.rank), Bytes("1"));
    if (stores_->store->add(key, 1) == env_.world_size) stores_->store->set(absl::StrCat(key, "/all"), Bytes("1"));
  } catch (const std::exception& e) {
    return LostStore(absl::StrCat("at '", name, "'"), e);
  }
  absl::Status all = WaitFor(absl::StrCat(key, "/all"), absl::StrCat("every rank at '", name, "'"));
  if (absl::IsDeadlineExceeded(all)) {
    std::vector<std::string> missing;
    try {
      for (int r = 0; r < env_.world_size && missing.size() < 8; ++r) {
        if (!stores_->store->check({absl::StrCat(key, "/", r)})) missing.push_back(absl::StrCat(r));
      }
    } catch (const std::exception&) {
    }
    if (!missing.empty()) {
      return absl::DeadlineExceededError(absl::StrCat(all.message(), " (not arrived: rank ",
                                                      absl::StrJoin(missing, ", rank "), ")"));
    }
  }
  return all;
}

absl::StatusOr<std::vector<std::string>> RankGroup::GatherOnRoot(const std::string& name, const std::string& mine) {
  const std::string key = absl::StrCat("gather/", gathers_++, "/");
  try {
    stores_->store->set(absl::StrCat(key, env_.rank), Bytes(mine));
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("rank ", env_.rank, " of ", env_.world_size,
                                               ": could not send its ", name, " to rank 0: ", FirstLine(e)));
  }
  std::vector<std::string> all;
  if (env_.rank != 0) return all;
  for (int r = 0; r < env_.world_size; ++r) {
    if (r == env_.rank) {
      all.push_back(mine);
      continue;
    }
    const std::string rank_key = absl::StrCat(key, r);
    if (absl::Status arrived = WaitFor(rank_key, absl::StrCat("rank ", r, "'s ", name)); !arrived.ok()) {
      return arrived;
    }
    try {
      const std::vector<uint8_t> value = stores_->store->get(rank_key);
      all.emplace_back(value.begin(), value.end());
      stores_->store->deleteKey(rank_key);  // the store holds one report at a time
    } catch (const std::exception& e) {
      return absl::UnavailableError(absl::StrCat("rank 0: could not read rank ", r, "'s ", name, ": ", FirstLine(e)));
    }
  }
  return all;
}

absl::Status RankGroup::RegisterProcessGroups(const std::vector<std::string>& names) {
  if (names.empty()) return absl::OkStatus();
#if GRAPHPROF_COLLECTIVES
  try {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout_);
    const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
    if (interface != nullptr && *interface != '\0') {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
    } else if (env_.master_addr == "127.0.0.1" || env_.master_addr == "localhost") {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    // One group of every rank, whatever names the graph gives it.
    auto store = c10::make_intrusive<c10d::PrefixStore>("gloo", stores_->store);
    auto backend = c10::make_intrusive<c10d::ProcessGroupGloo>(store, env_.rank, env_.world_size, options);
    auto group = c10::make_intrusive<c10d::ProcessGroup>(store, env_.rank, env_.world_size);
    group->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
    group->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, backend);
    group->setGroupName(names.front());
    for (const std::string& name : names) c10d::register_process_group(name, group);
    stores_->process_group = group;
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("rank ", env_.rank, " of ", env_.world_size,
                                               ": could not make the gloo process group the graph's collectives "
                                               "name: ", FirstLine(e)));
  }
  return absl::OkStatus();
#else
  return absl::UnimplementedError(absl::StrCat(
      "the graph calls collectives of process group '", names.front(), "': running them needs LibTorch 2.x and a "
      "graphprof built with gloo's headers (this one: LibTorch ", TORCH_VERSION_MAJOR, ".", TORCH_VERSION_MINOR,
      ", ", TORCH_VERSION_MAJOR >= 2 ? "no gloo headers" : "no functional collectives", ")"));
#endif
}

void RankGroup::Fail(const std::string& line) {
  try {
    if (!stores_->store) return;
    if (!stores_->store->check({kFailedKey})) {
      stores_->store->set(kFailedKey, Bytes(absl::StrCat("rank ", env_.rank, " failed: ", line)));
    }
    // Wake the others where they may wait: the barrier this rank is in or
    // would have met next (they cannot be past it), and rank 0 where it
    // waits for this rank's value (the gather this rank is in or would
    // have joined next).
    for (int n : {barriers_ - 1, barriers_}) {
      if (n >= 0) stores_->store->set(absl::StrCat(BarrierKey(n), "/all"), Bytes("failed"));
    }
    for (int n : {gathers_ - 1, gathers_}) {
      if (n >= 0) stores_->store->set(absl::StrCat("gather/", n, "/", env_.rank), Bytes(""));
    }
  } catch (const std::exception&) {
    // The store is gone: the others find that out themselves.
  }
}

}  // namespace graphprof
