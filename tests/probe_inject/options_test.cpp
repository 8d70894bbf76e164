// The probe's settings table and its parsing (options.h): the defaults, each type's values and bad values,
// unknown names, and the markdown the docs hold.
#include "options.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace synclint::probe::inject {
namespace {

ParsedOptions parse(std::vector<std::string_view> env) { return parse_options(env); }

// The one warning `entry` gives, and that it left the defaults alone.
std::string warning_for(std::string_view entry) {
  const ParsedOptions p = parse({entry});
  EXPECT_EQ(p.options, Options{}) << entry;
  return p.warnings.size() == 1 ? p.warnings[0] : "(" + std::to_string(p.warnings.size()) + " warnings)";
}

TEST(ProbeOptions, AnEmptyEnvironmentGivesTheDefaults) {
  const ParsedOptions p = parse({"PATH=/usr/bin", "HOME=/root"});
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.options, Options{});
  EXPECT_EQ(p.options.first_stretch_ms(), 1000u);
  EXPECT_EQ(p.options.gpu_records, GpuRecords::First);
  EXPECT_EQ(p.options.driver, DriverCalls::Launches);
}

TEST(ProbeOptions, EachDocumentedDefaultIsTheDefault) {
  std::size_t checked = 0;
  for (const Setting& s : settings()) {
    if (s.default_value.empty()) continue;  // unset: said in its meaning
    const std::string entry = std::string(s.name) + "=" + std::string(s.default_value);
    const ParsedOptions p = parse({entry});
    EXPECT_TRUE(p.warnings.empty()) << entry;
    EXPECT_EQ(p.options, Options{}) << entry;
    ++checked;
  }
  EXPECT_GE(checked, 10u);
}

TEST(ProbeOptions, ValuesOfEachType) {
  const Options o = parse({"SYNCLINT_PROBE_SAMPLE=0.5", "SYNCLINT_PROBE_SAMPLE_MS=20", "SYNCLINT_PROBE_DEBUG=true",
                           "SYNCLINT_PROBE_PYTHON_CALLS=0", "SYNCLINT_PROBE_GPU_RECORDS=model", "SYNCLINT_PROBE_DRIVER=all",
                           "SYNCLINT_PROBE_SKIP=+mylib", "SYNCLINT_PROBE_CALLBACK_NS=0", "SYNCLINT_PROBE_RECORD=1",
                           "SYNCLINT_CUPTI_PATH=/x/libcupti.so", "SYNCLINT_PROBE_SYMBOLIZER=none"})
                        .options;
  EXPECT_EQ(o.sample, 0.5);
  EXPECT_EQ(o.sample_ms, 20u);
  EXPECT_EQ(o.first_stretch_ms(), 20u);  // the first stretch follows SAMPLE_MS unless set
  EXPECT_TRUE(o.debug);
  EXPECT_FALSE(o.python_calls);
  EXPECT_EQ(o.gpu_records, GpuRecords::Model);
  EXPECT_EQ(o.driver, DriverCalls::All);
  EXPECT_EQ(o.skip, "+mylib");
  EXPECT_EQ(o.callback_ns, 0u);  // 0 is a value here: no time taken out
  EXPECT_TRUE(o.record);
  EXPECT_EQ(o.cupti_path, "/x/libcupti.so");
  EXPECT_EQ(o.symbolizer, "none");
  EXPECT_EQ(parse({"SYNCLINT_PROBE_FIRST_MS=30", "SYNCLINT_PROBE_SAMPLE_MS=20"}).options.first_stretch_ms(), 30u);
}

TEST(ProbeOptions, AliasesOfTheEnums) {
  EXPECT_EQ(parse({"SYNCLINT_PROBE_GPU_RECORDS=1"}).options.gpu_records, GpuRecords::All);
  EXPECT_EQ(parse({"SYNCLINT_PROBE_GPU_RECORDS=0"}).options.gpu_records, GpuRecords::None);
  EXPECT_EQ(parse({"SYNCLINT_PROBE_GPU_RECORDS=none"}).options.gpu_records, GpuRecords::None);
  EXPECT_EQ(parse({"SYNCLINT_PROBE_DRIVER=0"}).options.driver, DriverCalls::None);
  EXPECT_EQ(parse({"SYNCLINT_PROBE_DRIVER=none"}).options.driver, DriverCalls::None);
  EXPECT_EQ(parse({"SYNCLINT_PROBE_DRIVER=1"}).options.driver, DriverCalls::Launches);
  for (GpuRecords g : {GpuRecords::First, GpuRecords::Model, GpuRecords::All, GpuRecords::None})
    EXPECT_EQ(parse({"SYNCLINT_PROBE_GPU_RECORDS=" + std::string(gpu_records_name(g))}).options.gpu_records, g);
}

TEST(ProbeOptions, AnEmptyValueIsTheSameAsUnset) {
  const ParsedOptions p = parse({"SYNCLINT_PROBE_WINDOW_MS=", "SYNCLINT_PROBE_DIR=", "SYNCLINT_PROBE_DEBUG="});
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.options, Options{});
}

