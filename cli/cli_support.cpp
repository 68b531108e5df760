#include "cli_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "mpimon/error.hpp"

namespace mpimon::cli {

bool parse_options(const Command& cmd, const std::vector<std::string>& args, po::options_description& options,
                   const po::positional_options_description& positional, po::variables_map& vm) {
  options.add_options()("help,h", "print this help and exit");
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "Usage: " << cmd.name << " " << cmd.synopsis << "\n\n" << cmd.summary << "\n\n" << options << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

namespace {
int usage_error(const Command& cmd, const char* what) {
  std::cerr << cmd.name << ": error: " << what << "\n"
            << "Usage: " << cmd.name << " " << cmd.synopsis << "\n"
            << "Try '" << cmd.name << " --help' for more information.\n";
  return kExitUsage;
}
}  // namespace

int run_command(const Command& cmd, const std::function<int()>& body) {
  try {
    return body();
  } catch (const po::error& e) {
    return usage_error(cmd, e.what());
  } catch (const mpimon::Error& e) {
    if (e.kind() == mpimon::Error::Kind::usage) return usage_error(cmd, e.what());
    std::cerr << cmd.name << ": error: " << e.what() << "\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << cmd.name << ": error: " << e.what() << "\n";
    return kExitFailure;
  }
}

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma - start);
    if (item.empty()) throw po::error("empty item in --" + option + " '" + text + "'");
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

namespace {
// Fixed storage, so the signal handler touches nothing but unlink() and _exit().
char g_interrupt_path[4096];

extern "C" void remove_and_exit(int sig) {
  if (g_interrupt_path[0] != '\0') unlink(g_interrupt_path);
  _exit(128 + sig);
}
}  // namespace

void remove_on_interrupt(const std::string& path) {
  static bool installed = false;
  if (!installed) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, remove_and_exit);
    installed = true;
  }
  if (path.size() >= sizeof g_interrupt_path) return;
  std::memcpy(g_interrupt_path, path.c_str(), path.size() + 1);
}

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  temporary_ = path_ + ".tmp-XXXXXX";
  int fd = mkstemp(temporary_.data());
  if (fd < 0) raise_error(Error::Kind::system, path_, std::string("cannot create a file here: ") + std::strerror(errno));
  const mode_t mask = umask(0);  // mkstemp makes the file private; give it the usual permissions
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  remove_on_interrupt(temporary_);
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
  }
  remove_on_interrupt("");
}

void AtomicOutput::commit() {
  std::error_code ec;
  std::filesystem::rename(temporary_, path_, ec);
  if (ec) raise_error(Error::Kind::system, path_, "cannot write: " + ec.message());
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  AtomicOutput out(path);
  {
    std::ofstream stream(out.temporary(), std::ios::binary | std::ios::trunc);
    writer(stream);
    if (!stream.flush()) raise_error(Error::Kind::system, path, "write error");
  }
  out.commit();
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

std::string to_decimal(uint128 value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return digits;
}

std::vector<TrafficClass> parse_classes(const std::string& text, const std::string& option) {
  std::vector<TrafficClass> classes;
  for (const auto& item : split_list(text, option.substr(2))) {
    auto c = parse_class(item);
    if (!c) throw po::error("unknown class '" + item + "' in " + option + " (external, internal, osc_sent, osc_recv, coll)");
    classes.push_back(*c);
  }
  return classes;
}

Metric parse_metric(const std::string& text) {
  if (text == "bytes") return Metric::bytes;
  if (text == "count") return Metric::count;
  throw po::error("--metric must be bytes or count, not '" + text + "'");
}

}  // namespace mpimon::cli
