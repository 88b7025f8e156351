# ctest install.TpuCConsumer: installs the build tree into a fresh prefix, builds
# tests/tpu/consumer_c (C only) against it and runs each TPU example on every chip (each checks
# its own known answers and exits non-zero on a mismatch).
# Inputs: -DSRC=<source dir> -DBIN=<build dir> -DWORK=<scratch dir>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
run(${CMAKE_COMMAND} --install ${BIN} --prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} -S ${SRC}/tests/tpu/consumer_c -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_C_COMPILER=gcc -DCMAKE_PREFIX_PATH=${WORK}/prefix -DEXAMPLES_DIR=${SRC}/examples/tpu)
run(${CMAKE_COMMAND} --build ${WORK}/build -j 2)
file(GLOB examples ${SRC}/examples/tpu/*.c)
foreach(example ${examples})
  get_filename_component(name ${example} NAME_WE)
  foreach(chip bm1684x bm1688 bm1690)
    run(${CMAKE_COMMAND} -E env TILESIM_TPU_CHIP=${chip} ${WORK}/build/${name})
  endforeach()
endforeach()
message("install.TpuCConsumer: built (C only) and ran ${examples}")
