# trnsim_find_python(): chooses the Python 3 interpreter the build and the tests run, and sets
# TRNSIM_PYTHON and Python3_EXECUTABLE (the variable the tests' CMakeLists use) to it.
#
# The first python3 on PATH is not necessarily one with the packages trnsim's Python parts
# need (a pyenv or venv interpreter without numpy shadows Debian's /usr/bin/python3 on some
# machines), so each candidate is run and must import every module of TRNSIM_PYTHON_MODULES:
#   1. TRNSIM_PYTHON, when set (-DTRNSIM_PYTHON=/path/to/python3): the only candidate;
#   2. Python3_EXECUTABLE, when set on the command line;
#   3. every python3 on PATH, in PATH order;
#   4. /usr/bin/python3 (Debian's, with python3-numpy from scripts/install-deps.sh).
# None fits: a configure error naming what each candidate lacks and scripts/install-deps.sh.
# The choice is cached; reconfigure with -DTRNSIM_PYTHON=... to change it.

set(TRNSIM_PYTHON_MODULES numpy CACHE STRING
    "Python modules the chosen interpreter must import (semicolon-separated)")

# Sets <out> to "" when `interpreter` is a Python 3 that imports every module, else to the
# reason it does not fit.
function(trnsim_python_check interpreter out)
  set(imports "")
  foreach(module IN LISTS TRNSIM_PYTHON_MODULES)
    string(APPEND imports "import ${module}\n")
  endforeach()
  execute_process(
    COMMAND "${interpreter}" -c "import sys\nassert sys.version_info[0] == 3, 'not Python 3'\n${imports}"
    RESULT_VARIABLE result OUTPUT_QUIET ERROR_VARIABLE error)
  if(result EQUAL 0)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  # The last line of the traceback says what is missing ("No module named 'numpy'").
  string(STRIP "${error}" error)
  string(REGEX REPLACE "^.*\n" "" error "${error}")
  if(error STREQUAL "")
    set(error "exit status ${result}")
  endif()
  set(${out} "${error}" PARENT_SCOPE)
endfunction()

function(trnsim_find_python)
  set(candidates "")
  if(TRNSIM_PYTHON)
    list(APPEND candidates "${TRNSIM_PYTHON}")
  else()
    if(Python3_EXECUTABLE)
      list(APPEND candidates "${Python3_EXECUTABLE}")
    endif()
    string(REPLACE ":" ";" path_dirs "$ENV{PATH}")
    foreach(dir IN LISTS path_dirs)
      if(dir AND EXISTS "${dir}/python3" AND NOT IS_DIRECTORY "${dir}/python3")
        list(APPEND candidates "${dir}/python3")
      endif()
    endforeach()
    list(APPEND candidates /usr/bin/python3)
    list(REMOVE_DUPLICATES candidates)
  endif()

  set(rejected "")
  foreach(candidate IN LISTS candidates)
    trnsim_python_check("${candidate}" reason)
    if(reason STREQUAL "")
      set(TRNSIM_PYTHON "${candidate}" CACHE FILEPATH
          "Python 3 interpreter for the build and the tests (must import TRNSIM_PYTHON_MODULES)"
          FORCE)
      set(Python3_EXECUTABLE "${candidate}" CACHE FILEPATH "The Python 3 interpreter" FORCE)
      message(STATUS "Python 3 with ${TRNSIM_PYTHON_MODULES}: ${candidate}")
      return()
    endif()
    string(APPEND rejected "\n  ${candidate}: ${reason}")
  endforeach()
  string(REPLACE ";" ", " modules "${TRNSIM_PYTHON_MODULES}")
  message(FATAL_ERROR
    "No Python 3 interpreter that imports ${modules} was found. Tried:${rejected}\n"
    "Run scripts/install-deps.sh (it installs Debian's python3-numpy for /usr/bin/python3), "
    "or point -DTRNSIM_PYTHON=/path/to/python3 at an interpreter that has them.")
endfunction()
