// Where a kernel came from: one of flashscope's own (built-in, versioned by flashscope's revision)
// or a plugin file, identified by its path, the SHA-256 of its bytes and the plugin's own name and
// version string. One struct for what plugins/ records when it loads a plugin (plugins::Provenance
// adds the side of an ab comparison) and what a report and a plan record (reports/report.h's
// ProvenanceRecord), so that a field added here reaches the report without a copy in between.
#pragma once

#include <string>

namespace flashscope {

struct PluginProvenance {
  bool builtin = false;  // linked into flashscope-worker (our ladder and peers)
  std::string plugin;    // the plugin's own name; "built-in" for flashscope's own kernels
  std::string version;   // the plugin's version string; flashscope's revision for built-in ones
  std::string path;      // the plugin file as loaded (absolute); "" for built-in
  std::string sha256;    // of the plugin file's bytes; "" for built-in

  bool operator==(const PluginProvenance& o) const {
    return builtin == o.builtin && plugin == o.plugin && version == o.version && path == o.path &&
           sha256 == o.sha256;
  }
  bool operator!=(const PluginProvenance& o) const { return !(*this == o); }
};

}  // namespace flashscope
