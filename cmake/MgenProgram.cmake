# mgen_add_program(<name> [MPI] <sources>...)
#
# Builds a program as a module `<name>.so` that `mgen run -n N <name>` loads.
#
# Without MPI: an MGEN program (C or C++ defining MGEN_Main). It sees both <mgen/mgen.h> and
# "mgen.h" (NSIM-ACE's spelling).
#
# With MPI: an unmodified MPI program (defining main), built as mgen-cc builds it: MPICH's
# mpi.h, MGEN_SIMULATED defined (so <mgen/mpix.h> can be included for MPI_Comp), references to
# its own globals bound inside the module (so each rank's private copy uses its own), exit()
# routed to mgen (so one rank's exit ends that rank, not the simulator), and its own copy of the
# libc state a process owns (getopt, strtok, rand, atexit: mgen_rank).
#
# C is compiled with -fexceptions so that a run that stops can unwind every rank.
#
# The same function serves mgen's build tree and the installed package (find_package(mgen
# CONFIG), cmake/mgenConfig.cmake.in): it needs the targets mgen::mgen and mgen::rank, and
# MGEN_MPICH_INCLUDE (MPICH's mpi.h) and MGEN_PROGRAM_NSIM_INCLUDE (the mgen/ header folder).
if(NOT DEFINED MGEN_PROGRAM_NSIM_INCLUDE)
  set(MGEN_PROGRAM_NSIM_INCLUDE ${CMAKE_CURRENT_LIST_DIR}/../wrappers/mgen/include/mgen)
endif()
function(mgen_add_program name)
  cmake_parse_arguments(ARG "MPI" "" "" ${ARGN})
  add_library(${name} MODULE ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE mgen::mgen)
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fexceptions>)
  # Large frames probe each page, so a stack overflow reaches the guard page (see mgen-cc).
  target_compile_options(${name} PRIVATE -fstack-clash-protection)
  set_target_properties(${name} PROPERTIES PREFIX "" SUFFIX ".so" C_STANDARD 11
                                           LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  if(ARG_MPI)
    target_include_directories(${name} SYSTEM PRIVATE ${MGEN_MPICH_INCLUDE})
    target_compile_definitions(${name} PRIVATE MPICH_SKIP_MPICXX MGEN_SIMULATED=1)
    # gcc 12 misreads MPICH's MPI_STATUSES_IGNORE as a zero-sized array.
    target_compile_options(${name} PRIVATE $<$<C_COMPILER_ID:GNU>:-Wno-stringop-overflow>)
    target_link_options(${name} PRIVATE -Wl,-Bsymbolic -Wl,--wrap=exit -Wl,-u,mgen_direct_run -Wl,-e,mgen_direct_run)
    target_link_libraries(${name} PRIVATE mgen::rank)
  else()
    target_include_directories(${name} PRIVATE ${MGEN_PROGRAM_NSIM_INCLUDE})
  endif()
endfunction()
