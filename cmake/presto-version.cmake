# Writes OUT (a header defining PRESTO_VERSION) from `git describe --always --dirty` of SRC,
# run at every build by the presto-version target; "unknown" when SRC is not a git checkout
# (a tarball).
# The file is rewritten only when the version changed, so an unchanged tree rebuilds nothing.
# usage: cmake -DSRC=<source dir> -DOUT=<header> -P presto-version.cmake
set(version "unknown")
find_package(Git QUIET)
# only the module's own repository (.git is a folder, or a file in a worktree): a tarball
# unpacked inside another repository must not take that one's version
if(GIT_FOUND AND EXISTS ${SRC}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty
                  WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE described
                  RESULT_VARIABLE status
                  OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(status EQUAL 0 AND NOT described STREQUAL "")
    set(version "${described}")
  endif()
endif()
set(content "// written by cmake/presto-version.cmake at build time\n#define PRESTO_VERSION \"${version}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUT} "${content}")
endif()
