# SPDX-License-Identifier: Apache-2.0
#
# example_model(<target> KIND <sine|kws> NAME <name> MODEL_VAR <var>)
#
# Generate one of the project's own models at build time (python3 -m micro_relay.examples.write_model),
# with its test vectors: fixed inputs and the reference interpreter's outputs for them, in
# <binary dir>/vectors/<name>_vectors.h (symbols vectors_<name>_*). Sets <var> to the .tflite path, for
# micro_relay_model(). <target> gets the vectors folder on its include path and waits for the header.

function(example_model target)
  cmake_parse_arguments(PARSE_ARGV 1 EX "" "KIND;NAME;MODEL_VAR" "")
  set(model ${CMAKE_CURRENT_BINARY_DIR}/models/${EX_NAME}.tflite)
  set(vectors ${CMAKE_CURRENT_BINARY_DIR}/vectors/${EX_NAME}_vectors.h)
  get_property(root GLOBAL PROPERTY MICRO_RELAY_ROOT)
  file(GLOB_RECURSE generator_sources CONFIGURE_DEPENDS ${root}/scripts/micro_relay/*.py)
  micro_relay_python_command(python)
  add_custom_command(
    OUTPUT ${model} ${vectors}
    COMMAND ${python} -m micro_relay.examples.write_model ${EX_KIND} ${model} --vectors ${vectors}
            --name ${EX_NAME}
    COMMAND ${CMAKE_COMMAND} -E touch ${model} ${vectors}
    DEPENDS ${generator_sources}
    COMMENT "Generating the ${EX_KIND} model '${EX_NAME}' and its reference outputs"
    VERBATIM
  )
  add_custom_target(example_model_${EX_NAME} DEPENDS ${vectors})
  add_dependencies(${target} example_model_${EX_NAME})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/vectors)
  set(${EX_MODEL_VAR} ${model} PARENT_SCOPE)
endfunction()
