# mgen_add_program(<name> <sources>...)
#
# Builds an MGEN program (C or C++ defining MGEN_Main) as a module `<name>.so` that
# `mgen run -n N <name>` loads. The program sees both <mgen/mgen.h> and "mgen.h" (NSIM-ACE's
# spelling). C is compiled with -fexceptions so that a run that stops can unwind every rank.
function(mgen_add_program name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE mgen::mgen)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include/mgen)
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fexceptions>)
  set_target_properties(${name} PROPERTIES PREFIX "" SUFFIX ".so" C_STANDARD 11
                                           LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endfunction()
