// The root attributes of a run's result files (see root_attributes.hpp).
#include "experiment/root_attributes.hpp"

#include "experiment/config.hpp"
#include "experiment/launches.hpp"
#include "experiment/pinning.hpp"
#include "system/dir_lock.hpp"

namespace nqc {

namespace {

// What every file of the run carries, from the config, its pinned plan and the launch.
RootAttributes run_attributes(const ExperimentConfig& config, const PinnedPlan& pinned, const Launch& launch) {
  RootAttributes a;
  a.nqc_version = launch.nqc_version;
  a.git_revision = launch.git_revision;
  a.config = config.resolved.dump();
  a.config_hash = pinned.config_hash;
  a.plan_hash = pinned.hash();
  a.case_generation = kCaseGeneration;
  return a;
}

}  // namespace

RootAttributes shard_attributes(const ExperimentConfig& config, const PinnedPlan& pinned, const Launch& launch,
                                int world_size, int rank) {
  RootAttributes a = run_attributes(config, pinned, launch);
  a.start_utc = launch.start_utc;
  a.hostname = host_name();
  a.world_size = world_size;
  a.rank = rank;
  a.launch = launch.id;
  return a;
}

RootAttributes merged_attributes(const ExperimentConfig& config, const PinnedPlan& pinned, const Launch& launch,
                                 const std::string& start_utc, std::size_t launches) {
  RootAttributes a = run_attributes(config, pinned, launch);
  a.start_utc = start_utc;
  a.end_utc = utc_now();
  a.launches = static_cast<std::int64_t>(launches);
  return a;
}

}  // namespace nqc
