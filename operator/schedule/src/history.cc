#include "hetbench/schedule/history.h"

#include <algorithm>
#include <map>

namespace hetbench::schedule {

bool isFinished(const ScheduledRun& run) {
  return run.phase == "Succeeded" || run.phase == "Failed" || run.phase == "Cancelled";
}

bool isFailed(const ScheduledRun& run) { return run.phase == "Failed" || run.phase == "Cancelled"; }

namespace {

bool newerFirst(const ScheduledRun* a, const ScheduledRun* b) {
  if (a->scheduledTime != b->scheduledTime) return a->scheduledTime > b->scheduledTime;
  return a->name > b->name;
}

}  // namespace

std::vector<std::string> runsToPrune(const std::vector<ScheduledRun>& runs,
                                     std::int64_t successfulLimit, std::int64_t failedLimit) {
  std::vector<const ScheduledRun*> succeeded;
  std::vector<const ScheduledRun*> failed;
  for (const ScheduledRun& run : runs) {
    if (!isFinished(run)) continue;
    (isFailed(run) ? failed : succeeded).push_back(&run);
  }
  std::vector<const ScheduledRun*> prune;
  auto beyond = [&](std::vector<const ScheduledRun*>& kind, std::int64_t limit) {
    std::sort(kind.begin(), kind.end(), newerFirst);
    for (std::size_t i = static_cast<std::size_t>(std::max<std::int64_t>(limit, 0));
         i < kind.size(); ++i) {
      if (!kind[i]->retainsWorkloads) prune.push_back(kind[i]);
    }
  };
  beyond(succeeded, successfulLimit);
  beyond(failed, failedLimit);
  std::sort(prune.begin(), prune.end(),
            [](const ScheduledRun* a, const ScheduledRun* b) { return newerFirst(b, a); });
  std::vector<std::string> names;
  for (const ScheduledRun* run : prune) names.push_back(run->name);
  return names;
}

std::vector<RecentVerdict> recentVerdicts(const std::vector<RecentVerdict>& before,
                                          const std::vector<ScheduledRun>& runs) {
  std::map<std::string, RecentVerdict> byRun;
  for (const RecentVerdict& v : before) byRun[v.run] = v;
  for (const ScheduledRun& run : runs) {
    if (isFinished(run)) byRun[run.name] = {run.name, run.scheduledTime, run.phase, run.verdict};
  }
  std::vector<RecentVerdict> out;
  for (auto& [name, v] : byRun) out.push_back(std::move(v));
  std::sort(out.begin(), out.end(), [](const RecentVerdict& a, const RecentVerdict& b) {
    if (a.scheduledTime != b.scheduledTime) return a.scheduledTime > b.scheduledTime;
    return a.run > b.run;
  });
  if (out.size() > kRecentVerdicts) out.resize(kRecentVerdicts);
  return out;
}

}  // namespace hetbench::schedule
