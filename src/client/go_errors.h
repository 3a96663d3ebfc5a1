// A transport's failures in the words of Go's net/http, as kube-scheduler's clients report them
// (and as its pods' conditions then say, for an extender):
//
//   Post "http://127.0.0.1:8888/filter": dial tcp 127.0.0.1:8888: connect: connection refused
#pragma once

#include <sys/socket.h>

#include <string>
#include <string_view>

namespace ksched::client {

// Go's url.Error: `Post "URL": why` (the method as Go's Op spells it: Get, Post, Patch...).
std::string GoUrlError(std::string_view method, std::string_view url, std::string_view why);

// Go's net.OpError of a failed connect to `host_port` (an IPv6 address bracketed):
// `dial tcp HOST:PORT: connect: connection refused`, errno's text as Go's syscall gives it.
std::string GoDialError(std::string_view host_port, int err);
// The same, of a socket address; ETIMEDOUT there is a dial that ran out of time ("i/o timeout").
std::string GoDialError(const sockaddr* addr, int err);

}  // namespace ksched::client
