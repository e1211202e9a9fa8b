# Writes ${OUT} with the current git sha (12 hex, "-dirty" when the tree has changes), rewriting
# it only when it changes. Run at every build so reports never carry a stale sha.
execute_process(COMMAND git describe --always --dirty=-dirty --abbrev=12 WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT sha)
  set(sha unknown)
endif()
file(WRITE ${OUT}.tmp "#pragma once\n#define NVFP4BENCH_GIT_SHA \"${sha}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
