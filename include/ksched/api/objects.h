// The Kubernetes objects the scheduler reads, as plain C++ values.
//
// Field names follow the real API in snake_case; only the fields a scheduler looks at are kept.
// Optional API fields that have no zero value with the same meaning are std::optional (an absent
// `priority` is not a priority of 0). Objects are decoded from the API's JSON by src/api/decode.h
// (one file per API group, as here); plugins only read them.
//
//   const Pod& pod = ...;
//   for (const Container& c : pod.spec.containers) { ... c.resources.requests ... }
//
// Thread safety: plain values; concurrent reads are safe.
#pragma once

// One header per API group: include the one you need, or this one for all.
#include "ksched/api/apps.h"
#include "ksched/api/core.h"
#include "ksched/api/meta.h"
#include "ksched/api/policy.h"
#include "ksched/api/resource.h"
#include "ksched/api/scheduling.h"
#include "ksched/api/storage.h"
