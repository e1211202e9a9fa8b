#!/usr/bin/env bash
# Source this on the GPU machine before running a build carried there from the dev machine:
# points the tests at this checkout and the loader at the toolkit's cuBLASLt and CUPTI.
export NVFP4_SOURCE_DIR=$PWD
for lib in libcublasLt.so.13 libcupti.so.13; do
  dir=$(dirname "$(find / -name "$lib" -not -path '/proc/*' 2>/dev/null | head -1)")
  export LD_LIBRARY_PATH=$dir:${LD_LIBRARY_PATH:-}
done
