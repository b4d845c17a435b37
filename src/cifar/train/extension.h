// extension.h: optional parts of a training run that follow the optimiser,
// a registry of them (like timm's ModelEma beside its train loop).
//
// An extension is turned on by its settings; it runs after every optimiser
// step, may stand in for the trained model wherever the run evaluates or
// saves one (the checkpoint's model, model.safetensors), and keeps its state
// in the checkpoint (under its name, beside the optimisers'), so a resumed
// run continues it exactly. The loop, the session and the checkpoint know
// extensions only through this interface. Adding one is its own file, one
// line in extension.cpp's table and its test.
//
//   ema   --ema DECAY: an exponential moving average of the weights (ema.cpp)
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cifar/core/stateful.h"
#include "cifar/model/models.h"

namespace cifar {

class Extension : public Stateful {
 public:
  // After each optimiser step (a step skipped for inf/NaN gradients included).
  virtual void after_step() = 0;
  // The model evaluated and saved in place of the trained one; null: the trained one.
  virtual ClassifierImpl* shown_model() { return nullptr; }
};

// What an extension is made from: its settings, the model being trained (on
// its device, its state final: fresh, or loaded as the checkpoint's model)
// and a way to build another of the same architecture (on the CPU).
struct ExtensionContext {
  double ema = 0;  // --ema: the decay of the weights' moving average (0: off)
  ClassifierImpl& model;
  std::function<Classifier()> build;
};

struct ExtensionEntry {
  std::string name;  // its archive in a checkpoint's training state
  // The extension, or null when the settings leave it off.
  std::unique_ptr<Extension> (*make)(const ExtensionContext& context) = nullptr;
};

// The entries, in the order they run after a step.
const std::vector<ExtensionEntry>& extension_registry();

// The extensions a run's settings turn on, together.
class Extensions final : public Stateful {
 public:
  explicit Extensions(const ExtensionContext& context);

  void after_step();
  // The model to evaluate and save: the last extension's stand-in, else `trained`.
  ClassifierImpl& shown_model(ClassifierImpl& trained) const;
  bool empty() const { return on_.empty(); }

  // Each under its name; a checkpoint without one that is on cannot be resumed.
  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

 private:
  std::vector<std::pair<std::string, std::unique_ptr<Extension>>> on_;
};

}  // namespace cifar
