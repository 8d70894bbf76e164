# Embeds every rules/*.toml into the binary so the catalog ships with synclint itself.
file(GLOB SYNCLINT_RULE_FILES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/rules/*.toml")
list(SORT SYNCLINT_RULE_FILES)
set(SYNCLINT_EMBEDDED_RULES_CPP "${PROJECT_BINARY_DIR}/generated/embedded_rules.cpp")

# Adds the generated source to `target`. A custom command only runs for targets of the directory that
# defines it, so it is declared here, from the directory of the target that compiles its output.
function(synclint_embed_rules target)
  add_custom_command(
    OUTPUT "${SYNCLINT_EMBEDDED_RULES_CPP}"
    COMMAND "${CMAKE_COMMAND}" -DOUT=${SYNCLINT_EMBEDDED_RULES_CPP} "-DFILES=${SYNCLINT_RULE_FILES}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_rules_script.cmake"
    DEPENDS ${SYNCLINT_RULE_FILES} "${PROJECT_SOURCE_DIR}/cmake/embed_rules_script.cmake"
    COMMENT "Embedding the rule catalog"
    VERBATIM)
  target_sources(${target} PRIVATE "${SYNCLINT_EMBEDDED_RULES_CPP}")
endfunction()
