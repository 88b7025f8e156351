# ctest install.OutOfTreeConsumer (issue 17 §8, issue 21 §5): the installed package stands alone.
#  1. installs the build tree into a fresh prefix, then MOVES the prefix elsewhere, so nothing may
#     refer back to where it was installed, the build tree or the source tree;
#  2. runs the moved CLI's `tilesim run` (no FILE: the bundled examples, read from
#     <prefix>/share/tilesim) in a scratch folder: exit 0, every example matching its known answer;
#     with share/tilesim/examples hidden the same run must fail naming that folder (the installed CLI
#     never falls back to the source tree);
#  3. checks the docs the error messages cite are installed (share/tilesim/docs);
#  4. configures a copy of tests/install/consumer against the moved prefix with find_package(tilesim)
#     and builds the installed PTO and Ascend C examples there (from share/tilesim/examples) plus one
#     translation unit per installed public header that uses tilesim::Error, then runs each example
#     (every example checks its own results and exits non-zero on a mismatch).
# Inputs: -DSRC=<source dir> -DBIN=<build dir> -DWORK=<scratch dir>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  message("${out}")
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

# 1. install, then move the prefix.
run(${CMAKE_COMMAND} --install ${BIN} --prefix ${WORK}/installed)
file(RENAME ${WORK}/installed ${WORK}/moved)
set(prefix ${WORK}/moved)
set(share ${prefix}/share/tilesim)

# 2. the bundled examples from the moved prefix.
run(${prefix}/bin/tilesim run)
foreach(want "== pto ==" "matches NumPy: yes (bit-exact)" "== linx ==" "matches expected.npy bit for bit"
             "== ascendc ==" "ascendc: OK")
  string(FIND "${run_out}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "installed 'tilesim run' output lacks '${want}':\n${run_out}")
  endif()
endforeach()
file(RENAME ${share}/examples ${share}/examples-hidden)
execute_process(COMMAND ${prefix}/bin/tilesim run RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
file(RENAME ${share}/examples-hidden ${share}/examples)
string(FIND "${err}" "no directory '${share}/examples/" at)
if(NOT rc EQUAL 2 OR at EQUAL -1)
  message(FATAL_ERROR "without share/tilesim/examples, 'tilesim run' must fail (exit 2) naming "
                      "${share}/examples/...; got ${rc}:\n${out}\n${err}")
endif()

# 3. the docs the messages cite.
foreach(doc cli ascendc linx pto pto-instructions tpu getting-started)
  if(NOT EXISTS ${share}/docs/${doc}.md)
    message(FATAL_ERROR "docs/${doc}.md is not installed in ${share}/docs")
  endif()
endforeach()

# 4. an out-of-tree consumer of the moved prefix.
file(COPY ${SRC}/tests/install/consumer DESTINATION ${WORK})
set(all)
foreach(model pto ascendc)
  set(extra)
  if(model STREQUAL "pto")
    set(extra -DHEADERS_DIR=${prefix}/include)
  endif()
  file(GLOB examples ${share}/examples/${model}/*.cpp)
  run(${CMAKE_COMMAND} -S ${WORK}/consumer -B ${WORK}/build-${model} -G Ninja
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
      -DEXAMPLES_DIR=${share}/examples/${model} ${extra})
  run(${CMAKE_COMMAND} --build ${WORK}/build-${model} -j 2)
  foreach(example ${examples})
    get_filename_component(name ${example} NAME_WE)
    run(${WORK}/build-${model}/${name})
  endforeach()
  list(APPEND all ${examples})
endforeach()
message("install.OutOfTreeConsumer: moved prefix ran 'tilesim run'; built and ran ${all}")
