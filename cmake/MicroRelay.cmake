# SPDX-License-Identifier: Apache-2.0
#
# micro_relay_model(<target> MODEL <file> [NAME <c_name>] [ARENA_GROUP <group>] [APP_RAM <bytes>]
#                   [OPTIONS <option>...])
#
# Compile a model (.tflite, or .onnx when the onnx and apache-tvm packages are installed: docs/zephyr.md)
# to C with Micro Relay at build time and add the generated C to <target>:
#
#   micro_relay_model(app MODEL model/kws.tflite NAME kws)
#   # src/main.c: #include "kws.h" ... kws_invoke()
#
#   MODEL    the model file; relative paths are from the calling CMakeLists.txt's folder. It may be
#            the OUTPUT of another custom command (a model generated at build time).
#   NAME     the C name (prefix of every generated symbol, header NAME.h); default: the file's stem
#            made into a C identifier. Names are unique within an application.
#   ARENA_GROUP  the models given the same group share one arena, <group>_arena, sized to the largest of
#            theirs (docs/runtime.md: one of them runs at a time). The group's <group>_arena.c and .h are
#            generated once every micro_relay_model() call of the application is made, from the members'
#            NAME.plan.json, in <binary dir>/micro_relay/arena_groups/<group>/, and built into <target> of the
#            group's first member; CONFIG_MICRO_RELAY_ARENA_SECTION places the group's arena.
#   APP_RAM  the RAM the rest of the firmware needs (bytes, or with K/M): the model may take the board's RAM
#            (CONFIG_MICRO_RELAY_RAM_BUDGET_KB when set, else CONFIG_SRAM_SIZE) minus this, passed as
#            --ram-budget: its layers then run layer by layer, the fastest, when that arena fits, and
#            row by row (the smallest arena) when it does not (docs/architecture.md).
#   OPTIONS  more `micro-relay compile` options, e.g. OPTIONS --arena-section .noinit.kws
#            --weights-section .qspi_rodata (default: CONFIG_MICRO_RELAY_ARENA_SECTION, _WEIGHTS_SECTION)
#            (CONFIG_MICRO_RELAY_BACKEND_CMSIS_NN=y adds --kernels cmsis-nn unless OPTIONS has --kernels)
#
# The target (--target) comes from the board's Kconfig unless OPTIONS names one: CONFIG_CPU_CORTEX_M4,
# M7, M33 (with CONFIG_ARMV8_M_DSP) and M55 give the Arm DSP kernels and their scratch; M0, M0+, M3 and an
# M33 without the DSP extension the portable kernels and no DSP scratch; any other core `generic`.
#
# The generator runs from a custom command whose outputs, NAME.c, NAME.h and NAME.plan.json, live in
# <current binary dir>/micro_relay/NAME/. It depends on the model file and on every Python source of
# the generator, so editing either regenerates the C and nothing else does. A custom target,
# micro_relay_model_NAME, makes <target> wait for the header before compiling. The generated C is
# compiled with --no-runtime: the kernels come from the runtime library built once per application
# (the `micro_relay` Zephyr library, CONFIG_MICRO_RELAY=y), whatever the number of models.
#
# Bad input (missing model, a model the compiler rejects) stops the build with the generator's
# one-line message: `error: <what> (<where>)`.
#
# With CONFIG_MICRO_RELAY_BUDGET_CHECK, the generator also holds the model alone (its arena, its weights)
# against the board's CONFIG_SRAM_SIZE / CONFIG_FLASH_SIZE and the Micro Relay budgets: a model that cannot
# fit stops the build there, with the breakdown and a hint, instead of a linker's region overflow.

include_guard(GLOBAL)

