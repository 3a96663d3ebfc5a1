#include "src/client/go_errors.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "fmt/format.h"

namespace ksched::client {
namespace {

// Go's net.JoinHostPort.
std::string JoinHostPort(std::string_view ip, long port) {
  return ip.find(':') != std::string_view::npos ? fmt::format("[{}]:{}", ip, port)
                                                : fmt::format("{}:{}", ip, port);
}

}  // namespace

std::string GoUrlError(std::string_view method, std::string_view url, std::string_view why) {
  std::string op(method);
  for (size_t i = 1; i < op.size(); ++i) {
    op[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(op[i])));
  }
  return fmt::format("{} \"{}\": {}", op, url, why);
}

std::string GoDialError(std::string_view host_port, int err) {
  // Go's syscall.Errno texts are glibc's with a lower-case first letter.
  std::string text = std::strerror(err);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return fmt::format("dial tcp {}: connect: {}", host_port, text);
}

std::string GoDialError(const sockaddr* addr, int err) {
  char ip[INET6_ADDRSTRLEN] = "";
  long port = 0;
  if (addr->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
    port = ntohs(in6->sin6_port);
  } else if (addr->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
    port = ntohs(in->sin_port);
  }
  if (err == ETIMEDOUT) return fmt::format("dial tcp {}: i/o timeout", JoinHostPort(ip, port));
  return GoDialError(JoinHostPort(ip, port), err);
}

}  // namespace ksched::client