TEST(ProbeOptions, ABadValueIsSaidAndTheDefaultKept) {
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_WINDOW_MS=0"), "SYNCLINT_PROBE_WINDOW_MS=0 is not a whole number of at least 1; using 2000");
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_WINDOW_MS=-5"), "SYNCLINT_PROBE_WINDOW_MS=-5 is not a whole number of at least 1; using 2000");
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_RECORD_MAX=12k"), "SYNCLINT_PROBE_RECORD_MAX=12k is not a whole number of at least 1; using 20000");
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_WINDOW_CALLS=99999999999999999999999"),
            "SYNCLINT_PROBE_WINDOW_CALLS=99999999999999999999999 is not a whole number of at least 1; using 200000");
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_FIRST_MS=0"), "SYNCLINT_PROBE_FIRST_MS=0 is not a whole number of at least 1; using the default");
  for (const char* bad : {"0", "1.5", "abc", "0.5x", "-0.1", "nan"})
    EXPECT_EQ(warning_for(std::string("SYNCLINT_PROBE_SAMPLE=") + bad),
              std::string("SYNCLINT_PROBE_SAMPLE=") + bad + " is not a fraction in (0, 1]; using 0.01");
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_DEBUG=maybe"), "SYNCLINT_PROBE_DEBUG=maybe is not 1 or 0; using 0");
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_GPU_RECORDS=everywhere"),
            "SYNCLINT_PROBE_GPU_RECORDS=everywhere is not model, first, all or none; using first");
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_DRIVER=some"), "SYNCLINT_PROBE_DRIVER=some is not launches, all or none (0); using launches");
  EXPECT_EQ(warning_for("SYNCLINT_PROBE_SYMBOLIZER=gdb"),
            "SYNCLINT_PROBE_SYMBOLIZER=gdb is not addr2line, llvm-symbolizer or none; using the default");
}

TEST(ProbeOptions, AnUnknownProbeNameIsSaidOnceAndOtherNamesAreLeftAlone) {
  const ParsedOptions p = parse({"SYNCLINT_PROBE_FOO=1", "SYNCLINT_PROBE_SAMPLES=0.5", "SYNCLINT_PROBE_KEEP_CALLBACKS=1",
                                 "SYNCLINT_OTHER=1", "CUDA_INJECTION64_PATH=/x.so", "SYNCLINT_PROBE_NOVALUE"});
  ASSERT_EQ(p.warnings.size(), 3u);
  EXPECT_EQ(p.warnings[0], "SYNCLINT_PROBE_FOO is not a setting of the probe; ignored");
  EXPECT_EQ(p.warnings[1], "SYNCLINT_PROBE_SAMPLES is not a setting of the probe; ignored (did you mean SYNCLINT_PROBE_SAMPLE?)");
  EXPECT_EQ(p.warnings[2], "SYNCLINT_PROBE_KEEP_CALLBACKS is not a setting of the probe; ignored");
  EXPECT_EQ(p.options, Options{});
}

TEST(ProbeOptions, TheEnvironArrayIsReadToItsEnd) {
  const char* env[] = {"SYNCLINT_PROBE_TRACE=1", "SYNCLINT_PROBE_DIR=/tmp/out", nullptr};
  const ParsedOptions p = parse_options(env);
  EXPECT_TRUE(p.options.trace);
  EXPECT_EQ(p.options.dir, "/tmp/out");
  EXPECT_EQ(parse_options(static_cast<const char* const*>(nullptr)).options, Options{});
}

TEST(ProbeOptions, TheTableNamesEachSettingOnceWithOneLineOfDocs) {
  std::set<std::string_view> names;
  for (const Setting& s : settings()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_TRUE(s.name.starts_with("SYNCLINT_")) << s.name;
    EXPECT_EQ(find_setting(s.name), &s);
    EXPECT_FALSE(s.doc.empty()) << s.name;
    EXPECT_EQ(s.doc.find_first_of("|\n"), std::string_view::npos) << s.name;  // one markdown table cell
    EXPECT_NE(s.apply, nullptr) << s.name;
  }
  EXPECT_EQ(find_setting("SYNCLINT_PROBE_KEEP_RECORDS"), nullptr);
}

TEST(ProbeOptions, TheMarkdownTableHoldsTheUserSettingsOnly) {
  const std::string md = settings_markdown();
  EXPECT_TRUE(md.starts_with("| setting | default | meaning |\n|---|---|---|\n")) << md;
  EXPECT_NE(md.find("| `SYNCLINT_PROBE_SAMPLE` | `0.01` | fraction of the run traced in full"), std::string::npos) << md;
  EXPECT_NE(md.find("| `SYNCLINT_PROBE_TORCH_OPS` | unset | "), std::string::npos) << md;
  EXPECT_EQ(md.find("SYNCLINT_PROBE_WINDOW_MS"), std::string::npos) << "a diagnostic in the user table";
  std::size_t users = 0, rows = 0;
  for (const Setting& s : settings()) users += s.kind == SettingKind::User;
  for (char c : md) rows += c == '\n';
  EXPECT_EQ(rows, users + 2);
}

}  // namespace
}  // namespace synclint::probe::inject
