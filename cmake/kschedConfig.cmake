# find_package(ksched): the ksched SDK and app libraries, installed by `cmake --install`.
#
#   find_package(ksched REQUIRED)
#   ksched_add_scheduler(my-scheduler main.cc my_plugin.cc)
#
# The libraries are static and need the same Debian packages as ksched itself
# (scripts/install-deps.sh); the same compiler must build your code.
include(CMakeFindDependencyMacro)
foreach(dependency absl simdjson yaml-cpp nlohmann_json TBB fmt spdlog CLI11 OpenSSL PkgConfig)
  find_dependency(${dependency})
endforeach()
pkg_check_modules(NGHTTP2 REQUIRED IMPORTED_TARGET libnghttp2)
include(${CMAKE_CURRENT_LIST_DIR}/kschedTargets.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/ksched_scheduler.cmake)
