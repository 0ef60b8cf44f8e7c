#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "exposition.h"
#include "hetbench/metrics/controller_metrics.h"

namespace hetbench::metrics {
namespace {

using detail::family;
using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily single(const char* name, const char* help, MetricType type, double v) {
  MetricFamily f = family(name, help, type);
  f.metric.push_back(detail::sample(v));
  return f;
}

/// The seconds since the epoch at which the system booted (`btime` of /proc/stat).
std::optional<double> bootTime() {
  std::ifstream in("/proc/stat");
  std::string key;
  while (in >> key) {
    if (key == "btime") {
      double t = 0;
      if (in >> t) return t;
      return std::nullopt;
    }
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

/// The process' series from /proc/self, as Prometheus' client libraries define them; none
/// where /proc cannot be read.
void addProcessFamilies(std::vector<MetricFamily>& out) {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name, in parentheses, may hold spaces: the fields start after its last ')'.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return;
  std::istringstream fields(stat.substr(close + 2));
  std::vector<std::string> f;
  for (std::string field; fields >> field;) f.push_back(field);
  // f[0] is field 3 (state): utime is field 14, stime 15, starttime 22, vsize 23, rss 24.
  if (f.size() < 22) return;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double pageSize = static_cast<double>(::sysconf(_SC_PAGESIZE));
  const double cpu = (std::stod(f[11]) + std::stod(f[12])) / ticks;
  out.push_back(single("process_cpu_seconds_total", "Total user and system CPU time in seconds.",
                       MetricType::Counter, cpu));
  out.push_back(single("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                       MetricType::Gauge, std::stod(f[20])));
  out.push_back(single("process_resident_memory_bytes", "Resident memory size in bytes.",
                       MetricType::Gauge, std::stod(f[21]) * pageSize));
  if (std::optional<double> boot = bootTime()) {
    out.push_back(single("process_start_time_seconds",
                         "Start time of the process since the Unix epoch in seconds.",
                         MetricType::Gauge, *boot + std::stod(f[19]) / ticks));
  }
  std::error_code ec;
  std::size_t fds = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++fds;
  if (!ec) {
    out.push_back(single("process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
                         static_cast<double>(fds)));
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    out.push_back(single("process_max_fds", "Maximum number of open file descriptors.",
                         MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  }
}

}  // namespace

std::vector<MetricFamily> StateMetrics::Collect() const {
  std::vector<MetricFamily> out;
  if (sources_.watchRestarts) {
    MetricFamily restarts =
        family("hetbench_watch_restarts_total",
               "Watches of the Kubernetes API re-established, by resource.", MetricType::Counter);
    for (const auto& [resource, n] : sources_.watchRestarts())
      restarts.metric.push_back(detail::sample(static_cast<double>(n), {{"resource", resource}}));
    out.push_back(std::move(restarts));
  }
  // One sample each, read from its source when the operator gave one.
  const auto add = [&out](const auto& source, const char* name, const char* help, MetricType type) {
    if (source) out.push_back(single(name, help, type, static_cast<double>(source())));
  };
  add(sources_.logStreams, "hetbench_log_streams_active",
      "Container log streams not ended: followed, or waiting for a worker or to resume.",
      MetricType::Gauge);
  add(sources_.logBytes, "hetbench_log_bytes_total", "Bytes of container logs written to disk.",
      MetricType::Counter);
  add(sources_.logWriteFailures, "hetbench_log_write_failures_total",
      "Container log streams ended because their file could not be written.", MetricType::Counter);
  add(sources_.logDirBytes, "hetbench_log_dir_bytes",
      "Bytes of the files under the log directory, as of the last sweep.", MetricType::Gauge);
  add(sources_.logDirFreeBytes, "hetbench_log_dir_free_bytes",
      "Bytes free on the log directory's file system, as of the last sweep.", MetricType::Gauge);
  add(sources_.logDirMaxBytes, "hetbench_log_dir_max_bytes",
      "The bound on the log directory's bytes (--log-dir-max-bytes; 0: none).", MetricType::Gauge);
  if (sources_.logPrunedRuns) {
    MetricFamily pruned = family("hetbench_log_pruned_runs_total",
                                 "Runs whose kept logs were deleted, by reason (retention, size).",
                                 MetricType::Counter);
    std::map<std::string, std::uint64_t> byReason = sources_.logPrunedRuns();
    for (const char* reason : {"retention", "size"}) byReason.try_emplace(reason, 0);
    for (const auto& [reason, n] : byReason)
      pruned.metric.push_back(detail::sample(static_cast<double>(n), {{"reason", reason}}));
    out.push_back(std::move(pruned));
  }
  addProcessFamilies(out);
  return out;
}

}  // namespace hetbench::metrics
