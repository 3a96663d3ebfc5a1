#include "src/sim/claims.h"

#include <string_view>

#include "absl/hash/hash.h"
#include "fmt/format.h"

namespace ksched::sim {
namespace {

// The controller's generateName: "<pod>-<claim>-", both cut in proportion when longer than 57.
std::string GenerateName(const std::string& pod, const std::string& claim) {
  std::string name = pod + "-" + claim + "-";
  constexpr size_t kMaxBase = 57;  // 63 with the hyphen and 5 generated characters.
  if (name.size() > kMaxBase) {
    const size_t total = name.size();
    name = pod.substr(0, pod.size() * kMaxBase / total) + "-" +
           claim.substr(0, claim.size() * kMaxBase / total);
  }
  return name;
}

// Five characters of the API server's alphabet for generated names
// (k8s.io/apimachinery/pkg/util/rand), from a hash of `key`.
std::string Suffix(std::string_view key) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = absl::HashOf(key);
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out += kAlphabet[h % kAlphabet.size()];
    h /= kAlphabet.size();
  }
  return out;
}

// The claim made for `owner`'s claim `claim_name` from `tmpl`, owned by `owner_ref`; its name's
// suffix derived from `key`.
api::ResourceClaim ClaimFor(const api::ObjectMeta& owner, api::OwnerReference owner_ref,
                            std::string_view key, const std::string& claim_name,
                            const api::ResourceClaimTemplate& tmpl) {
  api::ResourceClaim claim;
  claim.metadata.name = GenerateName(owner.name, claim_name) + Suffix(key);
  claim.metadata.namespace_ = owner.namespace_;
  claim.metadata.uid = owner.namespace_ + "/" + claim.metadata.name;
  claim.metadata.owner_references = {std::move(owner_ref)};
  claim.metadata.labels = tmpl.claim_labels;
  claim.metadata.annotations = tmpl.claim_annotations;
  claim.metadata.annotations[kPodClaimNameAnnotation] = claim_name;
  claim.spec = tmpl.spec;
  return claim;
}

}  // namespace

api::ResourceClaim ClaimFromTemplate(const api::Pod& pod, const api::PodResourceClaim& pod_claim,
                                     const api::ResourceClaimTemplate& tmpl) {
  const api::ObjectMeta& p = pod.metadata;
  return ClaimFor(
      p, {.api_version = "v1", .kind = "Pod", .name = p.name, .uid = p.uid, .controller = true},
      p.namespace_ + "/" + p.name + "/" + pod_claim.name, pod_claim.name, tmpl);
}

api::ResourceClaim ClaimFromTemplate(const api::PodGroup& group,
                                     const api::PodResourceClaim& group_claim,
                                     const api::ResourceClaimTemplate& tmpl) {
  const api::ObjectMeta& g = group.metadata;
  return ClaimFor(g,
                  {.api_version = "scheduling.k8s.io/v1beta1",
                   .kind = "PodGroup",
                   .name = g.name,
                   .uid = g.uid,
                   .controller = true},
                  fmt::format("podgroup/{}/{}/{}", g.namespace_, g.name, group_claim.name),
                  group_claim.name, tmpl);
}

}  // namespace ksched::sim
