// Whether protobuf, as kube-scheduler's client speaks it (--kube-api-content-type), would decode
// pods faster than ksched's JSON path (simdjson, then api::DecodePod). The pods are made and bound
// in a fresh kube-apiserver on loopback (scripts/cluster.sh, `make k8s`) from scheduler_perf's
// templates, read back in both encodings, and decoded one at a time, as a watch delivers them:
//   json parse        simdjson's DOM of the pod, as ksched parses a watch event;
//   json to api::Pod  the same, then api::DecodePod into ksched's types: what ksched does;
//   protobuf parse    ParseFromString into the k8s.io/api core/v1 Pod that protoc generated from
//                     the pinned module's generated.proto (scripts/k8s/protos.sh), on the heap and
//                     on an arena. It makes no api::Pod, which a protobuf path would also have to;
//   api::Pod copy     copying the api::Pods that JSON gave: the least that making them adds.
// CPU time of this thread, per pod, the median of --rounds rounds over every pod.
//
//   build/bench/decode_bench [--pods 300] [--rounds 30] [--out decode.md]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/report.h"
#include "fmt/format.h"
#include "google/protobuf/arena.h"
#include "k8s.io/api/core/v1/generated.pb.h"
#include "k8s.io/apimachinery/pkg/runtime/generated.pb.h"
#include "simdjson.h"
#include "src/api/decode.h"
#include "src/client/http.h"
#include "src/client/rest_config.h"
#include "src/testing/control_plane.h"
#include "yaml-cpp/yaml.h"

