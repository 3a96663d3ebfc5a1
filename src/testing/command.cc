#include "src/testing/command.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace ksched::testing {
namespace {

// Both ends close on exec; the child gets its end through dup2, which clears the flag.
struct Pipe {
  int read = -1;
  int write = -1;
  bool Open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  void Close() {
    if (read >= 0) close(read);
    if (write >= 0) close(write);
    read = write = -1;
  }
};

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Reads what is ready on `fd` into `text`; closes `fd` and sets it to -1 at the end of the stream.
void Drain(int& fd, short revents, std::string& text) {
  if (fd < 0 || revents == 0) return;
  std::array<char, 65536> buf;
  ssize_t n = read(fd, buf.data(), buf.size());
  if (n > 0) {
    text.append(buf.data(), static_cast<size_t>(n));
  } else if (n == 0 || errno != EINTR) {
    close(fd);
    fd = -1;
  }
}

// Feeds `input` to `in` and drains `out` and `err` until both are closed. Takes ownership of the
// three descriptors.
void Exchange(int in, int out, int err, std::string_view input, CommandResult& result) {
  if (input.empty()) {
    close(in);
    in = -1;
  }
  while (out >= 0 || err >= 0) {
    std::array<pollfd, 3> fds = {pollfd{in, POLLOUT, 0}, pollfd{out, POLLIN, 0},
                                 pollfd{err, POLLIN, 0}};
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (in >= 0 && fds[0].revents != 0) {
      ssize_t n = write(in, input.data(), input.size());  // non-blocking: writes what fits
      if (n > 0) input.remove_prefix(static_cast<size_t>(n));
      if (input.empty() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        close(in);
        in = -1;
      }
    }
    Drain(out, fds[1].revents, result.out);
    Drain(err, fds[2].revents, result.err);
  }
  if (in >= 0) close(in);
  if (out >= 0) close(out);
  if (err >= 0) close(err);
}

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, std::string_view input,
                         const std::vector<std::string>& env) {
  CommandResult result;
  if (argv.empty()) {
    result.err = "RunCommand: no program given";
    return result;
  }
  // A program that exits without reading all its input must not kill the test with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  Pipe in, out, err;
  if (!in.Open() || !out.Open() || !err.Open()) {
    result.err = std::string("RunCommand: pipe: ") + std::strerror(errno);
    in.Close(), out.Close(), err.Close();
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);

  std::vector<std::string> args = argv;
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) envs.emplace_back(*e);
  envs.insert(envs.end(), env.begin(), env.end());
  std::vector<char*> c_args = CStrings(args);
  std::vector<char*> c_envs = CStrings(envs);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, c_args[0], &actions, nullptr, c_args.data(), c_envs.data());
  posix_spawn_file_actions_destroy(&actions);
  close(in.read);
  close(out.write);
  close(err.write);
  if (rc != 0) {
    close(in.write), close(out.read), close(err.read);
    result.err = "RunCommand: cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  fcntl(in.write, F_SETFL, O_NONBLOCK);  // never block on input while the output is full
  Exchange(in.write, out.read, err.read, input, result);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string ShellQuote(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& arg : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !arg.empty() && arg.find_first_not_of(
                                     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789-_./=:,@%+") == std::string::npos;
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

namespace {

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

Process::Process(const std::vector<std::string>& argv, std::string log_path,
                 const std::vector<std::string>& env)
    : log_path_(std::move(log_path)) {
  int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || argv.empty()) {
    start_error_ = "Process: cannot open " + log_path_ + ": " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
  std::vector<std::string> args = argv;
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) envs.emplace_back(*e);
  envs.insert(envs.end(), env.begin(), env.end());
  std::vector<char*> c_args = CStrings(args);
  std::vector<char*> c_envs = CStrings(envs);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, c_args[0], &actions, nullptr, c_args.data(), c_envs.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fd);
  if (rc != 0) {
    start_error_ = "Process: cannot start " + argv[0] + ": " + std::strerror(rc);
    return;
  }
  pid_ = pid;
}

Process::~Process() {
  if (Running()) Stop(SIGKILL);
}

bool Process::Running() {
  if (pid_ < 0 || exit_code_ >= 0) return false;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) exit_code_ = ExitCode(status);
  return r == 0;
}

int Process::Stop(int sig) {
  if (pid_ < 0) return -1;
  if (Running()) {
    kill(pid_, sig);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_code_ = ExitCode(status);
  }
  return exit_code_;
}

std::string Process::Log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return start_error_ + ss.str();
}

}  // namespace ksched::testing
