// Consumable capacity (upstream's structured/internal/incubating/consumable_capacity.go): what one
// allocation of a device consumes of each of the device's capacities, and whether that fits
// beside what the device's other allocations consume.
//
//   absl::StatusOr<std::optional<Amounts>> took =
//       TakeCapacity(device, request.capacity_requests, in_use, /*fractional=*/true);
//   if (!took.ok()) ...          // a request the policy cannot represent: upstream's fatal error
//   if (!took->has_value()) ...  // the device cannot give it: try another
//   ... **took ...               // by capacity name: what this allocation consumes
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ksched/api/quantity.h"
#include "ksched/api/resource.h"

namespace ksched::plugins::dynamic_resources {

// Quantities by capacity name.
using Amounts = api::ResourceList;

// What one allocation for a request of `requests` (its capacity.requests) consumes of each
// capacity of `device`, beside `in_use` (what the device's other allocations consume): for each
// capacity, the request rounded up as the capacity's policy says, else the policy's default, else
// the whole capacity. nullopt when the device cannot give it: a request names a capacity the
// device lacks, an amount breaks its capacity's policy, or a capacity would be exceeded.
// InvalidArgument, as upstream's fatal errors (`capacity "memory": capacity request cannot be
// represented in the device's range arithmetic: ...`, `capacity "memory": capacity value is
// negative`), for a request the policy's arithmetic cannot hold. `fractional`:
// DRAFractionalCapacityRange, under which a range is rounded in milli-units.
absl::StatusOr<std::optional<Amounts>> TakeCapacity(const api::Device& device,
                                                    const Amounts& requests, const Amounts& in_use,
                                                    bool fractional);

// `into` plus `amounts`, by name.
void AddAmounts(const Amounts& amounts, Amounts* into);

}  // namespace ksched::plugins::dynamic_resources
