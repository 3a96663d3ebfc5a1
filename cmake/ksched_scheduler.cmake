# ksched_add_scheduler(NAME SOURCES...): a scheduler binary on the ksched app API (ksched/app.h),
# such as ksched itself or your own with your plugins compiled in. Its SDK symbols are exported and
# the SDK's archive is linked whole, so that it can load plugin libraries (--plugin-library) that
# call the SDK inside it.
function(ksched_add_scheduler name)
  add_executable(${name} ${ARGN})
  target_compile_features(${name} PRIVATE cxx_std_20)
  set_target_properties(${name} PROPERTIES ENABLE_EXPORTS ON)
  target_link_options(${name} PRIVATE "LINKER:--whole-archive"
                      "$<TARGET_FILE:ksched::ksched_sdk>" "LINKER:--no-whole-archive")
  target_link_libraries(${name} PRIVATE ksched::ksched_cli)
endfunction()