namespace ksched::bench {
namespace {

namespace corev1 = k8s::io::api::core::v1;

constexpr char kProtobuf[] = "application/vnd.kubernetes.protobuf";

int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// The median over `rounds` of the CPU ns per item that `decode_all` spends on `items` items.
double NsPerItem(size_t items, int rounds, const std::function<void()>& decode_all) {
  std::vector<double> per_item;
  for (int i = 0; i < rounds; ++i) {
    const int64_t start = ThreadCpuNs();
    decode_all();
    per_item.push_back(static_cast<double>(ThreadCpuNs() - start) / static_cast<double>(items));
  }
  std::nth_element(per_item.begin(), per_item.begin() + rounds / 2, per_item.end());
  return per_item[rounds / 2];
}

// `pods` pods from scheduler_perf's templates in turn (a plain pod, one with required pod
// anti-affinity, one with a topology spread constraint), as one YAML stream for kubectl.
absl::StatusOr<std::string> PodManifests(int pods) {
  const std::vector<std::string> templates = {"pod-default", "pod-with-pod-anti-affinity",
                                              "pod-with-topology-spreading"};
  YAML::Emitter out;
  for (int i = 0; i < pods; ++i) {
    const std::string file = fmt::format("{}/bench/templates/{}.yaml", KSCHED_SOURCE_DIR,
                                         templates[i % templates.size()]);
    YAML::Node pod;
    try {
      pod = YAML::LoadFile(file);
    } catch (const YAML::Exception& e) {
      return absl::InvalidArgumentError(fmt::format("{}: {}", file, e.what()));
    }
    pod["metadata"]["name"] = fmt::format("pod-{}", i);
    out << pod;
  }
  return std::string(out.c_str());
}

absl::StatusOr<std::string> Get(client::HttpClient& http, const std::string& path,
                                const std::string& accept) {
  client::HttpResponse r = http.Call({.path = path, .accept = accept});
  if (!r.ok()) return r.ToStatus();
  return std::move(r.body);
}

struct Pods {
  std::vector<simdjson::padded_string> json;
  std::vector<std::string> protobuf;
  std::vector<api::Pod> decoded;  // From `json`.
};

// Each pod of the namespace as the API server encodes it in JSON and in protobuf (a list's items
// one by one, as a watch sends them), in the same order.
absl::StatusOr<Pods> ReadPods(client::HttpClient& http) {
  const std::string path = "/api/v1/namespaces/default/pods";
  absl::StatusOr<std::string> json_list = Get(http, path, "application/json");
  if (!json_list.ok()) return json_list.status();
  absl::StatusOr<std::string> proto_list = Get(http, path, kProtobuf);
  if (!proto_list.ok()) return proto_list.status();
  Pods pods;
  simdjson::dom::parser parser;
  simdjson::dom::array items;
  if (auto err = parser.parse(*json_list)["items"].get_array().get(items); err) {
    return absl::DataLossError(fmt::format("the JSON list: {}", simdjson::error_message(err)));
  }
  for (simdjson::dom::element item : items) {
    pods.json.emplace_back(simdjson::minify(item));
  }
  // A protobuf answer is the magic "k8s\0", then a runtime.Unknown that holds the object.
  constexpr std::string_view kMagic("k8s\0", 4);
  k8s::io::apimachinery::pkg::runtime::Unknown unknown;
  corev1::PodList list;
  if (!std::string_view(*proto_list).starts_with(kMagic) ||
      !unknown.ParseFromArray(proto_list->data() + kMagic.size(),
                              static_cast<int>(proto_list->size() - kMagic.size())) ||
      !list.ParseFromString(unknown.raw())) {
    return absl::DataLossError("the protobuf list does not decode");
  }
  for (const corev1::Pod& pod : list.items()) pods.protobuf.push_back(pod.SerializeAsString());
  if (pods.json.size() != pods.protobuf.size()) {
    return absl::DataLossError(
        fmt::format("{} pods in JSON, {} in protobuf", pods.json.size(), pods.protobuf.size()));
  }
  // Both decoders must read the same pods: the same names, nodes and containers.
  for (size_t i = 0; i < pods.json.size(); ++i) {
    absl::StatusOr<api::Pod> from_json = api::DecodePod(std::string_view(pods.json[i]));
    corev1::Pod from_proto;
    if (!from_json.ok() || !from_proto.ParseFromString(pods.protobuf[i]) ||
        from_json->metadata.name != from_proto.metadata().name() ||
        from_json->spec.node_name != from_proto.spec().nodename() ||
        from_json->spec.node_name.empty() ||
        from_json->spec.containers.size() !=
            static_cast<size_t>(from_proto.spec().containers_size())) {
      return absl::DataLossError(fmt::format("pod {} differs between JSON and protobuf", i));
    }
    pods.decoded.push_back(*std::move(from_json));
  }
  return pods;
}

int Main(int argc, char** argv) {
  CLI::App app("decodes the same pods from JSON and from protobuf, as the API server sends them");
  int pods_wanted = 300, rounds = 30;
  std::string out;
  app.add_option("--pods", pods_wanted, "pods to make")->check(CLI::Range(3, 5000));
  app.add_option("--rounds", rounds, "rounds over every pod")->check(CLI::Range(1, 1000));
  app.add_option("--out", out, "also write the table to this file");
  CLI11_PARSE(app, argc, argv);
  auto fail = [](const std::string& what, const absl::Status& st) {
    std::fprintf(stderr, "decode_bench: %s: %s\n", what.c_str(), std::string(st.message()).c_str());
    return 1;
  };

  absl::StatusOr<std::unique_ptr<testing::ControlPlane>> cluster = testing::ControlPlane::Start();
  if (!cluster.ok()) return fail("starting the control plane", cluster.status());
  absl::StatusOr<std::string> manifests = PodManifests(pods_wanted);
  if (!manifests.ok()) return fail("templates", manifests.status());
  if (testing::CommandResult r = (*cluster)->Kubectl({"create", "-f", "-"}, *manifests);
      r.exit_code != 0) {
    return fail("kubectl create", absl::InternalError(r.err));
  }
  absl::StatusOr<client::RestConfig> rest =
      client::LoadRestConfig({.kubeconfig = (*cluster)->kubeconfig()});
  if (!rest.ok()) return fail("kubeconfig", rest.status());
  auto http = client::HttpClient::Create(*rest);
  if (!http.ok()) return fail("client", http.status());
  // Bound, as most pods a scheduler watches are: spec.nodeName and the PodScheduled condition.
  for (int i = 0; i < pods_wanted; ++i) {
    const std::string name = fmt::format("pod-{}", i);
    client::HttpResponse r = (*http)->Call(
        {.method = "POST",
         .path = fmt::format("/api/v1/namespaces/default/pods/{}/binding", name),
         .body = fmt::format(R"({{"apiVersion":"v1","kind":"Binding","metadata":{{"name":"{}"}},)"
                             R"("target":{{"kind":"Node","name":"node-{}"}}}})",
                             name, i % 10)});
    if (!r.ok()) return fail("binding " + name, r.ToStatus());
  }
  absl::StatusOr<Pods> pods = ReadPods(**http);
  if (!pods.ok()) return fail("reading the pods", pods.status());

  const size_t n = pods->json.size();
  size_t json_bytes = 0, proto_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    json_bytes += pods->json[i].size();
    proto_bytes += pods->protobuf[i].size();
  }
  simdjson::dom::parser parser;
  const double json_parse = NsPerItem(n, rounds, [&] {
    for (const simdjson::padded_string& text : pods->json) {
      simdjson::dom::element e;
      if (parser.parse(text).get(e) != simdjson::SUCCESS) std::abort();
    }
  });
  const double json_decode = NsPerItem(n, rounds, [&] {
    for (const simdjson::padded_string& text : pods->json) {
      simdjson::dom::element e;
      api::Pod pod;
      if (parser.parse(text).get(e) != simdjson::SUCCESS || !api::DecodePod(e, &pod).ok()) {
        std::abort();
      }
    }
  });
  const double proto_parse = NsPerItem(n, rounds, [&] {
    for (const std::string& bytes : pods->protobuf) {
      corev1::Pod pod;
      if (!pod.ParseFromString(bytes)) std::abort();
    }
  });
  const double proto_arena = NsPerItem(n, rounds, [&] {
    for (const std::string& bytes : pods->protobuf) {
      google::protobuf::Arena arena;
      if (!google::protobuf::Arena::CreateMessage<corev1::Pod>(&arena)->ParseFromString(bytes)) {
        std::abort();
      }
    }
  });

