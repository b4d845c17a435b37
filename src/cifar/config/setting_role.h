// setting_role.h: what each saved option of cifar-train is to the run it configures.
//
// Every option in the option tables (option_tables.h) carries one of these (option_spec.h's
// Opt::role, kShapes unless said otherwise). Two checks derive from them,
// never from a list of their own (settings_check.h): --resume compares the
// checkpoint's saved settings with the new ones, and processes started
// together compare theirs before the first collective.
#pragma once

namespace cifar {

enum class SettingRole {
  // Shapes the numbers (rates, schedule, augmentation, evaluation): every
  // process must have the same; a resumed run may change it, and is told.
  kShapes,
  // As kShapes, but a run interrupted mid-epoch cannot continue with another
  // value: with the batch size, the training subset and the seed, the
  // checkpoint's step number says which images the rest of the epoch takes.
  kFixedMidEpoch,
  // What is trained (recipe, model, stem): never changes on resume.
  kFixed,
  // As kShapes, but resolved from what each machine runs natively (--amp
  // auto): processes compare what their machines resolved it to, and a
  // difference is the machines', not the options' (resolve/rank_agreement.h).
  kMachine,
  // This process's own business (paths, threads, device, logging, speed
  // switches that do not change what is learned): not compared.
  kLocal,
};

}  // namespace cifar
