// The names of the guides' plugins, as their configuration files spell them.
#pragma once

namespace ksched::guides::names {

inline constexpr char kNetworkAware[] = "NetworkAware";
inline constexpr char kAnnotationGate[] = "AnnotationGate";
inline constexpr char kNodePrice[] = "NodePrice";
inline constexpr char kAppPinning[] = "AppPinning";

}  // namespace ksched::guides::names