# The `micro-relay compile --target` of the core this build is for, from the board's Kconfig (the cores of
# scripts/micro_relay/target/__init__.py; an unknown core is `generic`, portable C that is correct anywhere).
function(micro_relay_target_of_kconfig out)
  if(CONFIG_CPU_CORTEX_M55)
    set(core cortex-m55)
  elseif(CONFIG_CPU_CORTEX_M33 AND CONFIG_ARMV8_M_DSP)
    set(core cortex-m33)
  elseif(CONFIG_CPU_CORTEX_M7)
    set(core cortex-m7)
  elseif(CONFIG_CPU_CORTEX_M4)
    set(core cortex-m4)
  elseif(CONFIG_CPU_CORTEX_M3)
    set(core cortex-m3)
  elseif(CONFIG_CPU_CORTEX_M0PLUS OR CONFIG_CPU_CORTEX_M0)
    set(core cortex-m0plus)
  else()
    set(core generic)
  endif()
  set(${out} ${core} PARENT_SCOPE)
endfunction()

get_filename_component(_micro_relay_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set_property(GLOBAL PROPERTY MICRO_RELAY_ROOT "${_micro_relay_root}")
unset(_micro_relay_root)

# The command prefix that runs this module's own generator sources with the given Python.
function(micro_relay_python_command out_var)
  get_property(root GLOBAL PROPERTY MICRO_RELAY_ROOT)
  if(DEFINED PYTHON_EXECUTABLE)
    set(python "${PYTHON_EXECUTABLE}")
  else()
    find_package(Python3 3.10 REQUIRED COMPONENTS Interpreter)
    set(python "${Python3_EXECUTABLE}")
  endif()
  set(pythonpath "${root}/scripts")
  if(DEFINED ENV{PYTHONPATH} AND NOT "$ENV{PYTHONPATH}" STREQUAL "")
    if(CMAKE_HOST_WIN32)
      set(pythonpath "${pythonpath}\;$ENV{PYTHONPATH}")
    else()
      set(pythonpath "${pythonpath}:$ENV{PYTHONPATH}")
    endif()
  endif()
  set(${out_var} ${CMAKE_COMMAND} -E env "PYTHONPATH=${pythonpath}" "${python}" PARENT_SCOPE)
endfunction()

# The RAM a model may take: the board's (CONFIG_MICRO_RELAY_RAM_BUDGET_KB when set, else CONFIG_SRAM_SIZE, both
# KiB) minus `app_ram` (bytes, or a number with K or M).
function(micro_relay_model_ram target app_ram out_var)
  if(NOT app_ram MATCHES "^([0-9]+)([KkMm]?)$")
    message(FATAL_ERROR "micro_relay_model(${target}): APP_RAM '${app_ram}' is not bytes or a number with K or M")
  endif()
  set(app ${CMAKE_MATCH_1})
  if(CMAKE_MATCH_2 MATCHES "[Kk]")
    math(EXPR app "${app} * 1024")
  elseif(CMAKE_MATCH_2 MATCHES "[Mm]")
    math(EXPR app "${app} * 1048576")
  endif()
  if(CONFIG_MICRO_RELAY_RAM_BUDGET_KB GREATER 0)
    set(board_kb ${CONFIG_MICRO_RELAY_RAM_BUDGET_KB})
  elseif(DEFINED CONFIG_SRAM_SIZE)
    set(board_kb ${CONFIG_SRAM_SIZE})
  else()
    message(FATAL_ERROR "micro_relay_model(${target}): APP_RAM needs the board's RAM (CONFIG_SRAM_SIZE)")
  endif()
  math(EXPR left "${board_kb} * 1024 - ${app}")
  if(left LESS_EQUAL 0)
    message(FATAL_ERROR "micro_relay_model(${target}): APP_RAM ${app_ram} leaves no RAM of the board's "
                        "${board_kb} KiB for the model")
  endif()
  set(${out_var} ${left} PARENT_SCOPE)
endfunction()

function(micro_relay_model target)
  cmake_parse_arguments(PARSE_ARGV 1 MR "" "MODEL;NAME;ARENA_GROUP;APP_RAM" "OPTIONS")
  if(MR_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "micro_relay_model(${target}): unknown arguments: ${MR_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT MR_MODEL)
    message(FATAL_ERROR "micro_relay_model(${target}): MODEL <file> is required")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "micro_relay_model(${target}): no such target")
  endif()
  if(DEFINED ZEPHYR_BASE AND NOT CONFIG_MICRO_RELAY)
    message(FATAL_ERROR "micro_relay_model(${target}): set CONFIG_MICRO_RELAY=y (prj.conf) to build "
                        "the Micro Relay runtime the generated code links with")
  endif()
  if(NOT TARGET micro_relay)
    message(FATAL_ERROR "micro_relay_model(${target}): the Micro Relay runtime library is missing")
  endif()

  get_filename_component(model "${MR_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}")
    get_source_file_property(generated "${model}" GENERATED)
    if(NOT generated)
      # The indented line is printed as is, unwrapped: one line a person or a script can read.
      message(FATAL_ERROR "micro_relay_model(${target}):\n error: model file not found (${model})")
    endif()
  endif()

  if(MR_NAME)
    set(name "${MR_NAME}")
  else()
    get_filename_component(name "${model}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${name}" name)
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "micro_relay_model(${target}): NAME '${name}' is not a C identifier")
  endif()
  if(TARGET micro_relay_model_${name})
    message(FATAL_ERROR "micro_relay_model(${target}): a model named '${name}' already exists in this "
                        "application; give each model its own NAME")
  endif()

  set(options ${MR_OPTIONS})
  if(NOT "--target" IN_LIST options)
    micro_relay_target_of_kconfig(core)
    list(APPEND options --target ${core})
  endif()
  if(CONFIG_MICRO_RELAY_BACKEND_CMSIS_NN AND NOT "--kernels" IN_LIST options)
    list(APPEND options --kernels cmsis-nn)  # the adapters and CMSIS-NN are in the runtime library
  endif()
  if(NOT "--arena-section" IN_LIST options AND NOT "${CONFIG_MICRO_RELAY_ARENA_SECTION}" STREQUAL "")
    list(APPEND options --arena-section "${CONFIG_MICRO_RELAY_ARENA_SECTION}")
  endif()
  if(NOT "--weights-section" IN_LIST options AND NOT "${CONFIG_MICRO_RELAY_WEIGHTS_SECTION}" STREQUAL "")
    list(APPEND options --weights-section "${CONFIG_MICRO_RELAY_WEIGHTS_SECTION}")
  endif()
  if(DEFINED MR_APP_RAM AND NOT "--ram-budget" IN_LIST options)
    micro_relay_model_ram(${target} "${MR_APP_RAM}" model_ram)
    list(APPEND options --ram-budget ${model_ram})
  endif()
  if(CONFIG_MICRO_RELAY_BUDGET_CHECK AND DEFINED DOTCONFIG AND NOT "--budget-config" IN_LIST options)
    # The model alone against the board's memory and the budgets, before any C is written
    # (budget/before_link.py): a model that cannot fit stops here with the breakdown, not at the linker.
    list(APPEND options --budget-config ${DOTCONFIG})  # its CONFIG_BOARD_TARGET names the board
    if(NOT "${CONFIG_MICRO_RELAY_BUDGET_YAML}" STREQUAL "")
      get_filename_component(budget_yaml "${CONFIG_MICRO_RELAY_BUDGET_YAML}" ABSOLUTE
                             BASE_DIR ${APPLICATION_SOURCE_DIR})
      list(APPEND options --budget-yaml ${budget_yaml})
    endif()
  endif()

  get_property(root GLOBAL PROPERTY MICRO_RELAY_ROOT)
  file(GLOB_RECURSE generator_sources CONFIGURE_DEPENDS "${root}/scripts/micro_relay/*.py"
       "${root}/scripts/micro_relay/*.json")
  micro_relay_python_command(python)

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/micro_relay/${name}")
  if(MR_ARENA_GROUP)
    micro_relay_join_arena_group(${target} "${MR_ARENA_GROUP}" ${name} "${out_dir}/${name}.plan.json")
    # the member's files only; the group's come from micro_relay_arena_group() with every member's plan
    list(APPEND options --arena-group "${MR_ARENA_GROUP}" --no-group-files)
  endif()
  set(outputs "${out_dir}/${name}.c" "${out_dir}/${name}.h" "${out_dir}/${name}.plan.json")
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${out_dir}/${name}.c")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${python} -m micro_relay compile "${model}" -o "${out_dir}" --name "${name}" --no-runtime ${options}
    # The generator leaves unchanged files alone; touching them tells the build tool they are current.
    COMMAND ${CMAKE_COMMAND} -E touch ${outputs}
    DEPENDS "${model}" ${generator_sources}
    COMMENT "Micro Relay: compiling ${MR_MODEL} to ${shown}"
    VERBATIM
  )
  add_custom_target(micro_relay_model_${name} DEPENDS ${outputs})
  add_dependencies(${target} micro_relay_model_${name})
  target_sources(${target} PRIVATE "${out_dir}/${name}.c")
  target_include_directories(${target} PRIVATE "${out_dir}")
  set_property(TARGET micro_relay APPEND PROPERTY MICRO_RELAY_MODELS "${name}")
  set_property(TARGET micro_relay APPEND PROPERTY MICRO_RELAY_PLANS "${out_dir}/${name}.plan.json")
