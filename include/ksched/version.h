// The plugin SDK's version. A plugin compiled against these headers records KSCHED_SDK_VERSION;
// the ksched it runs in answers SdkVersion(). They must be equal: the SDK's interfaces are C++
// classes, so their layout is part of the contract, and any change to include/ksched/ bumps the
// number. Loading a plugin library checks it (and refuses a mismatch with a clear error).
//
//   static_assert(KSCHED_SDK_VERSION >= 1);
//   if (built_with != ksched::SdkVersion()) ... refuse the plugin
#pragma once

// Bumped whenever anything in include/ksched/ changes in a way a compiled plugin would notice. A
// ksched binary exports the SDK's symbols, and only those, in the version node KSCHED_SDK_<n>
// (cmake/ksched_sdk.map.in); test/plugin_library/sdk_symbols.txt lists them for this number.
#define KSCHED_SDK_VERSION 36

namespace ksched {

// The KSCHED_SDK_VERSION that the running ksched was built with.
int SdkVersion();

}  // namespace ksched
