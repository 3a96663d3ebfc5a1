# ksched_add_scheduler(NAME SOURCES...): a scheduler binary on the ksched app API (ksched/app.h),
# such as ksched itself or your own with your plugins compiled in. The SDK's archives (the SDK and
# the object model) are linked whole and their symbols, those only (ksched_sdk.map), are exported,
# so that it can load plugin libraries (--plugin-library) that call the SDK inside it.
if(NOT KSCHED_SDK_VERSION_SCRIPT)
  set(KSCHED_SDK_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/ksched_sdk.map)  # Installed beside.
endif()
function(ksched_add_scheduler name)
  add_executable(${name} ${ARGN})
  target_compile_features(${name} PRIVATE cxx_std_20)
  set_target_properties(${name} PROPERTIES ENABLE_EXPORTS ON LINK_DEPENDS
                                           ${KSCHED_SDK_VERSION_SCRIPT})
  target_link_options(${name} PRIVATE "LINKER:--whole-archive"
                      "$<TARGET_FILE:ksched::ksched_sdk>" "$<TARGET_FILE:ksched::ksched_api>"
                      "LINKER:--no-whole-archive"
                      "LINKER:--version-script=${KSCHED_SDK_VERSION_SCRIPT}")
  target_link_libraries(${name} PRIVATE ksched::ksched_cli)
endfunction()
