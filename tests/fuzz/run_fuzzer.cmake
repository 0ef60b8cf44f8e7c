# Runs one fuzzer (tests/fuzz/CMakeLists.txt) for SECONDS over CORPUS, a copy of SEEDS that
# keeps what earlier runs found. Per input: 10 s and 2 GiB at most, up to 1 MiB long.
file(MAKE_DIRECTORY ${CORPUS} ${ARTIFACTS})
file(COPY ${SEEDS}/ DESTINATION ${CORPUS})
set(args -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=1048576
         -print_final_stats=1 -artifact_prefix=${ARTIFACTS}/)
if(DICT)
  list(APPEND args -dict=${DICT})
endif()
execute_process(COMMAND ${FUZZER} ${args} ${CORPUS} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} found a failing input (exit ${rc}); it is in ${ARTIFACTS}")
endif()