  const double pod_copy = NsPerItem(n, rounds, [&] {
    for (const api::Pod& pod : pods->decoded) {
      api::Pod copy = pod;
      if (copy.metadata.name.empty()) std::abort();
    }
  });

  std::string table = MachineLine() + "\n\n";
  table += fmt::format(
      "| decoding, one pod at a time ({} pods, median of {} rounds) | bytes per pod | CPU ns per "
      "pod |\n|---|---|---|\n",
      n, rounds);
  table += fmt::format("| JSON: simdjson parse | {} | {:.0f} |\n", json_bytes / n, json_parse);
  table += fmt::format("| JSON: simdjson parse, then api::DecodePod (ksched) | {} | {:.0f} |\n",
                       json_bytes / n, json_decode);
  table += fmt::format("| protobuf: ParseFromString into core/v1 Pod | {} | {:.0f} |\n",
                       proto_bytes / n, proto_parse);
  table += fmt::format("| protobuf: the same on an arena | {} | {:.0f} |\n", proto_bytes / n,
                       proto_arena);
  table += fmt::format(
      "| api::Pod copied (the least a protobuf path adds to make ksched's types) | | {:.0f} |\n",
      pod_copy);
  std::fputs(table.c_str(), stdout);
  if (!out.empty()) std::ofstream(out) << table;
  return 0;
}

}  // namespace
}  // namespace ksched::bench

int main(int argc, char** argv) { return ksched::bench::Main(argc, argv); }
