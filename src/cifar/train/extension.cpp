// extension.cpp: the table of training extensions, and the set a run has.
#include "cifar/train/extension.h"

#include <fmt/format.h>

#include <stdexcept>

namespace cifar {

ExtensionEntry ema_entry();  // ema.cpp

const std::vector<ExtensionEntry>& extension_registry() {
  // One line per extension.
  static const std::vector<ExtensionEntry> entries{
      ema_entry(),
  };
  return entries;
}

Extensions::Extensions(const ExtensionContext& context) {
  for (const ExtensionEntry& entry : extension_registry()) {
    if (auto on = entry.make(context)) on_.emplace_back(entry.name, std::move(on));
  }
}

void Extensions::after_step() {
  for (auto& [name, extension] : on_) extension->after_step();
}

ClassifierImpl& Extensions::shown_model(ClassifierImpl& trained) const {
  ClassifierImpl* shown = &trained;
  for (const auto& [name, extension] : on_) {
    if (ClassifierImpl* stand_in = extension->shown_model()) shown = stand_in;
  }
  return *shown;
}

void Extensions::save(torch::serialize::OutputArchive& archive) const {
  for (const auto& [name, extension] : on_) {
    torch::serialize::OutputArchive own;
    extension->save(own);
    archive.write(name, own);
  }
}

void Extensions::load(torch::serialize::InputArchive& archive) {
  for (auto& [name, extension] : on_) {
    torch::serialize::InputArchive own;
    if (!archive.try_read(name, own)) {
      throw std::runtime_error(fmt::format(
          "the checkpoint holds no '{}' state: it was trained without --{}; resume it with the "
          "settings it was trained with",
          name, name));
    }
    extension->load(own);
  }
}

}  // namespace cifar
