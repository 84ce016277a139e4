# Writes libnrt's GNU ld version script from the export list (docs/abi.md "Symbol versioning").
#
#   cmake -DINPUT=exported_functions.txt -DOUTPUT=libnrt.map -P GenerateVersionScript.cmake
#
# INPUT holds one line per exported function, "<name> <version node> <header>". The nodes and
# their parents are AWS's (NRT_2.0.0, NRT_3.0.0 child of NRT_2.0.0) plus trnsim's extension
# (TRNSIM_1, child of NRT_3.0.0); a line naming another node, or a malformed line, fails the
# build. Names are sorted within each node; everything not listed is local.
cmake_minimum_required(VERSION 3.25)
set(nodes NRT_2.0.0 NRT_3.0.0 TRNSIM_1)
file(STRINGS "${INPUT}" lines)
foreach(node IN LISTS nodes)
  set(names_${node} "")
endforeach()
foreach(line IN LISTS lines)
  if(line MATCHES "^[ \t]*$")
    continue()
  endif()
  if(NOT line MATCHES "^([A-Za-z_][A-Za-z0-9_]*) ([A-Z0-9_.]+) [^ ]+$")
    message(FATAL_ERROR "${INPUT}: malformed line '${line}' (expected '<name> <node> <header>')")
  endif()
  set(name ${CMAKE_MATCH_1})
  set(node ${CMAKE_MATCH_2})
  if(NOT node IN_LIST nodes)
    message(FATAL_ERROR "${INPUT}: ${name} names version node '${node}' (known: ${nodes})")
  endif()
  list(APPEND names_${node} ${name})
endforeach()

set(text "/* Generated from api/exported_functions.txt by cmake/GenerateVersionScript.cmake. */\n")
set(parent "")
foreach(node IN LISTS nodes)
  list(SORT names_${node})
  string(APPEND text "\n${node} {\n  global:\n")
  foreach(name IN LISTS names_${node})
    string(APPEND text "    ${name};\n")
  endforeach()
  if(parent STREQUAL "")
    string(APPEND text "  local:\n    *;\n};\n")
  else()
    string(APPEND text "} ${parent};\n")
  endif()
  set(parent ${node})
endforeach()
# Rewrite only on change, so an unchanged list does not relink libnrt.
file(WRITE "${OUTPUT}.tmp" "${text}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