endfunction()

# Record a member of an arena group; the first member schedules the group's files for the end of the
# configuration, when every member is known.
function(micro_relay_join_arena_group target group name plan)
  if(NOT group MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "micro_relay_model(${target}): ARENA_GROUP '${group}' is not a C identifier")
  endif()
  get_property(members GLOBAL PROPERTY MICRO_RELAY_ARENA_GROUP_${group})
  if(NOT members)
    cmake_language(EVAL CODE
      "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL micro_relay_arena_group [[${group}]] [[${target}]])")
  endif()
  set_property(GLOBAL APPEND PROPERTY MICRO_RELAY_ARENA_GROUP_${group} ${name})
  set_property(GLOBAL APPEND PROPERTY MICRO_RELAY_ARENA_GROUP_PLANS_${group} "${plan}")
  set_property(TARGET micro_relay APPEND PROPERTY MICRO_RELAY_ARENA_GROUPS "${group}:${name}")
  target_include_directories(${target} PRIVATE "${CMAKE_BINARY_DIR}/micro_relay/arena_groups/${group}")
endfunction()

# The group's arena from its members' plans: GROUP_arena.c in <target>, regenerated when a plan changes.
function(micro_relay_arena_group group target)
  get_property(members GLOBAL PROPERTY MICRO_RELAY_ARENA_GROUP_${group})
  get_property(plans GLOBAL PROPERTY MICRO_RELAY_ARENA_GROUP_PLANS_${group})
  get_property(root GLOBAL PROPERTY MICRO_RELAY_ROOT)
  file(GLOB_RECURSE generator_sources CONFIGURE_DEPENDS "${root}/scripts/micro_relay/*.py")
  micro_relay_python_command(python)
  set(dir "${CMAKE_BINARY_DIR}/micro_relay/arena_groups/${group}")
  set(outputs "${dir}/${group}_arena.c" "${dir}/${group}_arena.h")
  set(section)
  if(NOT "${CONFIG_MICRO_RELAY_ARENA_SECTION}" STREQUAL "")
    set(section --arena-section "${CONFIG_MICRO_RELAY_ARENA_SECTION}")
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${python} -m micro_relay arena-group "${group}" ${plans} -o "${dir}" ${section}
    COMMAND ${CMAKE_COMMAND} -E touch ${outputs}
    DEPENDS ${plans} ${generator_sources}
    COMMENT "Micro Relay: arena group ${group} of ${members}"
    VERBATIM
  )
  add_custom_target(micro_relay_arena_group_${group} DEPENDS ${outputs})
  foreach(member IN LISTS members)
    add_dependencies(micro_relay_arena_group_${group} micro_relay_model_${member})
  endforeach()
  add_dependencies(${target} micro_relay_arena_group_${group})
  target_sources(${target} PRIVATE "${dir}/${group}_arena.c")
  target_include_directories(${target} PRIVATE "${dir}")
endfunction()
