# ctest install.OutOfTreeConsumer: installs the build tree into a fresh prefix, configures
# tests/install/consumer against it with find_package(tilesim), builds the PTO and the Ascend C
# examples there and runs each (every example checks its own results and exits non-zero on a mismatch).
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
set(all)
foreach(model pto ascendc)
  file(GLOB examples ${SRC}/examples/${model}/*.cpp)
  run(${CMAKE_COMMAND} -S ${SRC}/tests/install/consumer -B ${WORK}/build-${model} -G Ninja
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK}/prefix -DEXAMPLES_DIR=${SRC}/examples/${model})
  run(${CMAKE_COMMAND} --build ${WORK}/build-${model} -j 2)
  foreach(example ${examples})
    get_filename_component(name ${example} NAME_WE)
    run(${WORK}/build-${model}/${name})
  endforeach()
  list(APPEND all ${examples})
endforeach()
message("install.OutOfTreeConsumer: built and ran ${all}")
