# Every hetbench target links hetbench::build_flags instead of relying on global flags.
add_library(hetbench_build_flags INTERFACE)
add_library(hetbench::build_flags ALIAS hetbench_build_flags)

target_compile_options(hetbench_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                      -Wnon-virtual-dtor -Wold-style-cast)
# cpprestsdk's U() macro collides with fmt (used by spdlog).
target_compile_definitions(hetbench_build_flags INTERFACE _TURN_OFF_PLATFORM_STRING)

# Line tables only in the default RelWithDebInfo build: file and line in backtraces and in
# sanitizer reports, for about two thirds of the compile time of full -g.
target_compile_options(hetbench_build_flags INTERFACE $<$<CONFIG:RelWithDebInfo>:-g1>)

if(HETBENCH_WERROR)
  target_compile_options(hetbench_build_flags INTERFACE -Werror)
endif()

if(HETBENCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "HETBENCH_FUZZ needs clang (-DCMAKE_CXX_COMPILER=clang++), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(NOT HETBENCH_SANITIZE STREQUAL "")
    message(FATAL_ERROR "HETBENCH_FUZZ brings its own sanitizers: leave HETBENCH_SANITIZE empty")
  endif()
  # Coverage for libFuzzer in every target; the fuzzers themselves link -fsanitize=fuzzer.
  set(_hetbench_san -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer)
elseif(HETBENCH_SANITIZE STREQUAL "address")
  set(_hetbench_san -fsanitize=address,undefined -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer)
elseif(HETBENCH_SANITIZE STREQUAL "thread")
  set(_hetbench_san -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT HETBENCH_SANITIZE STREQUAL "")
  message(FATAL_ERROR "HETBENCH_SANITIZE must be empty, 'address' or 'thread', not '${HETBENCH_SANITIZE}'")
endif()
if(_hetbench_san)
  target_compile_options(hetbench_build_flags INTERFACE ${_hetbench_san})
  target_link_options(hetbench_build_flags INTERFACE ${_hetbench_san})
endif()
