// scheduling.k8s.io/v1: PriorityClass; v1beta1: PodGroup.
#include "src/api/decode.h"
#include "src/api/decode_internal.h"

namespace ksched::api {
namespace decoding {
namespace {

absl::Status PriorityClassAt(element e, const Path& p, PriorityClass* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") return Meta(v, vp, &out->metadata);
    if (k == "value") return Integer(v, vp, &out->value);
    if (k == "globalDefault") return Bool(v, vp, &out->global_default);
    if (k == "preemptionPolicy") return OptStr(v, vp, &out->preemption_policy);
    return absl::OkStatus();
  });
}

absl::Status PolicyOf(element e, const Path& p, PodGroup* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "basic") {
      out->basic = !v.is_null();
      return absl::OkStatus();
    }
    if (k != "gang" || v.is_null()) return absl::OkStatus();
    out->gang_min_count = 0;
    return Fields(v, vp, [&](std::string_view gk, element gv, const Path& gvp) -> absl::Status {
      if (gk == "minCount") return Integer(gv, gvp, &*out->gang_min_count);
      return absl::OkStatus();
    });
  });
}

absl::Status PodGroupSpecOf(element e, const Path& p, PodGroup* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "schedulingPolicy") return PolicyOf(v, vp, out);
    if (k == "priority") return OptInteger(v, vp, &out->priority);
    if (k == "priorityClassName") return Str(v, vp, &out->priority_class_name);
    if (k == "disruptionMode") {
      element all;
      out->disrupt_all = v.is_object() && !v["all"].get(all) && !all.is_null();
      return absl::OkStatus();
    }
    if (k == "schedulingConstraints") {
      if (v.is_null()) return absl::OkStatus();
      PodGroup::SchedulingConstraints& c = out->scheduling_constraints.emplace();
      return Fields(v, vp, [&](std::string_view ck, element cv, const Path& cvp) -> absl::Status {
        if (ck != "topology") return absl::OkStatus();
        return Items(cv, cvp, &c.topology_keys, [](element t, const Path& tp, std::string* key) {
          return Fields(t, tp, [&](std::string_view tk, element tv, const Path& tvp) {
            return tk == "key" ? Str(tv, tvp, key) : absl::OkStatus();
          });
        });
      });
    }
    if (k == "preemptionPolicy") return OptStr(v, vp, &out->preemption_policy);
    if (k == "resourceClaims") return Items(v, vp, &out->resource_claims, PodClaim);
    if (k == "parentCompositePodGroupName") {
      Unsupported(v, vp, &out->gated_fields);
    }
    return absl::OkStatus();
  });
}

absl::Status PodGroupAt(element e, const Path& p, PodGroup* out) {
  return Fields(e, p, [&](std::string_view k, element v, const Path& vp) -> absl::Status {
    if (k == "metadata") {
      element generation;
      if (v.is_object() && !v["generation"].get(generation)) {
        if (absl::Status st = Integer(generation, vp.Field("generation"), &out->generation);
            !st.ok()) {
          return st;
        }
      }
      return Meta(v, vp, &out->metadata);
    }
    if (k == "spec") return PodGroupSpecOf(v, vp, out);
    if (k != "status") return absl::OkStatus();
    return Fields(v, vp, [&](std::string_view sk, element sv, const Path& svp) -> absl::Status {
      if (sk == "conditions") return Items(sv, svp, &out->conditions, ConditionOf<Condition>);
      if (sk == "resourceClaimStatuses") {
        return Items(sv, svp, &out->resource_claim_statuses, PodClaimStatus);
      }
      return absl::OkStatus();
    });
  });
}

}  // namespace
}  // namespace decoding

using decoding::element;
using decoding::Path;

absl::Status DecodePriorityClass(element e, PriorityClass* out) {
  return decoding::PriorityClassAt(e, Path(), out);
}

absl::Status DecodePodGroup(element e, PodGroup* out) {
  return decoding::PodGroupAt(e, Path(), out);
}

}  // namespace ksched::api
